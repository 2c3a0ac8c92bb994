package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-loop/git-loop/loop"
)

// BenchmarkLongLoopReport times `git loop report` minus process start on the 10,000-iteration
// loop BenchmarkLongLoopStop made in $GITLOOP_LONGLOOP_DIR (skipped without it). Add
// -benchmem: git-loop runs with garbage collection off, so the bytes allocated per report
// are what the command's memory grows by.
func BenchmarkLongLoopReport(b *testing.B) {
	base := os.Getenv("GITLOOP_LONGLOOP_DIR")
	if base == "" {
		b.Skip("set GITLOOP_LONGLOOP_DIR to where BenchmarkLongLoopStop made its loops")
	}
	home := filepath.Join(base, "home")
	b.Setenv("HOME", home)
	b.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	b.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	s, err := loop.OpenStore(filepath.Join(base, "loop10000"))
	if err != nil {
		b.Skip("no long loop made yet:", err)
	}
	for i := 0; i < b.N; i++ {
		h, err := s.OpenHistory("long")
		if err != nil {
			b.Fatal(err)
		}
		r, err := FromHistory(h)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Render(FormatMarkdown); err != nil {
			b.Fatal(err)
		}
	}
}
