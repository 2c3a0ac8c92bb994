package qwen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-loop/git-loop/testdata/realagents"
)

func TestQwenReadTimeout(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		want time.Duration
	}{
		{1, time.Second},
		{1.5, 1500 * time.Millisecond},
		{600, 600 * time.Second},
		{999, 999 * time.Second},
		{1000, time.Second}, // from here on, milliseconds
		{660000, 660 * time.Second},
		{1860000, 1860 * time.Second},
	} {
		if got := readTimeout(tc.n); got != tc.want {
			t.Errorf("readTimeout(%v) = %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestQwenStopReadsItsTimeout: a stop reads the timeout Qwen Code gives it back, as Qwen Code
// 0.24 reads it: install's milliseconds, a person's seconds, and its default of 60 s where
// the entry states no timeout git-loop reads.
func TestQwenStopReadsItsTimeout(t *testing.T) {
	_, repo := realagents.DoctorWorld(t)
	t.Setenv("QWEN_HOME", "")
	for _, tc := range []struct {
		timeout string
		want    time.Duration
	}{
		{"660000", 660 * time.Second},
		{"600", 600 * time.Second},
		{"1000", time.Second},
		{"0", time.Minute}, // none: Qwen Code's default, 60 s
		// Qwen Code reads a number in a string too; git-loop, which never writes one, takes
		// the default, never longer than what Qwen Code allows
		{`"600"`, time.Minute},
	} {
		realagents.WriteString(t, projectFile(repo), fmt.Sprintf(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "git-loop hook qwen stop", "timeout": %s}]}]}, "$version": 4}`, tc.timeout))
		if got, from := Agent.InstalledStopTimeout("stop", repo); got != tc.want || tc.want > 0 && from != projectFile(repo) {
			t.Errorf("timeout %s: read %v from %q, want %v", tc.timeout, got, from, tc.want)
		}
	}
}

func TestQwenUserDir(t *testing.T) {
	wd, _ := os.Getwd()
	for _, tc := range []struct{ env, want string }{
		{"", "/home/me/.qwen"},
		{"/etc/qwen", "/etc/qwen"},
		{"~", "/home/me"},
		{"~/conf/qwen", "/home/me/conf/qwen"},
		{"rel", filepath.Join(wd, "rel")},
	} {
		t.Setenv("QWEN_HOME", tc.env)
		if got := userDir("/home/me"); got != tc.want {
			t.Errorf("QWEN_HOME=%q: %s, want %s", tc.env, got, tc.want)
		}
	}
	t.Setenv("QWEN_HOME", "/etc/qwen")
	if got := userFile("/home/me"); got != "/etc/qwen/settings.json" {
		t.Errorf("the user's file with QWEN_HOME: %s", got)
	}
}
