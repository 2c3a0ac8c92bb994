package ignore

import (
	"bytes"
	"strings"
)

// utf8BOM is the byte-order mark git skips at the start of an ignore file.
const utf8BOM = "\xef\xbb\xbf"

// Parse parses gitignore content. base is the slash-separated directory,
// relative to the worktree root, that the file applies to ("" for the root,
// "a/b" for a/b/.gitignore; "" for .git/info/exclude and core.excludesFile).
//
// Blank lines and comments produce no pattern; every other line produces
// one, in file order, even if it can never match.
func Parse(content []byte, base string) []Pattern {
	content = bytes.TrimPrefix(content, []byte(utf8BOM))
	base = strings.Trim(base, "/")
	if base != "" {
		base += "/"
	}
	var out []Pattern
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		out = append(out, compilePattern(cleanLine(line), base))
	}
	return out
}

// cleanLine turns one raw line into the pattern text git sees: without a
// final "\r", cut at the first NUL (git handles lines as C strings) and
// without unescaped trailing spaces.
func cleanLine(line []byte) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	return string(trimTrailingSpaces(line))
}

// trimTrailingSpaces drops the run of spaces at the end of line unless it
// is preceded by a backslash; a line ending in a lone backslash is kept
// whole, as git does.
func trimTrailingSpaces(line []byte) []byte {
	cut := -1
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			if cut < 0 {
				cut = i
			}
		case '\\':
			i++
			if i == len(line) {
				return line
			}
			cut = -1
		default:
			cut = -1
		}
	}
	if cut >= 0 {
		return line[:cut]
	}
	return line
}
