package importer

import (
	"fmt"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
)

// parseRalph reads .claude/ralph-loop.local.md as the Claude Code ralph-loop plugin writes
// it (anthropics/claude-plugins-official, plugins/ralph-loop/scripts/setup-ralph-loop.sh):
//
//	---
//	active: true
//	iteration: 1
//	session_id: 4d5611e5-…      # $CLAUDE_CODE_SESSION_ID, or empty
//	max_iterations: 20          # 0 = unlimited
//	completion_promise: "DONE"  # or null; written between quotes as typed, unescaped
//	started_at: "2026-01-02T03:04:05Z"
//	---
//
//	the prompt
//
// and reads it as the plugin's stop hook (plugins/ralph-loop/hooks/stop-hook.sh) does: line
// by line with grep and sed, not as YAML, so a promise holding quotes or backslashes (which
// make the front matter invalid YAML) is the phrase the hook compared. The hook judges only
// the session in session_id (none when it is empty), so the new loop is bound to it. Any
// other key is listed as not carried over.
func parseRalph(im *Imported, text string) error {
	f, others, body, err := parseHookFrontMatter(im.File, text)
	if err != nil {
		return err
	}
	im.Prompt = body
	if strings.TrimSpace(body) == "" {
		return importError(im.File, "it records no prompt after the front matter", "add the task below the closing ---, or start the loop with `git loop start -p TASK`")
	}
	if err := takePromise(f, im, "completion_promise"); err != nil {
		return err
	}
	if err := takeMaxIterations(f, im, "max_iterations"); err != nil {
		return err
	}
	if s, ok, _ := f.text("session_id"); ok && s != "" && s != "null" {
		im.Session = s
	}
	skipCommon(f, im, "iteration", "started_at")
	f.skipRest(im)
	for _, line := range others {
		im.skip("%s (not a key: value line; the plugin's hook ignores it)", line)
	}
	return nil
}

// hookKeyLine is a front matter line the ralph-loop hook's greps can read: key: value.
var hookKeyLine = textutil.LazyRegexp(`^([A-Za-z_][A-Za-z0-9_-]*):(.*)$`)

// parseHookFrontMatter reads a Markdown state file's front matter as the ralph-loop stop
// hook does (sed 's/KEY: *//', then for the promise sed 's/^"\(.*\)"$/\1/'): each
// "key: value" line gives the text after the colon and the spaces after it, and a value
// written between double quotes loses them, escapes and all left as they are. A line
// ending is not part of the value. Blank lines and # comments are skipped; other lines are
// returned, numbered as in the file, for the caller to list. A key set twice is refused:
// the hook would read both lines as one value.
func parseHookFrontMatter(file, text string) (f *fields, others []string, body string, err error) {
	text = strings.TrimPrefix(text, "\ufeff")
	front, body, ok := splitFrontMatter(text)
	if !ok {
		return nil, nil, "", importError(file, "it has no front matter (a first line ---, the settings, a closing ---)", "fix the file, or start the loop with `git loop start -p TASK`")
	}
	m := map[string]any{}
	lineOf := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(front, "\n"), "\n") {
		n := i + 2 // the front matter starts on line 2, after the opening ---
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kv := hookKeyLine().FindStringSubmatch(line)
		if kv == nil {
			others = append(others, fmt.Sprintf("front matter line %d: %s", n, showValue(line)))
			continue
		}
		key, val := kv[1], strings.TrimLeft(kv[2], " ")
		if first, dup := lineOf[key]; dup {
			return nil, nil, "", importError(file, fmt.Sprintf("%s is set on lines %d and %d", key, first, n), "keep one of them")
		}
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val = val[1 : len(val)-1]
		}
		m[key], lineOf[key] = val, n
	}
	if len(m) == 0 {
		return nil, nil, "", importError(file, "the front matter is empty", "fix the front matter, or start the loop with `git loop start -p TASK`")
	}
	return newFields(file, m), others, strings.ReplaceAll(body, "\r\n", "\n"), nil
}

// stravinskyLog is the body the Stravinsky stop hook writes in place of the prompt.
var stravinskyLog = textutil.LazyRegexp(`^Iteration \d+ in progress$`)

