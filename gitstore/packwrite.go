package gitstore

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A state write is one pack. The objects a loop's state commit needs (the commit, its tree,
// the iterations trees, state.json and the iteration record) are new by construction and
// written together, then referenced by one ref update. Written loose they cost a file each,
// and often a fan-out directory each, which git's prune-packed removed when it packed the
// last ones: on a virtual machine's disk that was most of a stop's time (a profile of
// BenchmarkLongLoopStop: openat and mkdirat, 80% of the stop's CPU). InPack keeps them in
// memory instead and writes them as one pack (pack and index, version 2, undeltified, as
// git's own bulk-checkin does), two files per state write whatever the loop's length;
// roll-ups then merge these small packs as they merge loose objects (see rollup.go).

// packBatch holds the objects written while a batch is open (see InPack).
type packBatch struct {
	mu      sync.Mutex
	index   map[Hash]int
	objects []batchObject
	size    int
}

type batchObject struct {
	h    Hash
	t    ObjectType
	data []byte
}

// maxBatchBytes bounds the content a batch keeps in memory: past it, objects are written
// loose as before. A state write is a few kilobytes (a record keeps gate output tails).
const maxBatchBytes = 8 << 20

// minPackObjects is the fewest objects worth a pack of their own: a pack's index costs about
// a kilobyte whatever it holds, a loose object one file.
const minPackObjects = 3

// InPack runs fn with the objects it writes through WriteObject, WriteUniqueObject,
// WriteCommit and EditTree kept back, readable by r as if stored, and writes them as one
// pack when fn returns without error (or loose, when they are too few for a pack). When fn
// fails, they are dropped: nothing refers to them. A ref may point at them only after InPack
// returns. Within an open batch, a nested InPack joins it. The batch is the Repo's, not the
// goroutine's: while one is open, no other goroutine may write objects through r that it
// then lets anything refer to (git-loop writes a state commit from one goroutine).
func (r *Repo) InPack(fn func() error) error {
	r.batchMu.Lock()
	if r.batch != nil {
		r.batchMu.Unlock()
		return fn()
	}
	b := &packBatch{index: map[Hash]int{}}
	r.batch = b
	r.batchMu.Unlock()
	defer func() { // closed even when fn panics: later writes must not join a dead batch
		r.batchMu.Lock()
		r.batch = nil
		r.batchMu.Unlock()
	}()
	if err := fn(); err != nil {
		return err
	}
	return r.flushBatch(b)
}

// openBatch returns the open batch, or nil.
func (r *Repo) openBatch() *packBatch {
	r.batchMu.Lock()
	defer r.batchMu.Unlock()
	return r.batch
}

// add keeps data as object h; it reports false when the batch is full (the caller writes
// the object loose).
func (b *packBatch) add(h Hash, t ObjectType, data []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.index[h]; ok {
		return true
	}
	if b.size+len(data) > maxBatchBytes {
		return false
	}
	b.index[h] = len(b.objects)
	b.objects = append(b.objects, batchObject{h: h, t: t, data: slices.Clone(data)})
	b.size += len(data)
	return true
}

// get returns object h when the batch holds it.
func (b *packBatch) get(h Hash) (ObjectType, []byte, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i, ok := b.index[h]
	if !ok {
		return 0, nil, false
	}
	o := b.objects[i]
	return o.t, o.data, true
}

// batched returns object h from the open batch, if any holds it.
func (r *Repo) batched(h Hash) (ObjectType, []byte, bool) {
	if b := r.openBatch(); b != nil {
		return b.get(h)
	}
	return 0, nil, false
}

// flushBatch stores the batch's objects: as one pack, or loose when they are too few.
func (r *Repo) flushBatch(b *packBatch) error {
	if len(b.objects) < minPackObjects {
		for _, o := range b.objects {
			if err := r.writeLoose(o.t, o.h, o.data); err != nil {
				return err
			}
		}
		return nil
	}
	pack, idx, name, err := encodePack(b.objects, r.looseLevel())
	if err != nil {
		return err
	}
	dir := filepath.Join(r.CommonDir, "objects", "pack")
	base := filepath.Join(dir, "pack-"+name)
	// the pack first, then its index: git (and git-loop) find a pack by its index, so a
	// reader never meets an index without its pack
	if err := writePackFile(base+".pack", pack); err != nil {
		return fmt.Errorf("write pack %s: %w", name, err)
	}
	if err := writePackFile(base+".idx", idx); err != nil {
		return fmt.Errorf("write pack index %s: %w", name, err)
	}
	r.objects().addPack(base + ".idx")
	return nil
}

