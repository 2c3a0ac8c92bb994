package wildmatch

import "strings"

// This file holds a second, deliberately naive implementation of git's wildmatch: it works
// on the raw pattern bytes the way git's C code does (NUL-terminated strings, pointer
// steps), with no compilation and no fast paths. The tests of this package and of the
// gitignore matcher (snapshots/ignore) compare the real implementation against it; nothing
// else calls it.

const refOverBudget = -3

// refAt returns s[i], or NUL past the end.
func refAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// Reference wildmatches pattern against text in pathname mode, naively, as the oracle of
// tests. ok is false when the search needed more than budget steps.
func Reference(pattern, text string, budget int) (matched, ok bool) {
	r := refDowild(pattern, 0, text, 0, &budget)
	return r == wmMatch, r != refOverBudget
}

func refDowild(p string, pi int, t string, ti int, budget *int) int {
	if *budget--; *budget < 0 {
		return refOverBudget
	}
	for ; refAt(p, pi) != 0; pi, ti = pi+1, ti+1 {
		pc, tc := refAt(p, pi), refAt(t, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			pi++
			if tc != refAt(p, pi) {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '[':
			r, npi := refClass(p, pi+1, tc)
			if r != wmMatch {
				return r
			}
			pi = npi
		case '*':
			r, npi, nti, cont := refStar(p, pi, t, ti, budget)
			if !cont {
				return r
			}
			pi, ti = npi, nti
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if refAt(t, ti) != 0 {
		return wmNoMatch
	}
	return wmMatch
}

// refStar handles the '*' at p[pi]. cont says the caller's loop goes on
// at (npi, nti) (the "*/" jump); otherwise r is the result.
func refStar(p string, pi int, t string, ti int, budget *int) (r, npi, nti int, cont bool) {
	start := pi
	pi++
	slash := false
	if refAt(p, pi) == '*' {
		for refAt(p, pi) == '*' {
			pi++
		}
		prevOK := start == 0 || p[start-1] == '/'
		nextOK := refAt(p, pi) == 0 || refAt(p, pi) == '/' || (refAt(p, pi) == '\\' && refAt(p, pi+1) == '/')
		if prevOK && nextOK {
			if refAt(p, pi) == '/' {
				if r := refDowild(p, pi+1, t, ti, budget); r == wmMatch || r == refOverBudget {
					return r, 0, 0, false
				}
			}
			slash = true
		}
	}
	if refAt(p, pi) == 0 {
		if !slash && strings.IndexByte(t[ti:], '/') >= 0 {
			return wmNoMatch, 0, 0, false
		}
		return wmMatch, 0, 0, false
	}
	if !slash && refAt(p, pi) == '/' {
		k := strings.IndexByte(t[ti:], '/')
		if k < 0 {
			return wmNoMatch, 0, 0, false
		}
		return 0, pi, ti + k, true
	}
	return refStarLoop(p, pi, t, ti, slash, budget), 0, 0, false
}

func refStarLoop(p string, pi int, t string, ti int, slash bool, budget *int) int {
	tc := refAt(t, ti)
	for tc != 0 {
		if pc := refAt(p, pi); !strings.ContainsRune(`*?[\`, rune(pc)) {
			for tc = refAt(t, ti); tc != 0 && (slash || tc != '/'); tc = refAt(t, ti) {
				if tc == pc {
					break
				}
				ti++
			}
			if tc != pc {
				return wmNoMatch
			}
		}
		r := refDowild(p, pi, t, ti, budget)
		if r != wmNoMatch {
			if !slash || r != wmAbortToStarStar {
				return r
			}
		} else if !slash && tc == '/' {
			return wmAbortToStarStar
		}
		ti++
		tc = refAt(t, ti)
	}
	return wmAbortAll
}

// refClass evaluates the bracket expression whose body starts at p[pi]
// against tc and returns wmMatch and the index of the closing ']'.
func refClass(p string, pi int, tc byte) (int, int) {
	pc := refAt(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = refAt(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pc == 0 {
			return wmAbortAll, 0
		}
		if pc == '\\' {
			pi++
			if pc = refAt(p, pi); pc == 0 {
				return wmAbortAll, 0
			}
			matched = matched || tc == pc
		} else if pc == '-' && prev != 0 && refAt(p, pi+1) != 0 && refAt(p, pi+1) != ']' {
			pi++
			pc = refAt(p, pi)
			if pc == '\\' {
				pi++
				if pc = refAt(p, pi); pc == 0 {
					return wmAbortAll, 0
				}
			}
			matched = matched || (tc <= pc && tc >= prev)
			pc = 0
		} else if pc == '[' && refAt(p, pi+1) == ':' {
			pi += 2
			s := pi
			for refAt(p, pi) != 0 && refAt(p, pi) != ']' {
				pi++
			}
			if refAt(p, pi) == 0 {
				return wmAbortAll, 0
			}
			n := pi - s - 1
			if n < 0 || p[pi-1] != ':' {
				pi = s - 2
				pc = '['
				matched = matched || tc == '['
			} else {
				in, known := refNamed(p[s:s+n], tc)
				if !known {
					return wmAbortAll, 0
				}
				matched = matched || in
				pc = 0
			}
		} else {
			matched = matched || tc == pc
		}
		prev = pc
		pi++
		if pc = refAt(p, pi); pc == ']' {
			break
		}
	}
	if matched == negated || tc == '/' {
		return wmNoMatch, 0
	}
	return wmMatch, pi
}

// refNamed evaluates a [:name:] class with git's ctype, spelled out
// independently of the classes table.
func refNamed(name string, c byte) (in, known bool) {
	const (
		lower = "abcdefghijklmnopqrstuvwxyz"
		upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		digit = "0123456789"
		punct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	)
	has := func(set string) bool { return c != 0 && strings.IndexByte(set, c) >= 0 }
	switch name {
	case "alnum":
		return has(lower + upper + digit), true
	case "alpha":
		return has(lower + upper), true
	case "blank":
		return has(" \t"), true
	case "cntrl":
		return c < 32 || c == 127, true
	case "digit":
		return has(digit), true
	case "graph":
		return has(lower + upper + digit + punct), true
	case "lower":
		return has(lower), true
	case "print":
		return has(lower + upper + digit + punct + " "), true
	case "punct":
		return has(punct), true
	case "space":
		return has(" \t\n\r"), true
	case "upper":
		return has(upper), true
	case "xdigit":
		return has(digit + "abcdefABCDEF"), true
	}
	return false, false
}
