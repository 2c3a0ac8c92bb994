package diag

import (
	"strings"
	"unicode/utf8"

	"github.com/git-loop/git-loop/internal/textutil"
)

// maxFirstBytes bounds Diagnostics.FirstFailure, cut on a rune boundary.
const maxFirstBytes = 200

// How concrete a line naming the failure is; the lowest rank seen wins, and within a rank
// the first line seen.
const (
	rankTest    = iota // a failing test, with where and why when the output says
	rankError          // a compiler, linter or runtime error at FILE:LINE
	rankLine           // a line that plainly says what went wrong (assertion, shell error)
	rankSummary        // a runner's summary that says what went wrong ("no tests ran")
	rankWrapper        // a build tool's own line (make: ***, npm error, FAIL pkg, exit status)
	rankNone
)

// Which multi-line block of a failing test is being read for its location and message.
const (
	blockNone   = iota
	blockGo     // go test: log lines under --- FAIL
	blockPytest // a pytest FAILURES or ERRORS section
	blockCargo  // cargo test: ---- name stdout ---- and its panic
	blockPanic  // the message lines after a Rust panic's "panicked at FILE:LINE:COL:"
	blockTAP    // TAP (node --test): the YAML block after "not ok"
	blockJS     // jest's "● name" or vitest's "FAIL file > name"
)

// failedTest is the first failing test and what its output says about it.
type failedTest struct {
	name, loc, msg string
	rank           int    // rankTest, or rankWrapper for a TAP file that only "failed"
	key            string // pytest: the section's test, to match its short summary line
}

func (t failedTest) String() string {
	detail := t.msg
	if t.loc != "" {
		if detail != "" {
			detail = t.loc + ": " + detail
		} else {
			detail = t.loc
		}
	}
	if detail == "" {
		return t.name
	}
	return t.name + " (" + detail + ")"
}

// firstState is the part of diagParser that finds the line naming the failure.
type firstState struct {
	lineNo int
	test   *failedTest
	cands  [rankNone]string // the first line seen of each rank (the test excepted)

	block       int               // blockNone or the block of the first failing test being read
	blockIndent int               // go: the indentation of --- FAIL; TAP: of the YAML keys
	blockLines  int               // lines read in the block, to give up on one that never ends
	afterFile   bool              // pytest: an E line gave File "x", line N (a SyntaxError)
	tapError    bool              // TAP: reading the lines of "error: |-"
	rustPending bool              // the last line was an error[E…] line chosen as rankError
	cargoList   bool              // after cargo's "failures:": the names of the failing tests
	pyRoot      string            // pytest's rootdir, cut from paths
	goRunning   string            // go test -v: the test of the last === RUN/CONT/NAME line
	goLogs      map[string]string // go test -v/-json: each test's first log line (at most 64)
	srcLoc      string            // the last FILE:LINE of a traceback or a node error
	srcLocAt    int               // the line number of srcLoc: an error uses it a few lines on
	lastFile    string            // the last unindented line that may name a file (eslint)
}

// offer records s as the line of a rank unless one came first.
func (p *diagParser) offer(rank int, s string) {
	if p.f.cands[rank] == "" {
		p.f.cands[rank] = s
	}
}

// newTest starts the first failing test, or replaces one that was only a wrapper.
func (p *diagParser) newTest(name string, block int) bool {
	if p.f.test != nil && p.f.test.rank == rankTest {
		return false
	}
	p.f.test = &failedTest{name: name, rank: rankTest}
	p.f.block, p.f.blockLines, p.f.afterFile, p.f.tapError = block, 0, false, false
	return true
}

