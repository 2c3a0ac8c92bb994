package gitstore

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"
)

// IndexEntry is one entry of git's index (the staging area), as stored on disk.
type IndexEntry struct {
	// Path is the entry's path relative to the worktree top, '/'-separated, raw bytes as git
	// stores them (not necessarily UTF-8).
	Path string
	// Mode is the file mode: 0100644, 0100755, 0120000 (symlink) or 0160000 (gitlink).
	Mode uint32
	// Hash is the blob (or, for a gitlink, commit) name.
	Hash Hash
	// Size is the file size truncated to 32 bits, from the last stat.
	Size uint32
	// Stat data cached from the last time git looked at the file (truncated to 32 bits).
	MtimeSec, MtimeNsec, CtimeSec, CtimeNsec uint32
	Dev, Ino, UID, GID                       uint32
	// Stage is 0 for a normal entry, 1 (base), 2 (ours) or 3 (theirs) during a conflict.
	Stage uint8
	// SkipWorktree is set for paths outside a sparse checkout (`git update-index --skip-worktree`).
	SkipWorktree bool
	// IntentToAdd is set by `git add -N`; Hash is then the empty blob.
	IntentToAdd bool
	// AssumeValid is set by `git update-index --assume-unchanged`.
	AssumeValid bool
}

// Index is a parsed index file. Read its entries through Len, Path and Entry: an index read
// by ReadIndex keeps them encoded (see compact), and Entries is then nil.
type Index struct {
	// Version is the file format version (2, 3 or 4); 0 when there is no index file.
	Version uint32
	// Entries are in file order: sorted by path bytes, then by stage. Nil for a compact index.
	Entries []IndexEntry
	// ModTime is the index file's modification time, to detect "racily clean" entries: an entry
	// whose mtime is not older than ModTime may have changed without its stat data showing it.
	ModTime time.Time
	// compact is set for an index kept as read: body is the file (less its checksum) and offs
	// where each entry starts in it. A large worktree's index then costs its file's size and
	// four bytes an entry, not a decoded entry each (80 bytes, plus the walk's copies).
	compact bool
	body    []byte
	offs    []uint32
}

// Len is the number of entries.
func (x *Index) Len() int {
	if x.compact {
		return len(x.offs)
	}
	return len(x.Entries)
}

// Path is entry i's path, decoded without the rest of the entry (a substring of the file for
// a compact index).
func (x *Index) Path(i int) string {
	if !x.compact {
		return x.Entries[i].Path
	}
	p := x.body[x.offs[i]:]
	head, nameLen := entryNameSpan(p)
	if nameLen == 0 {
		return ""
	}
	return unsafe.String(&p[head], nameLen)
}

// Entry decodes entry i.
func (x *Index) Entry(i int) IndexEntry {
	if !x.compact {
		return x.Entries[i]
	}
	var e IndexEntry
	p := x.body[x.offs[i]:]
	decodeEntryHead(p, &e)
	e.Path = x.Path(i)
	return e
}

// entryNameSpan returns where the path of the version 2 or 3 entry p starts and its length;
// p has been checked by parseIndexBody.
func entryNameSpan(p []byte) (head, nameLen int) {
	flags := uint16(p[60])<<8 | uint16(p[61])
	head, nameLen = indexEntryHead, int(flags&indexNameMask)
	if flags&indexFlagExtended != 0 {
		head += 2
	}
	if nameLen == indexNameMask {
		nameLen = bytes.IndexByte(p[head:], 0)
	}
	return head, nameLen
}

// decodeEntryHead decodes the fixed part of entry p (at least indexEntryHead bytes, plus the
// extended flags when it has them, as parseIndexBody checked) into e.
func decodeEntryHead(p []byte, e *IndexEntry) {
	e.CtimeSec, e.CtimeNsec = be32(p[0:]), be32(p[4:])
	e.MtimeSec, e.MtimeNsec = be32(p[8:]), be32(p[12:])
	e.Dev, e.Ino = be32(p[16:]), be32(p[20:])
	e.Mode, e.UID, e.GID, e.Size = be32(p[24:]), be32(p[28:]), be32(p[32:]), be32(p[36:])
	copy(e.Hash[:], p[40:60])
	flags := uint16(p[60])<<8 | uint16(p[61])
	e.AssumeValid = flags&indexFlagAssumeValid != 0
	e.Stage = uint8(flags>>12) & 3
	if flags&indexFlagExtended != 0 {
		ext := uint16(p[62])<<8 | uint16(p[63])
		e.SkipWorktree = ext&indexExtSkipWorktree != 0
		e.IntentToAdd = ext&indexExtIntentToAdd != 0
	}
}

// Index file layout (git's Documentation/gitformat-index.txt).
const (
	indexHeaderLen = 12 // "DIRC", version, entry count
	indexEntryHead = 62 // stat data, mode, ids, size, hash, flags
	indexMinEntry  = 64 // the smallest possible entry in every version
	indexNameMask  = 0x0fff

	indexFlagAssumeValid = 0x8000
	indexFlagExtended    = 0x4000
	indexExtSkipWorktree = 0x4000
	indexExtIntentToAdd  = 0x2000
)

