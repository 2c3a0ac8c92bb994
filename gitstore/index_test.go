package gitstore

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gogitindex "github.com/go-git/go-git/v5/plumbing/format/index"
)

// idxGitEntry is one entry as `git ls-files -s -z --debug` prints it.
type idxGitEntry struct {
	mode, stage                       uint64
	hash, path                        string
	ctime, mtime                      [2]uint64
	dev, ino, uid, gid, size, ceFlags uint64
}

// idxLsFiles runs `git ls-files -s -z --debug` in dir and parses it.
func idxLsFiles(t *testing.T, dir string) []idxGitEntry {
	t.Helper()
	out := []byte(refsGit(t, dir, "ls-files", "-s", "-z", "--debug") + "\n")
	var es []idxGitEntry
	num := func(s string, base int) uint64 {
		v, err := strconv.ParseUint(s, base, 64)
		if err != nil {
			t.Fatalf("ls-files --debug: %q: %v", s, err)
		}
		return v
	}
	pair := func(s string) [2]uint64 {
		a, b, _ := strings.Cut(s, ":")
		return [2]uint64{num(a, 10), num(b, 10)}
	}
	for len(out) > 0 {
		nul := bytes.IndexByte(out, 0)
		if nul < 0 {
			t.Fatalf("ls-files output: no NUL in %q", out)
		}
		head, path, _ := strings.Cut(string(out[:nul]), "\t")
		out = out[nul+1:]
		f := strings.Fields(head)
		e := idxGitEntry{mode: num(f[0], 8), hash: f[1], stage: num(f[2], 10), path: path}
		var lines [5][]string
		for k := range lines {
			nl := bytes.IndexByte(out, '\n')
			lines[k] = strings.Fields(string(out[:nl]))
			out = out[nl+1:]
		}
		e.ctime, e.mtime = pair(lines[0][1]), pair(lines[1][1])
		e.dev, e.ino = num(lines[2][1], 10), num(lines[2][3], 10)
		e.uid, e.gid = num(lines[3][1], 10), num(lines[3][3], 10)
		e.size, e.ceFlags = num(lines[4][1], 10), num(lines[4][3], 16)
		es = append(es, e)
	}
	return es
}

// idxCompare checks every field of every entry of idx against git's own reading of the index.
func idxCompare(t *testing.T, dir string, idx *Index) {
	t.Helper()
	want := idxLsFiles(t, dir)
	if len(idxEntries(t, idx)) != len(want) {
		t.Fatalf("%d entries, git lists %d", len(idxEntries(t, idx)), len(want))
	}
	const ceValid, ceStage, ceSkip, ceITA = 0x8000, 0x3000, 1 << 30, 1 << 29
	for i, e := range idxEntries(t, idx) {
		w := want[i]
		flags := uint64(e.Stage) << 12
		if e.AssumeValid {
			flags |= ceValid
		}
		if e.SkipWorktree {
			flags |= ceSkip
		}
		if e.IntentToAdd {
			flags |= ceITA
		}
		got := idxGitEntry{
			mode: uint64(e.Mode), stage: uint64(e.Stage), hash: e.Hash.String(), path: e.Path,
			ctime: [2]uint64{uint64(e.CtimeSec), uint64(e.CtimeNsec)}, mtime: [2]uint64{uint64(e.MtimeSec), uint64(e.MtimeNsec)},
			dev: uint64(e.Dev), ino: uint64(e.Ino), uid: uint64(e.UID), gid: uint64(e.GID), size: uint64(e.Size), ceFlags: flags,
		}
		w.ceFlags &= ceValid | ceStage | ceSkip | ceITA
		if got != w {
			t.Fatalf("entry %d:\n got %+v\nwant %+v", i, got, w)
		}
	}
}

