package gitstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// HoldPrefix is the namespace of the temporary refs that hold objects (see Hold). It is
// outside refs/loop/, so no loop lists, pushes or fetches them.
const HoldPrefix = "refs/loop-tmp/"

// A Hold is a temporary ref, HoldPrefix+"<what>/<owner>", that keeps an object and all it
// names reachable while a write that is about to name them is under way: git gc, git prune
// and git repack -d keep what a ref reaches, whatever their expiry (--prune=now included).
// Its last component is an owner name (OwnerName), so that a hold left by a process that
// was killed is removed by a later one (SweepHolds). It is written as git writes a loose ref
// (through <ref>.lock and a rename) but without fsync or reflog: it only guards against a
// concurrent gc, and a crash that loses it loses nothing else.
type Hold struct {
	r    *Repo
	name string
}

// HoldObject holds h (see Hold) under a new temporary ref named for what, a ref component.
func (r *Repo) HoldObject(what string, h Hash) (*Hold, error) {
	hd := &Hold{r: r, name: HoldPrefix + what + "/" + OwnerName()}
	if err := hd.write(h); err != nil {
		return nil, err
	}
	return hd, nil
}

// Name is the hold's full ref name.
func (hd *Hold) Name() string { return hd.name }

// write points the hold's ref at h.
func (hd *Hold) write(h Hash) error {
	p := hd.r.refPath(hd.name)
	f, err := createExclusive(p + lockSuffix)
	if err != nil {
		return fmt.Errorf("hold %s: %w", h, err)
	}
	_, err = f.Write(h.appendHex(make([]byte, 0, 41)))
	if err == nil {
		_, err = f.Write([]byte{'\n'})
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p+lockSuffix, p)
	}
	if err != nil {
		os.Remove(p + lockSuffix)
		return fmt.Errorf("hold %s: %w", h, err)
	}
	return nil
}

// Release removes the hold's ref: its loose file, or its packed-refs entry when git gc
// packed it meanwhile. Nil holds nothing. A hold that cannot be removed is left for
// SweepHolds, once its owner is gone.
func (hd *Hold) Release() {
	if hd == nil {
		return
	}
	hd.r.removeHold(hd.name)
}

// removeHold removes the temporary ref name, loose or packed.
func (r *Repo) removeHold(name string) {
	p := r.refPath(name)
	if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
		r.deletePackedRef(name) // packed by git gc (pack-refs) meanwhile
	}
	removeEmptyParents(p, filepath.Join(r.CommonDir, "refs"))
}

// SweepHolds removes the holds whose owners are gone (killed before they released them),
// loose or packed, and returns how many.
func (r *Repo) SweepHolds() int {
	refs, err := r.ListRefs(HoldPrefix)
	if err != nil {
		return 0
	}
	n := 0
	for _, ref := range refs {
		if OwnerGone(path.Base(ref.Name)) {
			r.removeHold(ref.Name)
			n++
		}
	}
	return n
}
