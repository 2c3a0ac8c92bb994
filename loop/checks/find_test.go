package checks

import (
	"strconv"
	"strings"
	"testing"
)

const goTest = `package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(2, 2); got != 4 {
		t.Errorf("Add(2, 2) = %d, want 4", got)
	}
}

func TestSub(t *testing.T) {
	if got := Sub(2, 1); got != 1 {
		t.Errorf("Sub(2, 1) = %d, want 1", got)
	}
}
`

const pyTest = `from calc import add


def test_add():
    assert add(2, 2) == 4


def test_neg():
    assert add(-1, 1) == 0
`

const jsTest = `const test = require('node:test');
const assert = require('node:assert');
const { add } = require('./calc');

test('adds', () => {
  assert.strictEqual(add(2, 2), 4);
});

test('negatives', () => {
  assert.strictEqual(add(-1, 1), 0);
});
`

const rsLib = `pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 2), 4);
    }
}
`

const cTest = `#include <assert.h>
int add(int a, int b);

static void test_add(void) {
	assert(add(2, 2) == 4);
}

int main(void) {
	test_add();
	return 0;
}
`

const makefile = `CFLAGS = -Wall

test: test_calc
	./test_calc

test_calc: calc.c test_calc.c
	cc $(CFLAGS) -o test_calc calc.c test_calc.c
`

const packageJSON = `{
  "name": "calc",
  "scripts": {
    "test": "node --test",
    "lint": "eslint ."
  }
}
`

