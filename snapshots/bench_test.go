package snapshots

import (
	"fmt"
	"os"
	"testing"

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
