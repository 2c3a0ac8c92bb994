package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// odbHistory makes commits in dir whose files change a little each time, so a pack holds
// deltas (and deltas of deltas) as well as whole objects.
func odbHistory(t *testing.T, dir string, commits int) {
	t.Helper()
	var body strings.Builder
	for i := range 400 {
		fmt.Fprintf(&body, "line %d of a file that grows and changes\n", i)
	}
	for i := range commits {
		text := strings.Replace(body.String(), fmt.Sprintf("line %d ", i*7), fmt.Sprintf("LINE %d ", i), 1)
		body.Reset()
		body.WriteString(text)
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%d", i%3)), []byte(strconv.Itoa(i)), 0o755); err != nil {
			t.Fatal(err)
		}
		refsGit(t, dir, "add", "-A")
		refsGit(t, dir, "commit", "-qm", fmt.Sprintf("commit %d", i))
	}
}

// gitObjects is every object in dir's repository with its type and content, as git reads them.
func gitObjects(t *testing.T, dir string) map[Hash]struct {
	typ  string
	data []byte
} {
	t.Helper()
	cmd := exec.Command("git", "cat-file", "--batch-all-objects", "--batch")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git cat-file --batch-all-objects: %v", err)
	}
	objs := map[Hash]struct {
		typ  string
		data []byte
	}{}
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		head, err := br.ReadString('\n')
		if err == io.EOF {
			return objs
		}
		var name, typ string
		var size int
		if _, err := fmt.Sscanf(head, "%s %s %d", &name, &typ, &size); err != nil {
			t.Fatalf("cat-file header %q: %v", head, err)
		}
		data := make([]byte, size+1) // content and a newline
		if _, err := io.ReadFull(br, data); err != nil {
			t.Fatal(err)
		}
		objs[refsMustHash(t, name)] = struct {
			typ  string
			data []byte
		}{typ, data[:size]}
	}
}

// checkAllObjects reads every object git knows through r and compares type and content.
func checkAllObjects(t *testing.T, r *Repo, dir string) int {
	t.Helper()
	objs := gitObjects(t, dir)
	for h, want := range objs {
		typ, data, err := r.ReadObject(h)
		if err != nil {
			t.Fatalf("ReadObject(%s): %v", h, err)
		}
		if typ.String() != want.typ || !bytes.Equal(data, want.data) {
			t.Fatalf("object %s: read %s of %d bytes, git has %s of %d", h, typ, len(data), want.typ, len(want.data))
		}
		if !r.HasObject(h) {
			t.Fatalf("HasObject(%s) = false", h)
		}
	}
	return len(objs)
}

// TestReadObjectMatchesGit: loose, packed (with deltas), and freshly repacked objects read
// exactly as `git cat-file` reads them.
func TestReadObjectMatchesGit(t *testing.T) {
	refsHermetic(t)
	_, dir := refsNewRepo(t)
	odbHistory(t, dir, 12)
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := checkAllObjects(t, r, dir); n < 30 {
		t.Fatalf("only %d loose objects", n)
	}

	refsGit(t, dir, "gc", "-q", "--aggressive", "--prune=now")
	if loose := refsGit(t, dir, "count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Fatalf("gc left loose objects: %s", loose)
	}
	if !strings.Contains(refsGit(t, dir, "verify-pack", "-v", packIndexPath(t, dir)), "chain length") {
		t.Fatal("the pack holds no deltas; the test would not exercise them")
	}
	r, _ = Open(dir)
	checkAllObjects(t, r, dir)

	// A repack while the repository is open: the new objects are found in the new pack.
	odbHistory(t, dir, 3)
	refsGit(t, dir, "repack", "-q", "-a", "-d")
	refsGit(t, dir, "prune", "--expire=now")
	checkAllObjects(t, r, dir)
}

func packIndexPath(t *testing.T, dir string) string {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("want one pack, have %v", idx)
	}
	return idx[0]
}

// TestReadObjectThroughAlternates: a repository borrowing objects (git clone --shared) reads
// them from the lender's packs and loose files; a missing object is ErrObjectNotFound.
func TestReadObjectThroughAlternates(t *testing.T) {
	refsHermetic(t)
	_, lender := refsNewRepo(t)
	odbHistory(t, lender, 4)
	refsGit(t, lender, "gc", "-q")
	odbHistory(t, lender, 2) // some loose too
	borrower := filepath.Join(t.TempDir(), "b")
	refsGit(t, lender, "clone", "-q", "--shared", lender, borrower)
	if _, err := os.Stat(filepath.Join(borrower, ".git", "objects", "info", "alternates")); err != nil {
		t.Fatal(err)
	}
	r, err := Open(borrower)
	if err != nil {
		t.Fatal(err)
	}
	checkAllObjects(t, r, lender)

	missing := HashObject(BlobObject, []byte("never stored"))
	if _, _, err := r.ReadObject(missing); !errors.Is(err, ErrObjectNotFound) {
		t.Errorf("ReadObject of a missing object: %v, want ErrObjectNotFound", err)
	}
	if r.HasObject(missing) {
		t.Error("HasObject of a missing object = true")
	}
}

func TestParseLooseHeader(t *testing.T) {
	tests := []struct {
		in   string
		typ  ObjectType
		size int64
		ok   bool
	}{
		{"blob 0\x00", BlobObject, 0, true},
		{"tree 123\x00", TreeObject, 123, true},
		{"commit 9\x00", CommitObject, 9, true},
		{"tag 1\x00", TagObject, 1, true},
		{"blob 1", 0, 0, false},
		{"blob\x00", 0, 0, false},
		{"blob 01\x00", 0, 0, false},
		{"blob +1\x00", 0, 0, false},
		{"blob -0\x00", 0, 0, false},
		{"blob  1\x00", 0, 0, false},
		{"blub 1\x00", 0, 0, false},
		{"blob 99999999999999999999\x00", 0, 0, false},
	}
	for _, tt := range tests {
		typ, size, err := parseLooseHeader([]byte(tt.in))
		if (err == nil) != tt.ok || typ != tt.typ || size != tt.size {
			t.Errorf("parseLooseHeader(%q) = %v, %d, %v", tt.in, typ, size, err)
		}
	}
}

// FuzzParseLooseHeader: no panics; an accepted header re-renders to the same bytes.
func FuzzParseLooseHeader(f *testing.F) {
	f.Add([]byte("blob 12\x00"))
	f.Add([]byte("commit 0\x00"))
	f.Fuzz(func(t *testing.T, head []byte) {
		typ, size, err := parseLooseHeader(head)
		if err != nil {
			return
		}
		var b bytes.Buffer
		writeHeader(&b, typ, size)
		if !bytes.Equal(b.Bytes(), head) {
			t.Fatalf("header %q parsed as %s %d, which renders as %q", head, typ, size, b.Bytes())
		}
	})
}

// FuzzParseAlternates: no panics, and no empty directory is ever returned.
func FuzzParseAlternates(f *testing.F) {
	f.Add([]byte("/a/objects\n# comment\n\"/b c/objects\"\n../x\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range parseAlternates(data) {
			if d == "" {
				t.Fatalf("empty alternate from %q", data)
			}
		}
	})
}