// TestFindWeakenings: each way of weakening a check, per ecosystem, is found with the
// kind, the place and a reason; honest changes (the code fixed, tests or assertions added,
// a test reformatted) are not.
func TestFindWeakenings(t *testing.T) {
	tests := []struct {
		name    string
		changes []Change
		gates   []string
		want    []string // "kind path:line test" prefixes, in order; none for an honest change
		why     string   // a part of the first reason
	}{
		// Go
		{"go: t.Skip", []Change{{"calc_test.go", []byte(goTest), []byte(strings.Replace(goTest, "\tif got := Add", "\tt.Skip(\"flaky\")\n\tif got := Add", 1))}},
			nil, []string{"skip-added calc_test.go:6 TestAdd"}, "`t.Skip(\"flaky\")` was added to TestAdd at calc_test.go:6: it skips the test"},
		{"go: test deleted", []Change{{"calc_test.go", []byte(goTest), []byte(goTest[:strings.Index(goTest, "func TestAdd")] + goTest[strings.Index(goTest, "func TestSub"):])}},
			nil, []string{"test-removed calc_test.go:5 TestAdd"}, "TestAdd was removed from calc_test.go"},
		{"go: assertion replaced by _ = got", []Change{{"calc_test.go", []byte(goTest), []byte(strings.Replace(goTest, "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}", "\tgot := Add(2, 2)\n\t_ = got", 1))}},
			nil, []string{"assertion-removed calc_test.go:6 TestAdd"}, "TestAdd's assertions at calc_test.go:6,7 were removed or changed"},
		{"go: expectation changed to the bug", []Change{{"calc_test.go", []byte(goTest), []byte(strings.Replace(goTest, "got != 4", "got != 0", 1))}},
			nil, []string{"assertion-removed calc_test.go:6 TestAdd"}, "TestAdd's assertion at calc_test.go:6 was removed or changed"},
		{"go: file renamed away", []Change{{"calc_test.go", []byte(goTest), nil}},
			nil, []string{"file-removed calc_test.go:1 TestAdd, TestSub"}, "renamed out of the runner's sight, and with it its tests TestAdd, TestSub"},
		{"go: build constraint", []Change{{"calc_test.go", []byte(goTest), []byte("//go:build ignore\n\n" + goTest)}},
			nil, []string{"skip-added calc_test.go:1"}, "build constraint"},
		{"go: test moved to another file", []Change{
			{"calc_test.go", []byte(goTest), []byte(goTest[:strings.Index(goTest, "func TestSub")])},
			{"sub_test.go", nil, []byte("package calc\n\nimport \"testing\"\n\n" + goTest[strings.Index(goTest, "func TestSub"):])}}, nil, nil, ""},
		{"go: a new test and a new assertion", []Change{{"calc_test.go", []byte(goTest), []byte(strings.Replace(goTest, "\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}", "\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n\tif Add(0, 0) != 0 {\n\t\tt.Error(\"zero\")\n\t}", 1) + "\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"mul\")\n\t}\n}\n")}}, nil, nil, ""},
		{"go: reformatted", []Change{{"calc_test.go", []byte(goTest), []byte(strings.ReplaceAll(goTest, "\t", "    "))}}, nil, nil, ""},
		{"go: code fixed", []Change{{"calc.go", []byte("package calc\nfunc Add(a, b int) int { return a - b }\n"), []byte("package calc\nfunc Add(a, b int) int { return a + b }\n")}}, nil, nil, ""},

		// Python
		{"python: skip mark", []Change{{"test_calc.py", []byte(pyTest), []byte(strings.Replace(pyTest, "def test_add", "@pytest.mark.skip(reason=\"later\")\ndef test_add", 1))}},
			nil, []string{"skip-added test_calc.py:4"}, "marks the test skipped"},
		{"python: xfail", []Change{{"test_calc.py", []byte(pyTest), []byte(strings.Replace(pyTest, "def test_add", "@pytest.mark.xfail\ndef test_add", 1))}},
			nil, []string{"skip-added test_calc.py:4"}, "expected to fail"},
		{"python: pytest.skip in the test", []Change{{"test_calc.py", []byte(pyTest), []byte(strings.Replace(pyTest, "    assert add(2, 2) == 4", "    pytest.skip(\"later\")\n    assert add(2, 2) == 4", 1))}},
			nil, []string{"skip-added test_calc.py:5 test_add"}, "skips the test"},
		{"python: assertion changed", []Change{{"test_calc.py", []byte(pyTest), []byte(strings.Replace(pyTest, "== 4", "== 0", 1))}},
			nil, []string{"assertion-removed test_calc.py:5 test_add"}, "test_add's assertion at test_calc.py:5"},
		{"python: test deleted", []Change{{"test_calc.py", []byte(pyTest), []byte(pyTest[:strings.Index(pyTest, "def test_neg")])}},
			nil, []string{"test-removed test_calc.py:8 test_neg"}, "test_neg was removed"},
		{"python: -k added to pytest.ini", []Change{{"pytest.ini", []byte("[pytest]\naddopts = -q\n"), []byte("[pytest]\naddopts = -q -k 'not add'\n")}},
			nil, []string{"filter-added pytest.ini:2"}, "narrows the tests"},
		{"python: fail_under lowered", []Change{{"pyproject.toml", []byte("[tool.coverage.report]\nfail_under = 90\n"), []byte("[tool.coverage.report]\nfail_under = 60\n")}},
			nil, []string{"threshold-lowered pyproject.toml:2"}, "lowered from 90 to 60"},
		{"python: fail_under raised", []Change{{"pyproject.toml", []byte("[tool.coverage.report]\nfail_under = 60\n"), []byte("[tool.coverage.report]\nfail_under = 90\n")}}, nil, nil, ""},

		// JS
		{"js: test.skip", []Change{{"calc.test.js", []byte(jsTest), []byte(strings.Replace(jsTest, "test('adds'", "test.skip('adds'", 1))}},
			nil, []string{"skip-added calc.test.js:5 adds"}, "skips the test"},
		{"js: test.only", []Change{{"calc.test.js", []byte(jsTest), []byte(strings.Replace(jsTest, "test('negatives'", "test.only('negatives'", 1))}},
			nil, []string{"skip-added calc.test.js:9 negatives"}, "the others stop running"},
		{"js: script set to exit 0", []Change{{"package.json", []byte(packageJSON), []byte(strings.Replace(packageJSON, `"node --test"`, `"exit 0"`, 1))}},
			[]string{"npm test"}, []string{"command-changed package.json:4"}, `script "test", which a gate runs, changed from "node --test" to "exit 0"`},
		{"js: a script the gates do not run", []Change{{"package.json", []byte(packageJSON), []byte(strings.Replace(packageJSON, `"eslint ."`, `"eslint --fix ."`, 1))}},
			[]string{"npm test"}, nil, ""},
		{"js: a script run by the gate's script", []Change{{"package.json", []byte(strings.Replace(packageJSON, `"node --test"`, `"npm run unit"`, 1) + ""), []byte(strings.Replace(strings.Replace(packageJSON, `"node --test"`, `"npm run unit"`, 1), `"lint"`, `"unit": "true", "lint"`, 1))}},
			[]string{"npm test"}, nil, ""},
		{"js: assertion removed", []Change{{"calc.test.js", []byte(jsTest), []byte(strings.Replace(jsTest, "  assert.strictEqual(add(2, 2), 4);\n", "", 1))}},
			nil, []string{"assertion-removed calc.test.js:6 adds"}, "adds's assertion"},

		// Rust
		{"rust: #[ignore]", []Change{{"src/lib.rs", []byte(rsLib), []byte(strings.Replace(rsLib, "    #[test]\n", "    #[test]\n    #[ignore]\n", 1))}},
			nil, []string{"skip-added src/lib.rs:10"}, "ignores the test"},
		{"rust: assertion changed", []Change{{"src/lib.rs", []byte(rsLib), []byte(strings.Replace(rsLib, "assert_eq!(add(2, 2), 4)", "assert_eq!(add(2, 2), 0)", 1))}},
			nil, []string{"assertion-removed src/lib.rs:11 adds"}, "adds's assertion at src/lib.rs:11"},
		{"rust: code fixed", []Change{{"src/lib.rs", []byte(rsLib), []byte(strings.Replace(rsLib, "a - b", "a + b", 1))}}, nil, nil, ""},
		{"rust: test deleted", []Change{{"src/lib.rs", []byte(rsLib), []byte(rsLib[:strings.Index(rsLib, "#[cfg(test)]")])}},
			nil, []string{"test-removed src/lib.rs:10 adds"}, "adds was removed from src/lib.rs"},

		// C and make
		{"c: assertion removed", []Change{{"test_calc.c", []byte(cTest), []byte(strings.Replace(cTest, "\tassert(add(2, 2) == 4);\n", "", 1))}},
			nil, []string{"assertion-removed test_calc.c:5 test_add"}, "test_add's assertion"},
		{"c: #if 0", []Change{{"test_calc.c", []byte(cTest), []byte(strings.Replace(cTest, "\tassert(add(2, 2) == 4);\n", "#if 0\n\tassert(add(2, 2) == 4);\n#endif\n", 1))}},
			nil, []string{"skip-added test_calc.c:5 test_add"}, "compiles the code out"},
		{"make: recipe made to pass", []Change{{"Makefile", []byte(makefile), []byte(strings.Replace(makefile, "\t./test_calc\n", "\t-./test_calc\n", 1))}},
			[]string{"make test"}, []string{"command-changed Makefile:3"}, "target test, which a gate builds, changed"},
		{"make: prerequisite's recipe changed", []Change{{"Makefile", []byte(makefile), []byte(strings.Replace(makefile, "calc.c test_calc.c\n", "calc.c test_calc.c\n\ttouch test_calc\n\t#", 1))}},
			[]string{"make test"}, []string{"command-changed Makefile:6"}, "target test_calc"},
		{"make: default target", []Change{{"Makefile", []byte(makefile), []byte(strings.Replace(makefile, "\t./test_calc\n", "\ttrue\n", 1))}},
			[]string{"make"}, []string{"command-changed Makefile:3"}, "target test"},
		{"make: a variable gets a filter", []Change{{"Makefile", []byte("GOFLAGS =\ntest:\n\tgo test $(GOFLAGS) ./...\n"), []byte("GOFLAGS = -run TestSub\ntest:\n\tgo test $(GOFLAGS) ./...\n")}},
			[]string{"make test"}, []string{"command-changed Makefile:1"}, "variable GOFLAGS, which a gate's target runs, changed"},
		{"make: a variable the recipe runs made true", []Change{{"Makefile", []byte("TEST_CMD = ./test_calc\ntest:\n\t$(TEST_CMD)\n"), []byte("TEST_CMD = true\ntest:\n\t$(TEST_CMD)\n")}},
			[]string{"make test"}, []string{"command-changed Makefile:1"}, "variable TEST_CMD"},
		{"make: a variable no gate's target uses", []Change{{"Makefile", []byte("CFLAGS = -O2\nOTHER = x\ntest:\n\t./t $(CFLAGS)\n"), []byte("CFLAGS = -O2\nOTHER = y\ntest:\n\t./t $(CFLAGS)\n")}},
			[]string{"make test"}, nil, ""},
		{"python: a test class renamed out of pytest's sight", []Change{{"test_calc.py", []byte("class TestCalc:\n    def test_add(self):\n        assert add(2, 2) == 4\n"), []byte("class Calc:\n    def test_add(self):\n        assert add(2, 2) == 4\n")}},
			nil, []string{"test-removed test_calc.py:1 TestCalc"}, "TestCalc was removed"},
		{"a script a gate names, changed", []Change{{"ci/check.sh", []byte("go test ./...\n"), []byte("true\n")}},
			[]string{"sh ci/check.sh"}, []string{"command-changed ci/check.sh:1"}, "ci/check.sh, which a gate runs, changed: restore it"},
		{"a script a gate names, removed", []Change{{"check.sh", []byte("go test ./...\n"), nil}},
			[]string{"./check.sh --all"}, []string{"command-changed check.sh:1"}, "was removed"},
		{"a shell test told to exit 0", []Change{{"tests/run_test.sh", []byte("./calc 2 2 | grep -q 4\n"), []byte("exit 0\n./calc 2 2 | grep -q 4\n")}},
			nil, []string{"filter-added tests/run_test.sh:1"}, "lets failures pass"},
		{"make: a new target", []Change{{"Makefile", []byte(makefile), []byte(makefile + "\nbench:\n\t./bench\n")}}, []string{"make test"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.changes, tt.gates)
			var gotKeys []string
			for _, w := range got {
				k := w.Kind + " " + w.Path + ":" + strconv.Itoa(w.Line)
				if w.Test != "" {
					k += " " + w.Test
				}
				gotKeys = append(gotKeys, k)
			}
			if strings.Join(gotKeys, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q\n%+v", gotKeys, tt.want, got)
			}
			if tt.why != "" && !strings.Contains(got[0].Why, tt.why) {
				t.Errorf("reason %q lacks %q", got[0].Why, tt.why)
			}
			for _, w := range got {
				if w.Key == "" || w.Hunk == "" && w.Kind != KindFileRemoved {
					t.Errorf("%s: key %q, hunk %q", w.Kind, w.Key, w.Hunk)
				}
			}
		})
	}
}

