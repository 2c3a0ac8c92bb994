package diag

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
)

// ParseDiagnostics reads the output of a gate (usually the bounded tail kept in
// GateResult.Tail) and sums up what it recognises, line by line:
//
//   - go test: -json events (pass/fail/skip of each test and subtest, build output),
//     plain and -v output ("--- FAIL: TestX", "ok pkg … coverage: 75.0% of statements"),
//     and `go tool cover -func`'s "total:" line;
//   - pytest's summary line ("1 failed, 10 passed, 1 skipped, 2 warnings in 0.12s") and the
//     TOTAL line of pytest-cov or `coverage report`;
//   - cargo test's "test result: ok. 12 passed; 0 failed; 1 ignored; …" (summed over test
//     binaries and doc tests) and cargo-tarpaulin's "85.00% coverage";
//   - node --test's "# pass 5", "# fail 1", "# skipped 0" (ℹ instead of # in the spec
//     reporter) and its coverage table's "all files" row (line %);
//   - jest's "Tests: 1 failed, 5 passed, 6 total", vitest's "Tests  2 failed | 10 passed
//     (12)" and the istanbul table's "All files" row (its % Lines column);
//   - compiler and linter diagnostics: FILE:LINE:COL: lines (go build, go vet, gcc, flake8,
//     ruff), rustc's error[E…]:/warning: lines, tsc's "error TS…", eslint's "✖ 3 problems
//     (2 errors, 1 warning)", and "Found N errors" summaries.
//
// Coverage is the last total seen (a TOTAL, total: or All files line), else the mean of the
// per-package figures of go test -cover (packages that have tests). A tool that counts its
// own errors in a summary and also lists them line by line is not counted twice: errors and
// warnings are the larger of the two ways of counting.
//
// FirstFailure names what failed first (see [Diagnostics]); it is read in diagfirst.go.
func ParseDiagnostics(output string) Diagnostics {
	p := diagParser{goPkgCov: map[string]float64{}}
	for line := range strings.SplitSeq(output, "\n") {
		p.line(strings.TrimRight(line, "\r"))
	}
	return p.result()
}

// diagParser accumulates one output's diagnostics.
type diagParser struct {
	d                      Diagnostics
	formats                []string
	lineErrors, lineWarns  int // counted one diagnostic line at a time
	sumErrors, sumWarnings int // declared by summary lines
	total                  *float64
	goPkgCov               map[string]float64 // go test -json: package → coverage
	goPlainCov             []float64          // go test plain: one per package line
	goPending              *float64           // a "coverage:" line waiting for its package line
	f                      firstState         // the line naming the failure
}

func (p *diagParser) format(name string) {
	if !slices.Contains(p.formats, name) {
		p.formats = append(p.formats, name)
	}
}

func (p *diagParser) result() Diagnostics {
	d := p.d
	d.Errors = max(p.lineErrors, p.sumErrors)
	d.Warnings = max(p.lineWarns, p.sumWarnings)
	switch {
	case p.total != nil:
		d.Coverage = p.total
	case len(p.goPkgCov) > 0 || len(p.goPlainCov) > 0:
		sum, n := 0.0, 0
		for _, v := range p.goPkgCov {
			sum, n = sum+v, n+1
		}
		for _, v := range p.goPlainCov {
			sum, n = sum+v, n+1
		}
		mean := sum / float64(n)
		d.Coverage = &mean
	}
	d.Formats = p.formats
	d.FirstFailure = p.firstFailure()
	return d
}

var (
	reGoTestLine   = textutil.LazyRegexp(`^\s*--- (PASS|FAIL|SKIP): \S`)
	reGoPkgLine    = textutil.LazyRegexp(`^(?:ok  |FAIL)\t\S`)
	reGoCoverage   = textutil.LazyRegexp(`(?:^|\s)coverage: (\d+(?:\.\d+)?)% of statements`)
	reGoCoverTotal = textutil.LazyRegexp(`^total:\s+\(statements\)\s+(\d+(?:\.\d+)?)%\s*$`)
	rePytest       = textutil.LazyRegexp(`^=*\s*((?:\d+ [a-z]+)(?:, \d+ [a-z]+)*) in \d+(?:\.\d+)?s(?: \([0-9:.]+\))?\s*=*$`)
	rePytestNone   = textutil.LazyRegexp(`^=*\s*no tests ran in \d+(?:\.\d+)?s\s*=*$`)
	reTotalRow     = textutil.LazyRegexp(`^TOTAL\s.*?(\d+(?:\.\d+)?)%\s*$`)
	reCargo        = textutil.LazyRegexp(`^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;`)
	reTarpaulin    = textutil.LazyRegexp(`^(\d+(?:\.\d+)?)% coverage, \d+/\d+ lines covered`)
	reJest         = textutil.LazyRegexp(`^Tests:\s+(.*?),?\s*\d+ total\s*$`)
	reVitest       = textutil.LazyRegexp(`^\s*Tests\s+(\d+ [a-z]+(?: \| \d+ [a-z]+)*)\s+\(\d+\)`)
	reAllFiles     = textutil.LazyRegexp(`^\s*All files\s*\|(.*)$`)
	reNodeCount    = textutil.LazyRegexp(`^(?:#|ℹ) (pass|fail|skipped) (\d+)$`)
	reNodeCover    = textutil.LazyRegexp(`^(?:#|ℹ) all files\s*\|\s*(\d+(?:\.\d+)?)\s*\|`)
	reFileLineCol  = textutil.LazyRegexp(`^(?:[A-Za-z]:)?[^\s:]*\.[A-Za-z0-9]+:\d+:\d+:\s*(\S*)`)
	reTSC          = textutil.LazyRegexp(`^\S.*\berror TS\d+:`)
	reRustError    = textutil.LazyRegexp(`^error(?:\[E\d+\])?: `)
	reRustWarning  = textutil.LazyRegexp(`^warning: `)
	reRustSummary  = textutil.LazyRegexp(`could not compile|aborting due to|previous errors?\b|generated \d+ warnings?|warnings? emitted|test failed, to rerun|build failed`)
	reESLint       = textutil.LazyRegexp(`^✖ \d+ problems? \((\d+) errors?, (\d+) warnings?\)`)
	reFoundErrors  = textutil.LazyRegexp(`^Found (\d+) errors?\b`)
)

