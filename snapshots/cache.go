package snapshots

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/git-loop/git-loop/gitstore"
)

// statCache remembers the last snapshot: per directory its tree and, per file, the stat data
// and object name of its last hashing. It is grouped by directory because the walk is: one
// map lookup per directory, then a binary search by name, instead of a map of every path.
// It is a rebuildable cache: a missing or corrupt file only makes the next snapshot slower.
type statCache struct {
	dirs    map[string]*cachedDir      // "" is the root
	root    gitstore.Hash              // the last snapshot's tree; if it was pruned, nothing here is trusted
	written time.Time                  // the cache file's mtime: entries modified at or after it are racy
	trees   map[gitstore.Hash]struct{} // built on demand from dirs: trees known to exist
}

// cachedDir is a directory of the last snapshot.
type cachedDir struct {
	tree    gitstore.Hash
	entries uint32 // entries of its tree (files and non-empty subdirectories)
	// files are sorted by name; only files trusted by their stat data. A parsed cache keeps
	// them encoded in raw, and finds a name by binary search over the records' offsets
	// (decoded when the walk first reaches the directory, see fileOffsets): memory for four
	// bytes a file, not a decoded record, and nothing decoded for the directories the walk
	// does not ask about.
	files   []cachedFile
	raw     string
	offs    []uint32 // where each record of raw starts; nil until decoded, or when raw is damaged
	rawOnce sync.Once
	// listing is the directory's entries as encodeListing wrote them, valid while the
	// directory's own stat data are dirStat (see listing.go); "" when none was kept.
	listing string
	dirStat fileStat
}

type cachedFile struct {
	name string
	stat fileStat
	mode uint32 // git mode recorded in the tree
	hash gitstore.Hash
}

const cacheMagic = "GLSC\x00\x00\x00\x06"

func newStatCache() *statCache {
	return &statCache{dirs: map[string]*cachedDir{}}
}

// file finds name among the directory's cached files, and returns its position among them
// (for record).
func (d *cachedDir) file(name string) (cachedFile, uint32, bool) {
	if d == nil {
		return cachedFile{}, 0, false
	}
	if d.raw == "" {
		files := d.files
		i := sort.Search(len(files), func(i int) bool { return files[i].name >= name })
		if i < len(files) && files[i].name == name {
			return files[i], uint32(i), true
		}
		return cachedFile{}, 0, false
	}
	offs := d.fileOffsets()
	i := sort.Search(len(offs), func(i int) bool { return d.recordName(offs[i]) >= name })
	if i < len(offs) && d.recordName(offs[i]) == name {
		return d.record(uint32(i)), uint32(i), true
	}
	return cachedFile{}, 0, false
}

// record decodes the file at position i, as file returned it.
func (d *cachedDir) record(i uint32) cachedFile {
	if d.raw == "" {
		return d.files[i]
	}
	dec := decoder{all: d.raw, buf: unsafeBytes(d.raw)[d.fileOffsets()[i]:]}
	return dec.file()
}

// fileOffsets returns where each file record of raw starts, finding them on first use.
func (d *cachedDir) fileOffsets() []uint32 {
	d.rawOnce.Do(func() { d.offs = recordOffsets(d.raw) })
	return d.offs
}

// strU32 decodes the big-endian integer s starts with (at least four bytes).
func strU32(s string) uint32 {
	_ = s[3]
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

// knownTree reports whether tree h was part of the last snapshot (so it exists).
func (c *statCache) knownTree(h gitstore.Hash) bool {
	if c.trees == nil {
		c.trees = make(map[gitstore.Hash]struct{}, len(c.dirs))
		for _, d := range c.dirs {
			c.trees[d.tree] = struct{}{}
		}
	}
	_, ok := c.trees[h]
	return ok
}

// loadStatCache reads the cache at path; any problem yields an empty cache.
func loadStatCache(path string) *statCache {
	data, err := os.ReadFile(path)
	if err != nil {
		return newStatCache()
	}
	c, err := parseStatCache(data)
	if err != nil {
		return newStatCache()
	}
	if fi, err := os.Stat(path); err == nil {
		c.written = fi.ModTime()
	}
	return c
}

// fresh reports whether a cached entry may be trusted for a file with stat st: equal stat
// data, and the file last modified before the cache was written (git's racy-clean rule).
func (c *statCache) fresh(e cachedFile, st *fileStat) bool {
	if !sameStat(&e.stat, st) {
		return false
	}
	return time.Unix(st.mtimeSec, st.mtimeNsec).Before(c.written)
}

var errCacheCorrupt = errors.New("snapshot cache corrupt")

// castagnoli is the CRC used to detect a damaged cache file (hardware-accelerated; the cache
// is local and written by rename, so this guards against torn or stray bytes, not attacks).
// Built on first use: making the table costs a quarter millisecond at start-up otherwise,
// paid by every command, snapshot or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// Format: magic, root tree, directory count, then per directory its path, tree, entry count,
// its files as one length-prefixed run (file count, then per file a record: see
// appendFileRecord), its listing (possibly empty) and, if there is one, the directory's
// size, mtime, ctime, inode and device; then a CRC-32C of everything before it. Integers
// outside the records are big-endian and fixed-width.

// parseStatCache decodes the cache. Names are substrings of data, which must not change.
func parseStatCache(data []byte) (*statCache, error) {
	if len(data) < len(cacheMagic)+4 || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errCacheCorrupt
	}
	body, sum := data[:len(data)-4], data[len(data)-4:]
	if crc32.Checksum(body, castagnoli()) != binary.BigEndian.Uint32(sum) {
		return nil, errCacheCorrupt
	}
	d := decoder{all: unsafe.String(&body[0], len(body)), buf: body[len(cacheMagic):]}
	c := newStatCache()
	copy(c.root[:], d.bytes(20))
	nd := d.count()
	for i := 0; i < nd && d.err == nil; i++ {
		path := d.str()
		cd := &cachedDir{}
		copy(cd.tree[:], d.bytes(20))
		cd.entries = d.u32()
		cd.raw = d.str()
		if cd.listing = d.str(); cd.listing != "" {
			cd.dirStat = d.dirStat()
		}
		c.dirs[path] = cd
	}
	if d.err != nil || len(d.buf) != 0 {
		return nil, errCacheCorrupt
	}
	return c, nil
}

