package snapshots

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
			for f := range work {
				if err := s.hashFile(f); err != nil {
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
// blob.
func (s *snapshotter) hashFile(f *fileEntry) error {
	abs := filepath.Join(s.repo.WorkTree, filepath.FromSlash(f.rel))
	data, err := readContent(abs, &f.stat)
	if errors.Is(err, fs.ErrNotExist) {
		return errRetry // vanished between walk and read: walk again
	}
	if err != nil {
		return fmt.Errorf("snapshot: read %q: %w; fix its permissions or add it to .gitignore", f.rel, err)
	}
	after, err := lstat(abs)
	if err != nil || !sameStat(&after, &f.stat) {
		return errRetry
	}
	h, err := s.repo.WriteObject(gitstore.BlobObject, data)
	if err != nil {
		return fmt.Errorf("snapshot: store %q: %w", f.rel, err)
	}
	f.hash = h
	return nil
}

func readContent(abs string, st *fileStat) ([]byte, error) {
	if st.isSymlink() {
		target, err := os.Readlink(abs)
		return []byte(target), err
	}
	return os.ReadFile(abs)
}

// hashWithGit hashes the queued files with `git hash-object -w --stdin-paths`, so that
// clean filters and end-of-line conversion give exactly git's blobs. Symlinks are never
// converted and are hashed here.
func (s *snapshotter) hashWithGit() error {
	var regular []*fileEntry
	for _, f := range s.pending {
		if f.stat.isSymlink() {
			if err := s.hashFile(f); err != nil {
				return err
			}
			continue
		}
		regular = append(regular, f)
	}
	if len(regular) == 0 {
		return nil
	}
	var in bytes.Buffer
	for _, f := range regular {
		if strings.ContainsAny(f.rel, "\n") {
			return fmt.Errorf("snapshot: %q has a newline in its name and needs attribute filtering; rename it", f.rel)
		}
		in.WriteString(f.rel + "\n")
	}
	cmd := exec.Command("git", "hash-object", "-w", "--stdin-paths")
	cmd.Dir = s.repo.WorkTree
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("snapshot: git hash-object for filtered files: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for _, f := range regular {
		if !sc.Scan() {
			return fmt.Errorf("snapshot: git hash-object answered %d names for %d files", 0, len(regular))
		}
		h, err := gitstore.ParseHash(sc.Text())
		if err != nil {
			return fmt.Errorf("snapshot: git hash-object: %w", err)
		}
		f.hash = h
	}
	return nil
}