// idxReadRaw reads dir's index via Open and ReadIndex, checking ModTime.
func idxRead(t *testing.T, dir string) *Index {
	t.Helper()
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := r.ReadIndex()
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(r.GitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}
	if !idx.ModTime.Equal(fi.ModTime()) {
		t.Fatalf("ModTime %v, file has %v", idx.ModTime, fi.ModTime())
	}
	return idx
}

// idxWriteFiles creates files (path → content) under dir.
func idxWriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// idxOddRepo makes a repository whose index holds odd names, modes and flags: spaces, tabs,
// newlines, non-UTF-8 bytes, a path over 4095 bytes, an executable, a symlink, a gitlink, an
// intent-to-add entry, skip-worktree and assume-unchanged entries, and a cache tree.
func idxOddRepo(t *testing.T, files int) string {
	t.Helper()
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	m := map[string]string{
		"with space.txt": "space", "tab\there": "tab", "new\nline": "nl", "\xff\xfe-not-utf8": "latin",
		"ünïcödé/ﬁle": "u", "a/b/c/d/e/f/g/h/deep.txt": "deep", "z-last": "z", "-dash": "d", "a.b": "dot", "a/b.c": "x",
	}
	for i := 0; i < files; i++ {
		m[fmt.Sprintf("dir%02d/sub%d/file%04d.txt", i%17, i%5, i)] = fmt.Sprint("content ", i)
	}
	idxWriteFiles(t, dir, m)
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("z-last", filepath.Join(dir, "link"))
	refsGit(t, dir, "add", "-A")
	blob := refsGit(t, dir, "hash-object", "-w", "z-last")
	long := strings.Repeat(strings.Repeat("L", 200)+"/", 24) + "long-file"
	refsGit(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+blob+",gitlink")
	refsGit(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	refsGit(t, dir, "commit", "-q", "-m", "odd")
	idxWriteFiles(t, dir, map[string]string{"ita-file": "later", "dir03/ita2": "x"})
	refsGit(t, dir, "add", "-N", "ita-file", "dir03/ita2")
	refsGit(t, dir, "update-index", "--skip-worktree", "z-last", "a.b")
	refsGit(t, dir, "update-index", "--assume-unchanged", "with space.txt", "a.b")
	return dir
}

func TestIndexMatchesGit(t *testing.T) {
	refsHermetic(t)
	dir := idxOddRepo(t, 300)
	for _, v := range []uint32{2, 3, 4, 3} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			refsGit(t, dir, "update-index", "--index-version", fmt.Sprint(v))
			idx := idxRead(t, dir)
			want := v
			if v == 2 {
				want = 3 // git writes version 3 as soon as an entry has extended flags
			}
			if idx.Version != want {
				t.Fatalf("version %d, want %d", idx.Version, want)
			}
			idxCompare(t, dir, idx)
			flags := map[string]string{}
			for _, e := range idxEntries(t, idx) {
				switch {
				case e.SkipWorktree && e.AssumeValid:
					flags[e.Path] = "skip+assume"
				case e.SkipWorktree:
					flags[e.Path] = "skip"
				case e.AssumeValid:
					flags[e.Path] = "assume"
				case e.IntentToAdd:
					flags[e.Path] = "ita"
				}
			}
			if fmt.Sprint(flags) != "map[a.b:skip+assume dir03/ita2:ita ita-file:ita with space.txt:assume z-last:skip]" {
				t.Fatalf("flags: %v", flags)
			}
		})
	}
	// Plain version 2, without extended flags.
	plain := t.TempDir()
	refsGit(t, plain, "init", "-q")
	idxWriteFiles(t, plain, map[string]string{"a": "a", "b/c": "c", "tab\tx": "t"})
	refsGit(t, plain, "add", "-A")
	refsGit(t, plain, "update-index", "--index-version", "2")
	idx := idxRead(t, plain)
	if idx.Version != 2 {
		t.Fatalf("version %d", idx.Version)
	}
	idxCompare(t, plain, idx)
}