// writePackFile writes a pack or its index through a temporary file in objects/pack, flushed
// to disk before it is renamed into place, as git writes packs (core.fsync's default): the
// ref that will name these objects is flushed too, and must not outlive them in a power cut.
// A loose object is not flushed, as git does not flush one.
func writePackFile(path string, data []byte) error {
	tmp, err := createTempIn(filepath.Dir(path), tmpPackPrefix)
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o444)
	}
	if err == nil {
		StallAt("object-temp")
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// tmpPackPrefix starts the temporary files a pack is written through, in objects/pack: git's
// own are tmp_pack_ and tmp_idx_ with random characters; gl- tells git-loop's apart.
const tmpPackPrefix = "tmp_pack_gl-"

// encodePack encodes objects as a version 2 pack of whole (undeltified) objects and its
// version 2 index, and returns them with the pack's name (its checksum, as git names packs).
// Objects are compressed at level, as loose ones are (a roll-up keeps the compressed data).
func encodePack(objects []batchObject, level int) (pack, idx []byte, name string, err error) {
	type entry struct {
		h      Hash
		offset uint32
		crc    uint32
	}
	var p bytes.Buffer
	p.WriteString("PACK")
	binary.Write(&p, binary.BigEndian, uint32(2))
	binary.Write(&p, binary.BigEndian, uint32(len(objects)))
	entries := make([]entry, 0, len(objects))
	zw := zlibWriter(level, &p) // pooled: a new compressor allocates hundreds of kilobytes
	defer putZlibWriter(level, zw)
	for _, o := range objects {
		start := p.Len()
		p.Write(packEntryHeader(o.t, len(o.data)))
		zw.Reset(&p)
		if _, err := zw.Write(o.data); err != nil {
			return nil, nil, "", fmt.Errorf("compress %s: %w", o.h, err)
		}
		if err := zw.Close(); err != nil {
			return nil, nil, "", fmt.Errorf("compress %s: %w", o.h, err)
		}
		if p.Len() > 1<<31-1 {
			return nil, nil, "", fmt.Errorf("pack of %d objects over 2 GiB", len(objects))
		}
		entries = append(entries, entry{h: o.h, offset: uint32(start), crc: crc32.ChecksumIEEE(p.Bytes()[start:])})
	}
	sum := sha1.Sum(p.Bytes())
	p.Write(sum[:])

	slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.h[:], b.h[:]) })
	var x bytes.Buffer
	x.Write([]byte{0xff, 't', 'O', 'c'})
	binary.Write(&x, binary.BigEndian, uint32(2))
	var fanout [256]uint32
	for _, e := range entries {
		fanout[e.h[0]]++
	}
	for i, n := uint32(0), 0; n < 256; n++ {
		i += fanout[n]
		binary.Write(&x, binary.BigEndian, i)
	}
	for _, e := range entries {
		x.Write(e.h[:])
	}
	for _, e := range entries {
		binary.Write(&x, binary.BigEndian, e.crc)
	}
	for _, e := range entries {
		binary.Write(&x, binary.BigEndian, e.offset)
	}
	x.Write(sum[:])
	isum := sha1.Sum(x.Bytes())
	x.Write(isum[:])
	return p.Bytes(), x.Bytes(), hex.EncodeToString(sum[:]), nil
}

// packEntryHeader is a pack entry's header: the type in bits 4–6 of the first byte, the
// size in its low four bits and then seven bits per byte, least significant first, each
// byte but the last with its top bit set.
func packEntryHeader(t ObjectType, size int) []byte {
	b := []byte{byte(t)<<4 | byte(size&0x0f)}
	size >>= 4
	for size > 0 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
		size >>= 7
	}
	return b
}

// addPack makes a pack this process wrote known at once (a later read would otherwise look
// for it only after missing it everywhere else).
func (db *objectDB) addPack(idxPath string) {
	db.mu.Lock()
	defer db.mu.Unlock()
	if !db.loaded || db.seen[idxPath] {
		return // the first look-up lists every pack, this one included
	}
	if len(db.packs) >= forgetDeletedAt {
		db.forgetDeleted()
	}
	if p, err := openPack(idxPath, db.bases); err == nil {
		db.seen[idxPath] = true
		db.packs = append(db.packs, p)
	}
}

// forgetDeletedAt is how many open packs make addPack look for deleted ones: a hook writes
// once and exits, and need not check every pack it knows at each write.
const forgetDeletedAt = 16

// forgetDeleted closes the packs whose file is gone: a roll-up (or gc) merged them into a
// pack of its own, which a rescan finds, and deleted them. A process that writes state after
// state (`git loop run`) would otherwise keep every pack its writes made open, deleted, for
// its whole life: a file, a mapped index and the pack's disk space each, and one more index
// for every look-up to search. A pack is only read with db.mu held, which is held here.
func (db *objectDB) forgetDeleted() {
	kept := db.packs[:0]
	for _, p := range db.packs {
		name := p.file.Name()
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			p.file.Close()
			p.idx.close()
			delete(db.seen, strings.TrimSuffix(name, ".pack")+".idx")
			continue
		}
		kept = append(kept, p)
	}
	clear(db.packs[len(kept):])
	db.packs = kept
}

// removeStalePacks removes the temporary pack files killed git-loop writers left in
// objects/pack (see SweepTempObjects), once older than TempObjectAge.
// A pack without its index that is as old is one too: a pack is renamed into place just
// before its index, so one that stayed alone was left by a writer killed between the two
// (git itself cannot read such a pack).
func removeStalePacks(objects string) int {
	dir := filepath.Join(objects, "pack")
	n := removeStale(dir, tmpPackPrefix, TempObjectAge)
	packs, _ := filepath.Glob(filepath.Join(dir, "pack-*.pack"))
	for _, p := range packs {
		if _, err := os.Lstat(strings.TrimSuffix(p, ".pack") + ".idx"); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && time.Since(fi.ModTime()) > TempObjectAge && os.Remove(p) == nil {
			n++
		}
	}
	return n
}
