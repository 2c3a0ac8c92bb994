package snapshots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/snapshots/ignore"
)

// node is one directory of the snapshot being built.
type node struct {
	rel   string // slash-separated path from the worktree root; "" for the root
	files []*fileEntry
	dirs  []*node
}

// fileEntry is one non-directory entry: a file, a symlink or a gitlink.
type fileEntry struct {
	name string
	rel  string
	mode uint32
	hash gitstore.Hash
	stat fileStat
}

type snapshotter struct {
	repo      *gitstore.Repo
	tracked   *trackedIndex
	cache     *statCache
	newCache  *statCache
	trustMode bool // core.fileMode
	recent    time.Time

	mu       sync.Mutex // guards pending, newCache, count and err
	pending  []*fileEntry
	count    int
	err      error
	filtered atomic.Bool
}

func newSnapshotter(r *gitstore.Repo) (*snapshotter, error) {
	idx, err := r.ReadIndex()
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", r.WorkTree, err)
	}
	cache := loadStatCache(CachePath(r))
	if !cache.root.IsZero() && !r.HasObject(cache.root) {
		cache = newStatCache() // objects were pruned: cached names may be gone too
	}
	s := &snapshotter{
		repo:      r,
		tracked:   newTrackedIndex(idx),
		cache:     cache,
		newCache:  newStatCache(),
		trustMode: r.Config.Bool("core", "", "filemode", true),
		recent:    time.Now().Add(-2 * time.Second),
	}
	if autocrlf := strings.ToLower(r.Config.Get("core", "", "autocrlf")); autocrlf == "true" || autocrlf == "input" {
		s.filtered.Store(true)
	}
	return s, nil
}

// walk reads the worktree in parallel and returns the root node; file entries whose content
// must be read are queued in s.pending.
func (s *snapshotter) walk() (*node, error) {
	m, err := s.globalIgnores()
	if err != nil {
		return nil, err
	}
	root := &node{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0)+2)
	var visit func(n *node, m *ignore.Matcher, excluded bool)
	visit = func(n *node, m *ignore.Matcher, excluded bool) {
		defer wg.Done()
		sem <- struct{}{}
		subs, err := s.readDir(n, m, excluded)
		<-sem
		if err != nil {
			s.fail(err)
			return
		}
		for _, sub := range subs {
			wg.Add(1)
			go visit(sub.node, sub.matcher, sub.excluded)
		}
	}
	wg.Add(1)
	visit(root, m, false)
	wg.Wait()
	if s.err != nil {
		return nil, s.err
	}
	return root, nil
}

func (s *snapshotter) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
}

// globalIgnores loads core.excludesFile and info/exclude (from the common dir).
func (s *snapshotter) globalIgnores() (*ignore.Matcher, error) {
	var lists [][]ignore.Pattern
	for _, path := range []string{s.excludesFile(), filepath.Join(s.repo.CommonDir, "info", "exclude")} {
		if path == "" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("snapshot: read ignore file %q: %w", path, err)
		}
		lists = append(lists, ignore.Parse(data, ""))
	}
	return ignore.NewMatcher(lists...), nil
}

// excludesFile is core.excludesFile, or git's default $XDG_CONFIG_HOME/git/ignore.
func (s *snapshotter) excludesFile() string {
	if p := s.repo.Config.Get("core", "", "excludesfile"); p != "" {
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			home, _ := os.UserHomeDir()
			return filepath.Join(home, rest)
		}
		return p
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		xdg = filepath.Join(home, ".config")
	}
	return filepath.Join(xdg, "git", "ignore")
}

type subdir struct {
	node     *node
	matcher  *ignore.Matcher
	excluded bool
}

// readDir lists one directory, records its files and returns the subdirectories to visit.
func (s *snapshotter) readDir(n *node, m *ignore.Matcher, excluded bool) ([]subdir, error) {
	abs := filepath.Join(s.repo.WorkTree, filepath.FromSlash(n.rel))
	dir, err := os.Open(abs)
	var ents []os.DirEntry
	if err == nil {
		defer dir.Close()
		ents, err = dir.ReadDir(-1)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && n.rel != "" {
			return nil, nil // vanished mid-walk: it is not in the snapshot
		}
		return nil, fmt.Errorf("snapshot: read directory %q: %w; fix its permissions or add it to .gitignore", n.rel, err)
	}
	if !excluded {
		if m, err = s.dirIgnores(n, abs, ents, m); err != nil {
			return nil, err
		}
	}
	var subs []subdir
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			continue
		}
		rel := join(n.rel, name)
		if de.IsDir() {
			if sub := s.dirEntry(n, rel, name, abs, m, excluded); sub != nil {
				subs = append(subs, *sub)
			}
			continue
		}
		if err := s.fileEntry(n, dir, rel, name, abs, m, excluded); err != nil {
			return nil, err
		}
	}
	return subs, nil
}

