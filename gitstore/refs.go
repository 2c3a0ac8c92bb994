package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Errors returned by the ref functions.
var (
	// ErrRefChanged means a ref's current value is not the expected old value: another process
	// moved it first. Re-read the ref and retry.
	ErrRefChanged = errors.New("ref changed concurrently")
	// ErrRefLocked means a ref's lock file stayed held past the retry budget. The wrapping error
	// names the lock file; if no git process is running it is stale and can be removed.
	ErrRefLocked = errors.New("ref is locked")
	// ErrRefNotFound means the ref does not exist (for a symbolic ref: its target does not).
	ErrRefNotFound = errors.New("ref not found")
	// ErrRefBroken means the ref's loose file holds neither an object name nor a symbolic
	// ref; git ignores such a ref, and cannot update it until the file is removed.
	ErrRefBroken = errors.New("ref file is broken")
)

// Ref is a ref's full name and the object it points to.
type Ref struct {
	Name string
	Hash Hash
}

// symrefMaxDepth is how many symbolic refs ReadRef follows, as git's SYMREF_MAXDEPTH.
const symrefMaxDepth = 5

// ReadRef returns the object a ref points to. name is a full ref name ("refs/loop/x") or a
// pseudo-ref such as "HEAD". A loose ref file wins over packed-refs; symbolic refs are followed.
// Refs under refs/worktree/, refs/bisect/ and refs/rewritten/ and pseudo-refs are the worktree's
// own (in GitDir); all others are shared (in CommonDir).
func (r *Repo) ReadRef(name string) (Hash, error) {
	if err := checkReadableName(name); err != nil {
		return ZeroHash, fmt.Errorf("read ref: %w", err)
	}
	cur := name
	for depth := 0; ; depth++ {
		h, target, err := r.readRawRef(cur)
		if err != nil {
			if cur != name {
				return ZeroHash, fmt.Errorf("read ref %s (via symbolic ref %s): %w", cur, name, err)
			}
			return ZeroHash, fmt.Errorf("read ref %s: %w", name, err)
		}
		if target == "" {
			return h, nil
		}
		if depth >= symrefMaxDepth {
			return ZeroHash, fmt.Errorf("read ref %s: symbolic refs nested more than %d deep", name, symrefMaxDepth)
		}
		if err := checkReadableName(target); err != nil {
			return ZeroHash, fmt.Errorf("read ref %s: symbolic ref %s points to a bad name: %w", name, cur, err)
		}
		cur = target
	}
}

// ListRefs returns every ref whose full name starts with prefix ("refs/loop/"), loose and
// packed (a loose ref wins over a packed one of the same name), sorted by name. Symbolic refs
// are listed with the value of their target; broken or dangling ones are left out, as git does.
func (r *Repo) ListRefs(prefix string) ([]Ref, error) {
	return r.listRefs(prefix, nil)
}

