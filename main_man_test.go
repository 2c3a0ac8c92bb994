package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/internal/manpage"
)

var update = flag.Bool("update", false, "rewrite internal/manpage/git-loop.1 from the command definitions (go generate runs this)")

// TestManPage fails when the embedded manual page is not what the command definitions make
// now: a changed flag, usage or example must come with `go generate`'s new page.
func TestManPage(t *testing.T) {
	app := newApp(strings.NewReader(""), io.Discard, io.Discard)
	got := manpage.Render(manDoc(app.Usage, commands(io.Discard, io.Discard)))
	path := filepath.Join("internal", "manpage", manpage.FileName)
	if *update {
		if err := os.WriteFile(path, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := manpage.Page(); !bytes.Equal(got, want) {
		gotLines, wantLines := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gotLines), len(wantLines)) {
			if gotLines[i] != wantLines[i] {
				t.Fatalf("%s is not what the command definitions make; run `go generate .`\nline %d is\n\t%s\nand should be\n\t%s",
					path, i+1, wantLines[i], gotLines[i])
			}
		}
		t.Fatalf("%s is not what the command definitions make (%d lines, not %d); run `go generate .`", path, len(wantLines), len(gotLines))
	}
}

// TestManPageExitCodes: the man page lists every exit code main returns, once.
func TestManPageExitCodes(t *testing.T) {
	codes := map[string]bool{}
	for _, it := range exitCodeDocs {
		if codes[it.Tag] {
			t.Errorf("exit code %s is listed twice", it.Tag)
		}
		codes[it.Tag] = true
	}
	for _, code := range []int{exitOK, exitFailure, exitUsage, exitNoLoop, exitConflict, exitUnsupported, exitPaused, exitInterrupted} {
		if !codes[strconv.Itoa(code)] {
			t.Errorf("exit code %d is not in exitCodeDocs", code)
		}
	}
}
