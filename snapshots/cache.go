package snapshots

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// statCache remembers, per path, the stat data and object name of the file's last hashing,
// and which tree objects are known to exist. It is a rebuildable cache: a missing or corrupt
// file only makes the next snapshot slower.
type statCache struct {
	files   map[string]cachedFile
	trees   map[gitstore.Hash]struct{}
	root    gitstore.Hash // the last snapshot's tree; if it was pruned, nothing here is trusted
	written time.Time     // the cache file's mtime: entries modified at or after it are racy
}

type cachedFile struct {
	stat fileStat
	mode uint32 // git mode recorded in the tree
	hash gitstore.Hash
}

const cacheMagic = "GLSC\x00\x00\x00\x01"

func newStatCache() *statCache {
	return &statCache{files: map[string]cachedFile{}, trees: map[gitstore.Hash]struct{}{}}
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

// parseStatCache decodes the cache format: magic, entry count, entries, tree count, tree
// names, and a SHA-1 of everything before it.
func parseStatCache(data []byte) (*statCache, error) {
	if len(data) < len(cacheMagic)+20 || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errCacheCorrupt
	}
	body, sum := data[:len(data)-20], data[len(data)-20:]
	if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
		return nil, errCacheCorrupt
	}
	d := decoder{buf: body[len(cacheMagic):]}
	n := d.u32()
	c := newStatCache()
	for i := uint32(0); i < n && d.err == nil; i++ {
		path := d.bytes(int(d.u32()))
		var e cachedFile
		e.mode = d.u32()
		copy(e.hash[:], d.bytes(20))
		e.stat.mode = unixModeFromGit(e.mode)
		e.stat.size = int64(d.u64())
		e.stat.mtimeSec, e.stat.mtimeNsec = int64(d.u64()), int64(d.u64())
		e.stat.ctimeSec, e.stat.ctimeNsec = int64(d.u64()), int64(d.u64())
		e.stat.ino = d.u64()
		c.files[string(path)] = e
	}
	copy(c.root[:], d.bytes(20))
	nt := d.u32()
	for i := uint32(0); i < nt && d.err == nil; i++ {
		var h gitstore.Hash
		copy(h[:], d.bytes(20))
		c.trees[h] = struct{}{}
	}
	if d.err != nil || len(d.buf) != 0 {
		return nil, errCacheCorrupt
	}
	return c, nil
}

// unixModeFromGit gives the type bits sameStat compares for a recorded git mode.
func unixModeFromGit(m uint32) os.FileMode {
	if m == gitstore.ModeSymlink {
		return os.ModeSymlink
	}
	return 0
}

type decoder struct {
	buf []byte
	err error
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

// encode serializes the cache.
func (c *statCache) encode() []byte {
	buf := make([]byte, 0, 64+len(c.files)*100+len(c.trees)*20)
	buf = append(buf, cacheMagic...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(c.files)))
	for path, e := range c.files {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(path)))
		buf = append(buf, path...)
		buf = binary.BigEndian.AppendUint32(buf, e.mode)
		buf = append(buf, e.hash[:]...)
		for _, v := range []int64{e.stat.size, e.stat.mtimeSec, e.stat.mtimeNsec, e.stat.ctimeSec, e.stat.ctimeNsec, int64(e.stat.ino)} {
			buf = binary.BigEndian.AppendUint64(buf, uint64(v))
		}
	}
	buf = append(buf, c.root[:]...)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(c.trees)))
	for h := range c.trees {
		buf = append(buf, h[:]...)
	}
	sum := sha1.Sum(buf)
	return append(buf, sum[:]...)
}

// save writes the cache atomically (temporary file, then rename).
func (c *statCache) save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".snapshot-cache-*")
	if err != nil {
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(c.encode()); err != nil {
		tmp.Close()
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save snapshot cache: %w", err)
	}
	return nil
}
