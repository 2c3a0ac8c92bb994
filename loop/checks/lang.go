package checks

import (
	"regexp"
	"strings"
)

// langRules is what Find knows of one language's tests: how a test is declared, which
// lines check something, and which lines turn a test off.
type langRules struct {
	// testDecl matches the line that declares a test; its last non-empty group is the name.
	testDecl *regexp.Regexp
	// endsByIndent: a test ends at the next line indented no deeper than its declaration
	// (Python); otherwise at the next line that closes a top-level block ("}" in column 0)
	// or the next declaration.
	endsByIndent bool
	// assertion matches a line that checks something.
	assertion *regexp.Regexp
	// skip matches a line that turns tests off, with why it does.
	skip []marker
}

// marker is a pattern that turns tests off and what it does, for the reason.
type marker struct {
	re  *regexp.Regexp
	why string
}

// neverTrue is why a condition that never holds turns tests off.
const neverTrue = "makes the code below it conditional on something that never holds, so it never runs"

// reBareReturn matches a return with no value, which in a test's body ends the test.
var reBareReturn = regexp.MustCompile(`^\s*return\s*;?\s*$`)

var rules = map[string]langRules{
	langGo: {
		testDecl:  regexp.MustCompile(`^func\s+(Test\w*|Fuzz\w*|Example\w*)\s*\(`),
		assertion: regexp.MustCompile(`\bt\.(Error|Errorf|Fatal|Fatalf|Fail|FailNow)\b|\b(assert|require)\.\w+\(|\bif\b.*(==|!=|<=|>=|<|>|!\w|reflect\.DeepEqual|cmp\.(Diff|Equal)|errors\.Is|bytes\.Equal)|\bpanic\(`),
		skip: []marker{
			{regexp.MustCompile(`\bt\.(Skip|Skipf|SkipNow)\(`), "skips the test"},
			{regexp.MustCompile(`^//go:build\b|^// \+build\b`), "a build constraint can keep the file from being compiled"},
			{regexp.MustCompile(`testing\.Short\(\)`), "skips the test in short mode"},
			{regexp.MustCompile(`^\s*if\s+false\s*\{`), neverTrue},
		},
	},
	langPython: {
		testDecl:     regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(|^(\s*)class\s+(Test\w*)\b`),
		endsByIndent: true,
		assertion:    regexp.MustCompile(`^\s*assert\b|\bself\.assert\w*\(|\bpytest\.(raises|warns|approx)\b|\.assert_\w+\(|\bnp\.testing\.assert`),
		skip: []marker{
			{regexp.MustCompile(`@pytest\.mark\.(skip|skipif|xfail)\b|@unittest\.(skip|skipIf|skipUnless|expectedFailure)\b`), "marks the test skipped or expected to fail"},
			{regexp.MustCompile(`\bpytest\.(skip|xfail|importorskip)\(|\bself\.skipTest\(|raise\s+(unittest\.)?SkipTest\b`), "skips the test"},
			{regexp.MustCompile(`\bcollect_ignore(_glob)?\b|\bpytest_collection_modifyitems\b|\bpytest_ignore_collect\b`), "keeps tests from being collected"},
			{regexp.MustCompile(`^\s*(?:if|while)\s+\(?\s*(?:False|0|None)\s*\)?\s*:`), neverTrue},
		},
	},
	langJS: {
		testDecl:  regexp.MustCompile(`^\s*(?:test|it)(?:\.(?:only|skip|todo|concurrent|failing))?\s*\(\s*(['"` + "`" + `])(.*?)['"` + "`" + `]`),
		assertion: regexp.MustCompile(`\bassert\b[.(]|\bexpect\(|\.should\b|\bt\.(assert|is|deepEqual|true|false|equal|throws)\w*\(`),
		skip: []marker{
			{regexp.MustCompile(`\b(it|test|describe|suite|context)\.(skip|todo)\b|\b(xit|xtest|xdescribe|xcontext)\s*\(`), "skips the test"},
			{regexp.MustCompile(`\b(it|test|describe|suite|context)\.only\b|\b(fit|fdescribe)\s*\(`), "runs only the marked tests, so the others stop running"},
			{regexp.MustCompile(`\b(skip|todo)\s*:\s*(true|['"` + "`" + `])|\bt\.(skip|todo)\(`), "skips the test"},
			{regexp.MustCompile(`^\s*if\s*\(\s*(?:false|0|null|undefined)\s*\)`), neverTrue},
		},
	},
	langRust: {
		testDecl:  regexp.MustCompile(`^\s*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)\s*\(`),
		assertion: regexp.MustCompile(`\b(assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|debug_assert_ne|assert_matches|prop_assert\w*)!|#\[should_panic|\bpanic!\(|\.unwrap_err\(\)|\bis_err\(\)`),
		skip: []marker{
			{regexp.MustCompile(`#\[ignore\b`), "ignores the test"},
			{regexp.MustCompile(`#\[cfg\((any\(\)|FALSE|false|not\(test\))\)\]`), "compiles the tests out"},
			{regexp.MustCompile(`^\s*if\s+false\s*\{`), neverTrue},
		},
	},
	langC: {
		testDecl:  regexp.MustCompile(`^(?:static\s+)?(?:void|int|bool|char\s*\*?)\s+(test\w*)\s*\(|^\s*TEST(?:_F|_P)?\s*\(\s*\w+\s*,\s*(\w+)\s*\)`),
		assertion: regexp.MustCompile(`\bassert\s*\(|\b(ASSERT|EXPECT|CHECK|REQUIRE|TEST_ASSERT|CU_ASSERT|ck_assert)\w*\s*\(|\bif\s*\(.*(==|!=|<=|>=|<|>|!\w)`),
		skip: []marker{
			{regexp.MustCompile(`^\s*#\s*if\s+0\b`), "compiles the code out"},
			{regexp.MustCompile(`\bGTEST_SKIP\(|\bDISABLED_\w+`), "skips the test"},
			{regexp.MustCompile(`^\s*if\s*\(\s*(?:0|false)\s*\)`), neverTrue},
		},
	},
}

// testAt is one test declared in a file: its name and its lines (1-based, inclusive).
type testAt struct {
	Name       string
	Start, End int
}

// findTests lists the tests a file declares. For Rust, a function counts when a #[test]
// attribute (or a test macro's) comes just before it.
func findTests(lang string, lines []string) []testAt {
	r, ok := rules[lang]
	if !ok {
		return nil
	}
	var out []testAt
	for i, line := range lines {
		m := r.testDecl.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if lang == langRust && !afterTestAttr(lines, i) {
			continue
		}
		name := ""
		for j := len(m) - 1; j >= 1; j-- {
			if m[j] != "" && strings.TrimSpace(m[j]) != "" && !strings.ContainsAny(m[j], `'"`+"`") {
				name = m[j]
				break
			}
		}
		if name == "" {
			continue
		}
		out = append(out, testAt{Name: name, Start: i + 1, End: testEnd(r, lines, i)})
	}
	return out
}

// afterTestAttr reports whether a test attribute (#[test], #[tokio::test]…) precedes line i,
// with only attributes, comments and blank lines between.
func afterTestAttr(lines []string, i int) bool {
	for j := i - 1; j >= 0 && j >= i-6; j-- {
		t := strings.TrimSpace(lines[j])
		switch {
		case strings.HasPrefix(t, "#[") && strings.Contains(t, "test"):
			return true
		case strings.HasPrefix(t, "#[") || strings.HasPrefix(t, "//") || t == "":
		default:
			return false
		}
	}
	return false
}

// testEnd is the last line (1-based) of the test declared at line i.
func testEnd(r langRules, lines []string, i int) int {
	if r.endsByIndent {
		indent := indentOf(lines[i])
		for j := i + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) != "" && indentOf(lines[j]) <= indent {
				return lastNonBlank(lines, j-1) + 1
			}
		}
		return lastNonBlank(lines, len(lines)-1) + 1
	}
	for j := i + 1; j < len(lines); j++ {
		if strings.HasPrefix(lines[j], "}") {
			return j + 1
		}
		if r.testDecl.MatchString(lines[j]) {
			return lastNonBlank(lines, j-1) + 1
		}
	}
	return len(lines)
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

func lastNonBlank(lines []string, j int) int {
	for j > 0 && strings.TrimSpace(lines[j]) == "" {
		j--
	}
	return j
}

// enclosing is the test whose lines hold line n (1-based), or "".
func enclosing(tests []testAt, n int) string {
	for _, t := range tests {
		if n >= t.Start && n <= t.End {
			return t.Name
		}
	}
	return ""
}