// iterationHeading starts the per-iteration notes Stravinsky appends below the prompt.
var iterationHeading = textutil.LazyRegexp(`(?m)^## Iteration\b`)

// parseStravinsky reads .stravinsky/continuation-loop.md as Stravinsky writes it
// (.claude/commands/strav/loop.md and .claude/hooks/stop_hook.py in the stravinsky
// repository): front matter iteration_count, max_iterations (default 10),
// completion_promise, active, started_at, last_updated; the body is the original prompt,
// then "## Iteration N" notes. Its hook matches the promise anywhere in the reply, ignoring
// case; git-loop asks for <promise>…</promise>, and says so.
func parseStravinsky(im *Imported, text string) error {
	f, body, err := parseFrontMatterFile(im.File, text)
	if err != nil {
		return err
	}
	prompt := body
	if loc := iterationHeading().FindStringIndex(body); loc != nil {
		prompt = body[:loc[0]]
		im.skip("%d iteration notes (## Iteration …): the new loop's history is its own commits", len(iterationHeading().FindAllStringIndex(body, -1)))
	}
	prompt = strings.TrimSpace(prompt)
	if stravinskyLog().MatchString(prompt) {
		return importError(im.File, "it records no prompt: Stravinsky's stop hook replaced it with "+`"`+prompt+`"`, "start the loop with `git loop start -p TASK`")
	}
	if prompt == "" {
		return importError(im.File, "it records no prompt after the front matter", "add the task below the closing ---, or start the loop with `git loop start -p TASK`")
	}
	im.Prompt = prompt
	if err := takePromise(f, im, "completion_promise"); err != nil {
		return err
	}
	if len(im.Promises) > 0 {
		im.skip("completion_promise matching: Stravinsky accepted the phrase anywhere in a reply; git-loop needs <promise>%s</promise>", textutil.NormalizeSpace(im.Promises[0]))
	}
	if err := takeMaxIterations(f, im, "max_iterations"); err != nil {
		return err
	}
	skipCommon(f, im, "iteration_count", "started_at", "last_updated")
	f.skipRest(im)
	return nil
}

// takePromise carries a completion promise (null or empty: none).
func takePromise(f *fields, im *Imported, key string) error {
	p, ok, err := f.text(key)
	if err != nil {
		return err
	}
	if p = strings.TrimSpace(p); ok && p != "" && p != "null" {
		im.Promises = []string{p}
	}
	return nil
}

// takeMaxIterations carries an iteration limit. 0 means "no limit" in these tools, which
// git-loop does not take from a file: it keeps its own limit unless --unlimited says so.
func takeMaxIterations(f *fields, im *Imported, key string) error {
	n, ok, err := f.count(key)
	if err != nil || !ok {
		return err
	}
	if n == 0 {
		im.skip("%s: 0 (no limit in the %s): the new loop stops at git-loop's iteration limit (max iterations, above); with a promise or gate to end it, --unlimited runs it without one", key, im.Tool)
		return nil
	}
	im.MaxIterations = &n
	return nil
}

// skipCommon lists the progress fields every tool keeps: the iteration reached, timestamps,
// and whether the old loop was still active. The iteration reached is also recorded.
func skipCommon(f *fields, im *Imported, iterKey string, timeKeys ...string) {
	if n, ok := wholeNumberField(f, iterKey); ok {
		im.Iteration = n
		im.skip("%s: %d (the new loop counts its own iterations from 0)", iterKey, n)
	}
	for _, k := range timeKeys {
		if v, ok := f.raw(k); ok {
			im.skip("%s: %s (the new loop records its own times)", k, showValue(v))
		}
	}
	if active, ok := f.flag("active"); ok && !active {
		im.skip("active: false (the old loop had stopped; the imported one starts active)")
	}
}

// wholeNumberField reads a counter tolerantly: a value that is not a count is listed by
// skipRest instead of failing the import, since it is not carried over anyway.
func wholeNumberField(f *fields, key string) (int, bool) {
	v, ok := f.m[key]
	if !ok {
		return 0, false
	}
	n, good := wholeNumber(v)
	if good {
		f.used[key] = true
	}
	return n, good
}
