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
