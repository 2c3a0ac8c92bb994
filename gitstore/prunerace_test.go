package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// TestWriteObjectWhilePruned writes objects while another process's prune-packed (git gc,
// the loose-objects task) removes every object directory it finds empty, as git does: a
// directory git-loop has just made can vanish before its temporary file is created there,
// which failed a state commit once. Every write must land, and git must read them all.
func TestWriteObjectWhilePruned(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	objects := filepath.Join(dir, ".git", "objects")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // sweep after sweep, like prune-packed: rmdir each fan-out directory left empty
		defer wg.Done()
		for !stop.Load() {
			for i := 0; i < 256; i++ {
				os.Remove(filepath.Join(objects, fmt.Sprintf("%02x", i))) // fails unless empty
			}
		}
	}()
	var written []Hash
	for i := 0; i < 1000; i++ {
		h, err := r.WriteObject(BlobObject, []byte(fmt.Sprintf("blob %d\n", i)))
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("write %d while directories are pruned: %v", i, err)
		}
		written = append(written, h)
	}
	stop.Store(true)
	wg.Wait()
	for _, h := range written[:50] {
		refsGit(t, dir, "cat-file", "-e", h.String())
	}
}
