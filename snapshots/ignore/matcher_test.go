package ignore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// level is the content of one ignore file and the directory it applies to.
type level struct{ base, content string }

func build(levels ...level) *Matcher {
	m := NewMatcher()
	for _, l := range levels {
		m = m.With(Parse([]byte(l.content), l.base))
	}
	return m
}

func TestMatch(t *testing.T) {
	tests := []struct {
		levels []level
		path   string
		isDir  bool
		want   bool
	}{
		{nil, "a", false, false},
		{[]level{{"", "a"}}, "a", false, true},
		{[]level{{"", "a"}}, "x/a", true, true},
		{[]level{{"", "a"}}, "ab", false, false},
		{[]level{{"", "a\n!a"}}, "a", false, false},
		{[]level{{"", "!a\na"}}, "a", false, true},
		{[]level{{"", "a/"}}, "a", false, false},
		{[]level{{"", "a/"}}, "a", true, true},
		{[]level{{"", "/a"}}, "x/a", false, false},
		{[]level{{"", "/a"}}, "a", false, true},
		{[]level{{"", "x/a"}}, "x/a", false, true},
		{[]level{{"", "x/a"}}, "y/x/a", false, false},
		{[]level{{"", "*.o"}}, "d/e.o", false, true},
		{[]level{{"", "*.o"}}, "d/e.oo", false, false},
		{[]level{{"", "d/*.o"}}, "d/e/f.o", false, false},
		{[]level{{"", "d/**/*.o"}}, "d/e/f.o", false, true},
		{[]level{{"", "d/**/*.o"}}, "d/f.o", false, true},
		{[]level{{"", "**/d"}}, "x/y/d", false, true},
		{[]level{{"", "d/**"}}, "d", true, false},
		{[]level{{"", "d/**"}}, "d/x", false, true},
		{[]level{{"", "a/b**"}}, "a/bc/d", false, true},             // git quirk
		{[]level{{"", "x/foo**/bar"}}, "x/foox/y/bar", false, true}, // git quirk
		{[]level{{"", "foo**/bar"}}, "foox/y/bar", false, true},     // git quirk
		{[]level{{"", "foo**/bar"}}, "foox/y/baz", false, false},
		{[]level{{"", "trail\\ "}}, "trail ", false, true},
		{[]level{{"", "trail "}}, "trail ", false, false},
		{[]level{{"", `\#h`}}, "#h", false, true},
		{[]level{{"", `\!b`}}, "!b", false, true},
		{[]level{{"", "a[b"}}, "a[b", false, false},
		{[]level{{"", "a"}, {"d", "!a"}}, "d/a", false, false},
		{[]level{{"", "a"}, {"d", "!a"}}, "e/a", false, true},
		{[]level{{"", "!a"}, {"d", "a"}}, "d/a", false, true},
		{[]level{{"d", "a"}}, "d", true, false},
		{[]level{{"d", "*"}}, "d", true, false},
		{[]level{{"d", "*"}}, "dd/x", false, false},
		{[]level{{"d", "/x"}}, "d/x", false, true},
		{[]level{{"d", "/x"}}, "d/e/x", false, false},
		{[]level{{"d", "e/x"}}, "d/e/x", false, true},
		{[]level{{"d/e", "**"}}, "d/e/f/g", false, true},
	}
	for _, tc := range tests {
		if got := build(tc.levels...).Match(tc.path, tc.isDir); got != tc.want {
			t.Errorf("levels %q: Match(%q, %v) = %v, want %v", tc.levels, tc.path, tc.isDir, got, tc.want)
		}
	}
}

func TestNewMatcherPrecedence(t *testing.T) {
	global := Parse([]byte("*.x\n!keep.x"), "")
	info := Parse([]byte("!*.x\nkeep.x"), "")
	m := NewMatcher(global, info)
	if m.Match("a.x", false) {
		t.Error("info/exclude should re-include a.x over core.excludesFile")
	}
	if !m.Match("keep.x", false) {
		t.Error("info/exclude should exclude keep.x over core.excludesFile")
	}
	m = m.With(Parse([]byte("a.x"), ""))
	if !m.Match("a.x", false) {
		t.Error(".gitignore should take precedence over info/exclude")
	}
}

func TestTrailingSlashDoesNotPanic(t *testing.T) {
	var lines []string
	for i := range indexMin + 4 {
		lines = append(lines, fmt.Sprintf("[ab]%d", i), fmt.Sprintf("/x/*%d", i))
	}
	m := NewMatcher(Parse([]byte(strings.Join(lines, "\n")), ""))
	for _, p := range []string{"a/", "x/", "", "/"} {
		m.Match(p, true)
	}
}

