package gitstore

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepLeftovers: the temporary files a killed git-loop left — objects it was writing,
// caches it was replacing — are removed by a later writer once older than their safe age;
// fresh ones, and git's own temporary objects, are left.
func TestSweepLeftovers(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	fan := filepath.Join(r.CommonDir, "objects", "ab")
	os.MkdirAll(fan, 0o777)
	loopDir := r.LoopDir()
	os.MkdirAll(loopDir, 0o777)
	type file struct {
		path string
		age  time.Duration
		kept bool
	}
	files := []file{
		{filepath.Join(fan, tmpObjectPrefix+"111"), 2 * TempObjectAge, false},
		{filepath.Join(fan, tmpObjectPrefix+"222"), TempObjectAge / 2, true},
		{filepath.Join(fan, "tmp_obj_aBc123"), 30 * 24 * time.Hour, true}, // git's: git gc's to prune
		{filepath.Join(loopDir, ".cache.tmp-1"), 2 * StaleTempAge, false},
		{filepath.Join(loopDir, ".cache.tmp-2"), 0, true},
		{filepath.Join(loopDir, ".other.tmp-3"), 2 * StaleTempAge, true}, // another file's
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, []byte("partial"), 0o444); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-f.age)
		os.Chtimes(f.path, old, old)
	}
	if err := WriteFileAtomic(filepath.Join(loopDir, "cache"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if n := r.SweepTempObjects(); n != 1 {
		t.Errorf("SweepTempObjects removed %d files, want 1", n)
	}
	for _, f := range files {
		_, err := os.Stat(f.path)
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s: kept %v, want %v", filepath.Base(f.path), kept, f.kept)
		}
	}
	// Within the hour nothing is swept again, however old.
	again := filepath.Join(fan, tmpObjectPrefix+"333")
	os.WriteFile(again, nil, 0o444)
	old := time.Now().Add(-2 * TempObjectAge)
	os.Chtimes(again, old, old)
	if n := r.SweepTempObjects(); n != 0 {
		t.Errorf("a second sweep within the hour removed %d files", n)
	}
	refsGit(t, dir, "fsck", "--no-dangling")
}