// firstFailure is the line naming the failure: the most concrete one seen.
func (p *diagParser) firstFailure() string {
	s := ""
	for r := range rankNone {
		if p.f.test != nil && p.f.test.rank == r {
			s = p.f.test.String()
			break
		}
		if p.f.cands[r] != "" {
			s = p.f.cands[r]
			break
		}
	}
	if s == "" {
		return ""
	}
	if p.f.pyRoot != "" {
		s = strings.ReplaceAll(s, p.f.pyRoot+"/", "")
	}
	s = textutil.NormalizeSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) > maxFirstBytes {
		cut := maxFirstBytes - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

var (
	rePyFile      = textutil.LazyRegexp(`File "([^"]+)", line (\d+)`)
	rePyFrame     = textutil.LazyRegexp(`^([^\s:]+\.py):(\d+): (?:in \S+|\w+)$`)
	rePyHeader    = textutil.LazyRegexp(`^_{3,} (.+?) _{3,}$`)
	reException   = textutil.LazyRegexp(`^(?:INTERNALERROR>\s*|E\s+|#\s+)?((?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*)?(?:Error|Exception): \S.*)$`)
	reJSLoc       = textutil.LazyRegexp(`^(?:#\s+)?([^\s:]+\.[cm]?[jt]sx?):(\d+)$`)
	reRustArrow   = textutil.LazyRegexp(`^\s*--> (\S+:\d+:\d+)$`)
	reRustPanic   = textutil.LazyRegexp(`^thread '([^']*)'(?: \(\d+\))? panicked at (\S+:\d+:\d+):$`)
	reCargoHeader = textutil.LazyRegexp(`^---- (\S+) stdout ----$`)
	reJSAtLoc     = textutil.LazyRegexp(`^(?:at .*\(|❯ )([^\s()]+:\d+:\d+)\)?$`)
	reESLintLine  = textutil.LazyRegexp(`^\s+(\d+:\d+)\s+error\s+(.+)$`)
	reArgparse    = textutil.LazyRegexp(`^\S+: error: \S`)
)

// firstLine reads one line (without ANSI escapes) for the line naming the failure.
func (p *diagParser) firstLine(s string) {
	f := &p.f
	f.lineNo++
	if f.block != blockNone && p.blockLine(s) {
		return
	}
	t := strings.TrimLeft(s, " \t")
	if t == "" {
		f.cargoList = false
		return
	}
	if f.rustPending {
		f.rustPending = false
		if m := reRustArrow().FindStringSubmatch(s); m != nil {
			f.cands[rankError] = m[1] + ": " + f.cands[rankError]
			return
		}
	}
	if f.cargoList {
		if strings.HasPrefix(s, "    ") && !strings.Contains(t, " ") {
			p.newTest(t, blockNone)
			return
		}
		f.cargoList = false
	}
	if s[0] != ' ' && s[0] != '\t' && !strings.Contains(s, " ") && strings.Contains(s, ".") {
		f.lastFile = s
	}
	if f.goRunning != "" && len(t) < len(s) {
		p.goLog(f.goRunning, s)
	}
	switch {
	case strings.HasPrefix(t, "--- FAIL: "):
		p.goFail(s, t)
		return
	case strings.HasPrefix(t, "=== ") && len(t) > 10: // === RUN   TestX
		if verb := t[4:8]; verb == "RUN " || verb == "CONT" || verb == "NAME" {
			f.goRunning = strings.TrimSpace(t[8:])
		}
		return
	case strings.HasPrefix(t, "not ok "):
		p.tapFail(s, t)
		return
	case strings.HasPrefix(s, "FAILED ") || strings.HasPrefix(s, "ERROR "):
		if p.pytestSummary(s) {
			return
		}
	case strings.HasPrefix(s, "___") && strings.HasSuffix(s, "___"):
		p.pytestHeader(s)
		return
	case strings.HasPrefix(s, "---- "):
		if m := reCargoHeader().FindStringSubmatch(s); m != nil {
			p.newTest(m[1], blockCargo)
			return
		}
	case strings.HasPrefix(s, "thread '"):
		if m := reRustPanic().FindStringSubmatch(s); m != nil {
			if f.test == nil || f.test.rank != rankTest {
				if m[1] == "main" || !p.newTest(m[1], blockNone) {
					p.offer(rankError, m[2]+": panicked")
					return
				}
			}
			if f.test.loc == "" && f.test.name == m[1] {
				f.test.loc = m[2]
				f.block, f.blockLines = blockPanic, 0
			}
			return
		}
	case s == "failures:":
		f.cargoList = true
		return
	case strings.HasPrefix(t, "● ") && t != "● Console":
		p.newTest(strings.TrimSpace(t[len("● "):]), blockJS)
		return
	case strings.HasPrefix(t, "FAIL ") && strings.Contains(t, " > "): // vitest
		p.newTest(strings.TrimSpace(t[len("FAIL "):]), blockJS)
		return
	case strings.HasPrefix(s, "rootdir: "):
		root, _, _ := strings.Cut(s[len("rootdir: "):], ",")
		f.pyRoot = strings.TrimSpace(root)
		return
	}
	p.plainLine(s, t)
}

// plainLine reads a line outside any test: errors at a location, lines that say what went
// wrong, summaries and the build tool's own lines.
func (p *diagParser) plainLine(s, t string) {
	f := &p.f
	// Where a traceback or node's report of an uncaught error says the error is.
	if strings.Contains(t, `File "`) {
		if m := rePyFile().FindStringSubmatch(t); m != nil {
			f.srcLoc, f.srcLocAt = m[1]+":"+m[2], f.lineNo
			return
		}
	}
	if c := t[len(t)-1]; c >= '0' && c <= '9' &&
		(strings.Contains(t, "js:") || strings.Contains(t, "ts:") || strings.Contains(t, "sx:")) {
		if m := reJSLoc().FindStringSubmatch(t); m != nil {
			f.srcLoc, f.srcLocAt = m[1]+":"+m[2], f.lineNo
			return
		}
	}
	if strings.Contains(t, ".py:") {
		if m := rePyFrame().FindStringSubmatch(t); m != nil {
			f.srcLoc, f.srcLocAt = m[1]+":"+m[2], f.lineNo
			return
		}
	}
	if strings.Contains(t, "Error: ") || strings.Contains(t, "Exception: ") {
		if m := reException().FindStringSubmatch(t); m != nil {
			if f.srcLoc != "" && f.lineNo-f.srcLocAt <= 6 {
				p.offer(rankError, f.srcLoc+": "+m[1])
			} else {
				p.offer(rankLine, m[1])
			}
			return
		}
	}
	if f.cands[rankError] == "" && strings.Contains(s, "  error  ") && f.lastFile != "" {
		if m := reESLintLine().FindStringSubmatch(s); m != nil {
			p.offer(rankError, f.lastFile+":"+m[1]+": "+m[2])
			return
		}
	}
	if f.cands[rankLine] != "" {
		if f.cands[rankWrapper] == "" || f.cands[rankSummary] == "" {
			p.laterLine(s, t)
		}
		return
	}
	switch {
	case strings.HasPrefix(t, "panic: "),
		strings.HasPrefix(t, "FAIL:"), strings.HasPrefix(t, "FAIL "),
		strings.HasPrefix(t, "FAILED:"), strings.HasPrefix(t, "FAILED "),
		strings.Contains(t, "Assertion `") && strings.HasSuffix(t, "failed."),
		strings.HasSuffix(t, ": not found"), strings.HasSuffix(t, ": command not found"),
		strings.HasSuffix(t, ": No such file or directory"), strings.HasSuffix(t, ": Permission denied"),
		strings.Contains(t, "Syntax error: "), strings.Contains(t, ": syntax error"),
		strings.Contains(t, ": undefined reference to "),
		strings.HasPrefix(t, "ImportError while loading conftest"),
		strings.HasPrefix(t, "make") && strings.Contains(t, ": *** ") && !strings.Contains(t, ": *** ["),
		strings.Contains(t, ": error: ") && reArgparse().MatchString(t):
		p.offer(rankLine, t)
		return
	}
	p.laterLine(s, t)
}

// laterLine reads the summaries and wrapper lines used when nothing better is seen.
func (p *diagParser) laterLine(s, t string) {
	switch {
	case strings.Contains(t, "no tests ran"), strings.Contains(t, "No tests found"),
		strings.HasPrefix(t, "ERROR: "):
		p.offer(rankSummary, strings.Trim(t, "= "))
	case strings.HasPrefix(s, "FAIL\t"), s == "FAIL",
		strings.HasPrefix(s, "exit status "),
		strings.HasPrefix(s, "npm ERR!"), strings.HasPrefix(s, "npm error"),
		strings.HasPrefix(s, "make") && strings.Contains(s, ": *** ["):
		p.offer(rankWrapper, t)
	}
}

// goFail reads go test's "--- FAIL: TestX (0.01s)", nested for subtests.
func (p *diagParser) goFail(s, t string) {
	f := &p.f
	name, _, _ := strings.Cut(t[len("--- FAIL: "):], " (")
	indent := len(s) - len(t)
	switch {
	case p.newTest(name, blockGo):
	case f.block == blockGo && f.test.msg == "" && strings.HasPrefix(name, f.test.name+"/"):
		f.test.name = name // the subtest that failed, not its parent
	default:
		return
	}
	f.blockIndent = indent
	if log, ok := f.goLogs[name]; ok { // -v: the log came before the result
		f.test.msg = log
		f.block = blockNone
	}
}

// goLog records the first log line of each test of go test -v or -json, which come before
// its --- FAIL line.
func (p *diagParser) goLog(test, line string) {
	if test == "" || (p.f.test != nil && p.f.test.rank == rankTest) {
		return
	}
	if msg, ok := goLogLine(line); ok {
		if p.f.goLogs == nil {
			p.f.goLogs = map[string]string{}
		}
		if _, seen := p.f.goLogs[test]; !seen && len(p.f.goLogs) < 64 {
			p.f.goLogs[test] = msg
		}
	}
}

// goLogLine is a t.Log/t.Error line, "    calc_test.go:9: Add(2, 2) = 5, want 4".
func goLogLine(s string) (string, bool) {
	t := strings.TrimLeft(s, " ")
	if len(t) == len(s) {
		return "", false
	}
	file, rest, ok := strings.Cut(t, ".go:")
	if !ok || strings.ContainsAny(file, " \t") {
		return "", false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || !strings.HasPrefix(rest[n:], ": ") {
		return "", false
	}
	return strings.TrimSpace(t), true
}

// goFailJSON reads a test's fail event of go test -json.
func (p *diagParser) goFailJSON(test string) {
	if p.newTest(test, blockNone) {
		p.f.test.msg = p.f.goLogs[test]
	}
}

// tapFail reads TAP's "not ok 2 - adds" (node --test when piped).
func (p *diagParser) tapFail(s, t string) {
	if strings.Contains(t, " # TODO") || strings.Contains(t, " # SKIP") {
		return
	}
	name := t[len("not ok "):]
	if _, after, ok := strings.Cut(name, " - "); ok {
		name = after
	}
	if p.newTest(name, blockTAP) {
		p.f.blockIndent = -1 // the indentation of the YAML keys, once seen
	}
}

// pytestHeader reads a section header of pytest's FAILURES or ERRORS:
// "_____ test_add _____", "_____ ERROR collecting test_calc.py _____".
func (p *diagParser) pytestHeader(s string) {
	m := rePyHeader().FindStringSubmatch(s)
	if m == nil {
		return
	}
	if p.newTest(m[1], blockPytest) {
		key := m[1]
		for _, prefix := range []string{"ERROR collecting ", "ERROR at setup of ", "ERROR at teardown of "} {
			key = strings.TrimPrefix(key, prefix)
		}
		p.f.test.key = key
	}
}

// pytestSummary reads pytest's short test summary lines: "FAILED test_calc.py::test_add -
// assert 5 == 4", "ERROR test_calc.py".
func (p *diagParser) pytestSummary(s string) bool {
	kind, rest, _ := strings.Cut(s, " ")
	id, msg, _ := strings.Cut(rest, " - ")
	if id == "" || strings.ContainsAny(id, " \t") {
		return false
	}
	name := id
	if kind == "ERROR" {
		name = "ERROR " + id
	}
	key := id
	if _, after, ok := strings.Cut(id, "::"); ok {
		key = strings.ReplaceAll(after, "::", ".")
	}
	f := &p.f
	switch {
	case f.test != nil && f.test.rank == rankTest && f.test.key != "":
		if f.test.key == key {
			f.test.name, f.test.key = name, ""
			if f.test.msg == "" {
				f.test.msg = msg
			}
		}
	case p.newTest(name, blockNone):
		f.test.msg = msg
	}
	return true
}

// blockLine reads a line of the first failing test's block; it reports whether the line
// was used.
func (p *diagParser) blockLine(s string) bool {
	f := &p.f
	test := f.test
	f.blockLines++
	if f.blockLines > 60 {
		f.block = blockNone
		return false
	}
	t := strings.TrimLeft(s, " \t")
	switch f.block {
	case blockGo:
		if strings.HasPrefix(s, "panic: ") {
			test.msg = s // the panic printed after the test's --- FAIL
			f.block = blockNone
			return true
		}
		if t == "" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "=== ") || len(s)-len(t) <= f.blockIndent {
			if !strings.HasPrefix(t, "--- FAIL: ") {
				f.block = blockNone
			}
			return false
		}
		if msg, ok := goLogLine(s); ok {
			test.msg = msg
			f.block = blockNone
			return true
		}
		return false
	case blockPytest:
		if strings.HasPrefix(s, "___") || strings.HasPrefix(s, "===") || strings.HasPrefix(s, "---") {
			f.block = blockNone
			return false
		}
		if strings.HasPrefix(s, "E ") {
			e := strings.TrimSpace(s[1:])
			if m := rePyFile().FindStringSubmatch(e); m != nil && strings.HasPrefix(e, "File ") {
				test.loc, f.afterFile, test.msg = m[1]+":"+m[2], true, ""
			} else if f.afterFile {
				if reException().MatchString(e) && test.msg == "" {
					test.msg = e
				}
			} else if test.msg == "" {
				test.msg = e
			}
			return true
		}
		if !f.afterFile && strings.Contains(s, ".py:") {
			if m := rePyFrame().FindStringSubmatch(s); m != nil {
				test.loc = m[1] + ":" + m[2]
			}
		}
		return true
	case blockCargo:
		if strings.HasPrefix(s, "thread '") {
			return false // read as a panic
		}
		if s == "failures:" || strings.HasPrefix(s, "---- ") || strings.HasPrefix(s, "test result: ") {
			f.block = blockNone
			return false
		}
		return true
	case blockPanic:
		if t == "" || strings.HasPrefix(s, "note: ") || strings.HasPrefix(s, "stack backtrace:") ||
			strings.Count(test.msg, ", ") >= 3 {
			f.block = blockNone
			return t != ""
		}
		if test.msg != "" {
			test.msg += ", "
		}
		test.msg += t
		return true
	case blockTAP:
		indent := len(s) - len(t)
		if t == "---" || t == "" {
			return true
		}
		if t == "..." {
			f.block = blockNone
			return true
		}
		if f.blockIndent < 0 {
			f.blockIndent = indent
		}
		if indent > f.blockIndent {
			if f.tapError && t != "" && strings.Count(test.msg, " ") < 30 {
				test.msg = strings.TrimSpace(test.msg + " " + t)
			}
			return true
		}
		if indent < f.blockIndent {
			f.block = blockNone
			return false
		}
		key, value, _ := strings.Cut(t, ": ")
		f.tapError = key == "error" && strings.HasPrefix(value, "|")
		switch key {
		case "location":
			test.loc = strings.Trim(value, `'"`)
		case "error":
			if !f.tapError {
				test.msg = strings.Trim(value, `'"`)
			}
		case "code":
			if strings.Contains(value, "ERR_TEST_FAILURE") && test.msg == "test failed" {
				test.rank = rankWrapper // a file whose run failed: its own output says why
			}
		}
		return true
	case blockJS:
		if strings.HasPrefix(t, "● ") || strings.HasPrefix(t, "⎯") {
			f.block = blockNone
			return false
		}
		if m := reJSAtLoc().FindStringSubmatch(t); m != nil {
			test.loc = m[1]
			f.block = blockNone
			return true
		}
		if test.msg == "" && t != "" {
			test.msg = t
		}
		return true
	}
	return false
}