// listRefs is ListRefs noting the names of broken loose refs in broken, when not nil.
func (r *Repo) listRefs(prefix string, broken *[]string) ([]Ref, error) {
	if !strings.HasPrefix(prefix, "refs/") && !strings.HasPrefix("refs/", prefix) {
		return nil, nil // only refs/ is listed; pseudo-refs such as HEAD are not
	}
	var loose []Ref
	start := "refs/"
	if i := strings.LastIndexByte(prefix, '/'); i >= len(start) {
		start = prefix[:i+1]
	}
	if start == "refs/" && r.GitDir != r.CommonDir {
		if err := r.walkLoose(r.CommonDir, "refs/", prefix, true, &loose, broken); err != nil {
			return nil, err
		}
		for _, d := range perWorktreeDirs {
			if strings.HasPrefix(d, prefix) || strings.HasPrefix(prefix, d) {
				if err := r.walkLoose(r.GitDir, d, prefix, false, &loose, broken); err != nil {
					return nil, err
				}
			}
		}
	} else {
		if err := r.walkLoose(r.refBase(start), start, prefix, false, &loose, broken); err != nil {
			return nil, err
		}
	}
	packed, err := r.readPackedRefs()
	if err != nil {
		return nil, err
	}
	var fromPacked []Ref
	if packed != nil {
		if fromPacked, err = listPacked(packed, prefix); err != nil {
			return nil, fmt.Errorf("list refs: %s: %w", r.packedRefsPath(), err)
		}
	}
	if len(loose) == 0 {
		return fromPacked, nil
	}
	seen := make(map[string]bool, len(loose))
	for _, ref := range loose {
		seen[ref.Name] = true
	}
	out := loose
	for _, ref := range fromPacked {
		if !seen[ref.Name] {
			out = append(out, ref)
		}
	}
	slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// perWorktreeDirs are the ref hierarchies each worktree keeps in its own GitDir.
var perWorktreeDirs = []string{"refs/bisect/", "refs/rewritten/", "refs/worktree/"}

// walkLoose appends the loose refs under base/dir whose names start with prefix. With
// skipPerWorktree the per-worktree hierarchies under dir are left out (they are read from
// GitDir instead). Files that vanish while walking are ignored.
func (r *Repo) walkLoose(base, dir, prefix string, skipPerWorktree bool, out *[]Ref, broken *[]string) error {
	entries, err := os.ReadDir(filepath.Join(base, filepath.FromSlash(dir)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
			return nil
		}
		return fmt.Errorf("list refs in %s: %w", filepath.Join(base, dir), err)
	}
	for _, e := range entries {
		name := dir + e.Name()
		if e.IsDir() {
			sub := name + "/"
			if !strings.HasPrefix(sub, prefix) && !strings.HasPrefix(prefix, sub) {
				continue
			}
			if skipPerWorktree && slices.Contains(perWorktreeDirs, sub) {
				continue
			}
			if err := r.walkLoose(base, sub, prefix, skipPerWorktree, out, broken); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(name, prefix) || strings.HasSuffix(name, lockSuffix) || CheckRefName(name) != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join(base, filepath.FromSlash(name)))
		if err != nil {
			continue // vanished, or a directory after all
		}
		h, target, err := parseLooseRef(data)
		if err != nil {
			if broken != nil {
				*broken = append(*broken, name)
			}
			continue // broken: git warns and ignores it
		}
		if target != "" {
			if h, err = r.ReadRef(name); err != nil {
				continue // dangling symbolic ref
			}
		}
		*out = append(*out, Ref{Name: name, Hash: h})
	}
	return nil
}

func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// UpdateRef moves ref name from oldHash to newHash the way git's files backend does, so it is
// safe against concurrent git commands and other git-loop processes:
//
//   - it creates <name>.lock exclusively (as a hard link of an owner record, see owner.go),
//     retrying with git's jittered backoff while another process holds it, and fails with
//     ErrRefLocked after about a second (or the repository's core.filesRefLockTimeout). A
//     lock whose owner record names a process of this host that is gone is taken over at
//     once; so is a lock under refs/loop/ that no live process is known to hold and that is
//     older than staleRefLockAge. Any other lock — git's own carry no owner — is waited for;
//   - holding the lock it reads the current value (loose ref, else packed-refs) and fails with
//     ErrRefChanged unless it equals oldHash (ZeroHash: the ref must not exist yet);
//   - it writes "<hex>\n" to the lock file and fsyncs it, appends a line to the ref's reflog
//     (logs/<name>, created if missing, as `git reflog` reads it), and renames the lock over the
//     ref. If HEAD points to the ref, HEAD's reflog gets the line too.
//
// A newHash equal to the current value writes nothing, like git. A ZeroHash newHash deletes the
// ref (loose file, packed-refs entry and reflog). Symbolic refs are not updated through.
func (r *Repo) UpdateRef(name string, newHash, oldHash Hash, reflogMsg string) error {
	if err := checkReadableName(name); err != nil {
		return fmt.Errorf("update ref: %w", err)
	}
	path := r.refPath(name)
	lk, err := acquireLock(path, r.refLockOptions(name))
	if err != nil {
		var held *errLockHeld
		if errors.As(err, &held) {
			return fmt.Errorf("update ref %s: %w: %v", name, ErrRefLocked, held)
		}
		if msg := r.refNameConflict(name); msg != "" {
			return fmt.Errorf("update ref %s: %s", name, msg)
		}
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	committed := false
	defer func() {
		if !committed {
			lk.rollback()
		}
	}()

	cur, exists, err := r.readRefLocked(name, path)
	if err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	switch {
	case oldHash.IsZero() && exists:
		return fmt.Errorf("update ref %s: %w: expected it not to exist, but it points to %s", name, ErrRefChanged, cur)
	case !oldHash.IsZero() && !exists:
		return fmt.Errorf("update ref %s: %w: expected %s, but it does not exist", name, ErrRefChanged, oldHash)
	case cur != oldHash:
		return fmt.Errorf("update ref %s: %w: expected %s, but it points to %s", name, ErrRefChanged, oldHash, cur)
	}
	if newHash.IsZero() {
		if !exists {
			return nil
		}
		return r.deleteRefLocked(name, path, lk)
	}
	if exists && cur == newHash {
		return nil // git writes neither the ref nor its reflog
	}
	if !exists {
		if msg := r.refNameConflict(name); msg != "" {
			return fmt.Errorf("update ref %s: %s", name, msg)
		}
	}
	if !r.HasObject(newHash) {
		return fmt.Errorf("update ref %s: trying to write ref with nonexistent object %s", name, newHash)
	}
	var buf [41]byte
	newHash.appendHex(buf[:0])
	buf[40] = '\n'
	if err := lk.write(buf[:], true); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	line := r.reflogLine(cur, newHash, reflogMsg, time.Now())
	if err := appendReflog(r.reflogPath(name), line); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	if name != "HEAD" && r.headPointsTo(name) {
		if err := appendReflog(r.reflogPath("HEAD"), line); err != nil {
			return fmt.Errorf("update ref %s: %w", name, err)
		}
	}
	StallAt("ref-locked")
	committed = true
	if err := lk.commit(); err != nil {
		return fmt.Errorf("update ref %s: %w", name, err)
	}
	return nil
}

// readRefLocked reads the current value of a ref whose lock is held: the loose file, else
// packed-refs. A directory where the loose file would be counts as absent.
func (r *Repo) readRefLocked(name, path string) (Hash, bool, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		h, target, perr := parseLooseRef(data)
		if perr != nil {
			return ZeroHash, false, fmt.Errorf("%s is broken (%v); fix or remove it", path, perr)
		}
		if target != "" {
			return ZeroHash, false, fmt.Errorf("%s is a symbolic ref to %s; update %s instead", name, target, target)
		}
		return h, true, nil
	case errors.Is(err, fs.ErrNotExist) || isDirErr(path, err):
	default:
		return ZeroHash, false, err
	}
	if !isPackable(name) {
		return ZeroHash, false, nil
	}
	packed, err := r.readPackedRefs()
	if err != nil {
		return ZeroHash, false, err
	}
	h, ok, err := packedLookup(packed, name)
	if err != nil {
		return ZeroHash, false, fmt.Errorf("%s: %w", r.packedRefsPath(), err)
	}
	return h, ok, nil
}

func isDirErr(path string, err error) bool {
	if err == nil {
		return false
	}
	fi, serr := os.Stat(path)
	return serr == nil && fi.IsDir()
}

// deleteRefLocked deletes a ref whose lock is held, the way git does: the packed-refs entry
// first (under packed-refs.lock), then the loose file, the reflog and empty parent directories.
func (r *Repo) deleteRefLocked(name, path string, lk *lockFile) error {
	if isPackable(name) {
		if err := r.deletePackedRef(name); err != nil {
			return fmt.Errorf("delete ref %s: %w", name, err)
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if !isDirErr(path, err) {
			return fmt.Errorf("delete ref %s: %w", name, err)
		}
	}
	logPath := r.reflogPath(name)
	os.Remove(logPath)
	lk.rollback() // release the lock before pruning the directory it is in
	removeEmptyParents(path, filepath.Join(r.refBase(name), "refs"))
	removeEmptyParents(logPath, filepath.Join(r.refBase(name), "logs", "refs"))
	return nil
}

// removeEmptyParents removes the empty directories between path and stop (exclusive).
func removeEmptyParents(path, stop string) {
	for dir := filepath.Dir(path); len(dir) > len(stop) && strings.HasPrefix(dir, stop); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			return
		}
	}
}

