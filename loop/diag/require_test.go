package diag

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseRequirement(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    string // canonical form; "" when it must fail
		errPart string
	}{
		{"coverage >= 85", "coverage >= 85", ""},
		{"  Coverage>=85.5% ", "coverage >= 85.5", ""},
		{"failed == 0", "failed == 0", ""},
		{"warnings<3", "warnings < 3", ""},
		{"passed > 10", "passed > 10", ""},
		{"errors != 1", "errors != 1", ""},
		{"skipped <= 2", "skipped <= 2", ""},
		{"coverage >> 85", "", `unknown operator ">>"`},
		{"coverage = 85", "", `unknown operator "="`},
		{"coverage 85", "", "no comparison"},
		{"cover >= 85", "", `unknown metric "cover"`},
		{">= 85", "", "does not start with a metric"},
		{"coverage >= ", "", "not a number"},
		{"coverage >= -1", "", "not a number"},
		{"coverage >= 101", "", "at most 100"},
		{"coverage >= NaN", "", "not a number"},
		{"failed == 1%", "", "not a number"},
		{"coverage >= 1.2.3", "", "not a number"},
		{"", "", "does not start with a metric"},
	} {
		r, err := ParseRequirement(tc.in)
		switch {
		case tc.want != "" && err != nil:
			t.Errorf("%q: %v", tc.in, err)
		case tc.want != "" && r.String() != tc.want:
			t.Errorf("%q: got %q, want %q", tc.in, r.String(), tc.want)
		case tc.want == "" && err == nil:
			t.Errorf("%q: parsed as %q, want an error", tc.in, r.String())
		case tc.want == "" && (!errors.Is(err, ErrBadRequirement) || !strings.Contains(err.Error(), tc.errPart)):
			t.Errorf("%q: error %q, want ErrBadRequirement mentioning %q", tc.in, err, tc.errPart)
		}
	}
}

func TestRequirementHoldsAndUnmet(t *testing.T) {
	for _, tc := range []struct {
		req   string
		v     float64
		holds bool
		unmet string
	}{
		{"coverage >= 85", 72.5, false, "coverage 72.5% < 85%"},
		{"coverage >= 85", 85, true, ""},
		{"coverage >= 85", 84.996, false, "coverage 84.99% < 85%"},
		{"coverage > 85", 85, false, "coverage 85% <= 85%"},
		{"failed == 0", 3, false, "failed 3 != 0"},
		{"warnings <= 2", 2, true, ""},
		{"warnings < 2", 2, false, "warnings 2 >= 2"},
		{"errors != 0", 0, false, "errors 0 == 0"},
	} {
		r, err := ParseRequirement(tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Holds(tc.v); got != tc.holds {
			t.Errorf("%s with %v: holds = %v", tc.req, tc.v, got)
		}
		if !tc.holds {
			if got := r.Unmet(tc.v); got != tc.unmet {
				t.Errorf("%s with %v: unmet %q, want %q", tc.req, tc.v, got, tc.unmet)
			}
		}
	}
}

// FuzzParseRequirement: parsing never panics, and what parses prints back to itself.
func FuzzParseRequirement(f *testing.F) {
	for _, s := range []string{"coverage >= 85", "failed==0", "warnings < 3", "coverage >= 85.5%", "x", ">=", "coverage >= 1e9", "errors != 0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRequirement(s)
		if err != nil {
			return
		}
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) || r.Value < 0 {
			t.Fatalf("%q parsed to value %v", s, r.Value)
		}
		again, err := ParseRequirement(r.String())
		if err != nil || again != r {
			t.Fatalf("%q → %q → %+v, %v", s, r.String(), again, err)
		}
	})
}

func TestParseCoverageReport(t *testing.T) {
	for _, tc := range []struct {
		file string
		want float64
	}{
		{"go_coverprofile.txt", 66.67},
		{"lcov.info", 83.33},
		{"cobertura.xml", 83.33},
		{"coverage_py.json", 83.33},
		{"istanbul_summary.json", 75},
	} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "diag", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseCoverageReport(data)
		if err != nil || math.Abs(got-tc.want) > 0.01 {
			t.Errorf("%s: got %v, %v; want %v", tc.file, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "hello", "mode: set\nx.go:1.1,2.2 one 1", "mode: set\n", `{"totals":{}}`, `{"total":{"lines":{"pct":"Unknown"}}}`,
		`<report line-rate="0.5"/>`, `<coverage branch-rate="1"/>`, `<coverage line-rate="7"/>`, "SF:a\nLF:x\n", "SF:a\nend_of_record\n"} {
		if v, err := ParseCoverageReport([]byte(bad)); !errors.Is(err, ErrCoverageFormat) {
			t.Errorf("%q: got %v, %v; want ErrCoverageFormat", bad, v, err)
		}
	}
}

// FuzzParseCoverageReport: any report parses or fails cleanly, within 0–100.
func FuzzParseCoverageReport(f *testing.F) {
	entries, _ := os.ReadDir(filepath.Join("..", "..", "testdata", "diag"))
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "diag", e.Name())); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("mode: set\na.go:1.1,2.2 3 0\na.go:1.1,2.2 3 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseCoverageReport(data)
		if err == nil && (math.IsNaN(v) || v < 0 || v > 100) {
			t.Fatalf("coverage %v out of range", v)
		}
	})
}
