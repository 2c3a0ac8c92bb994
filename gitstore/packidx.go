package gitstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// packIndex is a pack's index (.idx, version 2) read in place, as git reads it: mapped, not
// decoded. go-git's reader decodes every entry into memory first, which for a large
// repository's pack (a million objects: a 28 MB index) cost every git-loop process that
// looked up one object tens of milliseconds and as many megabytes. Here a look-up is a
// binary search over the mapped names, and only the pages it touches are read. It is
// go-git's idxfile.Index, so go-git's pack reader reads objects through it.
//
// Layout (gitformat-pack): magic "\377tOc", version 2, a fan-out table of 256 counts, the
// sorted object names, their CRC-32s, their 31-bit offsets (high bit set: an index into the
// 64-bit offsets that follow), then the pack's and the index's checksums.
type packIndex struct {
	data  []byte // the whole file, mapped (or read, where mapping is not available)
	close func() error
	count int

	byOffsetOnce sync.Once
	byOffset     []uint32 // positions sorted by offset, made on first use (FindHash)
}

const (
	packIdxHeader = 8
	packIdxFanout = 256 * 4
)

var packIdxMagic = []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}

// errPackIdxFormat means the index is not one packIndex reads: damaged, or of version 1,
// which no git since 1.5.2 (2007) writes unless asked (go-git, read before, did not read
// it either). A pack whose index is refused is left out: its objects read as missing.
var errPackIdxFormat = errors.New("not a version 2 pack index (rewrite it: git index-pack --index-version=2 PACK)")

// openPackIndex maps the index at path and checks its layout.
func openPackIndex(path string) (*packIndex, error) {
	data, closeFn, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	x := &packIndex{data: data, close: closeFn}
	if err := x.check(); err != nil {
		closeFn()
		return nil, fmt.Errorf("read pack index %q: %w", path, err)
	}
	return x, nil
}

// check validates the header, the fan-out table and the file's size for its entry count.
func (x *packIndex) check() error {
	d := x.data
	if len(d) < packIdxHeader+packIdxFanout+40 || !bytes.Equal(d[:packIdxHeader], packIdxMagic) {
		return errPackIdxFormat
	}
	prev := uint32(0)
	for i := 0; i < 256; i++ {
		n := binary.BigEndian.Uint32(d[packIdxHeader+4*i:])
		if n < prev {
			return errPackIdxFormat
		}
		prev = n
	}
	x.count = int(prev)
	min := uint64(packIdxHeader+packIdxFanout+40) + 28*uint64(x.count)
	if uint64(len(d)) < min || (uint64(len(d))-min)%8 != 0 {
		return errPackIdxFormat
	}
	return nil
}

func (x *packIndex) namesAt() int { return packIdxHeader + packIdxFanout }
func (x *packIndex) crcAt() int   { return x.namesAt() + 20*x.count }
func (x *packIndex) off32At() int { return x.crcAt() + 4*x.count }
func (x *packIndex) off64At() int { return x.off32At() + 4*x.count }
func (x *packIndex) name(i int) []byte {
	at := x.namesAt() + 20*i
	return x.data[at : at+20]
}

// find returns h's position among the names, or -1.
func (x *packIndex) find(h plumbing.Hash) int {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.data[packIdxHeader+4*(int(h[0])-1):]))
	}
	hi := int(binary.BigEndian.Uint32(x.data[packIdxHeader+4*int(h[0]):]))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(x.name(mid), h[:]); {
		case c == 0:
			return mid
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return -1
}

// offset is the pack offset of the object at position i.
func (x *packIndex) offset(i int) (int64, error) {
	o := binary.BigEndian.Uint32(x.data[x.off32At()+4*i:])
	if o&0x80000000 == 0 {
		return int64(o), nil
	}
	at := x.off64At() + 8*int(o&0x7fffffff)
	if at+8 > len(x.data)-40 {
		return 0, fmt.Errorf("pack index: 64-bit offset %d out of range", o&0x7fffffff)
	}
	return int64(binary.BigEndian.Uint64(x.data[at:])), nil
}

// Contains implements idxfile.Index.
func (x *packIndex) Contains(h plumbing.Hash) (bool, error) { return x.find(h) >= 0, nil }

// FindOffset implements idxfile.Index.
func (x *packIndex) FindOffset(h plumbing.Hash) (int64, error) {
	i := x.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	return x.offset(i)
}

// FindCRC32 implements idxfile.Index.
func (x *packIndex) FindCRC32(h plumbing.Hash) (uint32, error) {
	i := x.find(h)
	if i < 0 {
		return 0, plumbing.ErrObjectNotFound
	}
	return binary.BigEndian.Uint32(x.data[x.crcAt()+4*i:]), nil
}

// FindHash implements idxfile.Index: the object at offset o, found through the positions
// sorted by offset, made on first use (go-git asks this of a delta's base).
func (x *packIndex) FindHash(o int64) (plumbing.Hash, error) {
	by := x.sortedByOffset()
	i, found := slices.BinarySearchFunc(by, o, func(pos uint32, o int64) int {
		off, _ := x.offset(int(pos))
		switch {
		case off < o:
			return -1
		case off > o:
			return 1
		}
		return 0
	})
	if !found {
		return plumbing.ZeroHash, plumbing.ErrObjectNotFound
	}
	return plumbing.Hash(x.name(int(by[i]))), nil
}

func (x *packIndex) sortedByOffset() []uint32 {
	x.byOffsetOnce.Do(func() {
		offs := make([]int64, x.count)
		by := make([]uint32, x.count)
		for i := range by {
			by[i] = uint32(i)
			offs[i], _ = x.offset(i)
		}
		slices.SortFunc(by, func(a, b uint32) int {
			switch {
			case offs[a] < offs[b]:
				return -1
			case offs[a] > offs[b]:
				return 1
			}
			return 0
		})
		x.byOffset = by
	})
	return x.byOffset
}

// Count implements idxfile.Index.
func (x *packIndex) Count() (int64, error) { return int64(x.count), nil }

// Entries implements idxfile.Index: the entries in name order.
func (x *packIndex) Entries() (idxfile.EntryIter, error) {
	return &packIdxIter{x: x}, nil
}

// EntriesByOffset implements idxfile.Index: the entries in pack order.
func (x *packIndex) EntriesByOffset() (idxfile.EntryIter, error) {
	return &packIdxIter{x: x, order: x.sortedByOffset()}, nil
}

// packIdxIter walks a packIndex's entries, by position or in order.
type packIdxIter struct {
	x     *packIndex
	order []uint32 // nil: by position
	next  int
}

func (it *packIdxIter) Next() (*idxfile.Entry, error) {
	if it.next >= it.x.count {
		return nil, io.EOF
	}
	i := it.next
	if it.order != nil {
		i = int(it.order[i])
	}
	it.next++
	off, err := it.x.offset(i)
	if err != nil {
		return nil, err
	}
	return &idxfile.Entry{Hash: plumbing.Hash(it.x.name(i)), CRC32: binary.BigEndian.Uint32(it.x.data[it.x.crcAt()+4*i:]), Offset: uint64(off)}, nil
}

func (it *packIdxIter) Close() error { it.next = it.x.count; return nil }
