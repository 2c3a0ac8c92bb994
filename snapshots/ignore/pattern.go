package ignore

import (
	"strings"

	"github.com/git-loop/git-loop/internal/wildmatch"
)

// kind says how a compiled pattern is matched.
type kind uint8

const (
	kindName     kind = iota // base name equals lit
	kindSuffix               // base name ends with lit ("*.o")
	kindNameGlob             // base name starts with lit and the rest wildmatches glob
	kindPath                 // path below base equals lit
	kindPathGlob             // path below base starts with lit and the rest wildmatches glob
)

// Pattern is one parsed gitignore line.
type Pattern struct {
	src     string          // the line as git sees it, after trimming
	base    string          // directory the pattern applies to: "" or "a/b/"
	lit     string          // literal part, see kind
	glob    *wildmatch.Glob // wildcard part after lit, or nil
	kind    kind
	neg     bool // "!pattern": re-includes
	dirOnly bool // "pattern/": matches directories only
}

// compilePattern compiles one cleaned line; base is "" or ends with "/".
// It follows git's parse_path_pattern, match_basename and match_pathname.
func compilePattern(line, base string) Pattern {
	p := Pattern{src: line, base: base}
	body := line
	if strings.HasPrefix(body, "!") {
		p.neg = true
		body = body[1:]
	}
	if strings.HasSuffix(body, "/") {
		p.dirOnly = true
		body = body[:len(body)-1]
	}
	if strings.IndexByte(body, '/') < 0 {
		p.compileName(body)
	} else {
		p.compilePath(body)
	}
	return p
}

// compileName compiles a pattern without a slash, matched against base names.
func (p *Pattern) compileName(body string) {
	n := literalLen(body)
	switch {
	case n == len(body):
		p.kind, p.lit = kindName, body
	case body[0] == '*' && literalLen(body[1:]) == len(body)-1:
		p.kind, p.lit = kindSuffix, body[1:]
	default:
		// A base name holds no slash and neither does the pattern, so
		// splitting off the literal prefix cannot change the result.
		p.kind, p.lit, p.glob = kindNameGlob, body[:n], wildmatch.Compile(body[n:])
	}
}

// compilePath compiles a pattern with a slash, anchored at the base. Like
// git, it drops one leading slash and wildmatches only what follows the
// literal prefix, starting a new wildmatch pattern there.
func (p *Pattern) compilePath(body string) {
	body = strings.TrimPrefix(body, "/")
	n := literalLen(body)
	p.lit = body[:n]
	if n == len(body) {
		p.kind = kindPath
		return
	}
	p.kind, p.glob = kindPathGlob, wildmatch.Compile(body[n:])
}

// literalLen is the length of the prefix of s free of '*', '?', '[' and '\\'
// (git's simple_length).
func literalLen(s string) int {
	if i := strings.IndexAny(s, `*?[\`); i >= 0 {
		return i
	}
	return len(s)
}

// matches reports whether p matches path, whose base name is name. The
// caller has checked that path lies below p.base.
func (p *Pattern) matches(path, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	switch p.kind {
	case kindName:
		return name == p.lit
	case kindSuffix:
		return strings.HasSuffix(name, p.lit)
	case kindNameGlob:
		return strings.HasPrefix(name, p.lit) && p.glob.Match(name[len(p.lit):])
	}
	rel := path[len(p.base):]
	if p.kind == kindPath {
		return rel == p.lit
	}
	return strings.HasPrefix(rel, p.lit) && p.glob.Match(rel[len(p.lit):])
}

// under reports whether path lies strictly below base ("" or "dir/").
func under(path, base string) bool {
	return len(path) > len(base) && path[:len(base)] == base
}
