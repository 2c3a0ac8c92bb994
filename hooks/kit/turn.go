package kit

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/loop"
)

// TurnFromLog is what the agent said this turn, from what its session log gave (the turn's
// last text and the id of the line it came from, or why there is none), for Stop.ThisTurn:
// no text (sessionlog.ErrNoText) is "no message this turn"; an unreadable log is said on
// stderr, in one line, and the stop is judged as one without a message; and the text of a
// line the last judged stop read already never counts again.
func TurnFromLog(text, id string, err error, prev *loop.JudgedMessage, stderr io.Writer) (string, bool, *loop.JudgedMessage) {
	switch {
	case errors.Is(err, sessionlog.ErrNoText):
		return "", true, prev
	case err != nil:
		fmt.Fprintf(stderr, "git-loop: no assistant message read (%v); judging the stop as one without a message\n", OneLine(err.Error()))
		return "", true, prev
	case prev != nil && id != "" && id == prev.ID:
		return "", true, prev // judged at an earlier stop
	}
	return text, true, &loop.JudgedMessage{ID: id}
}

// WaitFirst makes the readers of the agent's session log set on s so far (ThisTurn,
// CountTokens, ReadCommands) call wait, once, before the first of them reads: for agents
// that write their log behind the hook, wait is how long the log may take to hold the stop.
// They run only once a loop is found, so a stop where no loop runs never waits.
func (s *Stop) WaitFirst(wait func()) {
	once := sync.OnceFunc(wait)
	if f := s.ThisTurn; f != nil {
		s.ThisTurn = func(prev *loop.JudgedMessage) (string, bool, *loop.JudgedMessage) {
			once()
			return f(prev)
		}
	}
	if f := s.CountTokens; f != nil {
		s.CountTokens = func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
			once()
			return f(prev)
		}
	}
	if f := s.ReadCommands; f != nil {
		s.ReadCommands = func(prev *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
			once()
			return f(prev)
		}
	}
}
