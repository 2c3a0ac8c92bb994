package kit

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"github.com/git-loop/git-loop/loop"
)

// What install, doctor and a stop do with an agent's hook file, whether git-loop merges its
// hooks into a JSON file the person shares with others (InstallHooks) or writes a program
// whole (HookFile.Script): the callers need not know which.

// InstallHookFile writes the agent's hooks into its hook file at path, with the timeout the
// gates of the worktree at dir need (loop.ConfiguredHookTimeout). A JSON hook file is
// merged into (InstallHooks). A script is written whole when absent; one that is git-loop's
// own, byte for byte (line endings aside) but for its timeout, is left as it is when the
// timeout is the same and rewritten when it is not; anything else there (a file of the
// person's, or git-loop's edited) is never touched, and the result's Kept says so. A symlink
// is followed, as for a JSON hook file.
func (a *Agent) InstallHookFile(path, dir string) (InstallResult, error) {
	d := loop.ConfiguredHookTimeout(dir)
	if a.File.Script == nil {
		return InstallHooks(path, a.withStopTimeout(d))
	}
	res := InstallResult{Path: path}
	target, doc, missing, err := ReadForEdit(path, a.Product+" hook file")
	if err != nil {
		return res, err
	}
	n := int(d / a.TimeoutUnit)
	want := a.File.Script(n)
	hooks := a.scriptHooks()
	have, ours := ScriptTimeout(a.File, a.TimeoutKey, doc)
	switch {
	case !missing && ours && have == n:
		res.Present = hooks
		return res, nil
	case !missing && ours:
		for _, h := range hooks {
			res.Added = append(res.Added, fmt.Sprintf("%s, its %s now %d (was %d)", h, a.TimeoutKey, n, have))
		}
	case !missing:
		res.Kept = fmt.Sprintf("%s exists and is not the file git-loop writes there (a file of your own, or git-loop's edited): it was left as it is; move it away and install again to get git-loop's", path)
		return res, nil
	default:
		res.Created, res.Added = true, hooks
	}
	return res, WriteEdited(path, target, []byte(want), 0o644)
}

// scriptHooks names the hooks a script runs, as install prints them.
func (a *Agent) scriptHooks() []string {
	var out []string
	for _, h := range a.File.Hooks {
		out = append(out, fmt.Sprintf("%s hook %q", h.Event, h.Command))
	}
	return out
}

// ScriptTimeout reads the text of a script hook file, hf being the agent's: the timeout it
// states (`KEY = n`, KEY being the agent's TimeoutKey; 0 when it states none), and whether
// the text is the one git-loop writes, byte for byte (line endings aside, which git may
// change on checkout) but for that timeout.
func ScriptTimeout(hf HookFile, key string, text []byte) (n int, ours bool) {
	m := timeoutStatement(key).FindSubmatch(text)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, hf.Script != nil && bytes.Equal(bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n")), []byte(hf.Script(n)))
}

// timeoutStatement matches a script's statement of its timeout, `KEY = n`.
func timeoutStatement(key string) *regexp.Regexp {
	return regexp.MustCompile(`\b` + regexp.QuoteMeta(key) + `\s*=\s*([0-9]{1,12})\b`)
}

// FindHooks reports which of the agent's hooks the hook file doc (named name in errors)
// holds and which it lacks: in a JSON hook file, the entries that run git-loop's commands
// (MergeHooks); in a script, the commands its text runs, whoever wrote it. A JSON file that
// cannot be read as one is an error.
func (a *Agent) FindHooks(doc []byte, name string) (missing, present []string, err error) {
	if a.File.Script == nil {
		_, missing, present, err = MergeHooks(doc, name, a.File)
		return missing, present, err
	}
	names := a.scriptHooks()
	for i, h := range a.File.Hooks {
		what := names[i]
		if bytes.Contains(doc, []byte(h.Command)) {
			present = append(present, what)
		} else {
			missing = append(missing, what)
		}
	}
	return missing, present, nil
}
