package gitstore

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// Loose objects are written here rather than through go-git, for two reasons: git compresses
// them at zlib level 1 (core.looseCompression), go-git at level 6, which made storing a
// changed file cost several times what git pays; and a stat of the object's path answers
// "is it already stored" without go-git loading every pack index.

// loosePath is where object h lives when loose.
func (r *Repo) loosePath(h Hash) string {
	return loosePathIn(filepath.Join(r.CommonDir, "objects"), h)
}

// looseLevel is the zlib level for loose objects: core.looseCompression, else
// core.compression, else 1 (git's default: speed over size for objects gc will pack).
func (r *Repo) looseLevel() int {
	r.levelOnce.Do(func() {
		r.level = zlib.BestSpeed
		for _, key := range []string{"compression", "loosecompression"} {
			if v := r.Config.Get("core", "", key); v != "" {
				if n, err := strconv.Atoi(v); err == nil && n >= -1 && n <= 9 {
					r.level = n
				}
			}
		}
	})
	return r.level
}

var zlibPools sync.Map // level → *sync.Pool of *zlib.Writer

func zlibWriter(level int, buf *bytes.Buffer) *zlib.Writer {
	p, _ := zlibPools.LoadOrStore(level, &sync.Pool{})
	if w, ok := p.(*sync.Pool).Get().(*zlib.Writer); ok {
		w.Reset(buf)
		return w
	}
	w, err := zlib.NewWriterLevel(buf, level)
	if err != nil {
		w = zlib.NewWriter(buf)
	}
	return w
}

func putZlibWriter(level int, w *zlib.Writer) {
	if p, ok := zlibPools.Load(level); ok {
		p.(*sync.Pool).Put(w)
	}
}

// writeLoose stores data as loose object h: compressed into a temporary file in the object's
// fan-out directory, then renamed into place, so readers never see a partial object.
func (r *Repo) writeLoose(t ObjectType, h Hash, data []byte) error {
	level := r.looseLevel()
	var buf bytes.Buffer
	buf.Grow(len(data)/2 + 64)
	zw := zlibWriter(level, &buf)
	writeHeader(zw, t, int64(len(data)))
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	putZlibWriter(level, zw)
	final := r.loosePath(h)
	if err := writeFileRename(final, buf.Bytes(), "tmp_obj_", 0o444); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file in the same directory
// (created if missing) and a rename, so readers see the old content or the new, never a part.
// git-loop's caches and pointers under the git dir are written this way, readable by all and
// writable by the owner only, as git leaves its refs (the mode is set explicitly, so the
// umask cannot widen it).
func WriteFileAtomic(path string, data []byte) error {
	return writeFileRename(path, data, "."+filepath.Base(path)+".tmp-", 0o644)
}

// writeFileRename is WriteFileAtomic with the temporary file's name prefix and the file's
// final permissions (loose objects use git's tmp_obj_ prefix, which git prune cleans, and are
// read-only as git leaves them).
func writeFileRename(path string, data []byte, prefix string, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, prefix)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(dir, 0o777); err == nil {
			tmp, err = os.CreateTemp(dir, prefix)
		}
	}
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, perm)
	}
	if werr == nil {
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
	}
	return werr
}

// ErrSizeChanged means a file's size changed while it was being stored.
var ErrSizeChanged = errors.New("file changed size while being read")

// WriteBlobFile stores the file at path (expected to be size bytes) as a blob by streaming it
// twice: once to name it, and, only if that object is missing, once more to compress it.
func (r *Repo) WriteBlobFile(path string, size int64) (Hash, error) {
	h, err := hashFileBlob(path, size)
	if err != nil || r.HasObject(h) {
		return h, err
	}
	return h, r.writeLooseFile(h, path, size)
}

func hashFileBlob(path string, size int64) (Hash, error) {
	f, err := os.Open(path)
	if err != nil {
		return ZeroHash, err
	}
	defer f.Close()
	hw := sha1.New()
	writeHeader(hw, BlobObject, size)
	n, err := io.Copy(hw, f)
	if err != nil {
		return ZeroHash, err
	}
	if n != size {
		return ZeroHash, ErrSizeChanged
	}
	var h Hash
	hw.Sum(h[:0])
	return h, nil
}

// writeLooseFile compresses the file into a temporary object file and renames it into place;
// the name is checked again over the bytes actually written.
func (r *Repo) writeLooseFile(h Hash, path string, size int64) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	final := r.loosePath(h)
	if err := os.MkdirAll(filepath.Dir(final), 0o777); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(final), "tmp_obj_")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw, err := zlib.NewWriterLevel(tmp, r.looseLevel())
	if err != nil {
		tmp.Close()
		return err
	}
	hw := sha1.New()
	w := io.MultiWriter(zw, hw)
	writeHeader(w, BlobObject, size)
	n, err := io.Copy(w, src)
	if err == nil && n != size {
		err = ErrSizeChanged
	}
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && Hash(hw.Sum(nil)) != h {
		err = ErrSizeChanged // same size, other bytes: the file changed between the passes
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o444)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	return err
}
