package snapshots

import (
	"slices"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

func TestTrackedSpans(t *testing.T) {
	paths := []string{"a", "a-b", "a.b", "a/b", "a/b/c", "a/c", "a0", "b/x", "b/y/z"}
	for _, order := range []struct {
		name  string
		paths []string
	}{
		{"sorted, as git writes it", paths},
		{"unsorted", []string{"b/y/z", "a/c", "a0", "a", "a/b/c", "a.b", "b/x", "a/b", "a-b"}},
	} {
		t.Run(order.name, func(t *testing.T) {
			idx := &gitstore.Index{}
			for _, p := range order.paths {
				idx.Entries = append(idx.Entries, gitstore.IndexEntry{Path: p})
			}
			tr := newTrackedIndex(idx)
			if got := trackedPaths(tr, 0, tr.len()); !slices.Equal(got, paths) {
				t.Fatalf("paths = %q, want %q", got, paths)
			}
			for _, tc := range []struct {
				dir  string
				want []string
			}{
				{"a", []string{"a/b", "a/b/c", "a/c"}},
				{"a/b", []string{"a/b/c"}},
				{"b", []string{"b/x", "b/y/z"}},
				{"b/y", []string{"b/y/z"}},
				{"c", nil},
				{"a/b/c", nil},
			} {
				sp := tr.all()
				for d := range splitDirs(tc.dir) {
					sp = sp.under(d)
				}
				if got := trackedPaths(tr, sp.lo, sp.hi); !slices.Equal(got, tc.want) && len(got)+len(tc.want) > 0 {
					t.Errorf("under(%q) = %q, want %q", tc.dir, got, tc.want)
				}
				if sp.empty() != (len(tc.want) == 0) {
					t.Errorf("under(%q).empty() = %v", tc.dir, sp.empty())
				}
			}
			a := tr.all().under("a")
			for _, p := range []string{"a/b", "a/c"} {
				var e gitstore.IndexEntry
				if !a.entry(p, &e) || e.Path != p {
					t.Errorf("entry(%q) = %v", p, e)
				}
			}
			for _, p := range []string{"a/d", "a/b/", "a/bb"} {
				var e gitstore.IndexEntry
				if a.entry(p, &e) {
					t.Errorf("entry(%q) = %v, want none", p, e.Path)
				}
			}
		})
	}
}

// splitDirs yields each prefix of dir, outermost first ("a/b" → "a", "a/b").
func splitDirs(dir string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for i := 0; i <= len(dir); i++ {
			if (i == len(dir) || dir[i] == '/') && !yield(dir[:i]) {
				return
			}
		}
	}
}

func TestTrackedConflictStages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stages []uint8
		want   uint8
	}{
		{"stage 0 alone", []uint8{0}, 0},
		{"conflict: the last stage", []uint8{1, 2, 3}, 3},
		{"ours and theirs only", []uint8{2, 3}, 3},
		{"stage 0 beside stages", []uint8{0, 2, 3}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx := &gitstore.Index{Entries: []gitstore.IndexEntry{{Path: "a"}}}
			for _, st := range tc.stages {
				idx.Entries = append(idx.Entries, gitstore.IndexEntry{Path: "m", Stage: st})
			}
			idx.Entries = append(idx.Entries, gitstore.IndexEntry{Path: "z"})
			tr := newTrackedIndex(idx)
			if got := trackedPaths(tr, 0, tr.len()); !slices.Equal(got, []string{"a", "m", "z"}) {
				t.Fatalf("paths = %q", got)
			}
			var e gitstore.IndexEntry
			if !tr.all().entry("m", &e) || e.Stage != tc.want {
				t.Fatalf("entry(m) = %+v, want stage %d", e, tc.want)
			}
		})
	}
}

// trackedPaths lists the tracked paths lo to hi (exclusive), in sorted order.
func trackedPaths(tr *trackedIndex, lo, hi int) []string {
	var ps []string
	for i := lo; i < hi; i++ {
		ps = append(ps, tr.path(i))
	}
	return ps
}
