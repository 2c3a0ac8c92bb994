package diag

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// want is an expected Diagnostics in a compact form: -1 means "absent".
type want struct {
	passed, failed, skipped int
	errors, warnings        int
	coverage                float64 // -1: absent
	format                  string  // one of the formats that must be recognised ("" for none)
}

func (w want) check(t *testing.T, d Diagnostics) {
	t.Helper()
	count := func(name string, p *int, n int) {
		t.Helper()
		switch {
		case n < 0 && p != nil:
			t.Errorf("%s = %d, want absent", name, *p)
		case n >= 0 && p == nil:
			t.Errorf("%s absent, want %d", name, n)
		case n >= 0 && *p != n:
			t.Errorf("%s = %d, want %d", name, *p, n)
		}
	}
	count("passed", d.Passed, w.passed)
	count("failed", d.Failed, w.failed)
	count("skipped", d.Skipped, w.skipped)
	if d.Errors != w.errors || d.Warnings != w.warnings {
		t.Errorf("errors, warnings = %d, %d, want %d, %d", d.Errors, d.Warnings, w.errors, w.warnings)
	}
	switch {
	case w.coverage < 0 && d.Coverage != nil:
		t.Errorf("coverage = %v, want absent", *d.Coverage)
	case w.coverage >= 0 && (d.Coverage == nil || math.Abs(*d.Coverage-w.coverage) > 0.01):
		t.Errorf("coverage = %v, want %v", d.Coverage, w.coverage)
	}
	if w.format != "" && !slices.Contains(d.Formats, w.format) {
		t.Errorf("formats = %v, want %q among them", d.Formats, w.format)
	}
}

// TestDiagFixtures parses real output of each tool, captured into testdata/diag.
func TestDiagFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want want
	}{
		{"go_test_fail.txt", want{-1, 2, -1, 0, 0, -1, "go test"}},
		{"go_test_v_fail.txt", want{3, 2, 1, 0, 0, -1, "go test"}},
		{"go_test_cover_fail.txt", want{-1, 2, -1, 0, 0, 62.5, "go test"}},
		{"go_test_cover_pass.txt", want{-1, 0, -1, 0, 0, 62.5, "go test"}},
		{"go_test_json_fail.jsonl", want{3, 2, 1, 0, 0, -1, "go test -json"}},
		{"go_test_json_cover_pass.jsonl", want{5, 0, 1, 0, 0, 62.5, "go test -json"}},
		{"go_test_json_buildfail.jsonl", want{0, 0, -1, 2, 0, -1, "go test -json"}},
		{"go_test_buildfail.txt", want{-1, -1, -1, 2, 0, -1, "go test"}}, // nothing ran: no test count
		{"go_build_fail.txt", want{-1, -1, -1, 1, 0, -1, ""}},
		{"go_vet.txt", want{-1, -1, -1, 1, 0, -1, ""}},
		{"go_vet_syntax.txt", want{-1, -1, -1, 1, 0, -1, ""}}, // "vet: file:line:col: …"
		{"go_cover_func.txt", want{-1, -1, -1, 0, 0, 66.7, "go tool cover"}},
		{"cargo_test_fail.txt", want{1, 1, 1, 0, 1, -1, "cargo test"}},
		{"cargo_test_pass.txt", want{2, 0, 1, 0, 0, -1, "cargo test"}},
		{"cargo_build_fail.txt", want{-1, -1, -1, 1, 0, -1, ""}},
		{"pytest_fail.txt", want{1, 1, 1, 0, 0, -1, "pytest"}},
		{"pytest_cov.txt", want{1, 1, 1, 0, 0, 83, "pytest"}},
		{"pytest_error.txt", want{0, 0, -1, 1, 0, -1, "pytest"}},
		{"pytest_pass_warn.txt", want{2, 0, 1, 0, 1, -1, "pytest"}},
		{"pytest_syntax.txt", want{0, 0, -1, 1, 0, -1, "pytest"}},        // exit 2: collection error
		{"pytest_internalerror.txt", want{0, 0, -1, 0, 0, -1, "pytest"}}, // exit 3: a conftest hook raised
		{"pytest_conftest_import.txt", want{-1, -1, -1, 0, 0, -1, ""}},   // exit 4: conftest does not import
		{"pytest_usage.txt", want{-1, -1, -1, 0, 0, -1, ""}},             // exit 4: unknown option
		{"pytest_no_tests.txt", want{0, 0, -1, 0, 0, -1, "pytest"}},      // exit 5
		{"jest_fail_cov.txt", want{1, 1, 1, 0, 0, 75, "jest"}},
		{"vitest_fail.txt", want{1, 1, 1, 0, 0, -1, "vitest"}},
		{"vitest_cov.txt", want{2, 0, 1, 0, 0, 75, "vitest"}},
		{"node_test_fail.txt", want{1, 1, 1, 0, 0, -1, "node --test"}},
		{"node_test_cov.txt", want{1, 0, 0, 0, 0, 85.71, "node --test"}},
		{"npm_node_test_fail.txt", want{1, 1, 0, 0, 0, -1, "node --test"}},
		{"npm_node_test_syntax.txt", want{0, 1, 0, 0, 0, -1, "node --test"}}, // the test file fails to load
		{"tsc.txt", want{-1, -1, -1, 2, 0, -1, "tsc"}},
		{"tsc_pretty.txt", want{-1, -1, -1, 2, 0, -1, "tsc"}},
		{"eslint.txt", want{-1, -1, -1, 3, 1, -1, "eslint"}},
		{"make_c_assert.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"make_c_harness.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"make_c_compile.txt", want{-1, -1, -1, 1, 1, -1, ""}},
		{"sh_grep_missing.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"sh_syntax.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"sh_not_found.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"sh_permission_denied.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"bash_syntax.txt", want{-1, -1, -1, 0, 0, -1, ""}},
		{"bash_not_found.txt", want{-1, -1, -1, 0, 0, -1, ""}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "diag", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			tc.want.check(t, ParseDiagnostics(string(data)))
		})
	}
}

