package loop

import (
	"strings"
)

// parseRalph reads .claude/ralph-loop.local.md as the Claude Code ralph-loop plugin writes
// it (anthropics/claude-plugins-official, plugins/ralph-loop/scripts/setup-ralph-loop.sh):
//
//	---
//	active: true
//	iteration: 1
//	max_iterations: 20          # 0 = unlimited
//	completion_promise: "DONE"  # or null
//	started_at: "2026-01-02T03:04:05Z"
//	---
//
//	the prompt
//
// Its stop hook compares <promise>…</promise> with completion_promise exactly, as git-loop
// does. Later versions add session_id; any other key is listed as not carried over.
func parseRalph(im *Imported, text string) error {
	f, body, err := parseFrontMatterFile(im.File, text)
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
	skipCommon(f, im, "iteration", "started_at")
	if s, ok, _ := f.text("session_id"); ok && s != "" {
		im.skip("session_id: %q (the new loop binds to the agent session given with --session, or $CLAUDE_CODE_SESSION_ID)", s)
	}
	f.skipRest(im)
	return nil
}

// stravinskyLog is the body the Stravinsky stop hook writes in place of the prompt.
var stravinskyLog = lazyRegexp(`^Iteration \d+ in progress$`)

// iterationHeading starts the per-iteration notes Stravinsky appends below the prompt.
var iterationHeading = lazyRegexp(`(?m)^## Iteration\b`)

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
		im.skip("completion_promise matching: Stravinsky accepted the phrase anywhere in a reply; git-loop needs <promise>%s</promise>", normalizeSpace(im.Promises[0]))
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
		im.skip("%s: 0 (no limit): git-loop keeps an iteration limit; pass --unlimited to run without one", key)
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
