package review

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// longLoop makes loop "g" look as if it ran n iterations: n records (alternating gate results)
// written into its tip tree in one commit, as the store lays them out.
func longLoop(tb testing.TB, n int) (*loop.Store, string) {
	tb.Helper()
	s, dir := startLoopG(tb)
	tip, st, err := s.ReadState("g")
	if err != nil {
		tb.Fatal(err)
	}
	c, err := s.Repo.ReadCommit(tip)
	if err != nil {
		tb.Fatal(err)
	}
	blobs := map[string]gitstore.Hash{}
	at := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		status := gates.StatusFail
		if i%2 == 0 {
			status = gates.StatusPass
		}
		rec := loop.Iteration{Number: i, Kind: "stop", At: at.Add(time.Duration(i) * time.Second), Snapshot: st.Snapshot, Tree: st.Tree,
			Decision: loop.DecideContinue, Gates: []loop.GateResult{{Result: gates.Result{Name: "fixed", Status: status}}}, Duration: 40 * time.Millisecond}
		data, _ := json.Marshal(rec)
		h, err := s.Repo.WriteObject(gitstore.BlobObject, data)
		if err != nil {
			tb.Fatal(err)
		}
		blobs[loop.IterationPath(i)] = h
	}
	next := *st
	next.Iteration, next.MaxIterations = n, n+10
	data, _ := json.Marshal(next)
	sh, _ := s.Repo.WriteObject(gitstore.BlobObject, data)
	blobs[loop.StateFile] = sh
	tree, err := s.Repo.EditTree(c.Tree, blobs)
	if err != nil {
		tb.Fatal(err)
	}
	commit := &gitstore.Commit{Tree: tree, Parents: []gitstore.Hash{tip}, Author: c.Author, Committer: c.Committer, Message: "long loop\n"}
	h, err := s.Repo.WriteCommit(commit)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Repo.UpdateRef(loop.RefName("g"), h, tip, "test: long loop"); err != nil {
		tb.Fatal(err)
	}
	return s, dir
}

// startLoopG starts loop "g" with one gate in a new repository.
func startLoopG(tb testing.TB) (*loop.Store, string) {
	tb.Helper()
	dir := looptest.NewRepo(tb)
	s, err := loop.OpenStore(dir)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Start(loop.StartOptions{Name: "g", Flags: loop.Settings{Prompt: "p", Promises: []string{"DONE"},
		Gates: []gates.Gate{{Name: "fixed", Run: "true"}}}}); err != nil {
		tb.Fatal(err)
	}
	return s, dir
}

func TestLogNewestFirstWithMatrix(t *testing.T) {
	s, _ := longLoop(t, 250)
	h, err := s.OpenHistory("g")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := PrintLog(&out, h, LogOptions{Limit: 3}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[2], "  250  ") || !strings.HasPrefix(lines[4], "  248  ") {
		t.Fatalf("log -n 3 of 250 iterations:\n%s", out.String())
	}
	if !strings.Contains(lines[2], "[+]") || !strings.Contains(lines[3], "[x]") || strings.Contains(out.String(), "\x1b") {
		t.Errorf("matrix cells wrong, or colour without Color:\n%s", out.String())
	}
	out.Reset()
	PrintLog(&out, h, LogOptions{Limit: 2, Color: true})
	if !strings.Contains(out.String(), "\x1b[32m+\x1b[0m") || !strings.Contains(out.String(), "\x1b[31mx\x1b[0m") {
		t.Errorf("Color: no coloured cells:\n%q", out.String())
	}
	// every record is reached across shards, and Get finds any of them
	n := 0
	h.Each(func(*loop.Iteration) error { n++; return nil })
	if n != 251 { // 250 and the start
		t.Errorf("Each saw %d records, want 251", n)
	}
	if rec, err := h.Get(137); err != nil || rec.Number != 137 {
		t.Errorf("Get(137) = %v, %v", rec, err)
	}
}

// TestLogJSONIsValid: --json output is one JSON array git-loop and jq can read.
func TestLogJSONIsValid(t *testing.T) {
	s, _ := longLoop(t, 120)
	h, _ := s.OpenHistory("g")
	var out bytes.Buffer
	if err := PrintLog(&out, h, LogOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	var entries []LogEntry
	if err := json.Unmarshal(out.Bytes(), &entries); err != nil || len(entries) != 121 || entries[0].Iteration != 120 {
		t.Fatalf("log --json: %d entries, err %v", len(entries), err)
	}
}

// BenchmarkLogFirstScreen: the first screen (50 lines) of a 10,000-iteration loop's log, on
// loose objects and after git gc (issue 5: <= 50 ms for the whole command).
func BenchmarkLogFirstScreen(b *testing.B) {
	_, dir := longLoop(b, 10000)
	for _, packed := range []bool{false, true} {
		if packed {
			if out, err := exec.Command("git", "-C", dir, "gc", "-q").CombinedOutput(); err != nil {
				b.Fatalf("git gc: %v %s", err, out)
			}
		}
		name := map[bool]string{false: "loose", true: "packed"}[packed]
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s2, _ := loop.OpenStore(dir)
				h, err := s2.OpenHistory("g")
				if err != nil {
					b.Fatal(err)
				}
				var out bytes.Buffer
				if err := PrintLog(&out, h, LogOptions{Limit: 50}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStatusByLength: status costs the same for a loop of 1 and of 10,000 iterations
// (issue 5), as it reads the state and config, never the history.
func BenchmarkStatusByLength(b *testing.B) {
	for _, n := range []int{1, 10000} {
		_, dir := longLoop(b, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := loop.OpenStore(dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := s.Status("g"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
