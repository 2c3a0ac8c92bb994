package gitstore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// What a roll-up leaves for the readers that were already running.
//
// git fsck lists the packs when it starts and opens each one later, as it gets to it: a pack
// deleted in between is reported missing ("packfile … cannot be accessed", "index not
// opened", then the objects and reflog entries it held). git repack -d deletes the packs it
// has just merged, so a roll-up with -d made a fsck running beside it fail (issue 27: 10 of
// 70 rounds). A roll-up therefore deletes nothing as it merges: the packs it merged stay, each
// marked with a .keep file of git-loop's (rollUpMark), which keeps them out of git's count of
// packs (gc.autoPackLimit, git gc --auto), out of the next roll-up's merge and safe from git
// gc, and the loose objects it packed stay loose. Both are removed later, in one go, at most
// once per rollUpGrace, and a pack only once its mark is rollUpGrace old and every object in
// it is still in a newer pack (redundantPacks, decided afresh from the packs' indexes, not
// from the mark). A fsck that is running at that moment can still see a pack go, as it can
// beside any git gc; every other roll-up leaves every file where it was.

// rollUpGrace is how long a merged pack is kept after the roll-up that merged it, and how
// often, at most, a roll-up removes what earlier ones merged and packed.
const rollUpGrace = time.Hour

// rollUpMark is the first line of the .keep file with which a roll-up marks a pack it has
// merged into a newer one. A .keep file that does not start with it is someone else's, and
// its pack is never rewritten or removed.
const rollUpMark = "git-loop roll-up: merged into a newer pack"

// Stamps in the loop directory: the start of the last roll-up that packed the loose objects
// (MaintenanceNeeded counts only loose objects newer than it), and the last time a roll-up
// removed what earlier ones had merged.
const (
	rollUpPackedStamp  = "rollup-packed"
	rollUpRemovedStamp = "rollup-removed"
)

// rollPack is one pack in objects/pack, as a roll-up sees it.
type rollPack struct {
	name   string // pack-<hash> (or loose-<hash>, git's loose-objects task's)
	mtime  time.Time
	weight int64 // objects, off the index's size
	hasIdx bool
	// keep: a .keep file that is not a roll-up's; marked: a roll-up's (markedAt its time).
	keep, marked bool
	markedAt     time.Time
	promisor     bool
	cruft        bool // a cruft pack (.mtimes): git gc's, for unreachable objects
	midx         bool // listed by the multi-pack-index
}

// mergeable reports whether a roll-up may merge p: a local pack of ordinary objects that no
// one keeps and no multi-pack-index lists, and not already merged.
func (p rollPack) mergeable() bool {
	return p.hasIdx && !p.keep && !p.marked && !p.promisor && !p.cruft && !p.midx
}

// removable reports whether p may ever be removed (once redundant): only a pack a roll-up
// marked, which no one else keeps and no multi-pack-index lists.
func (p rollPack) removable() bool {
	return p.marked && !p.keep && !p.promisor && !p.cruft && !p.midx
}

// excluded reports whether a roll-up must leave p's objects where they are, as git repack
// does a kept pack's: someone's .keep, a promisor pack, or one the multi-pack-index lists.
func (p rollPack) excluded() bool { return p.hasIdx && (p.keep || p.promisor || p.midx) }