// line recognises one line of output.
func (p *diagParser) line(s string) {
	if strings.Contains(s, "\x1b") {
		s = StripANSI(s)
	}
	if strings.HasPrefix(s, "{") && p.goJSON(s) {
		return
	}
	if t := p.f.test; t == nil || t.rank != rankTest || p.f.block != blockNone || t.key != "" {
		p.firstLine(s)
	}
	if p.goText(s) || p.testSummary(s) || p.coverageLine(s) {
		return
	}
	p.problem(s)
}

// goEvent is one line of `go test -json` (test2json) output.
type goEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// goJSON reads a go test -json event; it reports false for other lines.
func (p *diagParser) goJSON(s string) bool {
	var ev goEvent
	if json.Unmarshal([]byte(s), &ev) != nil || ev.Action == "" {
		return false
	}
	p.format("go test -json")
	switch ev.Action {
	case "pass", "fail", "skip":
		if ev.Test == "" {
			if ev.Action != "skip" { // a package result: every test of it was reported
				p.ensureTests()
			}
			return true
		}
		target := map[string]**int{"pass": &p.d.Passed, "fail": &p.d.Failed, "skip": &p.d.Skipped}[ev.Action]
		AddCount(target, 1)
		if ev.Action == "fail" {
			p.goFailJSON(ev.Test)
		}
	case "output":
		p.goLog(ev.Test, strings.TrimRight(ev.Output, "\n"))
		if m := reGoCoverage().FindStringSubmatch(ev.Output); m != nil && ev.Package != "" {
			p.goPkgCov[ev.Package] = parsePercent(m[1])
		}
	case "build-output":
		p.problem(strings.TrimRight(ev.Output, "\n"))
	}
	return true
}

// goText reads plain go test output: test result lines, package lines and coverage.
func (p *diagParser) goText(s string) bool {
	if m := reGoTestLine().FindStringSubmatch(s); m != nil {
		p.format("go test")
		target := map[string]**int{"PASS": &p.d.Passed, "FAIL": &p.d.Failed, "SKIP": &p.d.Skipped}[m[1]]
		AddCount(target, 1)
		return true
	}
	if reGoPkgLine().MatchString(s) {
		p.format("go test")
		if strings.HasSuffix(s, " [build failed]") || strings.HasSuffix(s, " [setup failed]") {
			return true // nothing ran: the compiler's errors say why, not a count of tests
		}
		if p.d.Failed == nil {
			AddCount(&p.d.Failed, 0) // a package result: no --- FAIL line means none failed
		}
		cov := p.goPending
		if m := reGoCoverage().FindStringSubmatch(s); m != nil {
			v := parsePercent(m[1])
			cov = &v
		}
		if cov != nil {
			p.goPlainCov = append(p.goPlainCov, *cov)
		}
		p.goPending = nil
		return true
	}
	if m := reGoCoverage().FindStringSubmatch(s); m != nil && strings.HasPrefix(s, "coverage:") {
		v := parsePercent(m[1])
		p.goPending = &v
		return true
	}
	if m := reGoCoverTotal().FindStringSubmatch(s); m != nil {
		p.format("go tool cover")
		p.setTotal(m[1])
		return true
	}
	return false
}

