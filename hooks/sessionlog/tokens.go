package sessionlog

import (
	"fmt"
	"io"

	"github.com/git-loop/git-loop/loop"
)

// LineTokens is the tokens one line of an agent's log records: what one model call spent,
// 0 for every other line.
type LineTokens func(line []byte) int64

// TokensIn sums tokens over the complete lines of the first size bytes of r from offset
// from, and returns the sum and the offset after the last complete line, where the next
// read starts: summing the reads gives what one read from 0 gives.
func TokensIn(r io.ReaderAt, size, from int64, lim Limits, tokens LineTokens) (int64, int64, error) {
	var sum int64
	next, err := Forward(r, size, from, lim, func(line []byte) error {
		sum += tokens(line)
		return nil
	})
	if err != nil {
		return 0, from, err
	}
	return sum, next, nil
}

// TokensFrom is TokensIn over the log at path, kind naming it in errors ("session log").
func TokensFrom(path string, from int64, kind string, tokens LineTokens) (int64, int64, error) {
	f, size, err := Open(path)
	if err != nil {
		return 0, from, err
	}
	defer f.Close()
	if from < 0 || from > size {
		return 0, from, fmt.Errorf("hooks: usage offset %d outside %s %s (%d bytes)", from, kind, path, size)
	}
	sum, next, err := TokensIn(f, size, from, DefaultLimits, tokens)
	if err != nil {
		return 0, from, ReadError(path, err)
	}
	return sum, next, nil
}

// TokenCounter advances a loop's token count over the log at path from where the previous
// stop left off (from the start of a log the loop has not read before; the tokens of earlier
// logs of the loop still count), for Stop.CountTokens; nil without a path.
func TokenCounter(path, kind string, tokens LineTokens) func(*loop.TranscriptMark) (*loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) (*loop.TranscriptMark, error) {
		mark := loop.TranscriptMark{Path: path}
		if prev != nil {
			mark.Tokens = prev.Tokens
			if prev.Path == path {
				mark.Offset = prev.Offset
			}
		}
		spent, next, err := TokensFrom(path, mark.Offset, kind, tokens)
		if err != nil {
			return nil, err
		}
		mark.Tokens += spent
		mark.Offset = next
		return &mark, nil
	}
}
