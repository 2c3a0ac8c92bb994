package snapshots

import (
	"bufio"
	"bytes"
	"strings"
)

// asksConversion reports whether .gitattributes content sets any attribute that makes
// `git add` transform content (text, eol, crlf, filter, ident, working-tree-encoding).
// Unset (-text) and macros such as binary do not convert.
func asksConversion(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, attr := range fields[1:] {
			if convertingAttr(attr) {
				return true
			}
		}
	}
	return false
}

func convertingAttr(attr string) bool {
	if strings.HasPrefix(attr, "-") || strings.HasPrefix(attr, "!") {
		return false
	}
	name, _, _ := strings.Cut(attr, "=")
	switch name {
	case "text", "eol", "crlf", "filter", "ident", "working-tree-encoding":
		return true
	}
	return false
}
