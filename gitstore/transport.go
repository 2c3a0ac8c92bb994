package gitstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Pushing and fetching go through the user's own git executable, not go-git's transport: so
// credential helpers, ssh configuration, proxies and URL rewrites (insteadOf) work exactly as
// they do for `git push` and `git fetch`.

// ErrNoGit means the git executable cannot be found or started.
var ErrNoGit = errors.New("git is not installed or not on PATH")

// GitOutput is what one run of git printed.
type GitOutput struct {
	Stdout, Stderr string
}

// RunGit runs `git args…` in the repository's worktree and returns what it printed. A git that
// exits non-zero returns its output and an error holding its last stderr line. The child
// finds the repository from the worktree, never from GIT_DIR and kin inherited from a git
// hook or `git --git-dir=… loop`, which could point it at another repository.
func (r *Repo) RunGit(ctx context.Context, args ...string) (GitOutput, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = r.WorkTree, r.GitEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := GitOutput{Stdout: out.String(), Stderr: errb.String()}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		return res, fmt.Errorf("git %s: %s", args[0], gitComplaint(res.Stderr, exitErr.String()))
	case err != nil:
		return res, fmt.Errorf("%w: %v", ErrNoGit, err)
	}
	return res, nil
}

// gitComplaint is what git said went wrong: the last two lines of its stderr that are not
// hints, on one line; def when it said nothing.
func gitComplaint(stderr, def string) string {
	var said []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "hint:") {
			said = append(said, l)
		}
	}
	if len(said) == 0 {
		return def
	}
	if len(said) > 2 {
		said = said[len(said)-2:]
	}
	return strings.Join(said, " ")
}

// PushResult is one ref's line of `git push --porcelain`.
type PushResult struct {
	Flag    byte   // ' ' fast-forward, '+' forced, '-' deleted, '*' new, '!' rejected, '=' up to date
	From    string // the local ref
	To      string // the remote ref
	Summary string // "[new reference]", "[rejected]", "abc..def"
	Reason  string // why, for a rejection: "non-fast-forward", "fetch first", "hook declined"
}

// Rejected reports whether the remote did not take the ref.
func (p PushResult) Rejected() bool { return p.Flag == '!' }

// ParsePushPorcelain reads the ref lines of `git push --porcelain` output
// ("<flag>\t<from>:<to>\t<summary> (<reason>)"); the "To <url>" and "Done" lines and
// anything else that is not a ref line are skipped.
func ParsePushPorcelain(out string) []PushResult {
	var res []PushResult
	for _, line := range strings.Split(out, "\n") {
		if p, ok := parsePushLine(strings.TrimSuffix(line, "\r")); ok {
			res = append(res, p)
		}
	}
	return res
}

func parsePushLine(line string) (PushResult, bool) {
	if len(line) < 2 || line[1] != '\t' || !strings.ContainsRune(" +-*!=", rune(line[0])) {
		return PushResult{}, false
	}
	refs, summary, ok := strings.Cut(line[2:], "\t")
	if !ok {
		return PushResult{}, false
	}
	from, to, ok := strings.Cut(refs, ":")
	if !ok {
		return PushResult{}, false
	}
	p := PushResult{Flag: line[0], From: from, To: to, Summary: summary}
	if i := strings.Index(summary, " ("); i >= 0 && strings.HasSuffix(summary, ")") {
		p.Summary, p.Reason = summary[:i], summary[i+2:len(summary)-1]
	}
	return p, true
}
