package snapshots

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/git-loop/git-loop/gitstore"
)

// hashPending reads every queued file, names its blob and stores it if missing.
func (s *snapshotter) hashPending() error {
	if len(s.pending) == 0 {
		return nil
	}
	if s.filtered.Load() {
		return s.hashWithGit()
	}
	work := make(chan *fileEntry)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte // the worker's: contents are not kept once stored
			for f := range work {
				if err := s.hashFile(f, &buf); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, f := range s.pending {
		work <- f
	}
	close(work)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// hashFile reads one file or symlink, checks it did not change while read, and writes its
// blob. A regular file is read into *buf, grown as needed and kept for the next file: with
// garbage collection off, a buffer per file would keep every changed file's content in
// memory until exit.
func (s *snapshotter) hashFile(f *fileEntry, buf *[]byte) error {
	abs := filepath.Join(s.repo.WorkTree, filepath.FromSlash(f.path()))
	if f.stat.isRegular() && f.stat.size > streamAbove {
		return s.hashLargeFile(f, abs)
	}
	data, err := readContent(abs, f.stat, buf)
	if errors.Is(err, fs.ErrNotExist) {
		return errRetry // vanished between walk and read: walk again
	}
	if err != nil {
		return fmt.Errorf("snapshot: read %q: %w; fix its permissions or add it to .gitignore", f.path(), err)
	}
	after, err := lstat(abs)
	if err != nil || !sameStat(&after, f.stat) {
		return errRetry
	}
	h, err := s.repo.WriteObject(gitstore.BlobObject, data)
	if err != nil {
		return fmt.Errorf("snapshot: store %q: %w", f.path(), err)
	}
	f.hash = h
	return nil
}

// readContent is a symlink's target, or a regular file's content read into *buf (grown
// as needed, and kept grown).
func readContent(abs string, st *fileStat, buf *[]byte) ([]byte, error) {
	if st.isSymlink() {
		target, err := os.Readlink(abs)
		return []byte(target), err
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := slices.Grow((*buf)[:0], int(st.size)+512) // as os.ReadFile sizes it
	for {
		if len(b) == cap(b) { // the size at the walk is a hint: the file may have grown
			b = slices.Grow(b, 4096)
		}
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			*buf = b
			return b, nil
		}
		if err != nil {
			*buf = b
			return nil, err
		}
	}
}

// hashWithGit names the queued regular files by `git add` into a temporary copy of the index,
// so clean filters, end-of-line conversion and git's "safe autocrlf" rule (which looks at the
// index's current blob) give exactly the blobs git add -A would. Symlinks are never
// converted and are hashed here.
func (s *snapshotter) hashWithGit() error {
	var regular []*fileEntry
	for _, f := range s.pending {
		if f.stat.isSymlink() {
			if err := s.hashFile(f, nil); err != nil {
				return err
			}
			continue
		}
		regular = append(regular, f)
	}
	if len(regular) == 0 {
		return nil
	}
	index, cleanup, err := s.scratchIndex()
	if err != nil {
		return err
	}
	defer cleanup()
	var in bytes.Buffer
	for _, f := range regular {
		in.WriteString(f.path())
		in.WriteByte(0)
	}
	env := []string{"GIT_INDEX_FILE=" + index, "GIT_LITERAL_PATHSPECS=1"}
	if _, err := s.git(env, &in, "add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		return err
	}
	out, err := s.git(env, nil, "ls-files", "--stage", "-z")
	if err != nil {
		return err
	}
	names := parseLsFilesStage(out)
	for _, f := range regular {
		h, ok := names[f.path()]
		if !ok {
			return fmt.Errorf("snapshot: git add did not record %q; is it still there?", f.path())
		}
		f.hash = h
	}
	return nil
}

// scratchIndex copies the index to a temporary file beside it for git to update.
func (s *snapshotter) scratchIndex() (string, func(), error) {
	dir := filepath.Join(s.repo.GitDir, "loop")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", nil, fmt.Errorf("snapshot: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "filter-index-")
	if err != nil {
		return "", nil, fmt.Errorf("snapshot: %w", err)
	}
	defer tmp.Close()
	name := tmp.Name()
	data, err := os.ReadFile(filepath.Join(s.repo.GitDir, "index"))
	switch {
	case err != nil: // no index yet: git starts a new one, but not from an empty file
		os.Remove(name)
	default:
		if _, err := tmp.Write(data); err != nil {
			os.Remove(name)
			return "", nil, fmt.Errorf("snapshot: copy index: %w", err)
		}
	}
	return name, func() { os.Remove(name); os.Remove(name + ".lock") }, nil
}

// git runs a git command in the worktree and returns its standard output.
func (s *snapshotter) git(env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = s.repo.WorkTree
	cmd.Env = append(s.repo.GitEnv(), env...) // git finds the repository from the worktree, or is told
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("snapshot: git %s (for files under .gitattributes conversion): %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// parseLsFilesStage reads `git ls-files --stage -z`: "<mode> <name> <stage>\t<path>\0".
func parseLsFilesStage(out []byte) map[string]gitstore.Hash {
	names := map[string]gitstore.Hash{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		fields := strings.Fields(string(meta))
		if !ok || len(fields) != 3 || fields[2] != "0" {
			continue
		}
		if h, err := gitstore.ParseHash(fields[1]); err == nil {
			names[string(path)] = h
		}
	}
	return names
}

// streamAbove is the size from which files are hashed and stored by streaming rather than
// read whole into memory: a larger file is read twice (to name it, then, if new, to store
// it), but the hashing workers' buffers stay this small, where one large file made each
// worker's buffer as large for the rest of the snapshot.
const streamAbove = 256 << 10

// hashLargeFile names and stores a large regular file without holding it in memory.
func (s *snapshotter) hashLargeFile(f *fileEntry, abs string) error {
	h, err := s.repo.WriteBlobFile(abs, f.stat.size)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, gitstore.ErrSizeChanged) {
		return errRetry
	}
	if err != nil {
		return fmt.Errorf("snapshot: store %q: %w", f.path(), err)
	}
	after, err := lstat(abs)
	if err != nil || !sameStat(&after, f.stat) {
		return errRetry
	}
	f.hash = h
	return nil
}
