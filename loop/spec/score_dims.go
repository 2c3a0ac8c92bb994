package spec

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/git-loop/git-loop/internal/textutil"
)

// Words that score the dimensions. Phrases are lower-case words separated by one space, as
// specText.find matches them ("don't" is "don t").
var (
	outcomeVerbs = []string{"add", "adds", "fix", "fixes", "implement", "create", "remove", "delete", "rename",
		"refactor", "replace", "write", "update", "support", "migrate", "port", "extract", "convert", "build",
		"return", "returns", "handle", "parse", "validate", "expose", "introduce", "generate", "split", "merge",
		"move", "document", "reject", "accept", "print", "log", "cache", "retry"}
	scopeBounds = []string{"only", "do not touch", "don t touch", "do not modify", "don t modify", "do not change",
		"don t change", "do not edit", "don t edit", "alone", "nothing else", "limited to", "restricted to",
		"out of scope", "no other files", "no other file", "outside", "except", "in scope"}
	locationWords   = []string{"package", "module", "crate", "directory", "folder", "dir", "file", "files"}
	constraintWords = []string{"must", "must not", "mustn t", "never", "without", "keep", "keeps", "preserve",
		"compatible", "backward compatible", "backwards compatible", "compatibility", "do not break", "don t break",
		"no new dependencies", "no new dependency", "no dependencies", "should not", "shouldn t", "avoid", "at most",
		"at least", "retain", "unchanged", "no breaking changes", "do not use", "don t use", "required", "stay", "stays"}
	successStrong = []string{"tests pass", "test passes", "tests passing", "all tests pass", "exit code", "exit status",
		"exits 0", "exits with", "exit 0", "coverage", "benchmark", "status code", "no warnings", "no errors",
		"build succeeds", "builds cleanly", "lint clean", "go test", "go vet", "go build", "pytest", "npm test",
		"cargo test", "make test", "yarn test", "jest", "vitest", "golangci lint"}
	successWeak = []string{"test", "tests", "tested", "passes", "pass", "works", "working", "verify", "verified",
		"check", "assert"}
	doneStrong = []string{"done when", "complete when", "completed when", "finished when", "stop when",
		"definition of done", "acceptance criteria", "promise", "exit signal", "loop complete", "done means",
		"complete once", "done once", "finished once", "then write", "then say", "then output", "then reply", "then print"}
	doneWeak = []string{"until", "once", "when done", "when finished", "finish", "finished", "complete",
		"completed", "done"}
)

// Patterns of measurable criteria and code.
var (
	reCodeSpan = textutil.LazyRegexp("`([^`\n]+)`")
	reNumber   = textutil.LazyRegexp(`(?i)\d+(\.\d+)?\s*%|\b\d+(\.\d+)?\s*(ms|s|sec|seconds|minutes|min|mb|kb|gb)\b|==|>=|<=|!=|≥|≤|\b(returns?|equals?|prints?|outputs?)\s+-?\d+`)
	reCommand  = textutil.LazyRegexp(`^(go|npm|npx|yarn|pnpm|cargo|pytest|python3?|make|node|git|bash|sh|tox|ruff|mypy|gradle|mvn|dotnet)\b|^\./`)
)

func scoreOutcome(t specText) Dimension {
	verbs, _ := t.find(outcomeVerbs)
	return dim(dimOutcome, quoted("verb", verbs), quoted("artefact", artefacts(t)),
		"say what to do with an action verb (add, fix, remove, rename…)",
		"name the artefact it produces or changes (a function, file, endpoint or command, e.g. `ParseConfig` or calc.go)")
}

func scoreScope(t specText) Dimension {
	bounds, _ := t.find(scopeBounds)
	return dim(dimScope, quoted("location", locations(t)), quoted("bound", bounds),
		"name where the work happens (files, packages, directories)",
		"bound it: \"only …\", \"do not touch …\"")
}

func scoreConstraints(t specText) Dimension {
	found, n := t.find(constraintWords)
	d := Dimension{Name: dimConstraints, Found: quoted("constraint", found), Score: min(n, 2)}
	switch n {
	case 0:
		d.Missing = "state what must hold: \"must …\", \"must not …\", \"keep … compatible\", \"without …\""
	case 1:
		d.Missing = "one constraint found; say what else must not change (API, behaviour, dependencies)"
	}
	return d
}

func scoreSuccess(t specText) Dimension {
	strong, _ := t.find(successStrong)
	ev := quoted("criterion", strong)
	for _, m := range reNumber().FindAllString(t.raw, 8) {
		ev = appendNew(ev, fmt.Sprintf("measure %q", m))
	}
	for _, c := range codeSpans(t.raw) {
		if reCommand().MatchString(c) {
			ev = appendNew(ev, fmt.Sprintf("command %q", c))
		}
	}
	d := Dimension{Name: DimSuccess, Found: ev}
	if len(ev) > 0 {
		d.Score = 2
		return d
	}
	weak, _ := t.find(successWeak)
	d.Found = quoted("criterion", weak)
	d.Missing = "give a measurable check: a command that passes (`go test ./...`), an exit code, a number (coverage ≥ 80%)"
	if len(weak) > 0 {
		d.Score = 1
		d.Missing = "make the check measurable: which command passes, which exit code or number"
	}
	return d
}

