package loop

import (
	"bytes"
	"errors"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
)

// FileStat is one changed file of a diffstat.
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"`
}

// maxDiffBytes bounds the files a diffstat counts lines of; larger ones count as binary
// (git's own diff would be slow on them too, and a loop's rework is rarely there).
const maxDiffBytes = 4 << 20

// Diffstat counts the lines added and deleted in each path that differs between trees a and
// b (a may be zero: everything is added).
func (h *History) Diffstat(a, b gitstore.Hash) ([]FileStat, error) {
	paths, err := h.s.Repo.ChangedPaths(a, b)
	if err != nil {
		return nil, err
	}
	stats := make([]FileStat, 0, len(paths))
	for _, p := range paths {
		old, err := h.blobAt(a, p)
		if err != nil {
			return nil, err
		}
		cur, err := h.blobAt(b, p)
		if err != nil {
			return nil, err
		}
		stats = append(stats, countLines(p, old, cur))
	}
	return stats, nil
}

// blobAt is the content at path in tree (nil when absent or not a blob).
func (h *History) blobAt(tree gitstore.Hash, path string) ([]byte, error) {
	if tree.IsZero() {
		return nil, nil
	}
	e, err := h.s.Repo.LookupEntry(tree, path)
	if errors.Is(err, gitstore.ErrObjectNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e.Mode == gitstore.ModeGitlink {
		// A submodule or nested repository: its commit lives in its own repository. Count
		// it as git diff shows it, one line naming the commit.
		return []byte("Subproject commit " + e.Hash.String() + "\n"), nil
	}
	t, data, err := h.s.Repo.ReadObject(e.Hash)
	if err != nil {
		return nil, err
	}
	if t != gitstore.BlobObject {
		return nil, nil
	}
	return data, nil
}

// countLines diffs two versions of a file line by line.
func countLines(path string, old, cur []byte) FileStat {
	st := FileStat{Path: path}
	if isBinary(old) || isBinary(cur) {
		st.Binary = true
		return st
	}
	for _, d := range textutil.LineDiff(string(old), string(cur)) {
		n := strings.Count(d.Text, "\n")
		if !strings.HasSuffix(d.Text, "\n") && d.Text != "" {
			n++
		}
		switch d.Type {
		case diffmatchpatch.DiffInsert:
			st.Added += n
		case diffmatchpatch.DiffDelete:
			st.Deleted += n
		}
	}
	return st
}

func isBinary(b []byte) bool {
	if len(b) > maxDiffBytes {
		return true
	}
	head := b
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0
}
