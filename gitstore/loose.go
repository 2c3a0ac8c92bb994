package gitstore

import (
	"bufio"
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
	"strings"
	"sync"
	"time"
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

func zlibWriter(level int, buf io.Writer) *zlib.Writer {
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

// looseBufs holds the buffers objects are compressed into before they are written. A
// snapshot of thousands of changed files compresses each, and with garbage collection off a
// buffer per object would stay allocated until exit.
var looseBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeLoose stores data as loose object h: compressed into a temporary file in the object's
// fan-out directory, then renamed into place, so readers never see a partial object.
func (r *Repo) writeLoose(t ObjectType, h Hash, data []byte) error {
	level := r.looseLevel()
	buf := looseBufs.Get().(*bytes.Buffer)
	defer looseBufs.Put(buf)
	buf.Reset()
	buf.Grow(len(data)/2 + 64)
	zw := zlibWriter(level, buf)
	writeHeader(zw, t, int64(len(data)))
	if _, err := zw.Write(data); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	putZlibWriter(level, zw)
	final := r.loosePath(h)
	if err := writeFileRename(final, buf.Bytes(), tmpObjectPrefix, 0o444); err != nil {
		return fmt.Errorf("write %s %s: %w", t, h, err)
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file in the same directory
// (created if missing) and a rename, so readers see the old content or the new, never a part.
// git-loop's caches and pointers under the git dir are written this way, readable by all and
// writable by the owner only, as git leaves its refs (the mode is set explicitly, so the
// umask cannot widen it). Once written, the temporary files of earlier writes of path that a
// killed process left (".NAME.tmp-*", older than StaleTempAge) are removed.
func WriteFileAtomic(path string, data []byte) error {
	prefix := "." + filepath.Base(path) + ".tmp-"
	if err := writeFileRename(path, data, prefix, 0o644); err != nil {
		return err
	}
	removeStale(filepath.Dir(path), prefix, StaleTempAge)
	return nil
}

// WriteFileAtomicStream is WriteFileAtomic for content written by write, through a buffer
// of its own, so that a large file (the snapshot cache of a big worktree) is never whole in
// memory.
func WriteFileAtomicStream(path string, write func(io.Writer) error) error {
	prefix := "." + filepath.Base(path) + ".tmp-"
	buffered := func(f io.Writer) error {
		bw := bufio.NewWriterSize(f, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := writeFileRenameStream(path, buffered, prefix, 0o644); err != nil {
		return err
	}
	removeStale(filepath.Dir(path), prefix, StaleTempAge)
	return nil
}

// StaleTempAge is how old a temporary file of git-loop's own caches and pointers must be to
// count as left by a killed process: one being written now is a moment old. Removing one a
// live but long-stopped process still writes is safe: its rename then fails, and only that
// cache write is lost.
const StaleTempAge = time.Minute

// removeStale removes the files in dir whose names start with prefix and that were last
// written more than age ago.
func removeStale(dir, prefix string, age time.Duration) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > age && os.Remove(p) == nil {
			n++
		}
	}
	return n
}

// writeFileRename is WriteFileAtomic with the temporary file's name prefix and the file's
// final permissions (loose objects use tmpObjectPrefix, and are read-only as git leaves them).
func writeFileRename(path string, data []byte, prefix string, perm os.FileMode) error {
	return writeFileRenameStream(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, prefix, perm)
}

// writeFileRenameStream is writeFileRename for content written by write, straight to the
// file (a caller writing small pieces buffers them itself).
func writeFileRenameStream(path string, write func(io.Writer) error, prefix string, perm os.FileMode) error {
	tmp, err := createTempIn(filepath.Dir(path), prefix)
	if err != nil {
		return err
	}
	name := tmp.Name()
	werr := write(tmp)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(name, perm)
	}
	if werr == nil {
		if prefix == tmpObjectPrefix {
			StallAt("object-temp")
		} else {
			StallAt("file-temp")
		}
		werr = os.Rename(name, path)
	}
	if werr != nil {
		os.Remove(name)
	}
	return werr
}

// createTempIn creates a temporary file in dir, making dir when it is missing. An object
// directory can vanish under a writer: git's prune-packed (run by gc and the loose-objects
// maintenance task git-loop starts) removes each one it leaves empty, possibly just after it
// was made. git makes the directory and tries once more; a few more tries make losing every
// one of them to a concurrent prune as unlikely as it needs to be.
func createTempIn(dir, prefix string) (*os.File, error) {
	tmp, err := os.CreateTemp(dir, prefix)
	for try := 0; try < 8 && errors.Is(err, fs.ErrNotExist); try++ {
		if err = os.MkdirAll(dir, 0o777); err == nil {
			tmp, err = os.CreateTemp(dir, prefix)
		}
	}
	return tmp, err
}

// copyBufs holds the buffers files are streamed through: io.Copy would make one per call.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// copyPooled is io.Copy through a pooled buffer.
func copyPooled(dst io.Writer, src io.Reader) (int64, error) {
	b := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(b)
	return io.CopyBuffer(dst, onlyReader{src}, *b)
}

// onlyReader hides a reader's WriteTo, which would copy through a buffer of its own.
type onlyReader struct{ io.Reader }

// ErrSizeChanged means a file's size changed while it was being stored.
var ErrSizeChanged = errors.New("file changed size while being read")

// WriteBlobFile stores the file at path (expected to be size bytes) as a blob by streaming it
// twice: once to name it, and, only if that object is missing, once more to compress it.
func (r *Repo) WriteBlobFile(path string, size int64) (Hash, error) {
	h, err := hashFileBlob(path, size)
	if err != nil || r.objects().freshen(h) { // an existing blob is freshened, as by WriteObject
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
	n, err := copyPooled(hw, f)
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
	tmp, err := createTempIn(filepath.Dir(final), tmpObjectPrefix)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	level := r.looseLevel()
	zw := zlibWriter(level, tmp)
	defer putZlibWriter(level, zw)
	hw := sha1.New()
	w := io.MultiWriter(zw, hw)
	writeHeader(w, BlobObject, size)
	n, err := copyPooled(w, src)
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

// tmpObjectPrefix starts the temporary files git-loop writes loose objects through. It starts
// with git's own "tmp_obj_", so git fsck passes over them and git prune removes them (after
// gc.pruneExpire, two weeks by default), and goes on with "gl-", so that git-loop can tell
// its own from git's (whose names are tmp_obj_ and six random characters).
const tmpObjectPrefix = "tmp_obj_gl-"

// TempObjectAge is how old one of git-loop's temporary object files must be for the next
// writer to remove it. git-loop writes each one and renames it into place within one call, in
// well under a second even for a large file, so an hour-old one was left by a process that
// was killed; removing one that a process stopped for an hour still writes only makes that
// write fail (its rename finds nothing), never a broken object. git's own temporary files are
// left to git gc.
const TempObjectAge = time.Hour

// sweepInterval is how often SweepTempObjects looks through the object directories.
const sweepInterval = time.Hour

// SweepTempObjects removes the temporary object files git-loop processes that were killed
// left in the object directories (older than TempObjectAge), and the holds they left (see
// SweepHolds), at most once per sweepInterval (the time of the last sweep is kept in
// <commondir>/loop/swept). It returns how many it removed.
func (r *Repo) SweepTempObjects() int {
	stamp := filepath.Join(r.LoopDir(), "swept")
	if fi, err := os.Stat(stamp); err == nil && time.Since(fi.ModTime()) < sweepInterval {
		return 0
	}
	if err := os.MkdirAll(r.LoopDir(), 0o777); err != nil {
		return 0
	}
	if f, err := os.OpenFile(stamp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
		f.Close()
	} else {
		return 0 // no record of the sweep: do not sweep at every write
	}
	now := time.Now()
	os.Chtimes(stamp, now, now)
	objects := filepath.Join(r.CommonDir, "objects")
	n := 0
	for i := 0; i < 256; i++ {
		n += removeStale(filepath.Join(objects, fmt.Sprintf("%02x", i)), tmpObjectPrefix, TempObjectAge)
	}
	return n + removeStalePacks(objects) + r.SweepHolds()
}
