package kit

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Physical is path with symlinks resolved when it exists, else cleaned: the path an agent
// that resolves symlinks names a folder by.
func Physical(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// Within reports whether path is dir or inside it.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// EnvOr is the environment variable key, or def when it is unset or empty.
func EnvOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// ReadIfExists reads path; a missing file is nil and no error.
func ReadIfExists(path string) ([]byte, error) {
	doc, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return doc, err
}

// SameFile reports whether a and b name the same file (or, when either is missing, the same
// path).
func SameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// ShellCommand turns a command a session log records as a string, or as an argv whose shell
// runs a script (["bash", "-lc", "script"]), into the command line a person would have typed.
func ShellCommand(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}
