package wildmatch

import "strings"

// shape is a glob form that Match can decide without the general search.
type shape uint8

const (
	shapeGeneric shape = iota
	shapeAll           // "**": anything
	shapeStar          // "*": anything without '/'
	shapeStarLit       // "*" then literal tail: ends with tail, no '/' before it
	shapeDirsLit       // "**/" then literal tail: tail, or ends with "/"+tail
)

// filter holds necessary conditions for a generic glob to match, so that
// most texts are rejected without a search.
type filter struct {
	minLen int      // fewest bytes a match consumes
	first  *byteSet // possible first bytes, nil for any
	last   *byteSet // possible last bytes, nil for any
	need   string   // a literal every match contains
}

// analyze fills in g's shape, tail and filter.
func (g *Glob) analyze() {
	toks := g.toks
	lits, ok := literalRun(toks[min(1, len(toks)):])
	switch {
	case len(toks) == 1 && toks[0].op == opStarStar:
		g.shape = shapeAll
	case len(toks) == 1 && toks[0].op == opStar:
		g.shape = shapeStar
	case len(toks) > 1 && toks[0].op == opStar && ok && !isPlainSlash(toks[1]):
		g.shape, g.tail = shapeStarLit, lits
	case len(toks) > 2 && toks[0].op == opStarStar && isPlainSlash(toks[1]):
		if tail, ok := literalRun(toks[2:]); ok {
			g.shape, g.tail = shapeDirsLit, tail
		}
	}
	g.filter = newFilter(toks)
}

// literalRun returns the bytes of toks if they are all literals.
func literalRun(toks []token) (string, bool) {
	b := make([]byte, 0, len(toks))
	for _, t := range toks {
		if t.op != opLit {
			return "", false
		}
		b = append(b, t.c)
	}
	return string(b), true
}

func isPlainSlash(t token) bool { return t.op == opLit && t.plain && t.c == '/' }

func isStar(t token) bool { return t.op == opStar || t.op == opStarStar }

// skippable reports whether toks[i] may consume no byte: a star, or the
// '/' after a "**", which git lets match zero directories.
func skippable(toks []token, i int) bool {
	return isStar(toks[i]) || (i > 0 && toks[i-1].op == opStarStar && toks[i].op == opLit && toks[i].c == '/')
}

func newFilter(toks []token) filter {
	var f filter
	run := 0
	for i, t := range toks {
		if skippable(toks, i) {
			run = 0
			continue
		}
		f.minLen++
		if t.op != opLit {
			run = 0
			continue
		}
		if run++; run > len(f.need) {
			f.need = literalString(toks[i-run+1 : i+1])
		}
	}
	if len(toks) > 0 && !skippable(toks, 0) {
		f.first = firstBytes(toks[0])
	}
	if n := len(toks) - 1; n >= 0 && !skippable(toks, n) {
		f.last = firstBytes(toks[n])
	}
	return f
}

func literalString(toks []token) string {
	s, _ := literalRun(toks)
	return s
}

// firstBytes is the set of bytes a non-star token can consume.
func firstBytes(t token) *byteSet {
	s := new(byteSet)
	switch t.op {
	case opLit:
		s.add(t.c)
	case opClass:
		*s = *t.set
	case opAny:
		for c := range 256 {
			if c != '/' {
				s.add(byte(c))
			}
		}
	}
	return s
}

// quick decides the shapes and applies the filter: it returns the result
// and true when that settles the match.
func (g *Glob) quick(text string) (matched, done bool) {
	switch g.shape {
	case shapeAll:
		return true, true
	case shapeStar:
		return strings.IndexByte(text, '/') < 0, true
	case shapeStarLit:
		n := len(text) - len(g.tail)
		return n >= 0 && text[n:] == g.tail && strings.IndexByte(text[:n], '/') < 0, true
	case shapeDirsLit:
		n := len(text) - len(g.tail)
		return n >= 0 && text[n:] == g.tail && (n == 0 || text[n-1] == '/'), true
	}
	f := &g.filter
	if len(text) < f.minLen {
		return false, true
	}
	if len(text) > 0 && ((f.first != nil && !f.first.has(text[0])) || (f.last != nil && !f.last.has(text[len(text)-1]))) {
		return false, true
	}
	if f.need != "" && !strings.Contains(text, f.need) {
		return false, true
	}
	return false, false
}
