package textutil

import (
	"regexp"
	"strings"
	"sync"
)

// LazyRegexp compiles a pattern on first use: compiled at start-up, the loop package's
// patterns cost every command (the hook's idle path included) a tenth of a millisecond.
func LazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// LastLines returns at most n final lines of s.
func LastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
