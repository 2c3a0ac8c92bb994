package gitstore

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// objectDB reads objects from a repository's object directories: its own, then those its
// objects/info/alternates names. Loose objects are read here; packs through go-git's pack
// and index decoders, which resolve deltas. It is built on those two packages alone rather
// than go-git's repository storage, whose configuration packages cost every process start
// (regular expressions and gob registrations) and which git-loop has no other use for.
type objectDB struct {
	dirs []string // object directories, the repository's own first

	mu     sync.Mutex // guards what follows; go-git's pack readers are not safe for concurrent use
	loaded bool
	packs  []*pack
	seen   map[string]bool // .idx paths already opened
	bases  cache.Object    // delta bases shared by all packs
	// freshRescan is when freshen last looked for new packs (see freshen)
	freshRescan time.Time
}

// pack is one packfile with its index.
type pack struct {
	idx  *packIndex
	file *os.File
	data *packfile.Packfile
	// freshened: its time was set to now by this process already (see freshen)
	freshened atomic.Bool
}

// newObjectDB returns the object database rooted at objects, following alternates.
func newObjectDB(objects string) *objectDB {
	db := &objectDB{seen: map[string]bool{}, bases: cache.NewObjectLRU(8 * cache.MiByte)}
	db.addDir(objects, 0)
	return db
}

// addDir adds an object directory and, recursively as git does, the alternates it names.
func (db *objectDB) addDir(dir string, depth int) {
	for _, d := range db.dirs {
		if d == dir {
			return
		}
	}
	db.dirs = append(db.dirs, dir)
	if depth >= 5 {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil {
		return
	}
	for _, alt := range parseAlternates(data) {
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(dir, alt)
		}
		db.addDir(filepath.Clean(alt), depth+1)
	}
}

