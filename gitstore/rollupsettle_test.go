package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// packObjects lists the objects of the pack named base (pack-<hash>), by git show-index.
func packObjects(t *testing.T, dir, base string) []string {
	t.Helper()
	idx, err := os.Open(filepath.Join(dir, ".git", "objects", "pack", base+".idx"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	var names []string
	cmd := exec.Command("git", "show-index")
	cmd.Dir, cmd.Stdin = dir, idx
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			names = append(names, f[1])
		}
	}
	return names
}

// markedPacks names the packs a roll-up has marked (their .keep file is its mark).
func markedPacks(t *testing.T, dir string) []string {
	t.Helper()
	keeps, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.keep"))
	var marked []string
	for _, k := range keeps {
		data, _ := os.ReadFile(k)
		if strings.HasPrefix(string(data), rollUpMark) {
			marked = append(marked, strings.TrimSuffix(filepath.Base(k), ".keep"))
		}
	}
	return marked
}

// TestRollUpKeepsWhatItMerged: what a roll-up merges and packs stays for the readers that may
// have listed it, and goes at a later roll-up once an hour old, at most once an hour; only a
// pack every object of which is still in a newer pack goes, and never one someone keeps or a
// multi-pack-index lists. The clock is injected; git is the oracle of what is where.
func TestRollUpKeepsWhatItMerged(t *testing.T) {
	t0 := time.Now()
	at := func(d time.Duration) func() time.Time { return func() time.Time { return t0.Add(d) } }
	for _, tc := range []struct {
		name string
		// between runs after the first roll-up, at 0, and before the second, at later
		between func(t *testing.T, r *Repo, dir string)
		later   time.Duration
		// what the second leaves: merged packs removed, marks left, loose objects removed
		wantRemoved, wantLooseRemoved bool
		wantMarked                    int // -1: as many as the first left
	}{
		{name: "within the hour, nothing goes", later: 59 * time.Minute, wantMarked: -1},
		{name: "an hour on, the merged packs and packed loose objects go", later: 61 * time.Minute, wantRemoved: true, wantLooseRemoved: true, wantMarked: 0},
		{
			name: "a pack no longer merged anywhere (git gc honoured the mark) is a pack again",
			between: func(t *testing.T, r *Repo, dir string) {
				refsGit(t, dir, "repack", "-a", "-d", "-q") // leaves .keep packs and their objects alone
			},
			later: 2 * time.Hour, wantLooseRemoved: true, wantMarked: 0,
		},
		{
			name: "at most once an hour",
			between: func(t *testing.T, r *Repo, dir string) {
				if err := r.setStamp(rollUpRemovedStamp, t0.Add(30*time.Minute)); err != nil {
					t.Fatal(err)
				}
			},
			later: 61 * time.Minute, wantMarked: -1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refsHermetic(t)
			r, dir := refsNewRepo(t)
			historyPack(t, dir)
			smallPacks(t, dir, 6)
			before := allObjects(t, dir)
			first, err := r.rollUp(context.Background(), at(0))
			if err != nil {
				t.Fatal(err)
			}
			marked := markedPacks(t, dir)
			if int64(len(marked)) != first.Kept || first.Kept != 6 || first.Removed != 0 || first.LooseRemoved != 0 || first.PackedLoose == 0 {
				t.Fatalf("first roll-up = %+v, marked %v; want the 6 small packs marked and kept, the loose objects kept", first, marked)
			}
			// every marked pack's objects are in the pack the roll-up wrote (git's listing)
			newest := ""
			var newestAt time.Time
			packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "pack-*.pack"))
			for _, p := range packs {
				if fi, _ := os.Stat(p); fi.ModTime().After(newestAt) {
					newest, newestAt = strings.TrimSuffix(filepath.Base(p), ".pack"), fi.ModTime()
				}
			}
			merged := packObjects(t, dir, newest)
			for _, m := range marked {
				for _, o := range packObjects(t, dir, m) {
					if !slices.Contains(merged, o) {
						t.Errorf("marked pack %s holds %s, which the merged pack %s does not", m, o, newest)
					}
				}
			}
			if tc.between != nil {
				tc.between(t, r, dir)
			}
			packedLoose := countObjectsField(t, dir, "prune-packable")
			second, err := r.rollUp(context.Background(), at(tc.later))
			if err != nil {
				t.Fatal(err)
			}
			wantMarked := tc.wantMarked
			if wantMarked < 0 {
				wantMarked = len(marked)
			}
			if got := markedPacks(t, dir); len(got) != wantMarked || int64(wantMarked) != second.Kept {
				t.Errorf("second roll-up = %+v, marked %v; want %d marked", second, got, wantMarked)
			}
			if removed := second.Removed > 0; removed != tc.wantRemoved {
				t.Errorf("second roll-up = %+v; want packs removed: %v", second, tc.wantRemoved)
			}
			if tc.wantRemoved {
				for _, m := range marked {
					if _, err := os.Stat(filepath.Join(dir, ".git", "objects", "pack", m+".pack")); err == nil {
						t.Errorf("merged pack %s still there", m)
					}
				}
			}
			gotLoose := countObjectsField(t, dir, "prune-packable")
			if tc.wantLooseRemoved != (gotLoose == 0 && second.LooseRemoved == packedLoose) {
				t.Errorf("second roll-up = %+v, %d packed loose objects left of %d; want them removed: %v", second, gotLoose, packedLoose, tc.wantLooseRemoved)
			}
			if after := allObjects(t, dir); after != before {
				t.Errorf("objects changed:\nbefore\n%s\nafter\n%s", before, after)
			}
			refsGit(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}

// TestRollUpLeavesOthersPacks: a pack someone keeps (.keep), and the packs a
// multi-pack-index lists, are never merged, marked or removed, however late.
func TestRollUpLeavesOthersPacks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) []string // the packs to leave
	}{
		{"kept", func(t *testing.T, dir string) []string {
			var kept []string
			for _, p := range packFiles(t, dir)[:2] {
				os.WriteFile(strings.TrimSuffix(p, ".pack")+".keep", []byte("mine\n"), 0o644)
				kept = append(kept, p)
			}
			return kept
		}},
		{"in a multi-pack-index", func(t *testing.T, dir string) []string {
			listed := packFiles(t, dir)
			refsGit(t, dir, "multi-pack-index", "write")
			return listed
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refsHermetic(t)
			r, dir := refsNewRepo(t)
			smallPacks(t, dir, 6)
			leave := tc.setup(t, dir)
			before := allObjects(t, dir)
			for _, d := range []time.Duration{0, 2 * time.Hour, 4 * time.Hour} {
				if _, err := r.rollUp(context.Background(), func() time.Time { return time.Now().Add(d) }); err != nil {
					t.Fatal(err)
				}
				smallPacks(t, dir, 2)
			}
			for _, p := range leave {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: %v", p, err)
				}
				if slices.Contains(markedPacks(t, dir), strings.TrimSuffix(filepath.Base(p), ".pack")) {
					t.Errorf("%s marked as merged", p)
				}
			}
			after := strings.Split(allObjects(t, dir), "\n")
			for _, o := range strings.Split(before, "\n") {
				if !slices.Contains(after, o) {
					t.Errorf("object lost: %s", o)
				}
			}
			refsGit(t, dir, "fsck", "--strict", "--no-dangling")
		})
	}
}
