package checks

import (
	"regexp"
	"strings"
)

// maxStmtLines bounds the lines one assertion statement may span.
const maxStmtLines = 20

// stmtAt is the assertion statement that begins at line i: the line and, while its
// parentheses or brackets are open, the lines after it, in canonical form (see canonStmt).
func stmtAt(lang string, lines []string, i int) string {
	var b strings.Builder
	depth := 0
	for j := i; j < len(lines) && j < i+maxStmtLines; j++ {
		line := lines[j]
		if lang == langPython {
			line = strings.TrimSuffix(strings.TrimRight(line, " \t"), "\\")
		}
		b.WriteString(line)
		b.WriteByte('\n')
		depth += openDepth(line)
		if depth <= 0 {
			break
		}
	}
	return canonStmt(lang, b.String())
}

// openDepth is how many more ( and [ than ) and ] a line opens, outside strings.
func openDepth(s string) int {
	d := 0
	outsideStrings(s, func(i int) bool {
		switch s[i] {
		case '(', '[':
			d++
		case ')', ']':
			d--
		}
		return true
	})
	return d
}

// outsideStrings calls f with the index of each byte of s outside its string literals
// ("…", '…', `…`, with backslash escapes), until f returns false.
func outsideStrings(s string, f func(i int) bool) {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case !f(i):
			return
		}
	}
}

// squeeze drops white space outside string literals, and a comma just before a closing
// bracket (a trailing comma a formatter adds or removes).
func squeeze(s string) string {
	var b strings.Builder
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
			b.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case (c == ')' || c == ']' || c == '}') && strings.HasSuffix(b.String(), ","):
			out := strings.TrimSuffix(b.String(), ",")
			b.Reset()
			b.WriteString(out)
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// topLevel splits s at its commas outside brackets and strings.
func topLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	outsideStrings(s, func(i int) bool {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
		return true
	})
	return append(parts, s[start:])
}

// closesLast reports whether the parenthesis s opens at 0 is the one it closes at its end.
func closesLast(s string) bool {
	depth, last := 0, true
	outsideStrings(s, func(i int) bool {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
			if depth == 0 && i != len(s)-1 {
				last = false
			}
		}
		return last
	})
	return last && depth == 0
}

var (
	reGoReport   = regexp.MustCompile(`^(.*\bt\.(?:Errorf|Error|Fatalf|Fatal))\(`)
	reRustAssert = regexp.MustCompile(`^((?:debug_)?assert(?:_eq|_ne)?!)\((.*)\);?$`)
)

// canonStmt is an assertion statement with what does not change what it checks made
// uniform: white space outside strings, a formatter's trailing comma, and the failure
// message (the arguments of Go's t.Errorf and t.Fatalf, Python's `assert X, MSG`, the format
// arguments of Rust's assert macros); Python's parentheses around an assert's condition.
func canonStmt(lang, s string) string {
	if lang == langPython {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s), "assert"); ok && rest != "" && !isWordByte(rest[0]) {
			cond := topLevel(squeeze(rest))[0]
			if strings.HasPrefix(cond, "(") && closesLast(cond) {
				cond = cond[1 : len(cond)-1]
			}
			return "assert " + cond
		}
	}
	s = squeeze(s)
	switch lang {
	case langGo:
		if m := reGoReport.FindStringSubmatch(s); m != nil && closesLast(s[len(m[1]):]) {
			return m[1] + "(…)"
		}
	case langRust:
		if m := reRustAssert.FindStringSubmatch(s); m != nil && closesLast("("+m[2]+")") {
			keep := 1
			if strings.HasSuffix(m[1], "_eq!") || strings.HasSuffix(m[1], "_ne!") {
				keep = 2
			}
			if args := topLevel(m[2]); len(args) > keep {
				return m[1] + "(" + strings.Join(args[:keep], ",") + ")"
			}
			return m[1] + "(" + m[2] + ")"
		}
	}
	return s
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// stmtCounts counts the canonical assertion statements of a file's lines.
func stmtCounts(lang string, lines []string) map[string]int {
	r := rules[lang]
	m := map[string]int{}
	for i, l := range lines {
		if r.assertion.MatchString(l) {
			m[stmtAt(lang, lines, i)]++
		}
	}
	return m
}