func TestGateFiles(t *testing.T) {
	for _, tt := range []struct {
		run  string
		want []string
	}{
		{"sh check.sh", []string{"check.sh"}},
		{"./ci/test --all && bash scripts/lint.bash", []string{"ci/test", "scripts/lint.bash"}},
		{"python3 -m pytest tests/", nil}, // a directory: its tests are check files already
		{"go test ./...", nil},
		{"make test", nil},
		{"cd web && sh check.sh", []string{"web/check.sh"}},
		{"cd web; ./ci/test; cd ../api && bash run.sh", []string{"web/ci/test", "api/run.sh"}},
		{"npm test --silent", nil},
		{"cd web && npm run build", nil},
		{"cargo test --offline", nil},
		{"cat cover.txt", nil}, // what a gate reads is its input, not the check
		{"grep -q start docs/commands.txt", nil},
		{"python3 scripts/run_tests.py -v", []string{"scripts/run_tests.py"}},
		{"CI=1 bash -e ci/test.sh; node tools/check.mjs", []string{"ci/test.sh", "tools/check.mjs"}},
		{"go build ./... && ./bin/verify cover.out", []string{"bin/verify"}},
	} {
		if got := GateFiles([]string{tt.run}); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("GateFiles(%q) = %q, want %q", tt.run, got, tt.want)
		}
	}
}

