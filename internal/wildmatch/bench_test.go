package wildmatch

import (
	"strings"
	"testing"
)

// BenchmarkWildmatchPathological measures a match that exhausts the plain
// search's budget and finishes with the memoised one. The text passes the
// quick filters (it starts with "a/" and ends with 'b') but does not match.
func BenchmarkWildmatchPathological(b *testing.B) {
	g := Compile("a/" + strings.Repeat("**/", 20) + "b")
	text := "a/" + strings.Repeat("x/", 40) + "xb"
	if _, done := g.quick(text); done || g.Match(text) {
		b.Fatal("the benchmark does not reach the search")
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Match(text)
	}
}
