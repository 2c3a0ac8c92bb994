package ignore

import (
	"strings"
	"testing"
)

// refBudget bounds the reference implementation's backtracking; fuzz
// inputs that need more are not compared with it.
const refBudget = 200000

// cleanPath turns arbitrary fuzz input into a valid worktree path: no NUL,
// no empty component, no leading or trailing slash.
func cleanPath(s string) string {
	if p := cleanDir(s); p != "" {
		return p
	}
	return "x"
}

// cleanDir is cleanPath but may return "" (the root).
func cleanDir(s string) string {
	s = strings.ReplaceAll(s, "\x00", "x")
	var parts []string
	for _, p := range strings.Split(s, "/") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// slashed is dir with a trailing slash, or "" for the root.
func slashed(dir string) string {
	if dir == "" {
		return ""
	}
	return dir + "/"
}

// escapeName writes a pattern line that matches exactly the base name s
// (s must hold no '/', NUL or newline): glob specials, a leading '#' or
// '!', a final space and a final "\r" are escaped.
func escapeName(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(`*?[\`, c) >= 0,
			i == 0 && (c == '#' || c == '!'),
			i == len(s)-1 && c == ' ':
			sb.WriteByte('\\')
		case i == len(s)-1 && c == '\r':
			sb.WriteString("[\r]")
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// refExcluded is the reference verdict for one list of pattern lines.
func refExcluded(content, base, path string, isDir bool) (excluded, ok bool) {
	lines := refLines(content)
	for i := len(lines) - 1; i >= 0; i-- {
		m, neg, ok := refLineMatch(lines[i], base, path, isDir, refBudget)
		if !ok {
			return false, false
		}
		if m {
			return !neg, true
		}
	}
	return false, true
}

// indexPadding is enough pattern lines of every kind to get a list indexed.
var indexPadding = strings.Repeat("pad\n/pad/x\n*.pad\npad*\n[pP]ad?\n**/pad\n", 3)

var fuzzSeeds = []struct {
	pattern, path string
	isDir         bool
}{
	{"*.o", "a/b.o", false},
	{"!keep.o\n*.o", "keep.o", false},
	{"/build/", "build", true},
	{"doc/**/*.pdf", "doc/x/y.pdf", false},
	{"**/cache", "a/b/cache", true},
	{"a/**/**/**/**/**/b", "a/x/x/x/x/x/x/x/x/x/x/x/c", false},
	{"a/b**", "a/bc/d", false},
	{"[[:alpha:]][!0-9]?", "ab/c", false},
	{"[]-a]x\n\\#h\n\\!b", "^x", false},
	{"trail\\ \n  x  \r\n", "trail ", false},
	{"bad[\nbad[[:nope:]]", "bad[", false},
	{"**\\/j", "x/j", false},
	{"*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
}

// FuzzMatch checks Match against the reference implementation and checks
// invariants: escaped literal names match themselves, memoised and plain
// wildmatch agree.
func FuzzMatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s.pattern, s.path, s.isDir)
	}
	f.Fuzz(func(t *testing.T, pattern, path string, isDir bool) {
		path = cleanPath(path)
		bases := []string{""}
		if i := strings.IndexByte(path, '/'); i >= 0 {
			bases = append(bases, path[:i])
		}
		for _, base := range bases {
			// Padding makes the list long enough to be indexed.
			for _, content := range []string{pattern, indexPadding + pattern} {
				ps := Parse([]byte(content), base)
				got := NewMatcher().With(ps).Match(path, isDir)
				want, ok := refExcluded(content, slashed(base), path, isDir)
				if ok && got != want {
					t.Fatalf("Parse(%q, %q).Match(%q, %v) = %v, reference says %v", content, base, path, isDir, got, want)
				}
				checkMemo(t, ps, path)
			}
		}
		checkLiteral(t, path, isDir)
	})
}

// checkMemo compares the plain and the memoised wildmatch on path and on
// all of its suffixes after a slash.
func checkMemo(t *testing.T, ps []Pattern, path string) {
	for _, p := range ps {
		if p.glob == nil {
			continue
		}
		for text := path; ; {
			if a, b := p.glob.Match(text), p.glob.MatchMemoised(text); a != b {
				t.Fatalf("pattern %q on %q: plain %v, memoised %v", p.src, text, a, b)
			}
			i := strings.IndexByte(text, '/')
			if i < 0 {
				break
			}
			text = text[i+1:]
		}
	}
}

// checkLiteral checks that escaped literal patterns match path and its
// base name, and that a negation of the same pattern undoes them.
func checkLiteral(t *testing.T, path string, isDir bool) {
	if strings.Contains(path, "\n") {
		return
	}
	name := path[strings.LastIndexByte(path, '/')+1:]
	var anchored []string
	for _, c := range strings.Split(path, "/") {
		anchored = append(anchored, escapeName(c))
	}
	for _, line := range []string{escapeName(name), "/" + strings.Join(anchored, "/")} {
		m := NewMatcher(Parse([]byte(line), ""))
		if !m.Match(path, isDir) {
			t.Fatalf("literal pattern %q does not match %q", line, path)
		}
		if m.With(Parse([]byte("!"+line), "")).Match(path, isDir) {
			t.Fatalf("negated literal pattern %q does not re-include %q", line, path)
		}
	}
}

// FuzzParse checks that Parse never panics, splits lines as git does and
// yields patterns that Match can use.
func FuzzParse(f *testing.F) {
	f.Add([]byte("\xef\xbb\xbf# c\n*.o\r\n!keep.o\n/build/\n"), "")
	f.Add([]byte("a\\ \nb  \n\\#c\n\\!d\n\x00\n\r\n"), "sub/dir")
	f.Add([]byte("[[:alpha:]\n[!]-a]\n**/x/**\n"), "a")
	f.Fuzz(func(t *testing.T, content []byte, base string) {
		base = cleanDir(base)
		ps := Parse(content, base)
		lines := refLines(string(content))
		if len(ps) != len(lines) {
			t.Fatalf("Parse(%q) gave %d patterns, git splits %d lines", content, len(ps), len(lines))
		}
		m := NewMatcher(ps)
		for i, p := range ps {
			if p.src != lines[i] {
				t.Fatalf("pattern %d of %q is %q, want %q", i, content, p.src, lines[i])
			}
			if p.base != slashed(base) {
				t.Fatalf("pattern base %q, want %q", p.base, slashed(base))
			}
			path := slashed(base) + cleanPath(p.src)
			for _, isDir := range []bool{false, true} {
				want, ok := refExcluded(string(content), slashed(base), path, isDir)
				if got := m.Match(path, isDir); ok && got != want {
					t.Fatalf("Parse(%q, %q).Match(%q, %v) = %v, reference says %v", content, base, path, isDir, got, want)
				}
			}
		}
	})
}
