package loop

import (
	"os"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// BenchmarkCheckpointClean measures `git loop checkpoint` minus process start on an
// unchanged tree: $GITLOOP_BENCH_REPO must have an active loop (see
// testdata/bench/compare.sh); without it the benchmark is skipped.
func BenchmarkCheckpointClean(b *testing.B) {
	dir := os.Getenv("GITLOOP_BENCH_REPO")
	if dir == "" {
		b.Skip("set GITLOOP_BENCH_REPO to a repository with an active loop")
	}
	for i := 0; i < b.N; i++ {
		r, err := gitstore.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		s := NewStore(r)
		name, err := s.Resolve("")
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.Checkpoint(name); err != nil {
			b.Fatal(err)
		}
	}
}
