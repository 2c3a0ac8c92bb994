package loop

import (
	"context"
	"fmt"
	"io"

	"github.com/git-loop/git-loop/gitstore"
)

// MaintenanceArg is the command that runs a roll-up in the background: `git-loop
// maintenance`, which a state write starts (see UseBackgroundMaintenance).
const MaintenanceArg = "maintenance"

// ErrMaintenanceRunning means git's maintenance, a git gc or another roll-up is running in
// the repository; nothing was changed.
var ErrMaintenanceRunning = gitstore.ErrMaintenanceRunning

// UseBackgroundMaintenance makes every state write that leaves loose objects or small packs
// piling up start a roll-up (Store.RollUp) in the background, as exe (git-loop itself,
// os.Executable) run with MaintenanceArg. Without it, git's own loose-objects maintenance
// task packs the loose objects, and the packs wait for gc.autoPackLimit.
func UseBackgroundMaintenance(exe func() (string, error)) {
	gitstore.UseRollUp(exe, "git-loop", MaintenanceArg)
}

// RollUpResult is what a roll-up found and left in the repository's object store.
type RollUpResult = gitstore.RollUpResult

// RollUp packs the repository's loose objects and merges its small packs geometrically (as
// `git repack --geometric=2 -l` does) under git maintenance's lock, and waits for it: what
// each iteration starts in the background when loose objects or small packs pile up. What
// it merged and packed is kept for the readers that may have listed it, and removed by a
// later roll-up, at most once an hour.
func (s *Store) RollUp(ctx context.Context) (RollUpResult, error) {
	res, err := s.Repo.RollUp(ctx)
	if err != nil {
		return res, fmt.Errorf("roll up the object store: %w", err)
	}
	return res, nil
}

// PrintRollUp writes a roll-up's result as one line.
func PrintRollUp(w io.Writer, res RollUpResult) error {
	how := "geometric roll-up"
	if !res.Geometric {
		how = "roll-up (this git has no --stdin-packs)"
	}
	line := fmt.Sprintf("%s: loose objects %d → %d, packs %d → %d", how, res.LooseBefore, res.LooseAfter, res.PacksBefore, res.PacksAfter)
	if res.Kept > 0 || res.PackedLoose > 0 {
		line += fmt.Sprintf("; kept for running readers: %d merged packs, %d packed loose objects", res.Kept, res.PackedLoose)
	}
	if res.Removed > 0 || res.LooseRemoved > 0 {
		line += fmt.Sprintf("; removed, an hour on: %d packs, %d loose objects", res.Removed, res.LooseRemoved)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