func TestIndexConflictsAndExtensions(t *testing.T) {
	refsHermetic(t)
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	idxWriteFiles(t, dir, map[string]string{"both.txt": "base\n", "keep.txt": "k\n", "del.txt": "d\n"})
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-q", "-m", "base")
	refsGit(t, dir, "checkout", "-q", "-b", "other")
	idxWriteFiles(t, dir, map[string]string{"both.txt": "theirs\n", "del.txt": "changed\n", "added.txt": "theirs\n"})
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-q", "-m", "theirs")
	refsGit(t, dir, "checkout", "-q", "main")
	idxWriteFiles(t, dir, map[string]string{"both.txt": "ours\n", "added.txt": "ours\n"})
	os.Remove(filepath.Join(dir, "del.txt"))
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-q", "-m", "ours")
	if _, err := refsGitErr(dir, "merge", "-q", "other"); err == nil {
		t.Fatal("expected a merge conflict")
	}
	for _, v := range []string{"2", "4"} {
		refsGit(t, dir, "update-index", "--index-version", v)
		idx := idxRead(t, dir)
		idxCompare(t, dir, idx)
		stages := map[string][]uint8{}
		for _, e := range idxEntries(t, idx) {
			stages[e.Path] = append(stages[e.Path], e.Stage)
		}
		if fmt.Sprint(stages) != "map[added.txt:[2 3] both.txt:[1 2 3] del.txt:[1 3] keep.txt:[0]]" {
			t.Fatalf("v%s stages: %v", v, stages)
		}
	}
	// Resolving records resolve-undo (REUC); the untracked cache adds UNTR; both are skipped.
	refsGit(t, dir, "add", "both.txt", "added.txt", "del.txt")
	refsGit(t, dir, "update-index", "--untracked-cache")
	idxWriteFiles(t, dir, map[string]string{"untracked": "u"})
	refsGit(t, dir, "status", "--porcelain")
	raw, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	for _, ext := range []string{"TREE", "REUC", "UNTR"} {
		if !bytes.Contains(raw, []byte(ext)) {
			t.Logf("index has no %s extension", ext)
		}
	}
	if !bytes.Contains(raw, []byte("REUC")) || !bytes.Contains(raw, []byte("UNTR")) {
		t.Fatal("expected REUC and UNTR extensions")
	}
	idxCompare(t, dir, idxRead(t, dir))
}

func TestIndexRequiredExtensions(t *testing.T) {
	refsHermetic(t)
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	idxWriteFiles(t, dir, map[string]string{"in/a": "a", "out/b": "b", "out/deeper/c": "c", "top": "t"})
	refsGit(t, dir, "add", "-A")
	refsGit(t, dir, "commit", "-q", "-m", "c")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}

	refsGit(t, dir, "update-index", "--split-index")
	_, err = r.ReadIndex()
	if err == nil || !strings.Contains(err.Error(), `"link"`) || !strings.Contains(err.Error(), "git update-index --no-split-index") {
		t.Fatalf("split index: %v", err)
	}
	refsGit(t, dir, "update-index", "--no-split-index")
	idxCompare(t, dir, idxRead(t, dir))

	refsGit(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
	refsGit(t, dir, "sparse-checkout", "set", "in")
	_, err = r.ReadIndex()
	if err == nil || !strings.Contains(err.Error(), `"sdir"`) || !strings.Contains(err.Error(), "git sparse-checkout disable") {
		t.Fatalf("sparse index: %v", err)
	}
	// The suggested fix that keeps the sparse checkout works.
	refsGit(t, dir, "sparse-checkout", "init", "--no-sparse-index")
	idx := idxRead(t, dir)
	idxCompare(t, dir, idx)
	skipped := 0
	for _, e := range idxEntries(t, idx) {
		if e.SkipWorktree {
			skipped++
		}
	}
	if skipped != 2 {
		t.Fatalf("%d skip-worktree entries in the sparse checkout, want 2", skipped)
	}

	// An unknown required extension, and an unknown optional one.
	raw, _ := os.ReadFile(filepath.Join(r.GitDir, "index"))
	body := raw[:len(raw)-20]
	for sig, wantErr := range map[string]bool{"zzzz": true, "ZZZZ": false} {
		data := append(append([]byte{}, body...), sig...)
		data = append(data, 0, 0, 0, 3, 'x', 'y', 'z')
		sum := sha1.Sum(data)
		data = append(data, sum[:]...)
		_, err := ParseIndex(data)
		if (err != nil) != wantErr || (err != nil && !strings.Contains(err.Error(), `"zzzz"`)) {
			t.Errorf("extension %s: %v", sig, err)
		}
	}
}

