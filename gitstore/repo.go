package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Errors returned by Open. Each names a repository git-loop cannot work in.
var (
	// ErrNotRepo means no git repository contains the directory.
	ErrNotRepo = errors.New("not a git repository")
	// ErrBare means the repository has no working tree to snapshot.
	ErrBare = errors.New("bare repository")
	// ErrReftable means refs are stored in reftable format, which git-loop cannot lock.
	ErrReftable = errors.New("reftable ref storage is not supported")
	// ErrSHA256 means the repository uses SHA-256 object names.
	ErrSHA256 = errors.New("sha256 object format is not supported")
	// ErrFormat means an unknown repository format version or extension.
	ErrFormat = errors.New("unsupported repository format")
)

// Repo is an open repository seen from one worktree.
type Repo struct {
	// WorkTree is the absolute path of the worktree's top directory, with symlinks resolved
	// (as `git rev-parse --show-toplevel` prints it), so it can be compared as a string.
	WorkTree string
	// GitDir is the worktree's own git directory (.git, or .git/worktrees/<id>), canonical.
	GitDir string
	// CommonDir holds objects, refs and config shared by all worktrees, canonical.
	CommonDir string
	// Config is the repository's configuration (system, global, repo and worktree files merged).
	Config *Config

	odbOnce sync.Once
	odb     *objectDB

	levelOnce sync.Once
	level     int // zlib level for loose objects

	batchMu sync.Mutex
	batch   *packBatch // objects kept back for one pack (see InPack); nil when none is open

	explicit bool // opened through $GIT_DIR: git children are told where it is (GitEnv)
}

// Open finds the repository containing dir (which may be any subdirectory of a worktree, and
// may be reached through symlinks) and checks that git-loop can work in it. The Repo's paths
// are canonical: two Opens of one worktree give equal strings however it was reached.
func Open(dir string) (*Repo, error) {
	work, gitDir, err := discover(dir)
	if err != nil {
		return nil, err
	}
	r, err := openGitDir(gitDir, givenGitDir(dir, work, gitDir))
	if err != nil {
		return nil, err
	}
	r.WorkTree = work
	if err := r.checkFormat(); err != nil {
		return nil, err
	}
	return r, nil
}

// givenGitDir is the git dir as reached from dir without resolving symlinks, when dir is the
// worktree's top and its .git a directory: git matches includeIf "gitdir:" patterns against
// that path too (from a subdirectory it has moved to the top, and only the real path is
// left). "" when it is the canonical one anyway.
func givenGitDir(dir, work, gitDir string) string {
	abs, err := filepath.Abs(dir) // the current directory as $PWD names it, when it does
	if err != nil || canonical(abs) != work {
		return ""
	}
	if given := filepath.Join(abs, ".git"); given != gitDir && canonical(given) == gitDir {
		return given
	}
	return ""
}

// openGitDir reads what a git directory says of its repository: the common directory and
// the configuration. given is the git dir as named before symlinks were resolved, or "" (see
// givenGitDir). The caller sets the worktree, then checks the format.
func openGitDir(gitDir, given string) (*Repo, error) {
	common, err := commonDir(gitDir)
	if err != nil {
		return nil, err
	}
	cfg, err := loadRepoConfig(common, gitDir, given)
	if err != nil {
		return nil, err
	}
	return &Repo{GitDir: gitDir, CommonDir: common, Config: cfg}, nil
}

// OpenFromEnv opens the repository of a command a person ran, found as git finds it: through
// $GIT_DIR when set (`git --git-dir=… loop` sets it), with $GIT_WORK_TREE, else core.worktree,
// else the current directory as the worktree's top (git's rules for an explicit git dir);
// with $GIT_WORK_TREE alone, the git dir found from dir and that worktree; else as
// Open(dir). Hooks do not use it: the agent's directory names their repository.
//
// When either variable is set, both are then rewritten in the process environment as the
// absolute paths found, so that the children git-loop starts elsewhere (gates run at the
// worktree's top, the agent under `git loop run`) see the same repository.
func OpenFromEnv(dir string) (*Repo, error) {
	var r *Repo
	var err error
	switch {
	case os.Getenv("GIT_DIR") != "":
		r, err = openExplicit(os.Getenv("GIT_DIR"))
	case os.Getenv("GIT_WORK_TREE") != "":
		r, err = openWorkTreeEnv(dir, os.Getenv("GIT_WORK_TREE"))
	default:
		return Open(dir)
	}
	if err != nil {
		return nil, err
	}
	os.Setenv("GIT_DIR", r.GitDir)
	os.Setenv("GIT_WORK_TREE", r.WorkTree)
	return r, nil
}

