package gitstore

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/internal/wildmatch"
)

// includeRepo is what includeIf conditions test while a repository's configuration loads:
// its git dir (gitdir:, gitdir/i:) and its current branch (onbranch:), as git's config.c
// does. hasconfig:… conditions are not evaluated (their files are not read).
type includeRepo struct {
	gitDir string // canonical, as git's realpath of it
	common string // where refs/ lives (see commonDir)
	given  string // as named through symlinks, when git would try that too; or ""
	branch *string
}

func newIncludeRepo(gitDir, common, given string) *includeRepo {
	return &includeRepo{gitDir: gitDir, common: common, given: given}
}

// holds reports whether the condition of an [includeIf "cond"] section in file holds.
func (r *includeRepo) holds(cond, file string) bool {
	if r == nil {
		return false
	}
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return r.gitDirMatches(cond[len("gitdir:"):], file, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return r.gitDirMatches(cond[len("gitdir/i:"):], file, true)
	case strings.HasPrefix(cond, "onbranch:"):
		return r.onBranch(cond[len("onbranch:"):])
	}
	return false
}

// gitDirMatches is git's include_by_gitdir: "~/" is the home directory, "./" the including
// file's directory (compared literally), a relative pattern may match at any depth, and a
// trailing "/" matches everything below.
func (r *includeRepo) gitDirMatches(pat, file string, fold bool) bool {
	prefix := 0
	switch {
	case strings.HasPrefix(pat, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		pat = filepath.ToSlash(canonical(home)) + pat[1:] // git expands ~ to $HOME's real path
	case strings.HasPrefix(pat, "./"):
		if file == "" { // from git -c: git refuses a relative condition there
			return false
		}
		dir := filepath.ToSlash(filepath.Dir(canonical(file)))
		pat, prefix = dir+pat[1:], len(dir)+1
	case !strings.HasPrefix(pat, "/") && !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	for _, dir := range []string{r.gitDir, r.given} { // the real path first, as git
		if text := filepath.ToSlash(dir); dir != "" && (prefix == 0 || len(text) >= prefix && sameText(pat[:prefix], text[:prefix], fold)) &&
			wildmatch.Wildmatch(pat[prefix:], text[prefix:], fold) {
			return true
		}
	}
	return false
}

// sameText compares as git's strncmp, or strncasecmp (ASCII letters only) when fold is set.
func sameText(a, b string, fold bool) bool {
	if !fold {
		return a == b
	}
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// onBranch matches the branch HEAD names (none when detached); a trailing "/" matches
// every branch below it.
func (r *includeRepo) onBranch(pat string) bool {
	if r.branch == nil {
		branch := r.headBranch()
		r.branch = &branch
	}
	if *r.branch == "" {
		return false
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	return wildmatch.Wildmatch(pat, *r.branch, false)
}

// headBranch is the branch HEAD names at the end of its chain of symbolic refs (a branch kept
// as an alias of another, say), or "" when HEAD is detached or unreadable. Symbolic refs are
// loose files; they live in the worktree's git dir (HEAD) or the common one (refs/).
func (r *includeRepo) headBranch() string {
	name, dir := "HEAD", r.gitDir
	for i := 0; i < 5; i++ {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			break
		}
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:")
		if !ok {
			break
		}
		name, dir = strings.TrimSpace(target), r.common
	}
	branch, _ := strings.CutPrefix(name, "refs/heads/")
	if branch == name {
		return ""
	}
	return branch
}