// refNameConflict returns git's message when name cannot be created because an existing ref is
// a prefix of it ("refs/loop/x" blocks "refs/loop/x/y") or lives under it. Empty directories in
// the way are removed, as git does.
func (r *Repo) refNameConflict(name string) string {
	for i := len("refs/"); i < len(name); i++ {
		if name[i] != '/' {
			continue
		}
		parent := name[:i]
		if _, _, err := r.readRawRef(parent); err == nil || !errors.Is(err, ErrRefNotFound) {
			return fmt.Sprintf("'%s' exists; cannot create '%s'", parent, name)
		}
	}
	path := r.refPath(name)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		removeEmptyDirs(path)
		if _, err := os.Stat(path); err == nil {
			if refs, _ := r.ListRefs(name + "/"); len(refs) > 0 {
				return fmt.Sprintf("'%s' exists; cannot create '%s'", refs[0].Name, name)
			}
			return fmt.Sprintf("there is a non-empty directory '%s' blocking reference '%s'", path, name)
		}
	}
	if isPackable(name) {
		if packed, err := r.readPackedRefs(); err == nil {
			if child := packedChild(packed, name); child != "" {
				return fmt.Sprintf("'%s' exists; cannot create '%s'", child, name)
			}
		}
	}
	return ""
}

// removeEmptyDirs removes dir and its subdirectories if they hold no files.
func removeEmptyDirs(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() {
			removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}

// headPointsTo reports whether this worktree's HEAD is a symbolic ref to name.
func (r *Repo) headPointsTo(name string) bool {
	_, target, err := r.readRawRef("HEAD")
	return err == nil && target == name
}

// refLockTimeoutFor is core.filesRefLockTimeout (milliseconds, negative: forever) when set,
// else refLockTimeout.
func (r *Repo) refLockTimeoutFor() time.Duration {
	if r.Config != nil && r.Config.Has("core", "", "filesreflocktimeout") {
		if ms, err := ParseInt(r.Config.Get("core", "", "filesreflocktimeout")); err == nil {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return refLockTimeout
}

// readRawRef reads one ref without following symbolic refs: the loose file, else packed-refs.
// It returns the target's name for a symbolic ref.
func (r *Repo) readRawRef(name string) (Hash, string, error) {
	path := r.refPath(name)
	data, err := os.ReadFile(path)
	if err == nil {
		h, target, perr := parseLooseRef(data)
		if perr != nil {
			return ZeroHash, "", &brokenRefError{path: path, why: perr}
		}
		return h, target, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) && !isDirErr(path, err) {
		return ZeroHash, "", err
	}
	if isPackable(name) {
		packed, err := r.readPackedRefs()
		if err != nil {
			return ZeroHash, "", err
		}
		h, ok, err := packedLookup(packed, name)
		if err != nil {
			return ZeroHash, "", fmt.Errorf("%s: %w", r.packedRefsPath(), err)
		}
		if ok {
			return h, "", nil
		}
	}
	return ZeroHash, "", ErrRefNotFound
}

// parseLooseRef parses a loose ref file: 40 hex digits followed by whitespace or the end, or
// "ref:" and a symbolic ref's target.
func parseLooseRef(data []byte) (Hash, string, error) {
	if rest, ok := bytes.CutPrefix(data, []byte("ref:")); ok {
		target := string(bytes.TrimSpace(rest))
		if target == "" {
			return ZeroHash, "", errors.New("empty symbolic ref")
		}
		return ZeroHash, target, nil
	}
	h, ok := parseHex40(data)
	if !ok || (len(data) > 40 && !isSpace(data[40])) {
		return ZeroHash, "", fmt.Errorf("not an object name: %q", truncate(data, 60))
	}
	return h, "", nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseHex40 parses the first 40 bytes of b as a hex object name (either case, as git).
func parseHex40(b []byte) (Hash, bool) {
	var h Hash
	if len(b) < 40 {
		return h, false
	}
	for i := range h {
		hi, ok1 := unhex(b[2*i])
		lo, ok2 := unhex(b[2*i+1])
		if !ok1 || !ok2 {
			return ZeroHash, false
		}
		h[i] = hi<<4 | lo
	}
	return h, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// appendHex appends the 40-digit lower-case hex form of h.
func (h Hash) appendHex(b []byte) []byte {
	const digits = "0123456789abcdef"
	for _, c := range h {
		b = append(b, digits[c>>4], digits[c&15])
	}
	return b
}

// refPath is the loose file of a ref, in GitDir for per-worktree refs and pseudo-refs and in
// CommonDir for the rest (git's files_ref_path).
func (r *Repo) refPath(name string) string {
	return filepath.Join(r.refBase(name), filepath.FromSlash(name))
}

// reflogPath is the reflog of a ref (git's files_reflog_path).
func (r *Repo) reflogPath(name string) string {
	return filepath.Join(r.refBase(name), "logs", filepath.FromSlash(name))
}

func (r *Repo) refBase(name string) string {
	if isPerWorktreeRef(name) || isPseudorefSyntax(name) {
		return r.GitDir
	}
	return r.CommonDir
}

func isPerWorktreeRef(name string) bool {
	for _, d := range perWorktreeDirs {
		if strings.HasPrefix(name, d) {
			return true
		}
	}
	return false
}

// isPackable reports whether a ref can live in packed-refs (shared refs/ names only).
func isPackable(name string) bool {
	return strings.HasPrefix(name, "refs/") && !isPerWorktreeRef(name)
}

// isPseudorefSyntax reports whether name looks like HEAD, ORIG_HEAD or FETCH_HEAD: git's
// is_pseudoref_syntax (upper case letters, '-' and '_').
func isPseudorefSyntax(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('A' <= c && c <= 'Z') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// checkReadableName accepts what ReadRef and UpdateRef take: a pseudo-ref such as HEAD, or a
// valid ref name under refs/.
func checkReadableName(name string) error {
	if isPseudorefSyntax(name) {
		return nil
	}
	if err := CheckRefName(name); err != nil {
		return err
	}
	if !strings.HasPrefix(name, "refs/") {
		return fmt.Errorf("%q is not a full ref name (want refs/... or HEAD)", name)
	}
	return nil
}

// CheckRefName checks name against git's ref name rules, as `git check-ref-format <name>` does
// (see git-check-ref-format(1)): at least two slash-separated components; no component empty,
// starting with '.' or ending in ".lock"; no "..", "@{", control characters, space, ':', '?',
// '[', '\', '^', '~' or '*'; not ending in '/' or '.'; not "@". The error names the offending
// part. Use it on "refs/loop/"+name to validate a user-supplied name as a ref component.
func CheckRefName(name string) error {
	bad := func(why string) error { return fmt.Errorf("invalid ref name %q: %s", name, why) }
	if name == "" {
		return bad("it is empty")
	}
	if name == "@" {
		return bad(`"@" alone is not allowed`)
	}
	components := 0
	for rest := name; ; {
		end := strings.IndexByte(rest, '/')
		comp := rest
		if end >= 0 {
			comp = rest[:end]
		}
		if comp == "" {
			switch {
			case end < 0:
				return bad("it ends with '/'")
			case len(rest) == len(name):
				return bad("it starts with '/'")
			default:
				return bad(`it contains "//" (an empty component)`)
			}
		}
		if err := checkRefComponent(comp); err != "" {
			return bad(fmt.Sprintf("component %q %s", comp, err))
		}
		components++
		if end < 0 {
			break
		}
		rest = rest[end+1:]
	}
	if name[len(name)-1] == '.' {
		return bad("it ends with '.'")
	}
	if components < 2 {
		return bad("it has a single component; use a full name such as refs/heads/" + name)
	}
	return nil
}

// checkRefComponent returns why a non-empty component is invalid, or "".
func checkRefComponent(c string) string {
	var last byte
	for i := 0; i < len(c); i++ {
		ch := c[i]
		switch {
		case ch < 0x20 || ch == 0x7f:
			return fmt.Sprintf("contains control character %q", ch)
		case ch == ' ' || ch == ':' || ch == '?' || ch == '[' || ch == '\\' || ch == '^' || ch == '~' || ch == '*':
			return fmt.Sprintf("contains %q", ch)
		case ch == '.' && last == '.':
			return `contains ".."`
		case ch == '{' && last == '@':
			return `contains "@{"`
		}
		last = ch
	}
	if c[0] == '.' {
		return "starts with '.'"
	}
	if strings.HasSuffix(c, lockSuffix) {
		return `ends with ".lock"`
	}
	return ""
}

// RefPath is the loose file of ref name, where git keeps it until it packs it.
func (r *Repo) RefPath(name string) string { return r.refPath(name) }

// ListRefsBroken is ListRefs that also returns the names of the loose refs under prefix
// whose files are broken (which ListRefs leaves out, as git does).
func (r *Repo) ListRefsBroken(prefix string) ([]Ref, []string, error) {
	var broken []string
	refs, err := r.listRefs(prefix, &broken)
	return refs, broken, err
}

// ReflogValues returns the values ref name was given, as its reflog records them, newest
// first (duplicates kept); nil when it has no reflog.
func (r *Repo) ReflogValues(name string) []Hash {
	data, err := os.ReadFile(r.reflogPath(name))
	if err != nil {
		return nil
	}
	var out []Hash
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) < 82 || line[40] != ' ' {
			continue
		}
		if h, ok := parseHex40(line[41:]); ok && !h.IsZero() {
			out = append(out, h)
		}
	}
	slices.Reverse(out)
	return out
}

// brokenRefError is a loose ref file that holds neither an object name nor a symbolic ref.
type brokenRefError struct {
	path string
	why  error
}

func (e *brokenRefError) Error() string {
	return fmt.Sprintf("%s is broken (%v); fix or remove it", e.path, e.why)
}

func (e *brokenRefError) Unwrap() error { return ErrRefBroken }

// BrokenRefReason is why the loose ref file err names is broken ("not an object name:
// …"), when err is ErrRefBroken; "" otherwise.
func BrokenRefReason(err error) string {
	var b *brokenRefError
	if errors.As(err, &b) {
		return b.why.Error()
	}
	return ""
}
