package report

import (
	"context"
	"testing"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/internal/looptest"
)

// startReported starts loop g in a new repository, gated on fixed.txt, with the store
// recording this package's report at the end.
func startReported(t *testing.T, session string) (*loop.Store, string) {
	t.Helper()
	dir := looptest.NewRepo(t)
	s, err := loop.OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.ReportFiles = Files
	_, err = s.Start(loop.StartOptions{Name: "g", Session: session, Flags: loop.Settings{
		Prompt: "create fixed.txt", Promises: []string{"DONE"},
		Gates: []gates.Gate{{Name: "fixed", Run: "test -f fixed.txt || { echo fixed.txt is missing; exit 1; }"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

// stopReported is a stop of loop g whose message is known.
func stopReported(t *testing.T, s *loop.Store, in loop.StopInput) *loop.StopResult {
	t.Helper()
	in.MessageKnown = true
	r, err := s.Stop(context.Background(), "g", in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
