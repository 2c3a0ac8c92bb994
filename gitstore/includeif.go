package gitstore

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/snapshots/ignore"
)

// includeRepo is what includeIf conditions test while a repository's configuration loads:
// its git dir (gitdir:, gitdir/i:) and its current branch (onbranch:), as git's config.c
// does. hasconfig:… conditions are not evaluated (their files are not read).
type includeRepo struct {
	gitDir string // canonical, as git's realpath of it
	branch *string
}

func newIncludeRepo(gitDir string) *includeRepo { return &includeRepo{gitDir: gitDir} }

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
		pat = filepath.ToSlash(home) + pat[1:]
	case strings.HasPrefix(pat, "./"):
		dir := filepath.ToSlash(filepath.Dir(canonical(file)))
		pat, prefix = dir+pat[1:], len(dir)+1
	case !strings.HasPrefix(pat, "/") && !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	text := filepath.ToSlash(r.gitDir)
	if prefix > 0 {
		if len(text) < prefix || !sameText(pat[:prefix], text[:prefix], fold) {
			return false
		}
	}
	return ignore.Wildmatch(pat[prefix:], text[prefix:], fold)
}

func sameText(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// onBranch matches the branch HEAD names (none when detached); a trailing "/" matches
// every branch below it.
func (r *includeRepo) onBranch(pat string) bool {
	if r.branch == nil {
		branch := ""
		if data, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD")); err == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: refs/heads/"); ok {
				branch = ref
			}
		}
		r.branch = &branch
	}
	if *r.branch == "" {
		return false
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	return ignore.Wildmatch(pat, *r.branch, false)
}