// dirIgnores adds this directory's .gitignore to m and notes conversion attributes.
func (s *snapshotter) dirIgnores(n *node, abs string, ents []os.DirEntry, m *ignore.Matcher) (*ignore.Matcher, error) {
	for _, de := range ents {
		switch {
		case de.Name() == ".gitignore" && de.Type().IsRegular():
			data, err := os.ReadFile(filepath.Join(abs, ".gitignore"))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("snapshot: read %q: %w", join(n.rel, ".gitignore"), err)
			}
			m = m.With(ignore.Parse(data, n.rel))
		case de.Name() == ".gitattributes" && !s.filtered.Load():
			data, _ := os.ReadFile(filepath.Join(abs, ".gitattributes"))
			if asksConversion(data) {
				s.filtered.Store(true)
			}
		}
	}
	return m, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// dirEntry handles a subdirectory: a submodule or nested repository becomes a gitlink, an
// ignored directory is skipped unless it holds tracked files, anything else is visited.
func (s *snapshotter) dirEntry(n *node, rel, name, parentAbs string, m *ignore.Matcher, excluded bool) *subdir {
	abs := filepath.Join(parentAbs, name)
	e := s.tracked.entries[rel]
	if e != nil && e.Mode == gitstore.ModeGitlink {
		h, err := nestedHead(abs)
		if err != nil {
			h = e.Hash // not checked out: git keeps the recorded commit
		}
		s.addFile(n, &fileEntry{name: name, rel: rel, mode: gitstore.ModeGitlink, hash: h})
		return nil
	}
	underTracked := s.tracked.hasUnder(rel)
	ign := excluded || m.Match(rel, true)
	if !underTracked && isNestedRepo(abs) {
		if ign {
			return nil
		}
		h, err := nestedHead(abs)
		if err != nil {
			s.fail(fmt.Errorf("snapshot: %q is a nested git repository without a commit checked out (%v); commit in it, or add it to .gitignore", rel, err))
			return nil
		}
		s.addFile(n, &fileEntry{name: name, rel: rel, mode: gitstore.ModeGitlink, hash: h})
		return nil
	}
	if ign && !underTracked {
		return nil
	}
	sub := &node{rel: rel}
	n.dirs = append(n.dirs, sub)
	return &subdir{node: sub, matcher: m, excluded: ign}
}

// fileEntry handles a file or symlink: tracked ones are always kept, untracked ones unless
// ignored; the object name comes from the index, the cache, or is queued for hashing.
func (s *snapshotter) fileEntry(n *node, dir *os.File, rel, name, parentAbs string, m *ignore.Matcher, excluded bool) error {
	e := s.tracked.entries[rel]
	if e != nil && e.SkipWorktree {
		return nil // kept from the index by addKept, as git add leaves sparse entries alone
	}
	if e == nil && (excluded || m.Match(rel, false)) {
		return nil
	}
	st, err := lstatAt(dir, parentAbs, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // vanished since the directory was read: deleted
	}
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if !st.isRegular() && !st.isSymlink() {
		return nil // sockets, fifos, devices: git skips them too
	}
	f := &fileEntry{name: name, rel: rel, mode: s.gitMode(&st, e), stat: st}
	if h, ok := s.knownHash(rel, e, &st); ok {
		f.hash = h
		s.addFile(n, f)
		return nil
	}
	s.addFile(n, f)
	s.mu.Lock()
	s.pending = append(s.pending, f)
	s.mu.Unlock()
	return nil
}

func (s *snapshotter) knownHash(rel string, e *gitstore.IndexEntry, st *fileStat) (gitstore.Hash, bool) {
	if e != nil {
		if h, ok := s.tracked.usableHash(e, st); ok {
			return h, true
		}
	}
	if c, ok := s.cache.files[rel]; ok && s.cache.fresh(c, st) {
		return c.hash, true
	}
	return gitstore.ZeroHash, false
}

// gitMode is the mode git records: symlink, or a regular file whose executable bit comes from
// the filesystem, or with core.fileMode=false from the index (new files are 644).
func (s *snapshotter) gitMode(st *fileStat, e *gitstore.IndexEntry) uint32 {
	if st.isSymlink() {
		return gitstore.ModeSymlink
	}
	if !s.trustMode {
		if e != nil && (e.Mode == gitstore.ModeExec || e.Mode == gitstore.ModeFile) {
			return e.Mode
		}
		return gitstore.ModeFile
	}
	if st.mode&0o100 != 0 {
		return gitstore.ModeExec
	}
	return gitstore.ModeFile
}

// addFile records f in its directory node and in the next stat cache.
func (s *snapshotter) addFile(n *node, f *fileEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n.files = append(n.files, f)
	s.count++
}

// addKept puts back index entries git add -A leaves alone: skip-worktree (sparse) entries.
func (s *snapshotter) addKept(root *node) {
	for _, p := range s.tracked.paths {
		e := s.tracked.entries[p]
		if !e.SkipWorktree || e.Stage != 0 {
			continue
		}
		dir, name := splitPath(p)
		n := root.child(dir)
		n.files = append(n.files, &fileEntry{name: name, rel: p, mode: e.Mode, hash: e.Hash})
		s.count++
	}
}

func splitPath(p string) (string, string) {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// child finds or creates the node for the slash-separated directory dir below n.
func (n *node) child(dir string) *node {
	cur := n
	for dir != "" {
		name, rest, _ := strings.Cut(dir, "/")
		rel := join(cur.rel, name)
		var next *node
		for _, d := range cur.dirs {
			if d.rel == rel {
				next = d
				break
			}
		}
		if next == nil {
			next = &node{rel: rel}
			cur.dirs = append(cur.dirs, next)
		}
		cur, dir = next, rest
	}
	return cur
}
