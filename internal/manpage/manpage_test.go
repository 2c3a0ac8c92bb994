package manpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderEscapes(t *testing.T) {
	got := string(Render(Doc{
		Name: "git-loop", Section: 1, Source: "git-loop", Manual: "Git Manual", Purpose: "a purpose",
		Description: []string{".starts with a dot, has a \\ backslash, 'quotes' and `code`"},
		Groups: []Group{{Title: "drive", Commands: []Command{{
			Name: "git loop run", Args: "[options] -- AGENT", Summary: "run it",
			Options:  []Option{{Names: []string{"-p", "--prompt"}, Placeholder: "PROMPT", Usage: "the task"}},
			Examples: "git loop run -- aider --message '{prompt}'\n.dot",
		}}}},
	}))
	for _, want := range []string{
		`.TH "GIT\-LOOP" 1 "" "git\-loop" "Git Manual"`,
		"\n.SH NAME\ngit\\-loop \\- a purpose\n",
		"\n\\&.starts with a dot, has a \\e backslash, \\(aqquotes\\(aq and \\fBcode\\fR\n",
		"\n.SS \"drive\"\n.PP\n\\fBgit loop run\\fR [options] \\-\\- AGENT\n.RS 4\nrun it\n",
		"\n.TP\n\\fB\\-p\\fR, \\fB\\-\\-prompt\\fR \\fIPROMPT\\fR\nthe task\n",
		"\n.nf\ngit loop run \\-\\- aider \\-\\-message \\(aq{prompt}\\(aq\n\\&.dot\n.fi\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q:\n%s", want, got)
		}
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_DATA_HOME", "/data")
	if got, _ := DefaultDir(); got != filepath.FromSlash("/data/man/man1") {
		t.Errorf("with XDG_DATA_HOME: %s", got)
	}
	t.Setenv("XDG_DATA_HOME", "relative") // not absolute: ignored
	if got, _ := DefaultDir(); got != filepath.FromSlash("/home/u/.local/share/man/man1") {
		t.Errorf("with a relative XDG_DATA_HOME: %s", got)
	}
}

func TestInstallReplaces(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man", "man1")
	r, err := Install(dir) // creates dir
	if err != nil || r.Unchanged {
		t.Fatalf("first install: %+v, %v", r, err)
	}
	if err := os.WriteFile(r.Path, []byte("old page"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err = Install(dir); err != nil || r.Unchanged {
		t.Fatalf("over an old page: %+v, %v", r, err)
	}
	data, err := os.ReadFile(r.Path)
	if err != nil || string(data) != string(Page()) {
		t.Fatalf("the page was not replaced: %v", err)
	}
	if fi, _ := os.Stat(r.Path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if r, err = Install(dir); err != nil || !r.Unchanged {
		t.Fatalf("again: %+v, %v", r, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in %s, want only %s", len(entries), dir, FileName)
	}
	if r.ManDir != filepath.Dir(dir) {
		t.Errorf("ManDir %s, want %s", r.ManDir, filepath.Dir(dir))
	}
}

func TestBeside(t *testing.T) {
	for bin, want := range map[string]string{
		"/home/u/go/bin":     "/home/u/go/share/man/man1",
		"/home/u/go/bin/":    "/home/u/go/share/man/man1",
		"/home/u/.local/bin": "/home/u/.local/share/man/man1",
		"/usr/local/bin":     "/usr/local/share/man/man1",
	} {
		if got := Beside(filepath.FromSlash(bin)); got != filepath.FromSlash(want) {
			t.Errorf("Beside(%s) = %s, want %s", bin, got, want)
		}
	}
}

// TestEnsure: the page is written beside the executable only when it runs from a directory on
// PATH, only when missing or another version's, and a directory that cannot be written is an
// error that writes nothing.
func TestEnsure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		onPath    bool   // the executable's directory is on PATH
		symlinked bool   // PATH holds a symlink to the executable, in another directory
		existing  string // the page already beside it ("" for none)
		blocked   bool   // share/ is a file: nothing can be written
		wrote     bool
		wantErr   bool
	}{
		{name: "missing", onPath: true, wrote: true},
		{name: "current", onPath: true, existing: string(Page())},
		{name: "another version's", onPath: true, existing: "an old page", wrote: true},
		{name: "not on PATH"},
		{name: "through a symlink on PATH", symlinked: true, wrote: true},
		{name: "cannot be written", onPath: true, blocked: true, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			bin := filepath.Join(root, "tools", "bin")
			exe := filepath.Join(bin, "git-loop")
			writeFile(t, exe, "#!/bin/sh\n")
			pathList := filepath.Join(root, "elsewhere")
			pageDir := Beside(bin)
			switch {
			case tc.onPath:
				pathList = "relative" + string(filepath.ListSeparator) + bin
			case tc.symlinked:
				link := filepath.Join(root, "links", "bin")
				if err := os.MkdirAll(link, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(exe, filepath.Join(link, "git-loop")); err != nil {
					t.Skip("no symlinks here:", err)
				}
				pathList, pageDir = link, Beside(link)
			}
			if tc.existing != "" {
				writeFile(t, filepath.Join(pageDir, FileName), tc.existing)
			}
			if tc.blocked {
				writeFile(t, filepath.Join(root, "tools", "share"), "a file, not a directory")
			}
			r, wrote, err := Ensure(exe, pathList)
			if wrote != tc.wrote || (err != nil) != tc.wantErr {
				t.Fatalf("wrote %v, err %v; want wrote %v, an error %v", wrote, err, tc.wrote, tc.wantErr)
			}
			if !wrote {
				return
			}
			if r.Path != filepath.Join(pageDir, FileName) {
				t.Errorf("wrote %s, want %s", r.Path, filepath.Join(pageDir, FileName))
			}
			if data, err := os.ReadFile(r.Path); err != nil || string(data) != string(Page()) {
				t.Errorf("the page beside it is not this version's: %v", err)
			}
			if _, wrote, err := Ensure(exe, pathList); wrote || err != nil {
				t.Errorf("again: wrote %v, %v", wrote, err)
			}
		})
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}
