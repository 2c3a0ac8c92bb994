package snapshots

import (
	"io/fs"
	"strings"
)

// A directory's listing is kept in the stat cache with the directory's own stat data, and
// reused while the directory keeps them: an entry can only be added, removed or renamed by
// changing its directory's mtime and ctime. A clean snapshot then lstats each directory
// instead of opening and reading it, which is most of the kernel's work on a large tree.
// Like git's untracked cache, this needs file systems that keep directory times honestly:
// it is used on local Linux file systems only (listingDevice), and only for directories
// last changed well before the snapshot that listed them (settled).

// encodeListing serializes a directory's entries: a mark (so an empty directory's listing is
// not the empty string, which means none), then per entry its kind byte, its name and a NUL
// (names hold neither NUL nor '/'). Kinds must be known: no kindUnknown.
func encodeListing(ents []dirent) string {
	n := len(listingMark)
	for _, e := range ents {
		n += len(e.name) + 2
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(listingMark)
	for _, e := range ents {
		b.WriteByte(byte(e.kind))
		b.WriteString(e.name)
		b.WriteByte(0)
	}
	return b.String()
}

// decodeListing is encodeListing's inverse, appending to ents; names are substrings of s. ok
// is false for anything encodeListing cannot produce, so a damaged cache is never trusted.
func decodeListing(s string, ents []dirent) ([]dirent, bool) {
	s, ok := strings.CutPrefix(s, listingMark)
	if !ok {
		return nil, false
	}
	for len(s) > 0 {
		kind := entryKind(s[0])
		end := strings.IndexByte(s, 0)
		if kind == kindUnknown || kind > kindOther || end < 2 {
			return nil, false
		}
		name := s[1:end]
		if name == "." || name == ".." || strings.IndexByte(name, '/') >= 0 {
			return nil, false
		}
		ents = append(ents, dirent{name: name, kind: kind})
		s = s[end+1:]
	}
	return ents, true
}

const listingMark = "L"

// dirStatMode is the type a cached directory's stat data is compared with.
const dirStatMode = fs.ModeDir