// openWorkTreeEnv opens the repository found from dir with work as its worktree, as git
// does with GIT_WORK_TREE and no GIT_DIR.
func openWorkTreeEnv(dir, work string) (*Repo, error) {
	top, gitDir, err := discover(dir)
	if err != nil {
		return nil, err
	}
	r, err := openGitDir(gitDir, givenGitDir(dir, top, gitDir))
	if err != nil {
		return nil, err
	}
	return r.withWorkTree(work)
}

// withWorkTree completes a repository opened through the environment: its worktree's top
// (canonical), then the format check.
func (r *Repo) withWorkTree(work string) (*Repo, error) {
	var err error
	if r.WorkTree, err = canonicalDir(work); err != nil {
		return nil, err
	}
	r.explicit = true
	if err := r.checkFormat(); err != nil {
		return nil, err
	}
	return r, nil
}

// openExplicit opens the repository of GIT_DIR=env (see OpenFromEnv).
func openExplicit(env string) (*Repo, error) {
	gitDir, err := explicitGitDir(env)
	if err != nil {
		return nil, err
	}
	given := ""
	if abs, err := filepath.Abs(env); err == nil && abs != gitDir && canonical(abs) == gitDir {
		given = abs // a directory named through a symlink; a .git file's target is real already
	}
	r, err := openGitDir(gitDir, given)
	if err != nil {
		return nil, err
	}
	work := os.Getenv("GIT_WORK_TREE") // with it, core.bare is ignored, as git ignores it
	if work == "" {
		if r.Config.Bool("core", "", "bare", false) {
			return nil, fmt.Errorf("open repository: GIT_DIR=%s: %w: name the worktree with GIT_WORK_TREE (git --work-tree)", env, ErrBare)
		}
		if work = r.Config.Get("core", "", "worktree"); work != "" && !filepath.IsAbs(work) {
			work = filepath.Join(gitDir, work)
		}
	}
	if work == "" {
		work = "."
	}
	return r.withWorkTree(work)
}

// explicitGitDir resolves $GIT_DIR: a git directory, or a ".git" file naming one.
func explicitGitDir(env string) (string, error) {
	abs, err := filepath.Abs(env)
	if err != nil {
		return "", fmt.Errorf("open repository: GIT_DIR=%s: %w", env, err)
	}
	fi, err := os.Stat(abs)
	gitDir := canonical(abs)
	if err == nil && !fi.IsDir() {
		if gitDir, err = readGitFile(abs); err != nil {
			return "", err
		}
	}
	if _, herr := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil || herr != nil {
		return "", fmt.Errorf("open repository: GIT_DIR=%s: %w: point GIT_DIR at a git directory, or unset it", env, ErrNotRepo)
	}
	return gitDir, nil
}

// GitEnv is the environment for a git child working on r from its worktree: CleanGitEnv,
// plus GIT_DIR and GIT_WORK_TREE naming r when it was opened through $GIT_DIR, since the
// worktree may hold no .git to find it by.
func (r *Repo) GitEnv() []string {
	env := CleanGitEnv()
	if r.explicit {
		env = append(env, "GIT_DIR="+r.GitDir, "GIT_WORK_TREE="+r.WorkTree)
	}
	return env
}

// FindGitDir returns the worktree top and git directory containing dir without reading any
// configuration: the cheap first step of the hook's hot path. Both paths are canonical, as
// for Open.
func FindGitDir(dir string) (workTree, gitDir string, err error) {
	return discover(dir)
}