func scoreDone(t specText) Dimension {
	strong, _ := t.find(doneStrong)
	if len(strong) > 0 {
		return Dimension{Name: DimDone, Score: 2, Found: quoted("condition", strong)}
	}
	weak, _ := t.find(doneWeak)
	d := Dimension{Name: DimDone, Found: quoted("condition", weak),
		Missing: "say when it is done: \"done when …\", or a promise to write (<promise>DONE</promise>)"}
	if len(weak) > 0 {
		d.Score = 1
		d.Missing = "make the end explicit: \"done when …\", or a promise to write (<promise>DONE</promise>)"
	}
	return d
}

// artefacts are named things: code spans, paths and file names, identifiers (CamelCase,
// snake_case, calls), and flags.
func artefacts(t specText) []string {
	var out []string
	for _, c := range codeSpans(t.raw) {
		out = appendNew(out, c)
	}
	for _, f := range t.fields {
		w := trimPunct(f)
		if !strings.ContainsAny(w, "<>") && (isPath(w) || isIdentifier(w) || isFlag(w)) {
			out = appendNew(out, w)
		}
		if len(out) >= 8 {
			break
		}
	}
	return out
}

// locations are paths and file names, and packages, modules or directories named in words.
func locations(t specText) []string {
	var out []string
	for _, f := range append(codeSpans(t.raw), t.fields...) {
		if w := trimPunct(f); !strings.ContainsAny(w, "<>") && isPath(w) {
			out = appendNew(out, w)
		}
	}
	stop := map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "it": true, "each": true,
		"every": true, "any": true, "one": true, "its": true, "which": true, "new": true, "same": true}
	for i, w := range t.words {
		if !contains(locationWords, w) || w == "file" || w == "files" {
			continue
		}
		switch {
		case i+1 < len(t.words) && !stop[t.words[i+1]]:
			out = appendNew(out, w+" "+t.words[i+1])
		case i > 0 && !stop[t.words[i-1]]:
			out = appendNew(out, t.words[i-1]+" "+w)
		}
	}
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

func codeSpans(raw string) []string {
	var out []string
	for _, m := range reCodeSpan().FindAllStringSubmatch(raw, 16) {
		if s := strings.TrimSpace(m[1]); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// trimPunct strips sentence punctuation and quotes around a word.
func trimPunct(s string) string {
	return strings.Trim(s, ".,;:!?()[]{}\"'`<>")
}

// isPath reports whether w looks like a path (a/b, ./x, dir/) or a file name (calc.go).
func isPath(w string) bool {
	if strings.Contains(w, "://") || strings.ContainsFunc(w, unicode.IsSpace) {
		return false
	}
	if strings.Contains(w, "/") {
		return strings.IndexFunc(w, unicode.IsLetter) >= 0 || strings.Contains(w, "...")
	}
	base, ext, ok := cutLast(w, ".")
	if !ok || base == "" || len(ext) == 0 || len(ext) > 5 || !unicode.IsLetter(rune(ext[0])) {
		return false
	}
	switch strings.ToLower(w) {
	case "e.g", "i.e", "etc", "vs", "a.k.a", "n.b":
		return false
	}
	for _, r := range ext {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return strings.IndexFunc(base, unicode.IsLetter) >= 0
}

// isIdentifier reports whether w is code: CamelCase with an inner capital, snake_case, or
// a call such as Add(2, 2).
func isIdentifier(w string) bool {
	if w == "" || strings.ContainsAny(w, " ") {
		return false
	}
	if i := strings.Index(w, "("); i > 0 && isWordy(w[:i]) {
		return true
	}
	if !isWordy(w) {
		return false
	}
	if i := strings.Index(w, "_"); i > 0 && i < len(w)-1 {
		return true
	}
	for i, r := range w {
		if i > 0 && unicode.IsUpper(r) && strings.IndexFunc(w, unicode.IsLower) >= 0 {
			return true
		}
	}
	return false
}

// isWordy reports whether w is made of letters, digits, '_' and '.', starting with a letter.
func isWordy(w string) bool {
	for i, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.') || (i == 0 && !unicode.IsLetter(r)) {
			return false
		}
	}
	return w != ""
}

// isFlag reports whether w is a command-line flag such as --json.
func isFlag(w string) bool {
	return len(w) > 3 && strings.HasPrefix(w, "--") && isWordy(strings.ReplaceAll(w[2:], "-", "_"))
}

func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func appendNew(xs []string, x string) []string {
	if contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// workflowOf names the workflow the wording asks for: the kind with the most words, refactor
// before debug before build on a tie, build when nothing says.
func workflowOf(t specText) (string, []string) {
	kinds := []struct {
		name  string
		words []string
	}{
		{workflowRefactor, []string{"refactor", "refactoring", "rename", "extract", "restructure", "reorganize",
			"reorganise", "simplify", "deduplicate", "dedupe", "clean up", "cleanup", "inline", "tidy", "modularize",
			"without changing behaviour", "without changing behavior", "no behaviour change", "no behavior change"}},
		{workflowDebug, []string{"fix", "fixes", "bug", "bugs", "crash", "crashes", "error", "errors", "failing",
			"fails", "broken", "regression", "panic", "panics", "reproduce", "investigate", "flaky", "wrong",
			"incorrect", "debug", "diagnose", "leak", "hang", "hangs", "off by one", "dropped", "drops"}},
		{workflowBuild, []string{"add", "adds", "implement", "create", "build", "support", "new", "feature",
			"introduce", "generate", "scaffold", "expose", "extend"}},
	}
	best, bestN, bestFound := workflowBuild, 0, []string{}
	for _, k := range kinds {
		found, n := t.find(k.words)
		if n > bestN {
			best, bestN, bestFound = k.name, n, found
		}
	}
	return best, bestFound
}
