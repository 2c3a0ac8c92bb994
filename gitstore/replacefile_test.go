package gitstore

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReplaceFile: the file is replaced whole by a rename and no temporary file is left; a
// missing directory is an error naming the file.
func TestReplaceFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.html")
	for _, content := range []string{"first", "second, longer"} {
		if err := ReplaceFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Fatalf("file holds %q, want %q", got, content)
		}
	}
	// A reader of the old file keeps reading it whole: the new one replaces it by a rename,
	// never by rewriting it in place.
	old, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if err := ReplaceFile(path, []byte("third"), 0o644); err != nil {
		t.Fatal(err)
	}
	if kept, _ := io.ReadAll(old); string(kept) != "second, longer" {
		t.Fatalf("the old file was rewritten in place: a reader sees %q", kept)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Fatalf("left behind: %v", es)
	}
	if err := ReplaceFile(filepath.Join(dir, "no", "r.html"), nil, 0o644); err == nil || !strings.Contains(err.Error(), filepath.Join("no", "r.html")) {
		t.Fatalf("missing directory: %v", err)
	}
}

// TestReplaceFileKeepsModeAndLinks: an existing file keeps its permissions, a new one gets
// the given ones; a symlink stays a link and the file it names is written; a dangling link
// is refused and left as it is.
func TestReplaceFileKeepsModeAndLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions and symlinks")
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) // prepares dir/f
		perm     fs.FileMode
		written  string      // the file that must hold the data ("" when refused)
		wantMode fs.FileMode // its mode afterwards
		wantErr  string
	}{
		{"new file", func(*testing.T, string) {}, 0o644, "f", 0o644, ""},
		{"new private file", func(*testing.T, string) {}, 0o600, "f", 0o600, ""},
		{"existing 0600 kept", func(t *testing.T, dir string) { writeWithMode(t, filepath.Join(dir, "f"), 0o600) }, 0o644, "f", 0o600, ""},
		{"existing 0755 kept", func(t *testing.T, dir string) { writeWithMode(t, filepath.Join(dir, "f"), 0o755) }, 0o644, "f", 0o755, ""},
		{"symlink followed", func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "real"), 0o755)
			writeWithMode(t, filepath.Join(dir, "real", "target"), 0o640)
			symlinkOrSkip(t, filepath.Join("real", "target"), filepath.Join(dir, "f"))
		}, 0o644, filepath.Join("real", "target"), 0o640, ""},
		{"dangling symlink", func(t *testing.T, dir string) { symlinkOrSkip(t, filepath.Join("gone", "x"), filepath.Join(dir, "f")) }, 0o644, "", 0, "is a symlink to a file that cannot be reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.setup(t, dir)
			before, _ := os.Lstat(filepath.Join(dir, "f"))
			err := ReplaceFile(filepath.Join(dir, "f"), []byte("new content"), tt.perm)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if after, _ := os.Lstat(filepath.Join(dir, "f")); before != nil && after.Mode().Type() != before.Mode().Type() {
				t.Fatalf("f was %v, is %v now", before.Mode().Type(), after.Mode().Type())
			}
			if tt.written == "" {
				return
			}
			got := filepath.Join(dir, tt.written)
			if data, _ := os.ReadFile(got); string(data) != "new content" {
				t.Fatalf("%s holds %q", tt.written, data)
			}
			if fi, _ := os.Stat(got); fi.Mode().Perm() != tt.wantMode {
				t.Fatalf("%s has mode %v, want %v", tt.written, fi.Mode().Perm(), tt.wantMode)
			}
		})
	}
}

func writeWithMode(t *testing.T, path string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old"), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func symlinkOrSkip(t *testing.T, target, path string) {
	t.Helper()
	if err := os.Symlink(target, path); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}
