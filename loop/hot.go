package loop

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// The hot-state cache keeps a copy of state.json per loop under .git/loop/state/, headed by
// the tip it was read from, so the hook reads one small file instead of three objects. The
// ref is the truth: the copy is trusted only when its tip is still the ref's value, its
// checksum matches its content, and it holds a complete state; anything else is a miss, and
// the state is read from the tip commit again and the copy rewritten. Changes never build on
// it: they read the tip commit (Store.update). A third line holds loop.json, which never
// changes in a loop's life: it is kept across updates while it matches the state's loop
// (same name and start time). The file:
//
//	<tip> <checksum>\n<state.json, one line>\n<loop.json, one line>
//
// where checksum is the SHA-256 (hex, first 32 digits) of everything after the first line.
// It catches a damaged or hand-edited copy (say "status":"cancelled" written into it), which
// would otherwise let every stop through while the ref says active; it is no seal against a
// deliberate forger, who could as well move the ref.

func hotStatePath(r *gitstore.Repo, name string) string {
	return filepath.Join(r.LoopDir(), "state", name)
}

// readHotState returns the cached state of loop name when the cache names tip and holds a
// complete state of that loop (see State.check); anything else is a miss, never an error.
func readHotState(r *gitstore.Repo, name string, tip gitstore.Hash) (*State, bool) {
	st, _, ok := readHot(r, name, tip)
	return st, ok
}

// readHot is readHotState that also returns the cache's loop.json line, unparsed (see
// hotConfig), so a reader of both reads the file once.
func readHot(r *gitstore.Repo, name string, tip gitstore.Hash) (*State, []byte, bool) {
	if IsFetched(name) {
		return nil, nil, false // fetched loops are read rarely: no cache
	}
	data, err := os.ReadFile(hotStatePath(r, name))
	if err != nil {
		return nil, nil, false
	}
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || len(head) != hotHeadLen || string(head[:40]) != tip.String() || !hotSumMatches(head[41:], rest) {
		return nil, nil, false
	}
	body, cfgLine, _ := bytes.Cut(rest, []byte("\n"))
	var st State
	if json.Unmarshal(body, &st) != nil || st.check(name) != nil {
		return nil, nil, false
	}
	return &st, cfgLine, true
}

// readHotConfig returns the cached loop.json of the loop whose state is st, if present and
// intact.
func readHotConfig(r *gitstore.Repo, st *State) (*Config, bool) {
	if st.Remote != "" || IsFetched(st.Name) {
		return nil, false
	}
	data, err := os.ReadFile(hotStatePath(r, st.Name))
	if err != nil {
		return nil, false
	}
	head, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || len(head) != hotHeadLen || !hotSumMatches(head[41:], rest) {
		return nil, false
	}
	_, cfgLine, _ := bytes.Cut(rest, []byte("\n"))
	return hotConfig(cfgLine, st)
}

// hotSumLen is how many hex digits of the content's SHA-256 the first line holds, and
// hotHeadLen that line's length: the tip, a space, the checksum.
const (
	hotSumLen  = 32
	hotHeadLen = 40 + 1 + hotSumLen
)

// hotSum is the checksum of the cache's content (everything after its first line).
func hotSum(content []byte) [hotSumLen]byte {
	sum := sha256.Sum256(content)
	var out [hotSumLen]byte
	hex.Encode(out[:], sum[:hotSumLen/2])
	return out
}

// hotSumMatches reports whether sum is the checksum of content.
func hotSumMatches(sum, content []byte) bool {
	want := hotSum(content)
	return bytes.Equal(sum, want[:])
}

// hotConfig parses the cache's loop.json line, trusted only when it is the config of the
// loop whose state is st (same name and start time: loop.json never changes in a loop's life).
func hotConfig(line []byte, st *State) (*Config, bool) {
	if st.Remote != "" || len(line) == 0 {
		return nil, false
	}
	var cfg Config
	if json.Unmarshal(line, &cfg) != nil || cfg.Name != st.Name || !cfg.StartedAt.Equal(st.StartedAt) {
		return nil, false
	}
	return &cfg, true
}

// writeHotState refreshes the cache, keeping a cached loop.json of the same loop when cfg is
// nil; failure only costs speed, so it is said once (see warnOnce) and nothing fails.
func writeHotState(r *gitstore.Repo, name string, tip gitstore.Hash, st *State, cfg *Config) {
	if IsFetched(name) {
		return
	}
	if cfg == nil {
		cfg, _ = readHotConfig(r, st)
	}
	body, err := json.Marshal(st)
	if err != nil {
		return
	}
	if cfg != nil {
		if c, err := json.Marshal(cfg); err == nil {
			body = append(append(body, '\n'), c...)
		}
	}
	sum := hotSum(body)
	data := make([]byte, 0, hotHeadLen+1+len(body))
	data = append(append(append(append(data, tip.String()...), ' '), sum[:]...), '\n')
	data = append(data, body...)
	err = gitstore.WriteFileAtomic(hotStatePath(r, name), data)
	warnOnce("the hot-state cache", err, "the loop's state is read from its ref instead, a little slower")
}

// activePointerPath is the file naming the active loop of r's worktree. It lives in the
// worktree's own git dir, so each linked worktree has its own and `git worktree remove`
// takes it away with the worktree.
func activePointerPath(gitDir string) string {
	return filepath.Join(gitDir, "loop", "active")
}

// activeName returns the loop name recorded in r's worktree pointer, or "" when there is
// none. The pointer is a cache: it may name a loop that has ended, is gone, or is no valid
// name at all; FindActive checks it and drops a bad one.
func activeName(r *gitstore.Repo) (string, error) {
	return readPointer(r.GitDir)
}

// readPointer reads the active-loop pointer in gitDir: "" when there is none.
func readPointer(gitDir string) (string, error) {
	data, err := os.ReadFile(activePointerPath(gitDir))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read active loop pointer: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

func setActive(r *gitstore.Repo, name string) error {
	if err := gitstore.WriteFileAtomic(activePointerPath(r.GitDir), []byte(name+"\n")); err != nil {
		return fmt.Errorf("record active loop: %w", err)
	}
	return nil
}

// clearActive removes the pointer if it still names name.
func clearActive(r *gitstore.Repo, name string) {
	if cur, err := activeName(r); err == nil && cur == name {
		_ = os.Remove(activePointerPath(r.GitDir))
	}
}

// ActiveAt names the loop active in the worktree containing dir, or "" when there is none or
// dir is in no repository. It reads only the worktree's pointer file: the hook's idle path.
func ActiveAt(dir string) (string, error) {
	_, gitDir, err := gitstore.FindGitDir(dir)
	if err != nil {
		return "", nil
	}
	return readPointer(gitDir)
}
