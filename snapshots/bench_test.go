package snapshots

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/git-loop/git-loop/gitstore"
)

// benchRepo is $GITLOOP_BENCH_REPO (e.g. a copy of $(go env GOROOT)/src, as
// testdata/bench/compare.sh prepares) or a generated tree of 5,000 files.
func benchRepo(b *testing.B) string {
	if dir := os.Getenv("GITLOOP_BENCH_REPO"); dir != "" {
		return dir
	}
	hermeticB(b)
	dir := b.TempDir()
	if out, err := gitEnv(dir, nil, "init", "-q"); err != nil {
		b.Fatal(out)
	}
	for i := 0; i < 5000; i++ {
		p := fmt.Sprintf("%s/d%d/e%d/f%d.go", dir, i%20, i%7, i)
		os.MkdirAll(p[:len(p)-len(fmt.Sprintf("/f%d.go", i))], 0o777)
		os.WriteFile(p, []byte(fmt.Sprintf("package x // %d\n", i)), 0o666)
	}
	return dir
}

func hermeticB(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
}

// BenchmarkTakeClean measures a snapshot of an unchanged tree with a warm stat cache.
func BenchmarkTakeClean(b *testing.B) {
	dir := benchRepo(b)
	r, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Take(r); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := gitstore.Open(dir)
		if _, err := Take(r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTakeCleanPerFile snapshots unchanged generated trees of growing size (100 files
// a directory, a fifth of them untracked) and reports the bytes a snapshot allocates per
// file of the tree. git-loop runs with garbage collection off, so with -benchmem this is the
// memory a clean snapshot adds, and a flat B/file across sizes shows it bounded per file, as
// git's own is. The 1,000,000-file tree is made only with GITLOOP_BENCH_1M=1 (it takes
// minutes to write and add); GITLOOP_BENCH_TREES=DIR keeps the trees between runs.
func BenchmarkTakeCleanPerFile(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("GITLOOP_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, files := range sizes {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			dir := benchTree(b, files)
			if r, err := gitstore.Open(dir); err != nil {
				b.Fatal(err)
			} else if _, err := Take(r); err != nil { // warm the stat cache
				b.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				r, err := gitstore.Open(dir)
				if err != nil {
					b.Fatal(err)
				}
				if res, err := Take(r); err != nil || res.Files != files {
					b.Fatalf("snapshot: %+v, %v; want %d files", res, err, files)
				}
			}
			b.StopTimer()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(files), "B/file")
		})
	}
}

// benchTree is a repository of files files, 100 a directory in directories of 100, four
// fifths of them in the index; under $GITLOOP_BENCH_TREES when set, and kept.
func benchTree(b *testing.B, files int) string {
	hermeticB(b)
	var dir string
	if keep := os.Getenv("GITLOOP_BENCH_TREES"); keep != "" {
		dir = filepath.Join(keep, fmt.Sprintf("tree-%d", files))
		if _, err := os.Stat(filepath.Join(dir, ".git", "index")); err == nil {
			return dir
		}
	} else {
		dir = b.TempDir()
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		b.Fatal(err)
	}
	if out, err := gitEnv(dir, nil, "init", "-q"); err != nil {
		b.Fatalf("git init: %v: %s", err, out)
	}
	// The tracked four fifths are written and added first (git add -A; a pathspec per file
	// makes git add quadratic), then the untracked fifth.
	for _, untracked := range []bool{false, true} {
		for i := 0; i < files; i++ {
			if (i%5 == 0) != untracked {
				continue
			}
			p := filepath.Join(dir, fmt.Sprintf("d%03d/e%03d/f%03d.go", i/10000, i/100%100, i%100))
			if i%100 < 2 { // the first file of its directory in this pass
				if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
					b.Fatal(err)
				}
			}
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package x // %d\n", i)), 0o666); err != nil {
				b.Fatal(err)
			}
		}
		if !untracked {
			if out, err := gitEnv(dir, nil, "add", "-A"); err != nil {
				b.Fatalf("git add: %v: %s", err, out)
			}
		}
	}
	time.Sleep(100 * time.Millisecond) // settled, so that the first snapshot caches every file
	return dir
}