// TestFindTurnedOff: a test of start turned off without a skip marker — a bare return before
// its checks, or its checks put under a condition that is never true — is a skip; a return
// inside a condition, or in a new test, is not.
func TestFindTurnedOff(t *testing.T) {
	rsTest := "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
	tests := []struct {
		name     string
		path     string
		old, new string
		want     []string
	}{
		{"go: return first", "calc_test.go", goTest, strings.Replace(goTest, "func TestAdd(t *testing.T) {\n", "func TestAdd(t *testing.T) {\n\treturn\n", 1),
			[]string{"skip-added calc_test.go:6 TestAdd"}},
		{"go: if false", "calc_test.go", goTest, strings.Replace(goTest, "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n",
			"\tif false {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n\t}\n", 1),
			[]string{"skip-added calc_test.go:6 TestAdd"}},
		{"go: return in a condition", "calc_test.go", goTest, strings.Replace(goTest, "\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n", "\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t\treturn\n", 1), nil},
		{"go: return in a new test", "calc_test.go", goTest, goTest + "\nfunc TestLater(t *testing.T) {\n\treturn\n\tt.Error(\"x\")\n}\n", nil},
		{"python: return first", "test_calc.py", pyTest, strings.Replace(pyTest, "def test_add():\n", "def test_add():\n    return\n", 1),
			[]string{"skip-added test_calc.py:5 test_add"}},
		{"python: if False", "test_calc.py", pyTest, strings.Replace(pyTest, "    assert add(2, 2) == 4\n", "    if False:\n        assert add(2, 2) == 4\n", 1),
			[]string{"skip-added test_calc.py:5 test_add"}},
		{"js: return first", "calc.test.js", jsTest, strings.Replace(jsTest, "test('adds', () => {\n", "test('adds', () => {\n  return;\n", 1),
			[]string{"skip-added calc.test.js:6 adds"}},
		{"rust: return first", "tests/add.rs", rsTest, strings.Replace(rsTest, "fn adds() {\n", "fn adds() {\n    return;\n", 1),
			[]string{"skip-added tests/add.rs:5 adds"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find([]Change{{tt.path, []byte(tt.old), []byte(tt.new)}}, nil)
			var keys []string
			for _, w := range got {
				k := w.Kind + " " + w.Path + ":" + strconv.Itoa(w.Line)
				if w.Test != "" {
					k += " " + w.Test
				}
				keys = append(keys, k)
			}
			if strings.Join(keys, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("got %q, want %q\n%+v", keys, tt.want, got)
			}
		})
	}
}