// scanPacks lists the packs in objects/pack, oldest first (by the pack's mtime, then name).
func scanPacks(objects string) []rollPack {
	dir := filepath.Join(objects, "pack")
	names, err := readDirNames(dir)
	if err != nil {
		return nil
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	listed, midxOK := midxPacks(dir)
	var packs []rollPack
	for _, n := range names {
		base, ok := strings.CutSuffix(n, ".pack")
		if !ok || strings.HasPrefix(n, ".") {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		p := rollPack{name: base, mtime: fi.ModTime(), promisor: has[base+".promisor"], cruft: has[base+".mtimes"]}
		if fi, err := os.Lstat(filepath.Join(dir, base+".idx")); err == nil {
			p.hasIdx, p.weight = true, max(0, (fi.Size()-1072)/28)
		}
		p.midx = !midxOK || listed[base]
		if has[base+".keep"] {
			if at, ok := readRollUpMark(filepath.Join(dir, base+".keep")); ok {
				p.marked, p.markedAt = true, at
			} else {
				p.keep = true
			}
		}
		packs = append(packs, p)
	}
	slices.SortFunc(packs, func(a, b rollPack) int {
		return cmp.Or(a.mtime.Compare(b.mtime), cmp.Compare(a.name, b.name))
	})
	return packs
}

// readRollUpMark reads a .keep file: whether it is a roll-up's mark, and its time.
func readRollUpMark(path string) (time.Time, bool) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	buf := make([]byte, len(rollUpMark))
	if n, _ := f.Read(buf); n < len(buf) || string(buf) != rollUpMark {
		return time.Time{}, false
	}
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}

// midxPacks names the packs objects/pack/multi-pack-index lists (its PNAM chunk: the packs'
// index names, each ended by a NUL). ok is false when there is an index that cannot be read:
// then every pack counts as listed, and none is merged or removed.
func midxPacks(packDir string) (listed map[string]bool, ok bool) {
	data, err := os.ReadFile(filepath.Join(packDir, "multi-pack-index"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, true
	}
	if err != nil || len(data) < 12 || string(data[:4]) != "MIDX" {
		return nil, false
	}
	chunks := int(data[6])
	if len(data) < 12+12*(chunks+1) {
		return nil, false
	}
	for i := 0; i < chunks; i++ {
		at := 12 + 12*i
		if string(data[at:at+4]) != "PNAM" {
			continue
		}
		start, end := binary.BigEndian.Uint64(data[at+4:]), binary.BigEndian.Uint64(data[at+16:])
		if start > end || end > uint64(len(data)) {
			return nil, false
		}
		listed = map[string]bool{}
		for _, n := range bytes.Split(data[start:end], []byte{0}) {
			if base, ok := strings.CutSuffix(string(n), ".idx"); ok {
				listed[base] = true
			}
		}
		return listed, true
	}
	return nil, false
}

// redundantPacks decides which of packs (oldest first, as scanPacks lists them) are
// redundant: every object in them is in a pack newer than they are, and which is not a cruft
// or promisor pack. Removing all of them loses nothing: each object of a redundant pack is in
// a newer pack, which is either kept or redundant in turn, and so on up to a pack that is
// kept. check says which packs to decide about; try names packs to look in first (the pack a
// roll-up has just written). A pack whose index cannot be read is never redundant, and
// cannot vouch for another.
func redundantPacks(objects string, packs []rollPack, check func(rollPack) bool, try ...string) map[string]bool {
	dir := filepath.Join(objects, "pack")
	idx := make([]*packIndex, len(packs))
	open := func(i int) *packIndex {
		if idx[i] == nil && packs[i].hasIdx {
			if x, err := openPackIndex(filepath.Join(dir, packs[i].name+".idx")); err == nil {
				idx[i] = x
			} else {
				packs[i].hasIdx = false
			}
		}
		return idx[i]
	}
	defer func() {
		for _, x := range idx {
			if x != nil {
				x.close()
			}
		}
	}()
	var newerWeight int64
	weightAfter := make([]int64, len(packs)) // what the packs newer than each one hold
	for i := len(packs) - 1; i >= 0; i-- {
		weightAfter[i] = newerWeight
		if packs[i].hasIdx && !packs[i].cruft && !packs[i].promisor {
			newerWeight += packs[i].weight
		}
	}
	redundant := map[string]bool{}
	for i, p := range packs {
		if !check(p) || !p.hasIdx || p.weight > weightAfter[i] {
			continue
		}
		x := open(i)
		if x == nil {
			continue
		}
		// where to look: the packs tried first, then the newer ones, largest first
		var order []int
		for j := i + 1; j < len(packs); j++ {
			if packs[j].hasIdx && !packs[j].cruft && !packs[j].promisor {
				order = append(order, j)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Or(-cmp.Compare(b2i(slices.Contains(try, packs[a].name)), b2i(slices.Contains(try, packs[b].name))), -cmp.Compare(packs[a].weight, packs[b].weight))
		})
		all := true
		last := -1 // the pack the previous object was found in: its neighbours usually are too
		for k := 0; k < x.count && all; k++ {
			h := plumbing.Hash(x.name(k))
			found := last >= 0 && open(last) != nil && idx[last].find(h) >= 0
			for _, j := range order {
				if found {
					break
				}
				if j != last && open(j) != nil && idx[j].find(h) >= 0 {
					found, last = true, j
				}
			}
			all = found
		}
		if all {
			redundant[p.name] = true
		}
	}
	return redundant
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// markMerged writes a roll-up's mark, a .keep file, next to the pack named base: through a
// temporary file renamed into place, so that a mark is whole or absent (a partial one would
// read as someone else's .keep, and keep its pack for good).
func markMerged(objects, base string) error {
	dir := filepath.Join(objects, "pack")
	f, err := os.CreateTemp(dir, "tmp_gl-keep-")
	if err != nil {
		return err
	}
	_, werr := f.WriteString(rollUpMark + "; removed once every object in it is in a newer pack and this file is an hour old\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(f.Name(), filepath.Join(dir, base+".keep"))
	}
	if werr != nil {
		os.Remove(f.Name())
	}
	return werr
}

// removePack removes a merged pack's files: its index first, so that no reader lists it
// any more, its mark last, so that a removal cut short is finished by the next one.
func removePack(objects, base string) error {
	dir := filepath.Join(objects, "pack")
	var first error
	for _, ext := range []string{".idx", ".pack", ".rev", ".bitmap", ".keep"} {
		if err := os.Remove(filepath.Join(dir, base+ext)); err != nil && !errors.Is(err, os.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}

// stampTime is the time a stamp in the loop directory records (its mtime), or the zero time.
func (r *Repo) stampTime(name string) time.Time {
	fi, err := os.Stat(filepath.Join(r.LoopDir(), name))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

// setStamp records at in the stamp name.
func (r *Repo) setStamp(name string, at time.Time) error {
	path := filepath.Join(r.LoopDir(), name)
	if err := os.Chtimes(path, at, at); err == nil {
		return nil
	}
	if err := os.MkdirAll(r.LoopDir(), 0o777); err != nil {
		return err
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		return err
	}
	return os.Chtimes(path, at, at)
}

// looseState counts the loose objects: those in no pack, and those already in one (which a
// roll-up leaves until its removal), with the oldest of the latter's time.
func looseState(objects string, packs []rollPack) (unpacked, packed int64, oldestPacked time.Time) {
	var idx []*packIndex
	for _, p := range packs {
		if p.hasIdx {
			if x, err := openPackIndex(filepath.Join(objects, "pack", p.name+".idx")); err == nil {
				idx = append(idx, x)
			}
		}
	}
	defer func() {
		for _, x := range idx {
			x.close()
		}
	}()
	for i := 0; i < 256; i++ {
		sub := filepath.Join(objects, hexByte(i))
		names, _ := readDirNames(sub)
		for _, name := range names {
			if !isLooseName(name) {
				continue
			}
			h, err := ParseHash(hexByte(i) + name)
			if err != nil {
				continue
			}
			in := false
			for _, x := range idx {
				if x.find(plumbing.Hash(h)) >= 0 {
					in = true
					break
				}
			}
			if !in {
				unpacked++
				continue
			}
			packed++
			if fi, err := os.Lstat(filepath.Join(sub, name)); err == nil && (oldestPacked.IsZero() || fi.ModTime().Before(oldestPacked)) {
				oldestPacked = fi.ModTime()
			}
		}
	}
	return unpacked, packed, oldestPacked
}

func hexByte(i int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[i>>4], digits[i&15]})
}
