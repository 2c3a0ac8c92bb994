package gitstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRollUpBesideFsck runs git fsck over and over while roll-ups merge the packs and pack
// the loose objects that state writes and commits keep adding (issue 27, 6b): fsck lists the
// packs when it starts and opens them later, so a roll-up that deleted the packs it had just
// merged made it report them missing. Every fsck must be clean.
func TestRollUpBesideFsck(t *testing.T) {
	refsHermetic(t)
	r, dir := refsNewRepo(t)
	historyPack(t, dir)
	smallPacks(t, dir, 6) // the history's last commits, in small packs and loose
	const rounds = 40
	var stop atomic.Bool
	var runs, failed atomic.Int64
	var firstFailure atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			out, err := refsGitErr(dir, "fsck", "--no-dangling", "--no-progress")
			runs.Add(1)
			if err != nil {
				failed.Add(1)
				firstFailure.CompareAndSwap(nil, fmt.Sprintf("%v\n%s", err, out))
			}
		}
	}()
	for i := 0; i < rounds; i++ {
		// state writes, a pack each, and loose objects, none referred to: fsck, which
		// enumerates the objects before it reads the refs, reports an object written beside
		// it and reachable by the time it reads them as missing (the roll-ups aside)
		for j := 0; j < 4; j++ {
			if err := r.InPack(func() error { batchObjectsSalted(t, r, 3, fmt.Sprint(i, j)); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		for j := 0; j < 5; j++ {
			if _, err := r.WriteObject(BlobObject, []byte(fmt.Sprintf("round %d loose %d\n", i, j))); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.RollUp(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d fsck runs beside %d roll-ups, %d failed", runs.Load(), rounds, failed.Load())
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d fsck runs failed beside roll-ups; the first:\n%s", n, runs.Load(), strings.TrimSpace(firstFailure.Load().(string)))
	}
	refsGit(t, dir, "fsck", "--no-dangling", "--no-progress")
}