// TestFindRenamedTest: a test renamed with its body unchanged still runs every check it ran,
// so it is not removed; renamed with its body changed, or renamed out of the runner's sight,
// it is.
func TestFindRenamedTest(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		old, new string
		want     []string
	}{
		{"go: renamed", "calc_test.go", goTest, strings.Replace(goTest, "func TestAdd(", "func TestAddition(", 1), nil},
		{"go: renamed and its expectation changed", "calc_test.go", goTest,
			strings.Replace(strings.Replace(goTest, "func TestAdd(", "func TestAddition(", 1), "got != 4", "got != 0", 1),
			[]string{"test-removed calc_test.go:5 TestAdd"}},
		{"go: renamed out of the runner's sight", "calc_test.go", goTest, strings.Replace(goTest, "func TestAdd(", "func testAdd(", 1),
			[]string{"test-removed calc_test.go:5 TestAdd"}},
		{"python: renamed", "test_calc.py", pyTest, strings.Replace(pyTest, "def test_add(", "def test_add_two(", 1), nil},
		{"js: described anew", "calc.test.js", jsTest, strings.Replace(jsTest, "test('adds'", "test('adds two numbers'", 1), nil},
		{"two removed, one renamed", "test_calc.py", pyTest, "from calc import add\n\n\ndef test_sum():\n    assert add(2, 2) == 4\n",
			[]string{"test-removed test_calc.py:8 test_neg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkFindOne(t, tt.path, tt.old, tt.new, tt.want) })
	}
	split := strings.Index(goTest, "func TestSub")
	moved := []Change{{"calc_test.go", []byte(goTest), []byte(goTest[:split])},
		{"sub_test.go", nil, []byte("package calc\n\nimport \"testing\"\n\n" + strings.Replace(goTest[split:], "TestSub(", "TestSubtract(", 1))}}
	if got := Find(moved, nil); len(got) != 0 {
		t.Errorf("a test renamed into another file: %+v", got)
	}
}

// TestFindAssertionReformatted: an assertion reformatted across lines (rustfmt, black), or
// whose failure message alone changed, checks what it checked; one whose checked values
// changed, inside a string or not, does not.
func TestFindAssertionReformatted(t *testing.T) {
	rsTest := "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"
	pyStr := "def test_greet():\n    assert greet() == \"hi, you\"\n"
	tests := []struct {
		name     string
		path     string
		old, new string
		want     []string
	}{
		{"rust: rustfmt splits it", "tests/add.rs", rsTest, strings.Replace(rsTest, "assert_eq!(add(2, 2), 4);", "assert_eq!(\n        add(2, 2),\n        4\n    );", 1), nil},
		{"rust: a message added", "tests/add.rs", rsTest, strings.Replace(rsTest, "assert_eq!(add(2, 2), 4);", "assert_eq!(add(2, 2), 4, \"two and two\");", 1), nil},
		{"rust: split and changed", "tests/add.rs", rsTest, strings.Replace(rsTest, "assert_eq!(add(2, 2), 4);", "assert_eq!(\n        add(2, 2),\n        5\n    );", 1),
			[]string{"assertion-removed tests/add.rs:5 adds"}},
		{"python: black wraps it", "test_calc.py", pyTest, strings.Replace(pyTest, "    assert add(2, 2) == 4\n", "    assert (\n        add(2, 2) == 4\n    ), \"two and two\"\n", 1), nil},
		{"python: a message added", "test_calc.py", pyTest, strings.Replace(pyTest, "assert add(2, 2) == 4", "assert add(2, 2) == 4, \"two and two\"", 1), nil},
		{"python: the expected string changed after its comma", "test_calc.py", pyStr, strings.Replace(pyStr, "hi, you", "hi, me", 1),
			[]string{"assertion-removed test_calc.py:2 test_greet"}},
		{"python: or True", "test_calc.py", pyTest, strings.Replace(pyTest, "assert add(2, 2) == 4", "assert add(2, 2) == 4 or True", 1),
			[]string{"assertion-removed test_calc.py:5 test_add"}},
		{"go: the failure message reworded", "calc_test.go", goTest, strings.Replace(goTest, `t.Errorf("Add(2, 2) = %d, want 4", got)`, `t.Errorf("Add(2, 2) gave %d; want 4", got)`, 1), nil},
		{"go: Errorf made Logf", "calc_test.go", goTest, strings.Replace(goTest, `t.Errorf("Add(2, 2)`, `t.Logf("Add(2, 2)`, 1),
			[]string{"assertion-removed calc_test.go:7 TestAdd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkFindOne(t, tt.path, tt.old, tt.new, tt.want) })
	}
}

// TestFindRunnerOptions: options that make a runner run no test, or fewer, or drop its
// coverage threshold, added where the runner reads its options, are filters; options that
// change only how tests run are not.
func TestFindRunnerOptions(t *testing.T) {
	for _, tt := range []struct {
		path, old, new string
		weakens        bool
	}{
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --co\n", true},
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --collect-only\n", true},
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --lf\n", true},
		{"setup.cfg", "[tool:pytest]\naddopts = -q\n", "[tool:pytest]\naddopts = -q --last-failed --last-failed-no-failures none\n", true},
		{"pyproject.toml", "[tool.pytest.ini_options]\naddopts = \"--cov=calc --cov-fail-under=90\"\n", "[tool.pytest.ini_options]\naddopts = \"--cov=calc --cov-fail-under=90 -p no:cov\"\n", true},
		{"tox.ini", "[testenv]\ncommands = pytest --cov\n", "[testenv]\ncommands = pytest --cov --no-cov\n", true},
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q --sw\n", true},
		{".cargo/config.toml", "[alias]\n", "[alias]\nt = \"test --no-run\"\n", true},
		{"jest.config.js", "module.exports = {};\n", "module.exports = { onlyChanged: true };\n", true},
		{"package.json", "{\"scripts\": {\"unit\": \"jest\"}}\n", "{\"scripts\": {\"unit\": \"jest --testNamePattern=add\"}}\n", true},
		{".mocharc.yml", "spec: test\n", "spec: test\ngrep: add\n", true},
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -p no:cacheprovider -x --tb=short\n", false},
		{"pytest.ini", "[pytest]\naddopts = -q\n", "[pytest]\naddopts = -q -n auto --durations=10\n", false},
	} {
		got := Find([]Change{{tt.path, []byte(tt.old), []byte(tt.new)}}, nil)
		if (len(got) > 0) != tt.weakens {
			t.Errorf("%s: %q → %q: got %+v, want weakened %v", tt.path, tt.old, tt.new, got, tt.weakens)
		}
	}
}

// checkFindOne runs Find on one file changed from old to new and fails t unless it finds
// exactly want, each as "KIND PATH:LINE TEST", in order.
func checkFindOne(t *testing.T, path, old, new string, want []string) {
	t.Helper()
	got := Find([]Change{{path, []byte(old), []byte(new)}}, nil)
	var keys []string
	for _, w := range got {
		keys = append(keys, w.Kind+" "+w.Path+":"+strconv.Itoa(w.Line)+" "+w.Test)
	}
	if strings.Join(keys, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q\n%+v", keys, want, got)
	}
}
