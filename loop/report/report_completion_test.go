package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/git-loop/git-loop/loop"
)

// TestReportOnCompletion: the completing state commit holds report.yaml (the whole record,
// valid YAML) and report.md (verdict SHIP), with the defect found and resolved.
func TestReportOnCompletion(t *testing.T) {
	s, dir := startReported(t, "")
	stopReported(t, s, loop.StopInput{Message: "<promise>DONE</promise>"})
	os.WriteFile(filepath.Join(dir, "fixed.txt"), []byte("ok\n"), 0o666)
	stopReported(t, s, loop.StopInput{Message: "<promise>DONE</promise>"})
	md, err := exec.Command("git", "-C", dir, "show", "refs/loop/g:report.md").Output()
	if err != nil || !strings.Contains(string(md), "Verdict: SHIP") || !strings.Contains(string(md), "| 1 | fixed | pass | 2 | 1 | 1 | 1 |") {
		t.Errorf("report.md: %v\n%s", err, md)
	}
	y, err := exec.Command("git", "-C", dir, "show", "refs/loop/g:report.yaml").Output()
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := yaml.Unmarshal(y, &r); err != nil || r["release_decision"] != "SHIP" || r["status"] != "completed" {
		t.Errorf("report.yaml does not parse as the record (%v):\n%s", err, y)
	}
}
