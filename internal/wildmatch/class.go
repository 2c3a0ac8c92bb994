package wildmatch

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func (s *byteSet) add(c byte) { s[c>>6] |= 1 << (c & 63) }

func (s *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

// patternAt returns p[i], or NUL past the end, as git's C strings do.
func patternAt(p string, i int) byte {
	if i < len(p) {
		return p[i]
	}
	return 0
}

// parseClass compiles the bracket expression whose body starts at p[i]
// (just after '['), following git's wildmatch byte by byte. It returns the
// set of bytes the expression matches, never including '/', and the index
// after the closing ']'. ok is false when git would abort the match: the
// expression is unterminated, ends in a backslash, or names an unknown
// [:class:].
func parseClass(p string, i int) (set *byteSet, next int, ok bool) {
	set = new(byteSet)
	c := patternAt(p, i)
	negated := c == '!' || c == '^'
	if negated {
		i++
		c = patternAt(p, i)
	}
	var prev byte
	for {
		if c == 0 {
			return nil, 0, false
		}
		if i, c, ok = classMember(p, i, c, prev, set); !ok {
			return nil, 0, false
		}
		prev = c
		i++
		if c = patternAt(p, i); c == ']' {
			break
		}
	}
	if negated {
		for k := range set {
			set[k] = ^set[k]
		}
	}
	set[0] &^= 1 << '/'
	return set, i + 1, true
}

// classMember adds the member of a bracket expression that starts with
// c = p[i] to set: an escaped byte, a range, a [:class:] or a plain byte.
// It returns the index of the member's last byte and the byte a following
// '-' may start a range from (0 after a range or a class).
func classMember(p string, i int, c, prev byte, set *byteSet) (int, byte, bool) {
	switch {
	case c == '\\':
		i++
		if c = patternAt(p, i); c == 0 {
			return 0, 0, false
		}
	case c == '-' && prev != 0 && patternAt(p, i+1) != 0 && patternAt(p, i+1) != ']':
		i, ok := classRange(p, i, prev, set)
		return i, 0, ok
	case c == '[' && patternAt(p, i+1) == ':':
		return namedClass(p, i, set)
	}
	set.add(c)
	return i, c, true
}

// classRange adds the range prev-hi where p[i] is the '-' and hi follows,
// possibly escaped. It returns the index of hi.
func classRange(p string, i int, prev byte, set *byteSet) (int, bool) {
	i++
	hi := patternAt(p, i)
	if hi == '\\' {
		i++
		if hi = patternAt(p, i); hi == 0 {
			return 0, false
		}
	}
	if prev <= hi {
		set.addRange(prev, hi)
	}
	return i, true
}

// namedClass handles "[:" at p[i]. If a ":]" closes it before the next ']',
// it adds the named class and returns the index of that ']' and 0 as the
// byte that ranges may start from; otherwise the '[' is an ordinary member
// and it returns i and '['.
func namedClass(p string, i int, set *byteSet) (int, byte, bool) {
	s := i + 2
	j := s
	for j < len(p) && p[j] != ']' {
		j++
	}
	if j == len(p) {
		return 0, 0, false
	}
	if j-s-1 < 0 || p[j-1] != ':' {
		set.add('[')
		return i, '[', true
	}
	pred := classes[p[s:j-1]]
	if pred == nil {
		return 0, 0, false
	}
	for c := 0; c < 128; c++ {
		if pred(byte(c)) {
			set.add(byte(c))
		}
	}
	return j, 0, true
}

// classes are the POSIX classes with git's locale-independent ctype, which
// differs from C's in that [:space:] is only " \t\n\r". Only ASCII bytes
// ever belong to a class.
var classes = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return 'a' <= c && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' },
	"upper":  func(c byte) bool { return 'A' <= c && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') },
}

func isAlpha(c byte) bool { return ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