type decoder struct {
	all string // the whole body, to slice names from without copying
	buf []byte // what is left to decode (a suffix of all)
	err error
}

func (d *decoder) dirStat() fileStat {
	st := fileStat{mode: dirStatMode, size: int64(d.u64())}
	st.mtimeSec, st.mtimeNsec = int64(d.u64()), int64(d.u64())
	st.ctimeSec, st.ctimeNsec = int64(d.u64()), int64(d.u64())
	st.ino, st.dev = d.u64(), d.u64()
	return st
}

// unixModeFromGit gives the type bits sameStat compares for a recorded git mode.
func unixModeFromGit(m uint32) os.FileMode {
	if m == gitstore.ModeSymlink {
		return os.ModeSymlink
	}
	return 0
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.buf) {
		d.err = errCacheCorrupt
		return nil
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b
}

// str decodes a length-prefixed string as a substring of the body.
func (d *decoder) str() string {
	n := int(d.u32())
	off := len(d.all) - len(d.buf)
	if d.bytes(n) == nil && n != 0 {
		return ""
	}
	return d.all[off : off+n]
}

// count decodes a length that cannot exceed the bytes left (each item takes at least one).
func (d *decoder) count() int {
	n := d.u32()
	if uint64(n) > uint64(len(d.buf)) {
		d.err = errCacheCorrupt
		return 0
	}
	return int(n)
}

func (d *decoder) u32() uint32 {
	b := d.bytes(4)
	if d.err != nil {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func (d *decoder) u64() uint64 {
	b := d.bytes(8)
	if d.err != nil {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

// encode serializes the cache into one buffer of the exact size (tests and benchmarks; the
// cache file is written by encodeTo, piece by piece).
func (c *statCache) encode() []byte {
	var b bytes.Buffer
	b.Grow(c.encodedSize())
	c.encodeTo(&b) // a bytes.Buffer does not fail
	return b.Bytes()
}

// encodeTo writes the serialized cache to w, one directory at a time through a small scratch
// buffer, with the checksum computed as it goes: with garbage collection off, a large
// worktree's cache (a hundred bytes a file) built whole in memory stayed there.
func (c *statCache) encodeTo(w io.Writer) error {
	crc := crc32.New(castagnoli())
	out := io.MultiWriter(w, crc)
	buf := make([]byte, 0, 4<<10)
	buf = append(buf, cacheMagic...)
	buf = append(buf, c.root[:]...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(c.dirs)))
	for path, cd := range c.dirs {
		buf = appendStr(buf, path)
		buf = append(buf, cd.tree[:]...)
		buf = binary.BigEndian.AppendUint32(buf, cd.entries)
		if cd.raw != "" { // as parsed: the run is already encoded
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(cd.raw)))
			if _, err := out.Write(buf); err != nil {
				return err
			}
			// as bytes: io.MultiWriter's WriteString copies a string for a writer (the CRC)
			// without a WriteString of its own, and the copies would stay
			if _, err := out.Write(unsafeBytes(cd.raw)); err != nil {
				return err
			}
			buf = appendListing(buf[:0], cd)
			continue
		}
		files := cd.files
		run := 4
		for i := range files {
			run += fileRecordLen(&files[i])
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(run)) // the run's length
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(files)))
		for i := range files {
			buf = appendFileRecord(buf, &files[i])
			if len(buf) > 3<<10 {
				if _, err := out.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		buf = appendListing(buf, cd)
	}
	if _, err := out.Write(buf); err != nil {
		return err
	}
	_, err := w.Write(binary.BigEndian.AppendUint32(nil, crc.Sum32()))
	return err
}

// encodedSize is the length of encode's result.
func (c *statCache) encodedSize() int {
	n := len(cacheMagic) + len(c.root) + 4
	for path, cd := range c.dirs {
		n += 4 + len(path) + len(cd.tree) + 4
		if cd.raw != "" {
			n += 4 + len(cd.raw)
		} else {
			n += 8
			for i := range cd.files {
				n += fileRecordLen(&cd.files[i])
			}
		}
		n += 4 + len(cd.listing)
		if cd.listing != "" {
			n += 7 * 8
		}
	}
	return n + 4 // the checksum
}

// appendListing encodes a directory's listing and, with one, its stat data.
func appendListing(buf []byte, cd *cachedDir) []byte {
	buf = appendStr(buf, cd.listing)
	if st := cd.dirStat; cd.listing != "" {
		for _, v := range []int64{st.size, st.mtimeSec, st.mtimeNsec, st.ctimeSec, st.ctimeNsec, int64(st.ino), int64(st.dev)} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(v))
		}
	}
	return buf
}

func appendStr(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

// save writes the cache atomically.
func (c *statCache) save(path string) error {
	if err := gitstore.WriteFileAtomicStream(path, c.encodeTo); err != nil {
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	return nil
}

// unsafeBytes is s's bytes, to be read only.
func unsafeBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
