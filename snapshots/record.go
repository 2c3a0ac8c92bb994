package snapshots

import (
	"encoding/binary"

	"github.com/git-loop/git-loop/gitstore"
)

// A file record of the stat cache: the name (a uvarint length, then its bytes), the git mode
// (one byte, an index into recordModes, or recordModeOther followed by the mode as a
// uvarint), the object name (20 bytes), then as varints the size, the mtime's seconds
// (zigzag) and nanoseconds, the ctime's seconds and nanoseconds each less the mtime's
// (zigzag: for most files the two are equal or close), and the inode. A large worktree's
// cache is read whole into memory at every snapshot, so its size is memory: this takes
// about 40 bytes a file plus the name, where fixed-width fields took 76.

// recordModes are the git modes a record names by one byte: its index.
var recordModes = [...]uint32{gitstore.ModeFile, gitstore.ModeExec, gitstore.ModeSymlink}

// recordModeOther introduces any other mode, written as a uvarint.
const recordModeOther = 0xff

// appendFileRecord appends f's record to buf.
func appendFileRecord(buf []byte, f *cachedFile) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(f.name)))
	buf = append(buf, f.name...)
	if code, ok := recordModeCode(f.mode); ok {
		buf = append(buf, code)
	} else {
		buf = binary.AppendUvarint(append(buf, recordModeOther), uint64(f.mode))
	}
	buf = append(buf, f.hash[:]...)
	st := &f.stat
	buf = binary.AppendUvarint(buf, uint64(st.size))
	buf = binary.AppendVarint(buf, st.mtimeSec)
	buf = binary.AppendUvarint(buf, uint64(st.mtimeNsec))
	buf = binary.AppendVarint(buf, st.ctimeSec-st.mtimeSec)
	buf = binary.AppendVarint(buf, st.ctimeNsec-st.mtimeNsec)
	return binary.AppendUvarint(buf, st.ino)
}

// fileRecordLen is the length of f's record.
func fileRecordLen(f *cachedFile) int {
	st := &f.stat
	n := uvarintLen(uint64(len(f.name))) + len(f.name) + 1 + len(f.hash)
	if _, ok := recordModeCode(f.mode); !ok {
		n += uvarintLen(uint64(f.mode))
	}
	return n + uvarintLen(uint64(st.size)) + varintLen(st.mtimeSec) + uvarintLen(uint64(st.mtimeNsec)) +
		varintLen(st.ctimeSec-st.mtimeSec) + varintLen(st.ctimeNsec-st.mtimeNsec) + uvarintLen(st.ino)
}

func recordModeCode(mode uint32) (byte, bool) {
	for i, m := range recordModes {
		if m == mode {
			return byte(i), true
		}
	}
	return 0, false
}

func uvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

func varintLen(v int64) int {
	return uvarintLen(uint64(v<<1) ^ uint64(v>>63)) // zigzag, as binary.AppendVarint
}

// file decodes a file record (see appendFileRecord).
func (d *decoder) file() cachedFile {
	f := cachedFile{name: d.uvarintStr()}
	switch code := d.byte(); {
	case int(code) < len(recordModes):
		f.mode = recordModes[code]
	case code == recordModeOther:
		f.mode = uint32(d.uvarint())
	default:
		d.err = errCacheCorrupt
	}
	copy(f.hash[:], d.bytes(20))
	f.stat.mode = unixModeFromGit(f.mode)
	f.stat.size = int64(d.uvarint())
	f.stat.mtimeSec, f.stat.mtimeNsec = d.varint(), int64(d.uvarint())
	f.stat.ctimeSec, f.stat.ctimeNsec = f.stat.mtimeSec+d.varint(), f.stat.mtimeNsec+d.varint()
	f.stat.ino = d.uvarint()
	return f
}

// recordName is the name of the file record at off in raw (checked by fileOffsets).
func (d *cachedDir) recordName(off uint32) string {
	n, k := binary.Uvarint(unsafeBytes(d.raw[off:]))
	start := int(off) + k
	return d.raw[start : start+int(n)]
}

// recordOffsets finds the file records of a directory's run: its count (four bytes), then
// the records. A damaged run, which the file's checksum makes unlikely, gives none: nothing
// is trusted.
func recordOffsets(raw string) []uint32 {
	if len(raw) < 4 {
		return nil
	}
	n := strU32(raw)
	if uint64(n) > uint64(len(raw)) {
		return nil
	}
	offs := make([]uint32, 0, n)
	d := decoder{all: raw, buf: unsafeBytes(raw)[4:]}
	for j := uint32(0); j < n && d.err == nil; j++ {
		offs = append(offs, uint32(len(raw)-len(d.buf)))
		d.file()
	}
	if d.err != nil || len(d.buf) != 0 {
		return nil
	}
	return offs
}

func (d *decoder) byte() byte {
	if b := d.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = errCacheCorrupt
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// varint decodes a zigzag varint, as binary.AppendVarint writes it.
func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// uvarintStr decodes a uvarint-length-prefixed string as a substring of the body.
func (d *decoder) uvarintStr() string {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.err = errCacheCorrupt
		return ""
	}
	off := len(d.all) - len(d.buf)
	d.buf = d.buf[n:]
	return d.all[off : off+int(n)]
}
