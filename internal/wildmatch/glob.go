package wildmatch

// op is the kind of one compiled wildmatch element.
type op uint8

const (
	opLit      op = iota // one literal byte
	opAny                // '?': any byte but '/'
	opClass              // bracket expression
	opStar               // '*' (or a '**' git treats as '*'): stops at '/'
	opStarStar           // '**' next to slashes: crosses '/'
	opNever              // dangling backslash: matches no byte
	opAbort              // malformed bracket expression: fails the whole match
)

// token is one compiled wildmatch element.
type token struct {
	set   *byteSet // opClass only
	op    op
	c     byte // opLit only
	plain bool // opLit written without a backslash: a star may scan ahead for it
}

// Glob is a compiled wildmatch pattern, matched with git's WM_PATHNAME rules.
type Glob struct {
	toks []token
	rows []int32 // per token index (and len(toks)): its row in a memo table, or -1
	nrow int     // number of memo rows

	shape  shape
	tail   string // literal tail for shapeStarLit and shapeDirsLit
	filter filter
}

// Compile compiles a wildmatch pattern. Whether a "**" crosses slashes
// depends on the bytes around it in p, exactly as in git, so p must be the
// whole string git would hand to wildmatch.
func Compile(p string) *Glob {
	var toks []token
	for i := 0; i < len(p); {
		switch p[i] {
		case '\\':
			if i+1 == len(p) {
				return newGlob(append(toks, token{op: opNever}))
			}
			toks = append(toks, token{op: opLit, c: p[i+1]})
			i += 2
		case '?':
			toks = append(toks, token{op: opAny})
			i++
		case '[':
			set, next, ok := parseClass(p, i+1)
			if !ok {
				return newGlob(append(toks, token{op: opAbort}))
			}
			toks = append(toks, token{op: opClass, set: set})
			i = next
		case '*':
			var t token
			t, i = compileStar(p, i)
			toks = append(toks, t)
		default:
			toks = append(toks, token{op: opLit, c: p[i], plain: true})
			i++
		}
	}
	return newGlob(toks)
}

// newGlob numbers the states a memoised match may need: the start and the
// token positions just after each star, where the search branches.
func newGlob(toks []token) *Glob {
	g := &Glob{toks: toks, rows: make([]int32, len(toks)+1)}
	for i := range g.rows {
		g.rows[i] = -1
	}
	mark := func(i int) {
		if i <= len(toks) && g.rows[i] < 0 {
			g.rows[i] = int32(g.nrow)
			g.nrow++
		}
	}
	mark(0)
	for i, t := range toks {
		if t.op == opStar || t.op == opStarStar {
			mark(i + 1)
			mark(i + 2)
		}
	}
	g.analyze()
	return g
}

// compileStar compiles the run of '*' starting at p[i] and returns the
// index after it. A run of two or more is a slash-crossing "**" only at the
// start of p or after '/', and only at the end of p or before '/' or "\/".
func compileStar(p string, i int) (token, int) {
	j := i + 1
	if j == len(p) || p[j] != '*' {
		return token{op: opStar}, j
	}
	for j < len(p) && p[j] == '*' {
		j++
	}
	before := i == 0 || p[i-1] == '/'
	after := j == len(p) || p[j] == '/' || (p[j] == '\\' && j+1 < len(p) && p[j+1] == '/')
	if before && after {
		return token{op: opStarStar}, j
	}
	return token{op: opStar}, j
}

// Match reports whether the whole of text matches g.
func (g *Glob) Match(text string) bool {
	if m, done := g.quick(text); done {
		return m
	}
	return g.matchBudget(text, callBudget(len(g.toks), len(text)))
}

// matchBudget is Match with the plain search limited to budget calls.
func (g *Glob) matchBudget(text string, budget int) bool {
	w := wildRun{toks: g.toks, rows: g.rows, text: text, budget: budget}
	r := w.call(0, 0)
	if r == wmOverBudget {
		w.width = len(text) + 1
		w.memo = make([]uint8, g.nrow*w.width)
		r = w.call(0, 0)
	}
	return r == wmMatch
}

// callBudget is how many recursive calls the plain backtracking search may
// make before match switches to the memoised one: a few times the number of
// distinct states, so the total work stays polynomial.
func callBudget(ntoks, ntext int) int {
	return 64 + 2*(ntoks+1)*(ntext+1)
}

// Wildmatch reports whether text matches pattern as git's wildmatch does with WM_PATHNAME
// ("*" stops at "/", "**" between slashes crosses them), and with WM_CASEFOLD when fold is
// set (ASCII letters only, as git's tolower). git uses it outside gitignore too: includeIf
// conditions in configuration files.
func Wildmatch(pattern, text string, fold bool) bool {
	if fold {
		pattern, text = asciiLower(pattern), asciiLower(text)
	}
	return Compile(pattern).Match(text)
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// FirstBytes reports the bytes a text g matches may begin with: has(c) is false only for a
// byte no match can start with. It is nil when any byte may come first (g starts with a
// star, or matches the empty text).
func (g *Glob) FirstBytes() (has func(c byte) bool) {
	if g.filter.first == nil {
		return nil
	}
	return g.filter.first.has
}

// MatchMemoised is Match by the memoised search alone, with no fast path and no budget: the
// tests of the packages that compile globs compare it with Match.
func (g *Glob) MatchMemoised(text string) bool {
	return g.matchBudget(text, 0)
}
