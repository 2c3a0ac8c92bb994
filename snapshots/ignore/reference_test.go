package ignore

import (
	"strings"

	"github.com/git-loop/git-loop/internal/wildmatch"
)

// This file holds a second, deliberately naive implementation of git's
// gitignore matching: it works on the raw lines the way git's C code does,
// with no compilation, no index and no fast paths, and wildmatches with
// wildmatch.Reference. Tests compare the real implementation against it.

// refLines splits ignore-file content into pattern lines as git's
// add_patterns_from_buffer does.
func refLines(content string) []string {
	content = strings.TrimPrefix(content, "\xef\xbb\xbf") + "\n"
	var out []string
	entry := 0
	for i := 0; i < len(content); i++ {
		if content[i] != '\n' {
			continue
		}
		if entry != i && content[entry] != '#' {
			end := i
			if i > 0 && content[i-1] == '\r' {
				end = i - 1
			}
			line := content[entry:end]
			if k := strings.IndexByte(line, 0); k >= 0 {
				line = line[:k]
			}
			out = append(out, string(trimTrailingSpaces([]byte(line))))
		}
		entry = i + 1
	}
	return out
}

// refLineMatch reports whether one pattern line from a file in base ("" or
// "dir/") matches path, as git's match_basename and match_pathname do; the
// second result says whether the pattern line is negated. ok is false when
// the wildmatch search ran out of budget.
func refLineMatch(line, base, path string, isDir bool, budget int) (matched, neg, ok bool) {
	p := line
	if strings.HasPrefix(p, "!") {
		neg, p = true, p[1:]
	}
	if strings.HasSuffix(p, "/") {
		if !isDir {
			return false, neg, true
		}
		p = p[:len(p)-1]
	}
	if !(len(path) > len(base) && strings.HasPrefix(path, base)) {
		return false, neg, true
	}
	nowild := len(p)
	if k := strings.IndexAny(p, `*?[\`); k >= 0 {
		nowild = k
	}
	if !strings.Contains(p, "/") {
		name := path[strings.LastIndexByte(path, '/')+1:]
		switch {
		case nowild == len(p):
			return p == name, neg, true
		case p[0] == '*' && !strings.ContainsAny(p[1:], `*?[\`):
			return strings.HasSuffix(name, p[1:]), neg, true
		}
		m, ok := wildmatch.Reference(p, name, budget)
		return m, neg, ok
	}
	if p[0] == '/' {
		p, nowild = p[1:], nowild-1
	}
	rel := path[len(base):]
	if nowild > 0 {
		if nowild > len(rel) || rel[:nowild] != p[:nowild] {
			return false, neg, true
		}
		p, rel = p[nowild:], rel[nowild:]
		if p == "" && rel == "" {
			return true, neg, true
		}
	}
	m, ok := wildmatch.Reference(p, rel, budget)
	return m, neg, ok
}
