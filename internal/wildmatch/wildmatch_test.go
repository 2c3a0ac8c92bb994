package wildmatch

import (
	"strings"
	"testing"
	"time"
)

// t3070 holds the cases of git's t/t3070-wildmatch.sh with the expected
// result of its first column: wildmatch with WM_PATHNAME, case-sensitive.
var t3070 = []struct {
	match         bool
	text, pattern string
}{
	// Basic wildmatch features.
	{true, `foo`, `foo`},
	{false, `foo`, `bar`},
	{true, ``, ``},
	{true, `foo`, `???`},
	{false, `foo`, `??`},
	{true, `foo`, `*`},
	{true, `foo`, `f*`},
	{false, `foo`, `*f`},
	{true, `foo`, `*foo*`},
	{true, `foobar`, `*ob*a*r*`},
	{true, `aaaaaaabababab`, `*ab`},
	{true, `foo*`, `foo\*`},
	{false, `foobar`, `foo\*bar`},
	{true, `f\oo`, `f\\oo`},
	{true, `ball`, `*[al]?`},
	{false, `ten`, `[ten]`},
	{true, `ten`, `**[!te]`},
	{false, `ten`, `**[!ten]`},
	{true, `ten`, `t[a-g]n`},
	{false, `ten`, `t[!a-g]n`},
	{true, `ton`, `t[!a-g]n`},
	{true, `ton`, `t[^a-g]n`},
	{true, `a]b`, `a[]]b`},
	{true, `a-b`, `a[]-]b`},
	{true, `a]b`, `a[]-]b`},
	{false, `aab`, `a[]-]b`},
	{true, `aab`, `a[]a-]b`},
	{true, `]`, `]`},
	// Extended slash-matching features.
	{false, `foo/baz/bar`, `foo*bar`},
	{false, `foo/baz/bar`, `foo**bar`},
	{true, `foobazbar`, `foo**bar`},
	{true, `foo/baz/bar`, `foo/**/bar`},
	{true, `foo/baz/bar`, `foo/**/**/bar`},
	{true, `foo/b/a/z/bar`, `foo/**/bar`},
	{true, `foo/b/a/z/bar`, `foo/**/**/bar`},
	{true, `foo/bar`, `foo/**/bar`},
	{true, `foo/bar`, `foo/**/**/bar`},
	{false, `foo/bar`, `foo?bar`},
	{false, `foo/bar`, `foo[/]bar`},
	{false, `foo/bar`, `foo[^a-z]bar`},
	{false, `foo/bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`},
	{true, `foo-bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`},
	{true, `foo`, `**/foo`},
	{true, `XXX/foo`, `**/foo`},
	{true, `bar/baz/foo`, `**/foo`},
	{false, `bar/baz/foo`, `*/foo`},
	{false, `foo/bar/baz`, `**/bar*`},
	{true, `deep/foo/bar/baz`, `**/bar/*`},
	{false, `deep/foo/bar/baz/`, `**/bar/*`},
	{true, `deep/foo/bar/baz/`, `**/bar/**`},
	{false, `deep/foo/bar`, `**/bar/*`},
	{true, `deep/foo/bar/`, `**/bar/**`},
	{false, `foo/bar/baz`, `**/bar**`},
	{true, `foo/bar/baz/x`, `*/bar/**`},
	{false, `deep/foo/bar/baz/x`, `*/bar/**`},
	{true, `deep/foo/bar/baz/x`, `**/bar/*/*`},
	// Various additional tests.
	{false, `acrt`, `a[c-c]st`},
	{true, `acrt`, `a[c-c]rt`},
	{false, `]`, `[!]-]`},
	{true, `a`, `[!]-]`},
	{false, ``, `\`},
	{false, `\`, `\`},
	{false, `XXX/\`, `*/\`},
	{true, `XXX/\`, `*/\\`},
	{true, `foo`, `foo`},
	{true, `@foo`, `@foo`},
	{false, `foo`, `@foo`},
	{true, `[ab]`, `\[ab]`},
	{true, `[ab]`, `[[]ab]`},
	{true, `[ab]`, `[[:]ab]`},
	{false, `[ab]`, `[[::]ab]`},
	{true, `[ab]`, `[[:digit]ab]`},
	{true, `[ab]`, `[\[:]ab]`},
	{true, `?a?b`, `\??\?b`},
	{true, `abc`, `\a\b\c`},
	{false, `foo`, ``},
	{true, `foo/bar/baz/to`, `**/t[o]`},
	// Character class tests.
	{true, `a1B`, `[[:alpha:]][[:digit:]][[:upper:]]`},
	{false, `a`, `[[:digit:][:upper:][:space:]]`},
	{true, `A`, `[[:digit:][:upper:][:space:]]`},
	{true, `1`, `[[:digit:][:upper:][:space:]]`},
	{false, `1`, `[[:digit:][:upper:][:spaci:]]`},
	{true, ` `, `[[:digit:][:upper:][:space:]]`},
	{false, `.`, `[[:digit:][:upper:][:space:]]`},
	{true, `.`, `[[:digit:][:punct:][:space:]]`},
	{true, `5`, `[[:xdigit:]]`},
	{true, `f`, `[[:xdigit:]]`},
	{true, `D`, `[[:xdigit:]]`},
	{true, `_`, `[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]`},
	{true, `.`, `[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]`},
	{true, `5`, `[a-c[:digit:]x-z]`},
	{true, `b`, `[a-c[:digit:]x-z]`},
	{true, `y`, `[a-c[:digit:]x-z]`},
	{false, `q`, `[a-c[:digit:]x-z]`},
	// Additional tests, including some malformed wildmatch patterns.
	{true, `]`, `[\\-^]`},
	{false, `[`, `[\\-^]`},
	{true, `-`, `[\-_]`},
	{true, `]`, `[\]]`},
	{false, `\]`, `[\]]`},
	{false, `\`, `[\]]`},
	{false, `ab`, `a[]b`},
	{false, `a[]b`, `a[]b`},
	{false, `ab[`, `ab[`},
	{false, `ab`, `[!`},
	{false, `ab`, `[-`},
	{true, `-`, `[-]`},
	{false, `-`, `[a-`},
	{false, `-`, `[!a-`},
	{true, `-`, `[--A]`},
	{true, `5`, `[--A]`},
	{true, ` `, `[ --]`},
	{true, `$`, `[ --]`},
	{true, `-`, `[ --]`},
	{false, `0`, `[ --]`},
	{true, `-`, `[---]`},
	{true, `-`, `[------]`},
	{false, `j`, `[a-e-n]`},
	{true, `-`, `[a-e-n]`},
	{true, `a`, `[!------]`},
	{false, `[`, `[]-a]`},
	{true, `^`, `[]-a]`},
	{false, `^`, `[!]-a]`},
	{true, `[`, `[!]-a]`},
	{true, `^`, `[a^bc]`},
	{true, `-b]`, `[a-]b]`},
	{false, `\`, `[\]`},
	{true, `\`, `[\\]`},
	{false, `\`, `[!\\]`},
	{true, `G`, `[A-\\]`},
	{false, `aaabbb`, `b*a`},
	{false, `aabcaa`, `*ba*`},
	{true, `,`, `[,]`},
	{true, `,`, `[\\,]`},
	{true, `\`, `[\\,]`},
	{true, `-`, `[,-.]`},
	{false, `+`, `[,-.]`},
	{false, `-.]`, `[,-.]`},
	{true, `2`, `[\1-\3]`},
	{true, `3`, `[\1-\3]`},
	{false, `4`, `[\1-\3]`},
	{true, `\`, `[[-\]]`},
	{true, `[`, `[[-\]]`},
	{true, `]`, `[[-\]]`},
	{false, `-`, `[[-\]]`},
	// Test recursion.
	{true, `-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{false, `-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{false, `-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`},
	{true, `XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`},
	{false, `XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`},
	{true, `abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt`, `**/*a*b*g*n*t`},
	{false, `abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz`, `**/*a*b*g*n*t`},
	{false, `foo`, `*/*/*`},
	{false, `foo/bar`, `*/*/*`},
	{true, `foo/bba/arr`, `*/*/*`},
	{false, `foo/bb/aa/rr`, `*/*/*`},
	{true, `foo/bb/aa/rr`, `**/**/**`},
	{true, `abcXdefXghi`, `*X*i`},
	{false, `ab/cXd/efXg/hi`, `*X*i`},
	{true, `ab/cXd/efXg/hi`, `*/*X*/*/*i`},
	{true, `ab/cXd/efXg/hi`, `**/*X*/**/*i`},
	// Extra pathmatch tests.
	{false, `foo`, `fo`},
	{true, `foo/bar`, `foo/bar`},
	{true, `foo/bar`, `foo/*`},
	{false, `foo/bba/arr`, `foo/*`},
	{true, `foo/bba/arr`, `foo/**`},
	{false, `foo/bba/arr`, `foo*`},
	{false, `foo/bba/arr`, `foo**`},
	{false, `foo/bba/arr`, `foo/*arr`},
	{false, `foo/bba/arr`, `foo/**arr`},
	{false, `foo/bba/arr`, `foo/*z`},
	{false, `foo/bba/arr`, `foo/**z`},
	{false, `foo/bar`, `foo?bar`},
	{false, `foo/bar`, `foo[/]bar`},
	{false, `foo/bar`, `foo[^a-z]bar`},
	{false, `ab/cXd/efXg/hi`, `*Xg*i`},
	// Extra case-sensitivity tests.
	{false, `a`, `[A-Z]`},
	{true, `A`, `[A-Z]`},
	{false, `A`, `[a-z]`},
	{true, `a`, `[a-z]`},
	{false, `a`, `[[:upper:]]`},
	{true, `A`, `[[:upper:]]`},
	{false, `A`, `[[:lower:]]`},
	{true, `a`, `[[:lower:]]`},
	{false, `A`, `[B-Za]`},
	{true, `a`, `[B-Za]`},
	{false, `A`, `[B-a]`},
	{true, `a`, `[B-a]`},
	{false, `z`, `[Z-y]`},
	{true, `Z`, `[Z-y]`},
}

// extraWild are further cases derived from git's wildmatch.c; those that
// can be file names are also checked against git in TestGitOracleFixed.
var extraWild = []struct {
	match         bool
	text, pattern string
}{
	{true, "a\tb", `a[[:space:]]b`},
	{false, "a\vb", `a[[:space:]]b`},
	{false, "a\fb", `a[[:space:]]b`},
	{true, "a\x7fb", `a[[:cntrl:]]b`},
	{false, "a\xc3b", `a[[:alpha:]]b`},
	{true, "a\xc3b", `a[!x]b`},
	{true, "a\xc3b", `a?b`},
	{true, `a/b`, `a\/b`},
	{true, `x/y/b`, `**\/b`}, // ** before "\/" crosses slashes...
	{false, `b`, `**\/b`},    // ...but cannot match zero directories
	{true, `a/x/y`, `a/**`},
	{false, `a`, `a/**`},
	{true, `a/`, `a/**`},
	{true, `x/y`, `***/y`},
	{true, `y`, `***/y`},
	{false, `a/b`, `a**b`},
	{false, `a/b`, `[[:foo:]]/b`},
	{false, `a`, `[[:foo:]]|a`},
	{true, `ab`, `a[[:alpha:]-z]`},
	{true, `a-`, `a[[:alpha:]-z]`},
	{false, `ab`, `a[z-a]`},
	{true, `é`, `??`},
	{false, `abc`, `a*\`},
	{true, `a*`, `a\*`},
	{true, `[x`, `[[]x`},
	{false, `xfoo`, `**/foo`},
	{true, `x/foo`, `**/foo`},
	{false, `x/foo`, `*foo`},
	{true, `a/b`, `a**/b`},
	{false, `ab`, `a**/b`},
}

func TestWildmatchGitCases(t *testing.T) {
	for _, tc := range append(t3070, extraWild...) {
		if got := Compile(tc.pattern).Match(tc.text); got != tc.match {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tc.pattern, tc.text, got, tc.match)
		}
		if got := Compile(tc.pattern).matchBudget(tc.text, 0); got != tc.match {
			t.Errorf("memoised wildmatch(%q, %q) = %v, want %v", tc.pattern, tc.text, got, tc.match)
		}
		if got, ok := Reference(tc.pattern, tc.text, 1<<20); !ok || got != tc.match {
			t.Errorf("reference wildmatch(%q, %q) = %v (ok %v), want %v", tc.pattern, tc.text, got, ok, tc.match)
		}
	}
}

func TestCompileStar(t *testing.T) {
	tests := []struct {
		pattern string
		want    []op
	}{
		{`**`, []op{opStarStar}},
		{`**/a`, []op{opStarStar, opLit, opLit}},
		{`a/**`, []op{opLit, opLit, opStarStar}},
		{`a/**/b`, []op{opLit, opLit, opStarStar, opLit, opLit}},
		{`a**`, []op{opLit, opStar}},
		{`**a`, []op{opStar, opLit}},
		{`a/**b`, []op{opLit, opLit, opStar, opLit}},
		{`***/a`, []op{opStarStar, opLit, opLit}},
		{`**\/a`, []op{opStarStar, opLit, opLit}},
		{`\**`, []op{opLit, opStar}},
		{`*`, []op{opStar}},
		{`a\`, []op{opLit, opNever}},
		{`a[b`, []op{opLit, opAbort}},
	}
	for _, tc := range tests {
		g := Compile(tc.pattern)
		var got []op
		for _, tk := range g.toks {
			got = append(got, tk.op)
		}
		if !equalOps(got, tc.want) {
			t.Errorf("Compile(%q) ops = %v, want %v", tc.pattern, got, tc.want)
		}
	}
}

func equalOps(a, b []op) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWildmatchPolynomial runs patterns on which a plain backtracking
// search takes exponential time; the memoised fallback must finish fast.
func TestWildmatchPolynomial(t *testing.T) {
	deep := strings.Repeat("x/", 60)
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"a/" + strings.Repeat("**/", 30) + "b", "a/" + deep + "c", false},
		{"a/" + strings.Repeat("**/", 30) + "b", "a/" + deep + "b", true},
		{strings.Repeat("**/*x", 20) + "/y", deep + "z", false},
		{strings.Repeat("*a", 40) + "b", strings.Repeat("a", 200), false},
		{strings.Repeat("**/", 40) + "[!x]", deep + "x", false},
		{"**/" + strings.Repeat("*/**/", 15) + "q", deep + "p", false},
	}
	start := time.Now()
	for _, tc := range tests {
		if got := Compile(tc.pattern).Match(tc.text); got != tc.want {
			t.Errorf("wildmatch(%.40q..., %.40q...) = %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("pathological patterns took %v", d)
	}
}
