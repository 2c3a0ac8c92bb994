package snapshots

// dirent is one directory entry as the directory listing reports it.
type dirent struct {
	name string
	kind entryKind
}

// entryKind is what a listing says an entry is; kindUnknown needs an lstat to tell.
type entryKind uint8

const (
	kindUnknown entryKind = iota
	kindDir
	kindFile
	kindSymlink
	kindOther
)
