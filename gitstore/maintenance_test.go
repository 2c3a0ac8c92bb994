package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// looseIn17 commits files whose blobs are named 17…, so that git's estimate of the loose
// objects (it counts objects/17) sees n of them.
func looseIn17(t *testing.T, dir string, n int) {
	t.Helper()
	looseIn(t, dir, 0x17, n)
}

// looseIn commits n files whose blobs are named with the first byte fanout.
func looseIn(t *testing.T, dir string, fanout byte, n int) {
	t.Helper()
	made := 0
	for i := 0; made < n; i++ {
		content := []byte(fmt.Sprintf("content %d\n", i))
		if h := HashObject(BlobObject, content); h[0] != fanout {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), content, 0o644); err != nil {
			t.Fatal(err)
		}
		made++
	}
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-qm", "loose objects")
}

func looseCount(t *testing.T, dir string) string {
	t.Helper()
	for _, line := range strings.Split(refsGit(t, dir, "count-objects", "-v"), "\n") {
		if v, ok := strings.CutPrefix(line, "count: "); ok {
			return v
		}
	}
	t.Fatal("git count-objects printed no count")
	return ""
}

// waitFor polls cond until it holds; the deadline only keeps a broken run from hanging.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
	}
}

// maintenanceIdle reports whether no git maintenance or gc holds its lock in dir.
func maintenanceIdle(dir string) bool {
	for _, p := range []string{".git/objects/maintenance.lock", ".git/gc.pid"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			return false
		}
	}
	return true
}