// parseAlternates reads objects/info/alternates: one directory per line, '#' comments,
// C-quoted when the line starts with a double quote.
func parseAlternates(data []byte) []string {
	var dirs []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '"' {
			unq, err := strconv.Unquote(line)
			if err != nil {
				continue
			}
			line = unq
		}
		if line != "" {
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// loosePathIn is where object h lives when loose in the object directory dir.
func loosePathIn(dir string, h Hash) string {
	hex := h.String()
	return filepath.Join(dir, hex[:2], hex[2:])
}

// has reports whether h is stored loose or packed in any object directory. Like git, it
// looks in the packs it knows first (a look-up in memory; a repository that git's gc keeps
// tidy holds most objects there), then loose, then in packs that appeared meanwhile.
func (db *objectDB) has(h Hash) bool {
	if db.packedIn(h, false) != nil {
		return true
	}
	for _, dir := range db.dirs {
		if _, err := os.Lstat(loosePathIn(dir, h)); err == nil {
			return true
		}
	}
	return db.packedIn(h, true) != nil
}

// freshen sets to now the modification time of the file that holds h (its pack, or its
// loose file), as git does before it skips writing an object that exists, so that a prune
// running meanwhile (its expiry is by file time) keeps it. It reports whether h is there and
// was freshened; an object that cannot be (a read-only alternate) is to be written again.
func (db *objectDB) freshen(h Hash) bool {
	if p := db.packedIn(h, false); p != nil {
		return p.freshen()
	}
	now := time.Now()
	for _, dir := range db.dirs {
		if os.Chtimes(loosePathIn(dir, h), now, now) == nil {
			return true
		}
	}
	if db.rescanForFreshen() {
		if p := db.packedIn(h, true); p != nil {
			return p.freshen()
		}
	}
	return false
}

// rescanForFreshen reports whether freshen may look for packs that appeared since they were
// listed: at most once every freshRescanEvery. Each look lists the pack directory, and a
// snapshot of thousands of new files asks about thousands of objects no pack holds; missing
// a pack made in between only writes a loose copy of an object, which is harmless, as git
// itself does when it writes an object (it does not look for new packs either).
func (db *objectDB) rescanForFreshen() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	now := time.Now()
	if now.Sub(db.freshRescan) < freshRescanEvery {
		return false
	}
	db.freshRescan = now
	return true
}

// freshRescanEvery is how often freshen looks for new packs.
const freshRescanEvery = time.Second

// freshen sets the pack's time to now, once per process as git does: a snapshot that finds
// thousands of its blobs in one pack touches the pack once.
func (p *pack) freshen() bool {
	if p.freshened.Load() {
		return true
	}
	now := time.Now()
	if os.Chtimes(p.file.Name(), now, now) != nil {
		return false
	}
	p.freshened.Store(true)
	return true
}

// read returns h's type and content, looking where has does, in the same order.
func (db *objectDB) read(h Hash) (ObjectType, []byte, error) {
	t, data, found, packErr := db.readPacked(h, false)
	if found && packErr == nil {
		return t, data, nil
	}
	for _, dir := range db.dirs {
		t, data, err := readLoose(loosePathIn(dir, h))
		if !errors.Is(err, os.ErrNotExist) {
			return t, data, err
		}
	}
	if packErr != nil { // in a known pack that could not give it, and not loose
		return 0, nil, packErr
	}
	// git gc may have packed and pruned it since the first look: the packs again, rescanned
	if t, data, found, err := db.readPacked(h, true); found {
		return t, data, err
	}
	// or packed it since, and pruned it since the rescan (a second gc): once more, loose
	for _, dir := range db.dirs {
		t, data, err := readLoose(loosePathIn(dir, h))
		if !errors.Is(err, os.ErrNotExist) {
			return t, data, err
		}
	}
	return 0, nil, ErrObjectNotFound
}

// packedIn returns the pack holding h, among the known packs or, with rescan, among those
// that appeared since they were listed; nil when none holds it.
func (db *objectDB) packedIn(h Hash, rescan bool) *pack {
	db.mu.Lock()
	defer db.mu.Unlock()
	if !rescan {
		return db.findPacked(h)
	}
	if db.rescan() {
		return db.findPacked(h)
	}
	return nil
}

// readPacked reads h from the pack holding it (see packedIn); found is false when none does.
func (db *objectDB) readPacked(h Hash, rescan bool) (t ObjectType, data []byte, found bool, err error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	var p *pack
	if !rescan {
		p = db.findPacked(h)
	} else if db.rescan() {
		p = db.findPacked(h)
	}
	if p == nil {
		return 0, nil, false, nil
	}
	t, data, err = p.read(h)
	return t, data, true, err
}

// findPacked returns the pack holding h, loading the pack indexes on first use. db.mu is held.
func (db *objectDB) findPacked(h Hash) *pack {
	if !db.loaded {
		db.loaded = true
		db.rescan()
	}
	for _, p := range db.packs {
		if ok, _ := p.idx.Contains(plumbing.Hash(h)); ok {
			return p
		}
	}
	return nil
}

// rescan opens packs that appeared since the last scan (a repack or fetch while git-loop
// runs) and reports whether there were any. Packs that cannot be read are left out: their
// objects then read as missing, as with a partial clone. db.mu is held.
func (db *objectDB) rescan() bool {
	added := false
	for _, dir := range db.dirs {
		for _, idxPath := range packIndexes(filepath.Join(dir, "pack")) {
			if db.seen[idxPath] {
				continue
			}
			p, err := openPack(idxPath, db.bases)
			if err != nil {
				continue
			}
			db.seen[idxPath] = true
			db.packs = append(db.packs, p)
			added = true
		}
	}
	return added
}

// packIndexes lists the pack indexes in the pack directory dir as git does (packfile.c,
// prepare_pack): every file whose name ends in .idx, whatever it starts with. git names most
// packs pack-<hash>, but its loose-objects maintenance task names its packs loose-<hash>,
// and a pack's kind is in the files beside it (.keep, .promisor, a cruft pack's .mtimes),
// not in its name; the multi-pack-index indexes packs whose own indexes stay. A name that
// starts with a dot is one of git repack's temporary files (.tmp-<pid>-pack-…), renamed
// into place once whole.
func packIndexes(dir string) []string {
	names, err := readDirNames(dir)
	if err != nil {
		return nil
	}
	var idxs []string
	for _, n := range names {
		if strings.HasSuffix(n, ".idx") && !strings.HasPrefix(n, ".") {
			idxs = append(idxs, filepath.Join(dir, n))
		}
	}
	slices.Sort(idxs)
	return idxs
}

// openPack opens the pack whose index is at idxPath.
func openPack(idxPath string, bases cache.Object) (*pack, error) {
	idx, err := openPackIndex(idxPath)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(strings.TrimSuffix(idxPath, ".idx") + ".pack")
	if err != nil {
		idx.close() // the pack is left out, and looked for again at the next rescan
		return nil, err
	}
	return &pack{idx: idx, file: f, data: packfile.NewPackfileWithCache(idx, nil, packFile{f}, bases, 0)}, nil
}

// packFile gives an open pack the file interface go-git's reader takes; it is only read.
type packFile struct{ *os.File }

func (packFile) Lock() error   { return nil }
func (packFile) Unlock() error { return nil }

// read returns the object h from the pack, deltas resolved.
func (p *pack) read(h Hash) (ObjectType, []byte, error) {
	obj, err := p.data.Get(plumbing.Hash(h))
	if err != nil {
		return 0, nil, fmt.Errorf("read packed object: %w", err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return 0, nil, fmt.Errorf("read packed object: %w", err)
	}
	defer rd.Close()
	data := make([]byte, 0, obj.Size())
	buf := bytes.NewBuffer(data)
	if _, err := io.Copy(buf, rd); err != nil {
		return 0, nil, fmt.Errorf("read packed object: %w", err)
	}
	return ObjectType(obj.Type()), buf.Bytes(), nil
}

// readLoose reads and inflates the loose object at path. A missing file is os.ErrNotExist.
func readLoose(path string) (ObjectType, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %q: %w", path, err)
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	head, err := br.ReadSlice(0)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %q: no header: %w", path, err)
	}
	t, size, err := parseLooseHeader(head)
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %q: %w", path, err)
	}
	// Grow as bytes arrive rather than trusting the header with one allocation.
	var buf bytes.Buffer
	buf.Grow(int(min(size, 1<<20)))
	n, err := io.Copy(&buf, io.LimitReader(br, size+1))
	if err != nil {
		return 0, nil, fmt.Errorf("read loose object %q: %w", path, err)
	}
	if n != size {
		return 0, nil, fmt.Errorf("read loose object %q: header says %d bytes, found %d", path, size, n)
	}
	return t, buf.Bytes(), nil
}

// maxLooseSize is the largest size a loose object header may claim.
const maxLooseSize = 1 << 40

// parseLooseHeader parses "<type> <size>\x00".
func parseLooseHeader(head []byte) (ObjectType, int64, error) {
	s, ok := strings.CutSuffix(string(head), "\x00")
	typ, num, ok2 := strings.Cut(s, " ")
	if !ok || !ok2 {
		return 0, 0, fmt.Errorf("bad header %q", head)
	}
	var t ObjectType
	switch typ {
	case "blob":
		t = BlobObject
	case "tree":
		t = TreeObject
	case "commit":
		t = CommitObject
	case "tag":
		t = TagObject
	default:
		return 0, 0, fmt.Errorf("unknown object type %q", typ)
	}
	if num == "" || strings.Trim(num, "0123456789") != "" || (len(num) > 1 && num[0] == '0') {
		return 0, 0, fmt.Errorf("bad object size %q", num)
	}
	size, err := strconv.ParseInt(num, 10, 64)
	if err != nil || size > maxLooseSize {
		return 0, 0, fmt.Errorf("bad object size %q", num)
	}
	return t, size, nil
}