// testSummary reads the summary lines of pytest, cargo test, jest and vitest.
func (p *diagParser) testSummary(s string) bool {
	if m := rePytest().FindStringSubmatch(s); m != nil {
		p.format("pytest")
		p.counts(strings.Split(m[1], ", "))
		p.ensureTests()
		return true
	}
	if rePytestNone().MatchString(s) {
		p.format("pytest")
		p.ensureTests()
		return true
	}
	if m := reCargo().FindStringSubmatch(s); m != nil {
		p.format("cargo test")
		AddCount(&p.d.Passed, atoi(m[1]))
		AddCount(&p.d.Failed, atoi(m[2]))
		AddCount(&p.d.Skipped, atoi(m[3]))
		return true
	}
	if m := reJest().FindStringSubmatch(s); m != nil {
		p.format("jest")
		p.counts(strings.Split(m[1], ", "))
		p.ensureTests()
		return true
	}
	if m := reNodeCount().FindStringSubmatch(s); m != nil {
		p.format("node --test")
		target := map[string]**int{"pass": &p.d.Passed, "fail": &p.d.Failed, "skipped": &p.d.Skipped}[m[1]]
		AddCount(target, atoi(m[2]))
		return true
	}
	if m := reVitest().FindStringSubmatch(s); m != nil {
		p.format("vitest")
		p.counts(strings.Split(m[1], " | "))
		p.ensureTests()
		return true
	}
	return false
}

// ensureTests marks passed and failed as known (zero) after a test runner's summary.
func (p *diagParser) ensureTests() {
	AddCount(&p.d.Passed, 0)
	AddCount(&p.d.Failed, 0)
}

// counts adds "N word" parts such as "3 failed" or "1 warning"; words it does not know
// (xfailed, deselected, todo, total) are ignored.
func (p *diagParser) counts(parts []string) {
	for _, part := range parts {
		num, word, ok := strings.Cut(strings.TrimSpace(part), " ")
		if !ok {
			continue
		}
		n := atoi(num)
		switch word {
		case "passed":
			AddCount(&p.d.Passed, n)
		case "failed":
			AddCount(&p.d.Failed, n)
		case "skipped":
			AddCount(&p.d.Skipped, n)
		case "error", "errors":
			p.sumErrors += n
		case "warning", "warnings":
			p.sumWarnings += n
		}
	}
}

// coverageLine reads coverage totals: TOTAL rows, tarpaulin, the istanbul All files row.
func (p *diagParser) coverageLine(s string) bool {
	if m := reTotalRow().FindStringSubmatch(s); m != nil {
		p.format("coverage report")
		p.setTotal(m[1])
		return true
	}
	if m := reNodeCover().FindStringSubmatch(s); m != nil {
		p.format("node --test")
		p.setTotal(m[1]) // the line % column
		return true
	}
	if m := reTarpaulin().FindStringSubmatch(s); m != nil {
		p.format("tarpaulin")
		p.setTotal(m[1])
		return true
	}
	if m := reAllFiles().FindStringSubmatch(s); m != nil {
		var cols []string
		for c := range strings.SplitSeq(m[1], "|") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		// % Stmts | % Branch | % Funcs | % Lines: lines, as the other reports count.
		pick := ""
		if len(cols) >= 4 {
			pick = cols[3]
		} else if len(cols) > 0 {
			pick = cols[0]
		}
		if _, err := strconv.ParseFloat(pick, 64); err == nil {
			p.format("istanbul")
			p.setTotal(pick)
			return true
		}
	}
	return false
}

// problem counts compiler and linter errors and warnings.
func (p *diagParser) problem(s string) {
	s = strings.TrimPrefix(s, "vet: ") // go vet's own errors (syntax, types) carry this prefix
	switch {
	case reTSC().MatchString(s):
		p.format("tsc")
		p.lineErrors++
		p.offer(rankError, strings.TrimSpace(s))
	case reFileLineCol().MatchString(s):
		switch kind := reFileLineCol().FindStringSubmatch(s)[1]; {
		case strings.HasPrefix(kind, "warning"):
			p.lineWarns++
		case strings.HasPrefix(kind, "note") || strings.HasPrefix(kind, "info"):
		default:
			p.lineErrors++
			p.offer(rankError, s)
		}
	case reRustError().MatchString(s):
		if reRustSummary().MatchString(s) {
			p.offer(rankWrapper, s) // "error: could not compile", "error: test failed, to rerun …"
			break
		}
		p.lineErrors++
		if p.f.cands[rankError] == "" {
			p.offer(rankError, s)
			p.f.rustPending = true // its location is on the next line, " --> src/lib.rs:3:5"
		}
	case reRustWarning().MatchString(s) && !reRustSummary().MatchString(s):
		p.lineWarns++
	}
	if m := reESLint().FindStringSubmatch(s); m != nil {
		p.format("eslint")
		p.sumErrors += atoi(m[1])
		p.sumWarnings += atoi(m[2])
	} else if m := reFoundErrors().FindStringSubmatch(s); m != nil {
		p.sumErrors += atoi(m[1])
	}
}

func (p *diagParser) setTotal(percent string) {
	v := parsePercent(percent)
	p.total = &v
}

// parsePercent parses a percentage already matched as digits, clamped to 0–100.
func parsePercent(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return 0
	}
	return min(max(v, 0), 100)
}

// atoi parses a count already matched as digits; an absurd one becomes the largest int.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return math.MaxInt32
	}
	return min(n, math.MaxInt32)
}

// reANSI matches a terminal escape sequence: colours, cursor moves, titles.
var reANSI = textutil.LazyRegexp(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])`)

// StripANSI removes the terminal escape sequences of a gate's output.
func StripANSI(s string) string { return reANSI().ReplaceAllString(s, "") }