// discover walks up from dir to the first directory holding a .git directory or file. dir is
// first made absolute with its symlinks resolved, so the worktree top is canonical (as git's
// --show-toplevel prints it) however the caller reached it; the git dir is resolved too.
func discover(dir string) (string, string, error) {
	start, err := canonicalDir(dir)
	if err != nil {
		return "", "", err
	}
	for d := start; ; {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		switch {
		case err == nil && fi.IsDir():
			return d, canonical(dotgit), nil
		case err == nil:
			gd, err := readGitFile(dotgit)
			if err != nil {
				return "", "", err
			}
			return d, gd, nil
		}
		if isBareDir(d) {
			return "", "", fmt.Errorf("open repository at %q: %w: git-loop needs a working tree; run it in a clone with a checkout", d, ErrBare)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", fmt.Errorf("open repository at %q: %w (or any parent): run git-loop inside a git worktree, or `git init` first", start, ErrNotRepo)
		}
		d = parent
	}
}

// readGitFile resolves a ".git" file ("gitdir: <path>") as linked worktrees and submodules use.
func readGitFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %q: %w", path, err)
	}
	line := strings.TrimSpace(string(data))
	target, ok := strings.CutPrefix(line, "gitdir: ")
	if !ok {
		return "", fmt.Errorf("read %q: %w: no \"gitdir:\" line", path, ErrNotRepo)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return "", fmt.Errorf("read %q: git dir %q is gone (%w); run `git worktree prune` or fix the path", path, target, ErrNotRepo)
	}
	return real, nil
}

// canonicalDir returns dir as an absolute path with every symlink resolved.
func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("open repository at %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("open repository at %q: %w", abs, err)
	}
	return real, nil
}

// canonical resolves the symlinks in an existing path; a path that cannot be resolved is
// returned cleaned, for the caller's own read to report.
func canonical(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return filepath.Clean(path)
}

// isBareDir reports whether d looks like a git directory (bare repository or inside .git).
func isBareDir(d string) bool {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(d, name)); err != nil {
			return false
		}
	}
	return true
}

// commonDir follows gitDir/commondir, which linked worktrees use to share the main repository.
func commonDir(gitDir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, nil
	}
	if err != nil {
		return "", fmt.Errorf("read commondir of %q: %w", gitDir, err)
	}
	dir := strings.TrimSpace(string(data))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(gitDir, dir)
	}
	return canonical(dir), nil
}

// checkFormat refuses repositories whose formats git-loop cannot read or write correctly.
func (r *Repo) checkFormat() error {
	c := r.Config
	where := fmt.Sprintf("open repository %q", r.WorkTree)
	if c.Bool("core", "", "bare", false) && !r.explicit {
		return fmt.Errorf("%s: %w: git-loop needs a working tree; run it in a clone with a checkout", where, ErrBare)
	}
	if f := strings.ToLower(c.Get("extensions", "", "objectformat")); f != "" && f != "sha1" {
		return fmt.Errorf("%s: %w (extensions.objectFormat=%s); use a sha1 repository", where, ErrSHA256, f)
	}
	if s := strings.ToLower(c.Get("extensions", "", "refstorage")); s != "" && s != "files" {
		return fmt.Errorf("%s: %w (extensions.refStorage=%s); convert with `git refs migrate --ref-format=files`", where, ErrReftable, s)
	}
	switch v := c.Get("core", "", "repositoryformatversion"); v {
	case "", "0", "1":
	default:
		return fmt.Errorf("%s: %w: core.repositoryFormatVersion=%s", where, ErrFormat, v)
	}
	return nil
}

// LoopDir is the directory of git-loop's rebuildable caches, .git/loop in the common dir.
func (r *Repo) LoopDir() string { return filepath.Join(r.CommonDir, "loop") }

// objects returns the object database, opened on first use. It reads the object formats
// directly: go-git's repository layer (git.Open) refuses repositories with
// extensions.worktreeConfig or extensions.partialClone, yet neither changes how objects are
// stored. The formats that do (objectFormat) are refused by checkFormat.
func (r *Repo) objects() *objectDB {
	r.odbOnce.Do(func() { r.odb = newObjectDB(filepath.Join(r.CommonDir, "objects")) })
	return r.odb
}