func reopen(t *testing.T, dir string) *Repo {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAutoMaintenancePacks: past gc.auto, AutoMaintenance starts git's own maintenance,
// which packs the loose objects without being waited for.
func TestAutoMaintenancePacks(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	looseIn17(t, dir, 3)                                  // before gc.auto is set: git commit would pack them
	refsGit(t, dir, "config", "maintenance.auto", "true") // the hermetic global file turns it off
	refsGit(t, dir, "config", "gc.auto", "1")             // more than one object in objects/17
	refsGit(t, dir, "config", "gc.autoDetach", "false")   // maintenance.lock then covers gc's run
	r := reopen(t, dir)
	d := r.AutoMaintenance()
	if !d.Started || d.Reason != "too many loose objects" {
		t.Fatalf("AutoMaintenance = %+v, want started for too many loose objects", d)
	}
	waitFor(t, "loose objects packed", func() bool { return looseCount(t, dir) == "0" })
	waitFor(t, "maintenance finished", func() bool { return maintenanceIdle(dir) })
	refsGit(t, dir, "fsck", "--no-dangling")
	if d := reopen(t, dir).MaintenanceNeeded(); d.Started {
		t.Errorf("after git's maintenance, MaintenanceNeeded = %+v", d)
	}
}

// TestAutoMaintenanceDecisions: what git would decide, without running it.
func TestAutoMaintenanceDecisions(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	refsGit(t, dir, "config", "maintenance.auto", "true")
	looseIn17(t, dir, 3)
	looseIn(t, dir, 0x11, 7) // objects/11 is among the 16 directories the task's estimate reads: 7*16 > 100
	for _, tc := range []struct {
		config  [][2]string
		started bool
		reason  string
	}{
		{[][2]string{{"gc.auto", "6700"}}, true, "loose objects to pack"}, // not enough for gc; enough for the loose-objects task (100)
		{[][2]string{{"gc.auto", "6700"}, {"maintenance.loose-objects.auto", "0"}}, false, "no work"},
		{[][2]string{{"gc.auto", "6700"}, {"maintenance.loose-objects.auto", "00"}}, false, "no work"},
		{[][2]string{{"gc.auto", "6700"}, {"maintenance.loose-objects.auto", "1000"}}, false, "no work"},
		{[][2]string{{"gc.auto", "1"}}, true, "too many loose objects"},
		{[][2]string{{"gc.auto", "1"}, {"maintenance.auto", "false"}}, false, "maintenance.auto=false"},
		{[][2]string{{"gc.auto", "0"}}, false, "gc.auto=0"},
		{[][2]string{{"gc.auto", "0"}, {"maintenance.repo", dir}}, false, "gc.auto=0"},
		{[][2]string{{"gc.auto", "0"}, {"maintenance.strategy", "incremental"}}, true, "maintenance configured"},
		{[][2]string{{"gc.auto", "6700"}, {"gc.autoPackLimit", "0"}, {"maintenance.loose-objects.auto", "0"}}, false, "no work"},
	} {
		t.Run(fmt.Sprint(tc.config), func(t *testing.T) {
			for _, kv := range tc.config {
				refsGit(t, dir, "config", kv[0], kv[1])
			}
			defer func() {
				for _, kv := range tc.config {
					refsGit(t, dir, "config", "--unset-all", kv[0])
				}
				refsGit(t, dir, "config", "maintenance.auto", "true")
			}()
			d := reopen(t, dir).MaintenanceNeeded()
			if d.Started != tc.started || d.Reason != tc.reason {
				t.Errorf("MaintenanceNeeded = %+v, want started %v for %q", d, tc.started, tc.reason)
			}
		})
	}
	// too many packs: gc.autoPackLimit=1 and two packs
	refsGit(t, dir, "repack", "-q")
	os.WriteFile(filepath.Join(dir, "g"), []byte("g\n"), 0o644)
	refsGit(t, dir, "add", "g")
	refsGit(t, dir, "commit", "-qm", "g")
	refsGit(t, dir, "repack", "-q")
	refsGit(t, dir, "config", "gc.autoPackLimit", "1")
	refsGit(t, dir, "config", "gc.auto", "6700")
	if d := reopen(t, dir).MaintenanceNeeded(); !d.Started || d.Reason != "too many packs" {
		t.Errorf("two packs over gc.autoPackLimit=1: %+v", d)
	}
}

const maintenanceChildEnv = "GITSTORE_TEST_MAINTENANCE_CHILD"

// TestAutoMaintenanceChild is the process of TestAutoMaintenanceNotWaited that asks for
// maintenance and exits, as a hook does.
func TestAutoMaintenanceChild(t *testing.T) {
	dir := os.Getenv(maintenanceChildEnv)
	if dir == "" {
		t.Skip("run by TestAutoMaintenanceNotWaited")
	}
	r, err := Open(dir)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("%+v\n", r.AutoMaintenance())
	os.Exit(0)
}

// TestAutoMaintenanceNotWaited: the process that asks for maintenance ends while git's
// maintenance still runs, and git holds none of its streams (whoever reads the process's
// output, as an agent reads its hook's, sees it end at once).
func TestAutoMaintenanceNotWaited(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	looseIn17(t, dir, 3)
	refsGit(t, dir, "config", "maintenance.auto", "true")
	refsGit(t, dir, "config", "gc.auto", "1")
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	// a git whose maintenance blocks until the test lets it go
	marks := t.TempDir()
	fifo := filepath.Join(marks, "release")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no fifos here:", err)
	}
	bin := filepath.Join(marks, "bin")
	os.Mkdir(bin, 0o755)
	fake := fmt.Sprintf("#!/bin/sh\ncase \"$*\" in *maintenance*) : >%q/started; read x <%q; : >%q/finished; exit 0;; esac\nexec %q \"$@\"\n",
		marks, fifo, marks, realGit)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAutoMaintenanceChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), maintenanceChildEnv+"="+dir, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	type result struct {
		out []byte
		err error
	}
	done := make(chan result, 1)
	go func() { out, err := cmd.CombinedOutput(); done <- result{out, err} }() // returns when every writer of its pipe is gone
	release := func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString("go\n")
			f.Close()
		}
	}
	var res result
	select {
	case res = <-done:
	case <-time.After(time.Minute): // only a guard against hanging: the fake git never ends on its own
		release()
		<-done
		t.Fatal("the process's output stayed open while git's maintenance ran: it was held by git")
	}
	if res.err != nil || !strings.Contains(string(res.out), "Started:true") {
		release()
		t.Fatalf("child: %v\n%s", res.err, res.out)
	}
	waitFor(t, "the fake maintenance started", func() bool { _, err := os.Stat(filepath.Join(marks, "started")); return err == nil })
	if _, err := os.Stat(filepath.Join(marks, "finished")); err == nil {
		t.Fatal("maintenance finished before the process that started it ended")
	}
	release()
	waitFor(t, "the fake maintenance finished", func() bool { _, err := os.Stat(filepath.Join(marks, "finished")); return err == nil })
}
