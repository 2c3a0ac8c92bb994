package loop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// startTestLoop opens a fresh repository and starts loop name in it.
func startTestLoop(t *testing.T, name string) (*Store, string) {
	t.Helper()
	dir := newTestRepo(t)
	r, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := NewStore(r)
	if _, err := s.Start(StartOptions{Name: name, Flags: Settings{Prompt: "p", Promises: []string{"DONE"}}}); err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// writeHotCache replaces loop name's hot-state cache with body, headed by the ref's tip and
// body's checksum so that only its content is wrong.
func writeHotCache(t *testing.T, s *Store, name, body string) {
	t.Helper()
	tip, err := s.Repo.ReadRef(RefName(name))
	if err != nil {
		t.Fatal(err)
	}
	sum := hotSum([]byte(body))
	if err := os.WriteFile(hotStatePath(s.Repo, name), []byte(tip.String()+" "+string(sum[:])+"\n"+body), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestHotStateEditedIsRebuilt edits the cache by hand, keeping its first line (the tip and
// checksum): the edit is never believed, and the cache is rebuilt from the ref.
func TestHotStateEditedIsRebuilt(t *testing.T) {
	edits := []struct{ name, from, to string }{
		{"status", `"status":"active"`, `"status":"cancelled"`},
		{"session", `"session":""`, `"session":"someone-else"`},
		{"gates", `"gates":[{"name":"g"`, `"gates":[{"name":"h"`},
		{"truncated", `}`, ``},
		{"checksum", ``, ``}, // the first line's checksum itself damaged
	}
	for _, e := range edits {
		t.Run(e.name, func(t *testing.T) {
			dir := newTestRepo(t)
			r, err := gitstore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			s := NewStore(r)
			if _, err := s.Start(StartOptions{Name: "x", Flags: Settings{Prompt: "p", Promises: []string{"DONE"}, Gates: []gates.Gate{{Name: "g", Run: "true"}}}}); err != nil {
				t.Fatal(err)
			}
			path := hotStatePath(r, "x")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var edited string
			if e.name == "checksum" {
				edited = strings.Replace(string(data), " ", " 0", 1)
			} else {
				if !strings.Contains(string(data), e.from) {
					t.Fatalf("cache holds no %s:\n%s", e.from, data)
				}
				edited = strings.Replace(string(data), e.from, e.to, 1)
			}
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			_, st, err := s.ReadState("x")
			if err != nil {
				t.Fatal(err)
			}
			if st.Status != StatusActive || st.Session != "" {
				t.Errorf("edited cache believed: status %q session %q", st.Status, st.Session)
			}
			if cfg, ok := readHotConfig(r, st); ok && cfg.Gates[0].Name != "g" {
				t.Errorf("edited config believed: %+v", cfg.Gates)
			}
			states, _, err := s.List(false)
			if err != nil || len(states) != 1 || states[0].Status != StatusActive {
				t.Errorf("list after the edit: %v %v", states, err)
			}
			if after, _ := os.ReadFile(path); string(after) == edited {
				t.Errorf("the edited cache was not rebuilt")
			}
			if _, ok := readHotState(r, "x", mustTip(t, s, "x")); !ok {
				t.Errorf("the rebuilt cache is not trusted")
			}
		})
	}
}

func mustTip(t *testing.T, s *Store, name string) gitstore.Hash {
	t.Helper()
	tip, err := s.Repo.ReadRef(RefName(name))
	if err != nil {
		t.Fatal(err)
	}
	return tip
}

// gitOut is looptest.GitOut.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return looptest.GitOut(t, dir, args...)
}

// TestUpdateIgnoresHotCache corrupts the hot-state cache in ways that keep its tip line
// right; a state change must still build on the state stored in the tip commit.
func TestUpdateIgnoresHotCache(t *testing.T) {
	for name, body := range map[string]string{
		"null":      "null",
		"empty":     "{}",
		"othername": `{"name":"other","status":"active","worktree":"/x","snapshot":"` + strings.Repeat("a", 40) + `"}`,
		"stale":     "", // filled below: a plausible state that says "paused"
	} {
		t.Run(name, func(t *testing.T) {
			s, dir := startTestLoop(t, "x")
			_, want, err := s.ReadState("x")
			if err != nil {
				t.Fatal(err)
			}
			if body == "" {
				stale := *want
				stale.Status, stale.Iteration = StatusPaused, 7
				data, _ := json.Marshal(&stale)
				body = string(data)
			}
			writeHotCache(t, s, "x", body)
			st, err := s.SetStatus("x", Pause)
			if err != nil {
				t.Fatalf("pause: %v", err)
			}
			var stored State
			if err := json.Unmarshal([]byte(gitOut(t, dir, "show", "refs/loop/x:state.json")), &stored); err != nil {
				t.Fatal(err)
			}
			for _, got := range []*State{st, &stored} {
				if got.Name != "x" || got.Status != StatusPaused || got.Iteration != 0 ||
					got.Worktree != want.Worktree || got.Snapshot != want.Snapshot || got.Tree != want.Tree {
					t.Errorf("state after pause = %+v, want %+v paused", got, want)
				}
			}
			if snap := gitOut(t, dir, "rev-parse", "refs/loop/x^2"); snap != want.Snapshot {
				t.Errorf("refs/loop/x^2 = %s, want the snapshot %s", snap, want.Snapshot)
			}
		})
	}
}

// TestReadHotStateValidates refuses cache bodies that are not this loop's complete state,
// so read-only commands fall back to the tip commit.
func TestReadHotStateValidates(t *testing.T) {
	s, _ := startTestLoop(t, "x")
	_, want, err := s.ReadState("x")
	if err != nil {
		t.Fatal(err)
	}
	tip, _ := s.Repo.ReadRef(RefName("x"))
	for _, body := range []string{"null", "{}", `{"name":"x"}`, `{"name":"x","status":"weird","worktree":"/w","snapshot":"s"}`} {
		writeHotCache(t, s, "x", body)
		if st, ok := readHotState(s.Repo, "x", tip); ok {
			t.Errorf("cache %s was trusted: %+v", body, st)
		}
		_, got, err := s.ReadState("x")
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "x" || got.Snapshot != want.Snapshot || got.Worktree != want.Worktree {
			t.Errorf("ReadState with cache %s = %+v, want %+v", body, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Repo.LoopDir(), "state", "x")); err != nil {
		t.Errorf("the cache was not rewritten: %v", err)
	}
}

// TestHotConfigBelongsToItsLoop: the cached loop.json survives updates of the same loop and
// is refused for a loop of the same name started at another time.
func TestHotConfigBelongsToItsLoop(t *testing.T) {
	s, _ := startTestLoop(t, "hc")
	if _, err := s.SetStatus("hc", Pause); err != nil {
		t.Fatal(err)
	}
	_, st, err := s.ReadState("hc")
	if err != nil {
		t.Fatal(err)
	}
	cfg, ok := readHotConfig(s.Repo, st)
	if !ok || cfg.Prompt != "p" {
		t.Fatalf("config not kept across an update: %v %v", cfg, ok)
	}
	other := *st
	other.StartedAt = st.StartedAt.Add(time.Second)
	if _, ok := readHotConfig(s.Repo, &other); ok {
		t.Fatal("config of another loop start was accepted")
	}
}

// TestHotStateRemovesStaleTemps: a temporary file a killed reader left beside the cache (an
// interrupted status) is removed by the next write; one being written now is left alone.
func TestHotStateRemovesStaleTemps(t *testing.T) {
	s, _ := startTestLoop(t, "tmp")
	dir := filepath.Join(s.Repo.LoopDir(), "state")
	stale, fresh, other := filepath.Join(dir, ".tmp.tmp-111"), filepath.Join(dir, ".tmp.tmp-222"), filepath.Join(dir, ".tmpx.tmp-333")
	for _, f := range []string{stale, fresh, other} {
		if err := os.WriteFile(f, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * gitstore.StaleTempAge)
	os.Chtimes(stale, old, old)
	os.Chtimes(other, old, old) // another loop's: not this write's to clean
	if _, err := s.SetStatus("tmp", Pause); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	for _, f := range []string{fresh, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(f), err)
		}
	}
}