// TestDiagLines covers single summary lines of formats not captured whole.
func TestDiagLines(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      want
	}{
		{"nothing", "compiling…\nall good\n", want{-1, -1, -1, 0, 0, -1, ""}},
		{"pytest quiet", "3 failed, 10 passed, 1 skipped in 0.12s", want{10, 3, 1, 0, 0, -1, "pytest"}},
		{"pytest long run", "======= 2 passed in 61.20s (0:01:01) =======", want{2, 0, -1, 0, 0, -1, "pytest"}},
		{"pytest no tests", "no tests ran in 0.01s", want{0, 0, -1, 0, 0, -1, "pytest"}},
		{"pytest-cov branch", "TOTAL     120     15     40      5    86.25%", want{-1, -1, -1, 0, 0, 86.25, "coverage report"}},
		{"tarpaulin", "85.00% coverage, 17/20 lines covered", want{-1, -1, -1, 0, 0, 85, "tarpaulin"}},
		{"jest all pass", "Tests:       12 passed, 12 total", want{12, 0, -1, 0, 0, -1, "jest"}},
		{"gcc warning", "main.c:3:5: warning: unused variable 'x' [-Wunused-variable]\nmain.c:4:1: error: expected ';'\nmain.c:4:1: note: here", want{-1, -1, -1, 1, 1, -1, ""}},
		{"ruff concise", "a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\n", want{-1, -1, -1, 1, 0, -1, ""}},
		{"ruff full", "F401 [*] `os` imported but unused\n --> a.py:1:8\nFound 2 errors.\n", want{-1, -1, -1, 2, 0, -1, ""}},
		{"rust summary lines do not count", "error: could not compile `x` (lib) due to 2 previous errors\nwarning: `x` (lib) generated 3 warnings", want{-1, -1, -1, 0, 0, -1, ""}},
		{"windows path", `C:\src\x.go:3:4: undefined: y`, want{-1, -1, -1, 1, 0, -1, ""}},
		{"clock is not a file", "12:34:56: started", want{-1, -1, -1, 0, 0, -1, ""}},
		{"node spec reporter", "ℹ tests 4\nℹ pass 3\nℹ fail 1\nℹ skipped 0", want{3, 1, 0, 0, 0, -1, "node --test"}},
		{"TAP is not go", "ok 1 - adds\nnot ok 2 - subs", want{-1, -1, -1, 0, 0, -1, ""}},
		{"two cargo binaries sum", "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\ntest result: FAILED. 1 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out", want{4, 2, 1, 0, 0, -1, "cargo test"}},
		{"total beats packages", "ok  \ta\t0.1s\tcoverage: 50.0% of statements\ntotal:\t(statements)\t70.0%", want{-1, 0, -1, 0, 0, 70, "go tool cover"}},
		{"truncated json line", `{"Time":"2026-11-22T00:19:49.5","Action":"pa`, want{-1, -1, -1, 0, 0, -1, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.want.check(t, ParseDiagnostics(tc.out)) })
	}
}

// TestDiagString checks the one-line summary used in messages and reports.
func TestDiagString(t *testing.T) {
	three, fortyOne, none := 3, 41, 0
	cov := 72.5
	for _, tc := range []struct {
		d    Diagnostics
		want string
	}{
		{Diagnostics{}, ""},
		{Diagnostics{Failed: &three, Passed: &fortyOne, Coverage: &cov}, "3 failed, 41 passed; coverage 72.5%"},
		{Diagnostics{Failed: &none, Passed: &fortyOne, Skipped: &none}, "0 failed, 41 passed"},
		{Diagnostics{Errors: 1, Warnings: 2}, "1 error, 2 warnings"},
		{Diagnostics{Skipped: &three}, "3 skipped"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.d, got, tc.want)
		}
	}
}

// FuzzParseDiagnostics: any output parses without panicking, and the result is sane.
func FuzzParseDiagnostics(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "diag"))
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "diag", e.Name())); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("Tests:  1 failed, 2 passed, 3 total\nAll files | 85.5 | 70 | 90 | 99999 |\nTOTAL 1 2 1e400%")
	f.Add(`{"Action":"pass","Test":"T"}` + "\n" + `{"Action":"output","Package":"p","Output":"coverage: 99.9% of statements"}`)
	f.Fuzz(func(t *testing.T, out string) {
		d := ParseDiagnostics(out)
		for _, p := range []*int{d.Passed, d.Failed, d.Skipped} {
			if p != nil && *p < 0 {
				t.Fatalf("negative count %d", *p)
			}
		}
		if d.Errors < 0 || d.Warnings < 0 {
			t.Fatalf("negative errors/warnings: %+v", d)
		}
		if d.Coverage != nil && (math.IsNaN(*d.Coverage) || *d.Coverage < 0 || *d.Coverage > 100) {
			t.Fatalf("coverage %v out of range", *d.Coverage)
		}
		_ = d.String()
	})
}

// BenchmarkParseDiagnostics measures a full 8 KiB gate tail (the default kept per gate),
// which every judged iteration parses once per gate.
func BenchmarkParseDiagnostics(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "diag", "go_test_json_fail.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	const tailBytes = 8 << 10 // loop.DefaultGateTailBytes
	tail := string(data)
	for len(tail) < tailBytes {
		tail += string(data)
	}
	tail = tail[len(tail)-tailBytes:]
	b.SetBytes(int64(len(tail)))
	for b.Loop() {
		ParseDiagnostics(tail)
	}
}
