package share

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// Before a push, the snapshots of the loops pushed are searched for files that are likely
// secrets, because a snapshot holds every untracked file of the worktree: a .env the agent
// wrote is in it even though it was never committed.

// ErrSecrets means a push was refused because snapshots hold likely secrets.
var ErrSecrets = errors.New("snapshots hold likely secrets")

// SecretFinding is one likely secret: a file of a loop's snapshot, from the first iteration
// that holds it.
type SecretFinding struct {
	Loop      string
	Iteration int
	Path      string
	Why       string
}

// secretScanBytes bounds how much of each file is searched for a private key header.
const secretScanBytes = 1 << 20

var privateKeyHeader = textutil.LazyRegexp(`-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----`)

// envTemplates end the names of .env files that are templates, committed by design.
var envTemplates = []string{".example", ".sample", ".template", ".dist"}

// secretName says why a file named base is likely a secret, or "".
func secretName(base string) string {
	switch {
	case strings.HasPrefix(base, ".env") && !hasAnySuffix(base, envTemplates):
		return "an environment file (.env*)"
	case strings.HasSuffix(base, ".pem"):
		return "a PEM file (*.pem)"
	}
	for _, key := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"} {
		if strings.HasPrefix(base, key) && !strings.HasSuffix(base, ".pub") {
			return "an ssh private key (" + key + "*)"
		}
	}
	return ""
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// secretContent says why a file whose content starts with data is likely a secret, or "".
func secretContent(data []byte) string {
	if len(data) > secretScanBytes {
		data = data[:secretScanBytes]
	}
	if privateKeyHeader().Match(data) {
		return "holds a private key"
	}
	return ""
}

// secretScan walks snapshot trees, each subtree and file once however many iterations hold
// it, so scanning every iteration of a loop costs about one scan of what changed.
type secretScan struct {
	r        *gitstore.Repo
	seen     map[gitstore.Hash]bool   // trees already searched
	content  map[gitstore.Hash]string // why a blob's content is a likely secret ("" if not)
	found    []SecretFinding
	reported map[string]bool // loop + path already reported
}

// scanSecrets searches the snapshots of the loops named for likely secrets: files named
// .env*, *.pem or like an ssh private key (id_rsa* and kin, not *.pub), and files whose first
// MiB holds a "-----BEGIN … PRIVATE KEY-----" header. Each file is reported once per loop, at
// the first iteration that holds it. A name may be LOCAL:THEIRS, for loop LOCAL pushed under
// the remote's name THEIRS. With remote set, the iterations that remote already has (as its
// fetched copy refs/loop-remotes/REMOTE/THEIRS says, set by a fetch or a push) are not
// searched again: what is there cannot be taken back, and a push sends what is new.
func scanSecrets(s *loop.Store, names []string, remote string) ([]SecretFinding, error) {
	sc := &secretScan{r: s.Repo, content: map[gitstore.Hash]string{}, reported: map[string]bool{}}
	for _, n := range names {
		name, theirs := splitPushName(n)
		if err := scanLoop(s, sc, name, theirs, remote); err != nil {
			return nil, fmt.Errorf("scan loop %s for secrets: %w", name, err)
		}
	}
	return sc.found, nil
}

// scanLoop searches loop name's iterations, oldest first, after those remote has of it as
// its loop theirs.
func scanLoop(s *loop.Store, sc *secretScan, name, theirs, remote string) error {
	h, err := s.OpenHistory(name)
	if err != nil {
		return err
	}
	var recs []*loop.Iteration
	if err := h.Each(func(rec *loop.Iteration) error { recs = append(recs, rec); return nil }); err != nil {
		return err
	}
	sc.seen = map[gitstore.Hash]bool{} // a loop's findings name its own iterations
	pushed := pushedIteration(s, h, remote, theirs)
	for i := len(recs) - 1; i >= 0; i-- {
		rec := recs[i]
		tree, err := gitstore.ParseHash(rec.Tree)
		switch {
		case err != nil || rec.Number < pushed:
		case rec.Number == pushed:
			err = sc.markKnown(tree) // later iterations search only what changed since
		default:
			err = sc.tree(name, rec.Number, tree, "")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pushedIteration is the last iteration of loop h that remote has as its loop theirs, by
// its fetched copy, when that holds this loop's history; -1 when it has none (or remote is "").
func pushedIteration(s *loop.Store, h *loop.History, remote, theirs string) int {
	theirName := remote + "/" + theirs
	if remote == "" || loop.CheckReadName(theirName) != nil {
		return -1
	}
	_, fetched, err := s.ReadState(theirName)
	if err != nil {
		return -1 // never fetched or pushed there, or not a loop: search everything
	}
	mine, err := h.Get(fetched.Iteration)
	if err != nil || mine.Snapshot != fetched.Snapshot {
		return -1 // another loop of that name (the push will be rejected), or rewritten
	}
	return fetched.Iteration
}

// markKnown marks snapshot tree t, which the remote has, as searched: its subtrees and files
// are not searched again in later iterations. Only trees are read.
func (sc *secretScan) markKnown(t gitstore.Hash) error {
	if sc.seen[t] {
		return nil
	}
	sc.seen[t] = true
	es, err := sc.r.ReadTree(t)
	if err != nil {
		return err
	}
	for _, e := range es {
		switch e.Mode {
		case gitstore.ModeTree:
			err = sc.markKnown(e.Hash)
		case gitstore.ModeFile, gitstore.ModeExec:
			if _, ok := sc.content[e.Hash]; !ok {
				sc.content[e.Hash] = ""
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (sc *secretScan) tree(loop string, iter int, t gitstore.Hash, dir string) error {
	if sc.seen[t] {
		return nil
	}
	sc.seen[t] = true
	es, err := sc.r.ReadTree(t)
	if err != nil {
		return err
	}
	for _, e := range es {
		p := path.Join(dir, e.Name)
		switch e.Mode {
		case gitstore.ModeTree:
			err = sc.tree(loop, iter, e.Hash, p)
		case gitstore.ModeFile, gitstore.ModeExec:
			err = sc.file(loop, iter, e, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (sc *secretScan) file(loop string, iter int, e gitstore.TreeEntry, p string) error {
	why := secretName(e.Name)
	if why == "" {
		known, ok := sc.content[e.Hash]
		if !ok {
			data, err := sc.r.ReadTyped(gitstore.BlobObject, e.Hash)
			if err != nil {
				return err
			}
			known = secretContent(data)
			sc.content[e.Hash] = known
		}
		why = known
	}
	if why != "" && !sc.reported[loop+"\x00"+p] {
		sc.reported[loop+"\x00"+p] = true
		sc.found = append(sc.found, SecretFinding{Loop: loop, Iteration: iter, Path: p, Why: why})
	}
	return nil
}

// maxFindingsShown bounds the files a refused push lists.
const maxFindingsShown = 20

// secretsError is the refusal of a push: one line per file, and the way out.
func secretsError(found []SecretFinding) error {
	var b strings.Builder
	for i, f := range found {
		if i == maxFindingsShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(found)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s: %s (loop %s, iteration %d)", f.Path, f.Why, f.Loop, f.Iteration)
	}
	b.WriteString("\nsnapshots keep every untracked file; if these are not secrets, push with --allow-secrets (they stay in the loop's history either way)")
	return fmt.Errorf("%w: refusing to push %d file(s):%s", ErrSecrets, len(found), b.String())
}