func TestNilAndEmptyMatcher(t *testing.T) {
	var m *Matcher
	if m.Match("a", false) {
		t.Error("nil matcher excluded a path")
	}
	if !m.With(Parse([]byte("a"), "")).Match("a", false) {
		t.Error("nil.With lost its patterns")
	}
	e := NewMatcher(nil, nil)
	if e.With(nil) != e {
		t.Error("With(nil) should return the receiver")
	}
	if e.Match("a", true) {
		t.Error("empty matcher excluded a path")
	}
}

func TestWithLeavesParentUnchanged(t *testing.T) {
	m := NewMatcher(Parse([]byte("a"), ""))
	n := m.With(Parse([]byte("!a"), ""))
	if !m.Match("a", false) || n.Match("a", false) {
		t.Errorf("m.Match = %v (want true), n.Match = %v (want false)", m.Match("a", false), n.Match("a", false))
	}
}

// TestMixedBases covers lists whose patterns come from different files.
func TestMixedBases(t *testing.T) {
	ps := append(Parse([]byte("x\n!y"), "d"), Parse([]byte("y\n/z"), "")...)
	m := NewMatcher(ps)
	for path, want := range map[string]bool{"d/x": true, "x": false, "d/y": true, "y": true, "z": true, "d/z": false} {
		if got := m.Match(path, false); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestIndexAgreesWithScan checks that the index used for long lists gives
// the same answers as a plain scan of the same patterns.
func TestIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	names := []string{"a", "b.o", "c.txt", "d.tar.gz", "e", "f.go", "x.o", "gz", "1a", "\\x", "y", "a~", "zz", "e.o"}
	pats := []string{"a", "b.o", "*.o", "*.gz", "*.tar.gz", "/e", "x/a", "*", "*~", "e/", "!a", "!*.o", "f.*",
		"**/c.txt", "/x/", "!/x/b.o", "[ab]*", "x/*.o", "?.o", "[!a]*", "/x/**/a", "!y/**", "**/gz", "[[:digit:]]*", "\\x", "e*/", "*z", "*~", "!*a", "y*"}
	for round := 0; round < 200; round++ {
		var lines []string
		for range 16 + r.IntN(20) {
			lines = append(lines, pats[r.IntN(len(pats))])
		}
		base := []string{"", "x"}[r.IntN(2)]
		ps := Parse([]byte(strings.Join(lines, "\n")), base)
		indexed := newPatternSet(ps)
		scanned := &patternSet{pats: ps, base: indexed.base, same: true}
		if indexed.idx == nil {
			t.Fatal("long list was not indexed")
		}
		for _, dir := range []string{"", "x/", "x/y/", "y/", "x/y/a/"} {
			for _, n := range names {
				for _, isDir := range []bool{false, true} {
					path := dir + n
					name := path[strings.LastIndexByte(path, '/')+1:]
					if a, b := indexed.last(path, name, isDir), scanned.last(path, name, isDir); a != b {
						t.Fatalf("lines %q base %q: %q dir=%v: indexed %d, scanned %d", lines, base, path, isDir, a, b)
					}
				}
			}
		}
	}
}

func TestMatchDoesNotAllocate(t *testing.T) {
	var sb strings.Builder
	for i := range 40 {
		fmt.Fprintf(&sb, "lit%d\n*.ext%d\n/anchored%d/\nsub/**/deep%d\n[abc]*%d\n", i, i, i, i, i)
	}
	m := NewMatcher(Parse([]byte(sb.String()), "")).With(Parse([]byte("*.o\n!keep.o\nfoo*bar"), "src"))
	paths := []string{"src/a.o", "src/keep.o", "src/x/foozbar", "lit3", "a/b.ext7", "anchored2", "sub/q/deep1", "b9", "zzz"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			m.Match(p, false)
			m.Match(p, true)
		}
	})
	if allocs != 0 {
		t.Errorf("Match allocated %v times per run", allocs)
	}
}

// TestConcurrentUse shares one matcher between goroutines that match and
// extend it, as the walker does; run it with -race.
func TestConcurrentUse(t *testing.T) {
	var sb strings.Builder
	for i := range 3 * indexMin {
		fmt.Fprintf(&sb, "n%d\n*.e%d\n/p%d/\n**/q%d\n[ab]%d*\n!*.keep\n", i, i, i, i, i)
	}
	root := NewMatcher(Parse([]byte(sb.String()), ""))
	want := root.Match("a/a7x", false)
	done := make(chan bool)
	for g := range 8 {
		go func() {
			m := root.With(Parse([]byte(fmt.Sprintf("x%d\n", g)), "a"))
			ok := true
			for range 200 {
				ok = ok && m.Match("a/a7x", false) == want && m.Match(fmt.Sprintf("a/x%d", g), false)
				ok = ok && !root.Match(fmt.Sprintf("a/x%d", g), false)
			}
			done <- ok
		}()
	}
	for range 8 {
		if !<-done {
			t.Error("concurrent matches disagreed")
		}
	}
}
