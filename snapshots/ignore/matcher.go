package ignore

import "strings"

// Matcher holds pattern lists in increasing precedence. It is immutable and
// safe for concurrent use.
//
// A Matcher is a chain of levels: each With adds a level that is consulted
// before the ones it was built on. Within a level the last matching pattern
// decides; a level where nothing matches defers to the one below. A nil
// *Matcher is valid and excludes nothing.
type Matcher struct {
	parent *Matcher
	set    *patternSet // nil for the empty matcher
}

// NewMatcher returns a matcher over lists given lowest precedence first
// (core.excludesFile, then .git/info/exclude).
func NewMatcher(lists ...[]Pattern) *Matcher {
	m := &Matcher{}
	for _, ps := range lists {
		m = m.With(ps)
	}
	return m
}

// With returns a new matcher whose extra patterns (from a deeper .gitignore)
// take precedence over m's; m is unchanged. It keeps ps without copying it,
// so ps must not be modified afterwards. With(nil) returns m itself.
func (m *Matcher) With(ps []Pattern) *Matcher {
	if len(ps) == 0 {
		if m == nil {
			return &Matcher{}
		}
		return m
	}
	return &Matcher{parent: m, set: newPatternSet(ps)}
}

// Match reports whether path (slash-separated, relative to the worktree
// root, no leading or trailing slash) is excluded by the patterns; isDir
// says whether path is a directory. It does NOT consider whether a parent
// directory is excluded: the walker stops descending into excluded
// directories itself, as git does.
func (m *Matcher) Match(path string, isDir bool) bool {
	name := path[strings.LastIndexByte(path, '/')+1:]
	for ; m != nil; m = m.parent {
		if m.set == nil {
			continue
		}
		if i := m.set.last(path, name, isDir); i >= 0 {
			return !m.set.pats[i].neg
		}
	}
	return false
}
