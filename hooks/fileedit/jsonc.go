package fileedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
)

// StripJSONComments blanks out // and /* */ comments outside strings, keeping every other
// byte (newlines included) where it was. Gemini CLI reads its settings and trusted folders
// this way, and Copilot CLI writes comments into its config.json.
func StripJSONComments(doc []byte) []byte {
	out := bytes.Clone(doc)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case bytes.HasPrefix(out[i:], []byte("//")):
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case bytes.HasPrefix(out[i:], []byte("/*")):
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// ReadJSONC decodes the JSON-with-comments file at path into v; a missing file leaves v
// as it is and is not an error.
func ReadJSONC(path string, v any) (found bool, err error) {
	doc, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	doc = bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf"))
	return true, json.Unmarshal(StripJSONComments(doc), v)
}
