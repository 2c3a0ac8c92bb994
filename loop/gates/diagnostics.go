package gates

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-loop/git-loop/loop/diag"
)

// coverageClockSlack allows for file systems whose modification times are coarser than the
// clock (whole seconds, or two on FAT) when telling a fresh coverage report from a stale one.
const coverageClockSlack = 2 * time.Second

// runJudgedGate runs one gate, reads the diagnostics of its output (and of its coverage
// report, if it names one) and checks its require conditions: a gate that exits 0 fails
// when a condition does not hold, and is blocked when the output shows no value for it.
func runJudgedGate(ctx context.Context, g Gate, layer int, opts RunOptions) Result {
	began := time.Now()
	res := runGate(ctx, g, layer, opts)
	unmet := judgeDiagnostics(&res, g, opts.Dir, began)
	if res.Failed() {
		res.Fingerprint = Fingerprint(res.Name, res.Status, res.Tail, opts.TailBytes)
		if len(unmet) > 0 {
			// The fingerprint ignores numbers, but here the numbers are the failure: coverage
			// rising from 70% to 80% is progress, not the same failure again.
			sum := sha1.Sum([]byte(res.Fingerprint + "\x00" + strings.Join(unmet, "\x00")))
			res.Fingerprint = hex.EncodeToString(sum[:])[:12]
		}
	}
	return res
}

// judgeDiagnostics fills res.Diagnostics and applies g's requirements to res; it returns
// the requirements that do not hold.
func judgeDiagnostics(res *Result, g Gate, dir string, began time.Time) []string {
	if res.Status == StatusError || res.Status == StatusTimeout || res.Status == StatusSkip {
		return nil
	}
	d := diag.ParseDiagnostics(res.Tail)
	var notes []string
	if g.Coverage != "" {
		if v, err := readCoverageReport(dir, g.Coverage, began); err != nil {
			notes = append(notes, err.Error())
		} else {
			d.Coverage = &v
			d.Formats = append(d.Formats, "coverage file")
		}
	}
	if !d.Empty() {
		res.Diagnostics = &d
	}
	unmet, absent := checkRequirements(g, d)
	for _, n := range notes {
		res.Tail += fmt.Sprintf("\n[git-loop] gate %q: %s", g.Name, n)
	}
	switch {
	case res.Status != StatusPass && res.Status != StatusFail:
	case len(unmet) > 0:
		res.Status = StatusFail
		res.Tail += fmt.Sprintf("\n[git-loop] gate %q fails its requirement: %s\n", g.Name, strings.Join(unmet, "; "))
	case len(absent) > 0 && res.Status == StatusPass:
		res.Status = StatusBlocked
		res.Tail += fmt.Sprintf("\n[git-loop] gate %q requires %s, but its output shows no %s: make the command print it (go test -cover, pytest --cov, jest --coverage) or point `coverage =` at its report\n",
			g.Name, strings.Join(absent, " and "), strings.Join(absentMetrics(absent), " or "))
	}
	return unmet
}

// checkRequirements returns the conditions that do not hold ("coverage 72.5% < 85%") and
// those whose metric the output does not show.
func checkRequirements(g Gate, d diag.Diagnostics) (unmet, absent []string) {
	for _, text := range g.Require {
		r, err := diag.ParseRequirement(text)
		if err != nil { // checked at start; a hand-edited loop.json still gets a clear line
			unmet = append(unmet, err.Error())
			continue
		}
		v, ok := d.Metric(r.Metric)
		switch {
		case !ok:
			absent = append(absent, r.String())
		case !r.Holds(v):
			unmet = append(unmet, r.Unmet(v))
		}
	}
	return unmet, absent
}

// absentMetrics names the metrics of requirements such as "coverage >= 85".
func absentMetrics(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		m, _, _ := strings.Cut(r, " ")
		out = append(out, m)
	}
	return out
}

// readCoverageReport reads the coverage report at path (relative to the gate's directory),
// which must have been written since the gate started: a report left by an earlier run says
// nothing about this one.
func readCoverageReport(dir, path string, began time.Time) (float64, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, path)
	}
	info, err := os.Stat(full)
	if err != nil {
		return 0, fmt.Errorf("coverage report %s was not written: %v", path, err)
	}
	if info.ModTime().Before(began.Add(-coverageClockSlack)) {
		return 0, fmt.Errorf("coverage report %s is older than this run (modified %s); make the gate's command write it", path, info.ModTime().UTC().Format(time.RFC3339))
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return 0, fmt.Errorf("read coverage report %s: %v", path, err)
	}
	v, err := diag.ParseCoverageReport(data)
	if err != nil {
		return 0, fmt.Errorf("coverage report %s: %v", path, err)
	}
	return v, nil
}