func TestIndexEdgeCases(t *testing.T) {
	refsHermetic(t)
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// No index yet.
	idx, err := r.ReadIndex()
	if err != nil || idx.Version != 0 || len(idxEntries(t, idx)) != 0 {
		t.Fatalf("missing index: %+v, %v", idx, err)
	}
	idxWriteFiles(t, dir, map[string]string{"a": "a", "b": "b"})
	refsGit(t, dir, "add", "-A")
	raw, err := os.ReadFile(filepath.Join(r.GitDir, "index"))
	if err != nil {
		t.Fatal(err)
	}

	// GIT_INDEX_FILE, relative to the current directory.
	alt := t.TempDir()
	os.WriteFile(filepath.Join(alt, "alt-index"), raw[:12+62+2], 0o644) // truncated on purpose
	t.Chdir(alt)
	t.Setenv("GIT_INDEX_FILE", "alt-index")
	if _, err := r.ReadIndex(); err == nil || !strings.Contains(err.Error(), filepath.Join(alt, "alt-index")) {
		t.Fatalf("GIT_INDEX_FILE not used: %v", err)
	}
	t.Setenv("GIT_INDEX_FILE", "missing-index")
	if idx, err := r.ReadIndex(); err != nil || len(idxEntries(t, idx)) != 0 {
		t.Fatalf("missing GIT_INDEX_FILE: %+v, %v", idx, err)
	}
	os.Unsetenv("GIT_INDEX_FILE")

	good, err := ParseIndex(raw)
	if err != nil || len(good.Entries) != 2 || good.Entries[0].Path != "a" || good.Entries[1].Path != "b" {
		t.Fatalf("ParseIndex: %+v, %v", good, err)
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, raw...)) }
	resum := func(b []byte) []byte {
		s := sha1.Sum(b[:len(b)-20])
		copy(b[len(b)-20:], s[:])
		return b
	}
	cases := map[string]struct {
		data []byte
		want string // "" means success
	}{
		"checksum":      {mutate(func(b []byte) []byte { b[20] ^= 1; return b }), "checksum mismatch"},
		"zero checksum": {mutate(func(b []byte) []byte { clear(b[len(b)-20:]); return b }), ""},
		"signature":     {mutate(func(b []byte) []byte { b[0] = 'X'; return resum(b) }), "not an index file"},
		"version 5":     {mutate(func(b []byte) []byte { b[7] = 5; return resum(b) }), "index version 5"},
		"version 1":     {mutate(func(b []byte) []byte { b[7] = 1; return resum(b) }), "index version 1"},
		"huge count":    {mutate(func(b []byte) []byte { b[8] = 0xff; return resum(b) }), "claims"},
		"short":         {raw[:20], "truncated"},
		"empty":         {nil, "truncated"},
		"unknown flags": {mutate(func(b []byte) []byte { b[12+60] |= 0x40; b[12+62] = 0x01; return resum(b) }), "unknown entry flags"},
		"name too long": {mutate(func(b []byte) []byte { b[12+61] = 0x90; return resum(b) }), "truncated"},
		"extension length": {mutate(func(b []byte) []byte {
			return resum(append(append(b[:len(b)-20], "TREE\xff\xff\xff\xff"...), make([]byte, 20)...))
		}), "truncated"},
	}
	for name, c := range cases {
		_, err := ParseIndex(c.data)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	// The input is not retained or modified.
	data := append([]byte{}, raw...)
	idx, _ = ParseIndex(data)
	clear(data)
	if idx.Entries[0].Path != "a" {
		t.Fatal("paths alias the input")
	}
}

