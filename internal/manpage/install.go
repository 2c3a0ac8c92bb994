package manpage

import (
	"bytes"
	_ "embed" // the page
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// FileName is the page's file name, for section 1.
const FileName = "git-loop.1"

// page is the manual page, generated from the command definitions by `go generate` (and kept
// so by main's TestManPage): the binary only copies it, it never renders it.
//
//go:embed git-loop.1
var page []byte

// Page is the manual page as roff.
func Page() []byte { return page }

// DefaultDir is where the page goes when no directory is given: $XDG_DATA_HOME/man/man1, else
// ~/.local/share/man/man1 (a relative $XDG_DATA_HOME is ignored, as the XDG spec says).
func DefaultDir() (string, error) {
	if data := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(data) {
		return filepath.Join(data, "man", "man1"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("manpage: no home directory to install the manual page in (%v); give one with --dir", err)
	}
	return filepath.Join(home, ".local", "share", "man", "man1"), nil
}

// Beside is the man1 directory that man-db searches by itself for an executable in binDir,
// a directory on PATH: binDir/../share/man/man1. man-db adds DIR/../share/man (and
// DIR/../man) to its search path for every DIR on PATH, so a page there needs no MANPATH: after
// `go install`, $(go env GOPATH)/share/man/man1.
func Beside(binDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(binDir)), "share", "man", "man1")
}

// PathDir is the directory on PATH (the list pathList) from which the executable exe runs as
// git-loop: the first absolute entry whose git-loop is the file exe (a symlink to it counts);
// "" when none is, as under `go run`, whose executable no PATH lookup finds.
func PathDir(exe, pathList string) string {
	self, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue // man-db ignores relative entries too
		}
		if fi, err := os.Stat(filepath.Join(dir, "git-loop")); err == nil && os.SameFile(fi, self) {
			return dir
		}
	}
	return ""
}

// current reports whether path holds this version's page, as far as one stat tells: a file
// of the page's size (the page of another version is another size but for a rare edit that
// keeps it, which `git loop install man` then rewrites).
func current(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(page))
}

// Ensure writes the page beside the executable exe (Beside its PathDir) when it is missing
// there or another version's, so that `git loop --help` works after an install with no
// MANPATH edit. It costs one stat when exe's own directory already holds the page; it writes
// nothing when exe runs from no directory on PATH (pathList). wrote reports whether it wrote;
// err is a directory that cannot be written, which the caller may ignore.
func Ensure(exe, pathList string) (r Result, wrote bool, err error) {
	own := filepath.Join(Beside(filepath.Dir(exe)), FileName)
	if current(own) {
		return Result{}, false, nil
	}
	dir := PathDir(exe, pathList)
	if dir == "" {
		return Result{}, false, nil
	}
	if path := filepath.Join(Beside(dir), FileName); path != own && current(path) {
		return Result{}, false, nil
	}
	if r, err = Install(Beside(dir)); err != nil {
		return r, false, err
	}
	return r, !r.Unchanged, nil
}

// Brief is the one line that says a page Ensure wrote: where, and whether man finds it.
func (r Result) Brief() string {
	if r.Found == FoundYes {
		return fmt.Sprintf("wrote the manual page to %s, where man finds it by itself: `git loop --help` shows it\n", r.Path)
	}
	return fmt.Sprintf("wrote the manual page to %s; `git loop install man` says how man can find it\n", r.Path)
}

// Found says whether man searches the directory the page was written to.
type Found int

// What man's search path says about the page's directory.
const (
	FoundUnknown Found = iota // man is not installed, or did not say its search path
	FoundYes
	FoundNo
	FoundNotSection // the directory is not a man1 directory, which man needs
)

// Result is what Install did.
type Result struct {
	Path      string // the page's file
	ManDir    string // the man directory holding its man1 directory, for MANPATH
	Unchanged bool   // the file was already this page
	Found     Found
	// ManDBHint: the page went to ~/.local/share/man, which man-db searches by itself once
	// ~/.local/bin is on PATH.
	ManDBHint bool
}

// String is the result as lines for a person: where the page is and how man finds it.
func (r Result) String() string {
	var b strings.Builder
	if r.Unchanged {
		fmt.Fprintf(&b, "the manual page at %s is up to date\n", r.Path)
	} else {
		fmt.Fprintf(&b, "wrote the manual page to %s\n", r.Path)
	}
	switch r.Found {
	case FoundYes:
		b.WriteString("man finds it there by itself, no MANPATH edit needed: `man git-loop`, `git help loop` and `git loop --help` show it\n")
	case FoundNo:
		fmt.Fprintf(&b, "man does not search %s yet; for `man git-loop` and `git loop --help`, add it to MANPATH\n"+
			"(say in ~/.profile; with MANPATH unset, the colon left at its end keeps man's own directories):\n"+
			"    export MANPATH=\"%s:$MANPATH\"\n", r.ManDir, r.ManDir)
		if r.ManDBHint {
			b.WriteString("or put ~/.local/bin on PATH: man-db (as on Debian and Ubuntu) then searches ~/.local/share/man by itself\n")
		}
	case FoundNotSection:
		fmt.Fprintf(&b, "man looks for git-loop.1 in a man1 directory, which %s is not: read it with `man -l %s`\n", filepath.Dir(r.Path), r.Path)
	default:
		fmt.Fprintf(&b, "man is not installed here (or does not say where it searches); `man -l %s` reads the page where it is\n", r.Path)
	}
	return b.String()
}

// Install writes the page into dir (created if missing) as git-loop.1, replacing an older
// one atomically, and asks man (`man -w`) whether it searches there.
func Install(dir string) (Result, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Result{}, fmt.Errorf("manpage: %w", err)
	}
	r := Result{Path: filepath.Join(dir, FileName), ManDir: filepath.Dir(dir)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r, fmt.Errorf("manpage: create %s: %w", dir, err)
	}
	if old, err := os.ReadFile(r.Path); err == nil && bytes.Equal(old, page) {
		r.Unchanged = true
	} else if err := replaceFile(r.Path, page); err != nil {
		return r, err
	}
	if home, err := os.UserHomeDir(); err == nil && samePath(r.ManDir, filepath.Join(home, ".local", "share", "man")) {
		r.ManDBHint = true
	}
	switch {
	case filepath.Base(dir) != "man1":
		r.Found = FoundNotSection
	default:
		r.Found = searched(r.ManDir)
	}
	return r, nil
}

// replaceFile writes data to path through a temporary file in the same directory, renamed
// over path, so a reader never sees half a page.
func replaceFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+FileName+".*")
	if err != nil {
		return fmt.Errorf("manpage: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("manpage: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("manpage: %w", err)
	}
	return nil
}

// searched asks man for its search path (`man -w` with no page prints it, for man-db and
// mandoc alike) and looks for manDir in it.
func searched(manDir string) Found {
	out, err := exec.Command("man", "-w").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return FoundUnknown
	}
	for _, d := range filepath.SplitList(strings.TrimSpace(string(out))) {
		if samePath(d, manDir) {
			return FoundYes
		}
	}
	return FoundNo
}

// samePath reports whether a and b name the same directory, symlinks resolved.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