// ReadIndex reads the worktree's index: $GIT_INDEX_FILE if set (relative to the current
// directory), else GitDir/index. A missing index file gives an empty Index and no error.
// Like git outside fsck, it does not verify the trailing checksum (hashing a large index
// costs as much as parsing it); the structure is still checked, so a torn file is an error.
func (r *Repo) ReadIndex() (*Index, error) {
	path := filepath.Join(r.GitDir, "index")
	if env := os.Getenv("GIT_INDEX_FILE"); env != "" {
		abs, err := filepath.Abs(env)
		if err != nil {
			return nil, fmt.Errorf("read index %q (GIT_INDEX_FILE): %w", env, err)
		}
		path = abs
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Index{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	idx, err := parseIndex(data, false, true)
	if err != nil {
		return nil, fmt.Errorf("read index %s: %w", path, err)
	}
	idx.ModTime = fi.ModTime()
	return idx, nil
}

// ParseIndex parses the bytes of an index file of version 2, 3 or 4. Optional extensions
// (cache tree, resolve undo, untracked cache, fsmonitor, ...) are skipped; a required one
// (split index "link", sparse index "sdir", or any unknown) is an error saying how to turn it
// off. The trailing SHA-1 checksum is verified (an all-zero one, written with
// index.skipHash, is accepted). All paths share one backing string. data is not retained.
func ParseIndex(data []byte) (*Index, error) {
	return parseIndex(data, true, false)
}

// parseIndex is ParseIndex, verifying the checksum only if verify is set. With share, a
// version 2 or 3 index is kept compact: its entries stay encoded in data (which must then
// never change) and are decoded on demand, so a large index costs its file's size once.
func parseIndex(data []byte, verify, share bool) (*Index, error) {
	if len(data) < indexHeaderLen+sha1.Size {
		return nil, fmt.Errorf("index is truncated (%d bytes); rebuild it with `rm .git/index && git reset`", len(data))
	}
	if string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("not an index file (signature %q, want \"DIRC\")", data[:4])
	}
	version := be32(data[4:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d is not supported (2, 3 and 4 are); convert it with `git update-index --index-version 4`", version)
	}
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if !verify {
		return parseIndexBody(body, version, share)
	}
	checksumOK := func() bool { return isZeroBytes(sum) || sha1.Sum(body) == [sha1.Size]byte(sum) }
	if len(body) < concurrentChecksumSize {
		if !checksumOK() {
			return nil, errChecksum
		}
		return parseIndexBody(body, version, share)
	}
	// Hashing takes about as long as parsing: do both at once. A bad checksum wins over any
	// parse error, which it would explain.
	ok := make(chan bool, 1)
	go func() { ok <- checksumOK() }()
	idx, err := parseIndexBody(body, version, share)
	if !<-ok {
		return nil, errChecksum
	}
	return idx, err
}

// concurrentChecksumSize is the index size from which ParseIndex verifies the checksum in
// parallel with parsing.
const concurrentChecksumSize = 256 << 10

var errChecksum = errors.New("index checksum mismatch: the file is corrupt; rebuild it with `rm .git/index && git reset` (staged changes are lost)")

// parseIndexBody parses the entries and extensions of an index whose header (signature and
// version) has been checked; body excludes the trailing checksum. With share (ignored for
// version 4, whose paths are prefix-compressed), the index is compact (see Index).
func parseIndexBody(body []byte, version uint32, share bool) (*Index, error) {
	share = share && version != 4
	count := be32(body[8:])
	if uint64(count) > uint64(len(body)-indexHeaderLen)/indexMinEntry {
		return nil, fmt.Errorf("index claims %d entries but holds only %d bytes: the file is corrupt", count, len(body)+sha1.Size)
	}

	idx := &Index{Version: version}
	var ends []uint32 // where each entry's path ends in names
	var names strings.Builder
	switch {
	case share:
		idx.compact, idx.body, idx.offs = true, body, make([]uint32, count)
		if uint64(len(body)) > math.MaxUint32 {
			return nil, fmt.Errorf("index of %d bytes is too large", len(body))
		}
	case version == 4:
		idx.Entries, ends = make([]IndexEntry, count), make([]uint32, count)
		names.Grow(len(body))
	default:
		idx.Entries, ends = make([]IndexEntry, count), make([]uint32, count)
		names.Grow(len(body) - indexHeaderLen - int(count)*indexEntryHead)
	}
	// A version 4 index can describe far more path bytes than it holds; refuse absurd expansion
	// (real indexes stay well under 64x) rather than exhaust memory on a corrupt or hostile file.
	// Path offsets are kept in 32 bits.
	maxNames := min(64*int64(len(body))+1<<20, math.MaxUint32) // int64: int may be 32 bits
	if int64(len(body)) > maxNames {
		return nil, fmt.Errorf("index of %d bytes is too large", len(body))
	}
	off := indexHeaderLen
	prevStart := 0
	for i := 0; i < int(count); i++ {
		p := body[off:]
		if len(p) < indexEntryHead {
			return nil, indexCorrupt(i, "entry is truncated")
		}
		flags := uint16(p[60])<<8 | uint16(p[61])
		nameLen := int(flags & indexNameMask)
		head := indexEntryHead
		if flags&indexFlagExtended != 0 {
			if len(p) < indexEntryHead+2 {
				return nil, indexCorrupt(i, "entry is truncated")
			}
			if ext := uint16(p[62])<<8 | uint16(p[63]); ext&^(indexExtSkipWorktree|indexExtIntentToAdd) != 0 {
				return nil, indexCorrupt(i, fmt.Sprintf("unknown entry flags 0x%04x (written by a newer git?)", ext))
			}
			head += 2
		}
		if share {
			idx.offs[i] = uint32(off) // decoded on demand (Entry)
		} else {
			decodeEntryHead(p, &idx.Entries[i])
		}
		name := p[head:]
		if version == 4 {
			// The path is the previous path less its last `strip` bytes, plus a NUL-terminated
			// suffix. The first entry has no previous path.
			strip, n := decodeIndexVarint(name)
			if n == 0 {
				return nil, indexCorrupt(i, "bad path prefix length")
			}
			name = name[n:]
			nul := bytes.IndexByte(name, 0)
			if nul < 0 {
				return nil, indexCorrupt(i, "path is not terminated")
			}
			start := names.Len()
			if i > 0 {
				prevLen := uint64(start - prevStart)
				if strip > prevLen {
					return nil, indexCorrupt(i, "path strips more than the previous path")
				}
				names.WriteString(names.String()[prevStart : start-int(strip)])
			}
			names.Write(name[:nul])
			if int64(names.Len()) > maxNames {
				return nil, indexCorrupt(i, "prefix-compressed paths expand implausibly")
			}
			if full := names.Len() - start; full != nameLen && (nameLen != indexNameMask || full < indexNameMask) {
				return nil, indexCorrupt(i, "path length does not match its flags")
			}
			prevStart = start
			off += head + n + nul + 1
		} else {
			if nameLen == indexNameMask {
				if nameLen = bytes.IndexByte(name, 0); nameLen < indexNameMask {
					return nil, indexCorrupt(i, "long path is not terminated")
				}
			}
			size := (head + nameLen + 8) &^ 7 // NUL-padded to a multiple of 8
			if size > len(p) {
				return nil, indexCorrupt(i, "entry is truncated")
			}
			off += size
			if share {
				continue
			}
			names.Write(name[:nameLen])
		}
		ends[i] = uint32(names.Len())
	}
	if !share {
		all := names.String()
		start := uint32(0)
		for i := range idx.Entries {
			idx.Entries[i].Path = all[start:ends[i]]
			start = ends[i]
		}
	}

	// Extensions: 4-byte signature, 4-byte size, data. Upper-case signatures are optional.
	for off+8 <= len(body) {
		sig := body[off : off+4]
		size := uint64(be32(body[off+4:]))
		if uint64(off)+8+size > uint64(len(body)) {
			return nil, fmt.Errorf("index extension %q is truncated: the file is corrupt; rebuild it with `rm .git/index && git reset`", sig)
		}
		if sig[0] < 'A' || sig[0] > 'Z' {
			return nil, requiredExtensionError(string(sig))
		}
		off += 8 + int(size)
	}
	return idx, nil
}

// requiredExtensionError explains a required index extension git-loop cannot read.
func requiredExtensionError(sig string) error {
	switch sig {
	case "link":
		return errors.New(`index uses the split-index format (required extension "link"), which git-loop cannot read; run ` +
			"`git update-index --no-split-index` (and `git config core.splitIndex false` to keep it off)")
	case "sdir":
		return errors.New(`index is a sparse index (required extension "sdir"), which git-loop cannot read; run ` +
			"`git sparse-checkout disable`, or keep the sparse checkout with a full index: `git sparse-checkout init --no-sparse-index`")
	}
	return fmt.Errorf("index has required extension %q, which git-loop does not understand (written by a newer git?); "+
		"rewrite the index without it, or upgrade git-loop", sig)
}

func indexCorrupt(i int, why string) error {
	return fmt.Errorf("index entry %d: %s: the file is corrupt; rebuild it with `rm .git/index && git reset`", i, why)
}

// decodeIndexVarint decodes git's offset varint (varint.c): 7 bits a byte, most significant
// first, with each continuation adding one. It returns the bytes used, 0 on error.
func decodeIndexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		val++
		if val == 0 || val>>57 != 0 || n >= len(b) {
			return 0, 0
		}
		c = b[n]
		n++
		val = val<<7 + uint64(c&127)
	}
	return val, n
}

func be32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func isZeroBytes(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