func TestIndexAllocations(t *testing.T) {
	refsHermetic(t)
	dir := idxOddRepo(t, 1000)
	for _, v := range []string{"3", "4"} {
		refsGit(t, dir, "update-index", "--index-version", v)
		raw, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := ParseIndex(raw); err != nil {
				t.Fatal(err)
			}
		})
		if allocs > 8 {
			t.Errorf("v%s: %.0f allocations per ParseIndex of %d bytes, want a handful", v, allocs, len(raw))
		}
	}
}

// idxBenchIndex builds a repository of n files with git add and returns its index files in
// versions 2 and 4.
func idxBenchIndex(b *testing.B, n int) map[string][]byte {
	b.Helper()
	refsHermetic(b)
	dir := b.TempDir()
	refsGit(b, dir, "init", "-q")
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("src/module%02d/pkg%02d/file_%05d.go", i%30, i%7, i))
		if i%500 == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p%d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	refsGit(b, dir, "add", "-A")
	out := map[string][]byte{}
	for _, v := range []string{"2", "4"} {
		refsGit(b, dir, "update-index", "--index-version", v)
		raw, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			b.Fatal(err)
		}
		out["v"+v] = raw
	}
	return out
}

func BenchmarkParseIndex(b *testing.B) {
	const files = 15000
	indexes := idxBenchIndex(b, files)
	for _, v := range []string{"v2", "v4"} {
		raw := indexes[v]
		b.Run(v, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				idx, err := ParseIndex(raw)
				if err != nil || len(idx.Entries) != files {
					b.Fatal(err)
				}
			}
		})
		// For scale: go-git's decoder on the same bytes.
		b.Run(v+"-gogit", func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				var idx gogitindex.Index
				if err := gogitindex.NewDecoder(bytes.NewReader(raw)).Decode(&idx); err != nil || len(idx.Entries) != files {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadIndexSkipsChecksumLikeGit: a worktree index whose trailing checksum is wrong but
// whose entries are whole is read, as git reads it outside fsck; ParseIndex still refuses it.
func TestReadIndexSkipsChecksumLikeGit(t *testing.T) {
	refsHermetic(t)
	dir := t.TempDir()
	refsGit(t, dir, "init", "-q")
	idxWriteFiles(t, dir, map[string]string{"a": "a", "d/b": "b"})
	refsGit(t, dir, "add", "-A")
	path := filepath.Join(dir, ".git", "index")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)-1] ^= 0xff
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(refsGit(t, dir, "ls-files")) // the oracle: git reads it too
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := r.ReadIndex()
	if err != nil {
		t.Fatalf("ReadIndex with a bad checksum: %v", err)
	}
	var got []string
	for _, e := range idxEntries(t, idx) {
		got = append(got, e.Path)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("entries %q, git ls-files %q", got, want)
	}
	if _, err := ParseIndex(raw); err == nil || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("ParseIndex with a bad checksum: %v", err)
	}
}

// idxEntries decodes every entry of idx through Len, Path and Entry, as readers of a compact
// index do, checking that Path agrees with Entry.
func idxEntries(t testing.TB, idx *Index) []IndexEntry {
	t.Helper()
	es := make([]IndexEntry, idx.Len())
	for i := range es {
		if es[i] = idx.Entry(i); es[i].Path != idx.Path(i) {
			t.Fatalf("entry %d: Path %q, Entry's path %q", i, idx.Path(i), es[i].Path)
		}
	}
	return es
}
