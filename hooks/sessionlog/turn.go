package sessionlog

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"
)

// ErrNoText is returned (wrapped, naming the log, by the agents' readers) when the last turn
// holds no assistant text: the log is empty, holds only bookkeeping lines, or ends with a line
// that ends the turn (a prompt, an interrupt).
var ErrNoText = errors.New("hooks: no assistant text in the transcript's last turn")

// Verdict is what one log line means to the search for the last assistant text.
type Verdict uint8

const (
	Skip     Verdict = iota // not part of the conversation, or part of the turn without text
	Text                    // an assistant line with text: the answer
	EndsTurn                // a real user message: the turn starts after it
)

// Classifier reads one line of an agent's log for the search of its last turn's text:
// the text and id of an answer, or whether the line ends the turn.
type Classifier func(line []byte) (text, id string, v Verdict)

// LastTurnText walks the first size bytes of r backwards and returns the text of the first
// line classify finds one in, or ErrNoText at a line that ends the turn or at the
// start.
func LastTurnText(r io.ReaderAt, size int64, lim Limits, classify Classifier) (text, id string, err error) {
	br := NewBackReader(r, size, lim)
	for {
		line, err := br.Prev()
		if err == io.EOF {
			return "", "", ErrNoText
		}
		if err != nil {
			return "", "", err
		}
		text, id, v := classify(line)
		switch v {
		case Text:
			return text, id, nil
		case EndsTurn:
			return "", "", ErrNoText
		}
	}
}

// TurnText opens the log at path and reads its last turn's text backwards, each line
// classified by classify (one agent's log format): the text and the id classify gave it.
// Errors name path: ErrNoText (wrapped) when the turn holds none, and any error opening or
// reading the file.
func TurnText(path string, classify Classifier) (text, id string, err error) {
	f, size, err := Open(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	text, id, err = LastTurnText(f, size, DefaultLimits, classify)
	switch {
	case errors.Is(err, ErrNoText):
		return "", "", fmt.Errorf("%w: %s", ErrNoText, path)
	case err != nil:
		return "", "", ReadError(path, err)
	}
	return text, id, nil
}

// AwaitText waits, at most until wait has passed, until the last turn of the log at path
// (each line classified by classify) holds answer as its text, white space aside, polling
// every 50 ms: for agents whose payload gives the answer before their log has it, so that
// what is read of the log counts the turn that answer ended. It returns at once when answer
// is blank, and when the log cannot be read for any reason but not holding text yet.
func AwaitText(path, answer string, classify Classifier, wait time.Duration) {
	want := strings.TrimSpace(answer)
	if want == "" {
		return
	}
	deadline := time.Now().Add(wait)
	for {
		text, _, err := TurnText(path, classify)
		switch {
		case err == nil && strings.TrimSpace(text) == want:
			return
		case err != nil && !errors.Is(err, ErrNoText) && !errors.Is(err, fs.ErrNotExist): // unreadable: read what there is
			return
		case time.Now().After(deadline):
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Poll calls ready until it reports true, at most tries times, calling sleep between calls,
// and reports whether it did: the bounded wait of the agents whose log falls behind their
// hook, with the clock left to the caller (tests count the looks instead of waiting).
func Poll(tries int, sleep func(), ready func() bool) bool {
	for i := 0; ; i++ {
		if ready() {
			return true
		}
		if i+1 >= tries {
			return false
		}
		sleep()
	}
}
