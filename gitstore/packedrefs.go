package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// packed-refs holds refs that `git pack-refs` (or gc, or clone) moved out of loose files:
//
//	# pack-refs with: peeled fully-peeled sorted
//	<40 hex> SP <refname> LF
//	^<40 hex> LF            (the peeled value of the annotated tag above)
//
// A loose ref of the same name overrides the packed one. The file is replaced atomically
// through packed-refs.lock, so a read sees either the old or the new version.

func (r *Repo) packedRefsPath() string { return filepath.Join(r.CommonDir, "packed-refs") }

// readPackedRefs returns the packed-refs file, or nil when there is none.
func (r *Repo) readPackedRefs() ([]byte, error) {
	data, err := os.ReadFile(r.packedRefsPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed refs: %w", err)
	}
	return data, nil
}

// packedLine finds the line "<hex> <name>\n" in packed-refs and returns its start and end
// (after the newline, or the end of data). A name cannot contain a space or newline, so " name\n"
// can only occur at a line's name field; the 40 hex digits before it are checked.
func packedLine(data []byte, name string) (start, end int, h Hash, ok bool, err error) {
	pat := make([]byte, 0, len(name)+2)
	pat = append(append(append(pat, ' '), name...), '\n')
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], pat)
		e := 0
		if i < 0 {
			// the last line may lack its newline
			if !bytes.HasSuffix(data[off:], pat[:len(pat)-1]) {
				return 0, 0, ZeroHash, false, nil
			}
			i = len(data) - off - (len(pat) - 1)
			e = len(data)
		} else {
			e = off + i + len(pat)
		}
		i += off
		if i >= 40 && (i == 40 || data[i-41] == '\n') {
			h, hexOK := parseHex40(data[i-40 : i])
			if !hexOK {
				return 0, 0, ZeroHash, false, fmt.Errorf("bad object name on the line of %s", name)
			}
			return i - 40, e, h, true, nil
		}
		if e == len(data) {
			return 0, 0, ZeroHash, false, nil
		}
		off = i + 1
	}
	return 0, 0, ZeroHash, false, nil
}

// packedLookup returns a ref's value from packed-refs data.
func packedLookup(data []byte, name string) (Hash, bool, error) {
	if len(data) == 0 {
		return ZeroHash, false, nil
	}
	_, _, h, ok, err := packedLine(data, name)
	return h, ok, err
}

// packedChild returns a packed ref named name+"/...", or "".
func packedChild(data []byte, name string) string {
	pat := " " + name + "/"
	i := bytes.Index(data, []byte(pat))
	if i < 0 {
		return ""
	}
	rest := data[i+1:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return string(rest)
}

// listPacked parses packed-refs data and returns the refs starting with prefix, sorted.
func listPacked(data []byte, prefix string) ([]Ref, error) {
	var out []Ref
	sorted := true
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 || line[0] == '#' || line[0] == '^' {
			continue
		}
		h, ok := parseHex40(line)
		if !ok || len(line) < 42 || line[40] != ' ' {
			return nil, fmt.Errorf("unexpected line %q", truncate(line, 80))
		}
		name := line[41:]
		if !bytes.HasPrefix(name, []byte(prefix)) || CheckRefName(string(name)) != nil {
			continue // git skips packed refs with bad names as broken
		}
		ref := Ref{Name: string(name), Hash: h}
		if n := len(out); n > 0 && out[n-1].Name >= ref.Name {
			sorted = false
		}
		out = append(out, ref)
	}
	if !sorted {
		slices.SortFunc(out, func(a, b Ref) int { return strings.Compare(a.Name, b.Name) })
	}
	return out, nil
}

// deletePackedRef removes a ref (and its peeled line) from packed-refs under packed-refs.lock,
// keeping every other byte, header included.
func (r *Repo) deletePackedRef(name string) error {
	path := r.packedRefsPath()
	lk, err := acquireLock(path, lockOptions{timeout: packedRefsLockTimeout, records: r.lockRecordsDir()})
	if err != nil {
		var held *errLockHeld
		if errors.As(err, &held) {
			return fmt.Errorf("%w: %v", ErrRefLocked, held)
		}
		return err
	}
	data, err := r.readPackedRefs()
	if err != nil {
		lk.rollback()
		return err
	}
	start, end, _, ok, err := packedLine(data, name)
	if err != nil || !ok {
		lk.rollback()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if end < len(data) && data[end] == '^' {
		if j := bytes.IndexByte(data[end:], '\n'); j >= 0 {
			end += j + 1
		} else {
			end = len(data)
		}
	}
	out := make([]byte, 0, len(data)-(end-start))
	out = append(append(out, data[:start]...), data[end:]...)
	if err := lk.write(out, true); err != nil {
		lk.rollback()
		return err
	}
	return lk.commit()
}
