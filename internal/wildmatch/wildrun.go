package wildmatch

import "strings"

// Results of one wildmatch step. They mirror git's dowild return values,
// whose early aborts prune the search, plus wmOverBudget, which stops a
// backtracking search that has grown too long.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll        // no suffix of the text can match: stop every enclosing star
	wmAbortToStarStar // only an enclosing "**" may try further
	wmOverBudget
)

// wildRun is one wildmatch of toks against text. It follows git's dowild
// step by step. Each state (token index, text index) has one result, so
// when the plain search exceeds its budget, match runs it again with memo
// set, which bounds the work by the number of states.
type wildRun struct {
	toks   []token
	rows   []int32 // memo row per token index, see Glob.rows
	text   string
	budget int
	memo   []uint8 // result+1 per state, or nil
	width  int     // len(text)+1, the row length of memo
}

// call matches toks[pi:] against text[ti:].
func (w *wildRun) call(pi, ti int) int {
	if w.memo == nil {
		if w.budget--; w.budget < 0 {
			return wmOverBudget
		}
		return w.run(pi, ti)
	}
	k := int(w.rows[pi])*w.width + ti
	if v := w.memo[k]; v != 0 {
		return int(v) - 1
	}
	r := w.run(pi, ti)
	w.memo[k] = uint8(r + 1)
	return r
}

// run matches tokens one by one until a star, which decides the rest.
func (w *wildRun) run(pi, ti int) int {
	toks, text := w.toks, w.text
	for pi < len(toks) {
		t := &toks[pi]
		if t.op == opStar || t.op == opStarStar {
			r, npi, nti := w.star(pi, ti)
			if npi < 0 {
				return r
			}
			pi, ti = npi, nti
			continue
		}
		if ti == len(text) {
			return wmAbortAll
		}
		if r := t.step(text[ti]); r != wmMatch {
			return r
		}
		pi++
		ti++
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// step matches one byte against a token that is not a star.
func (t *token) step(c byte) int {
	switch t.op {
	case opLit:
		if c != t.c {
			return wmNoMatch
		}
	case opAny:
		if c == '/' {
			return wmNoMatch
		}
	case opClass:
		if !t.set.has(c) {
			return wmNoMatch
		}
	case opNever:
		return wmNoMatch
	case opAbort:
		return wmAbortAll
	}
	return wmMatch
}

// star handles the star at toks[pi]. It returns a final result with
// npi < 0, or the state to continue from when a single star followed by
// '/' has jumped to the next slash.
func (w *wildRun) star(pi, ti int) (r, npi, nti int) {
	toks, text := w.toks, w.text
	cross := toks[pi].op == opStarStar
	next := pi + 1
	if next == len(toks) {
		if !cross && strings.IndexByte(text[ti:], '/') >= 0 {
			return wmNoMatch, -1, 0
		}
		return wmMatch, -1, 0
	}
	nt := &toks[next]
	slashNext := nt.op == opLit && nt.plain && nt.c == '/'
	switch {
	case cross && slashNext:
		// "**/" may match no directory at all.
		if r := w.call(next+1, ti); r == wmMatch || r == wmOverBudget {
			return r, -1, 0
		}
	case slashNext:
		k := strings.IndexByte(text[ti:], '/')
		if k < 0 {
			return wmNoMatch, -1, 0
		}
		return 0, next + 1, ti + k + 1
	}
	return w.starLoop(next, ti, cross), -1, 0
}

// starLoop lets a star absorb text[ti:k] for k = ti, ti+1, ... and matches
// toks[next:] against the rest, with git's shortcuts: it skips ahead to the
// next occurrence of a plain literal that follows the star, and a star that
// cannot cross '/' gives up at the first slash.
func (w *wildRun) starLoop(next, ti int, cross bool) int {
	text := w.text
	nt := &w.toks[next]
	scan := nt.op == opLit && nt.plain
	for ti < len(text) {
		if scan {
			for ti < len(text) && text[ti] != nt.c && (cross || text[ti] != '/') {
				ti++
			}
			if ti == len(text) || text[ti] != nt.c {
				return wmNoMatch
			}
		}
		r := w.call(next, ti)
		if r != wmNoMatch {
			if !cross || r != wmAbortToStarStar {
				return r
			}
		} else if !cross && text[ti] == '/' {
			return wmAbortToStarStar
		}
		ti++
	}
	return wmAbortAll
}
