package sessionlog

import (
	"fmt"
	"io"

	"github.com/git-loop/git-loop/loop"
)

// LineCommands returns the shell commands one log line records (none for most lines). A
// format that records a command more than once (Gemini CLI rewrites a call's line as it
// runs) keeps its own state: CommandsFrom asks for a fresh LineCommands with each call.
type LineCommands func(line []byte) []string

// CommandsFrom returns the shell commands the log at path records from byte offset from to
// its end, as commands reads them from each complete line, and the offset after the last
// complete line, so that the next call reads only what was appended. kind names the log in
// errors ("transcript", "rollout", …).
func CommandsFrom(path string, from int64, kind string, commands func() LineCommands) ([]string, int64, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, from, err
	}
	defer f.Close()
	if from < 0 || from > size {
		return nil, from, fmt.Errorf("hooks: command offset %d outside %s %s (%d bytes)", from, kind, path, size)
	}
	cmds, next, err := CommandsIn(f, size, from, DefaultLimits, commands())
	if err != nil {
		return nil, from, ReadError(path, err)
	}
	return cmds, next, nil
}

// CommandsIn is CommandsFrom over the first size bytes of r, with limits lim.
func CommandsIn(r io.ReaderAt, size, from int64, lim Limits, commands LineCommands) ([]string, int64, error) {
	var cmds []string
	next, err := Forward(r, size, from, lim, func(line []byte) error {
		cmds = append(cmds, commands(line)...)
		return nil
	})
	if err != nil {
		return nil, from, err
	}
	return cmds, next, nil
}

// CommandReader reads the commands of the log at path with read from where the previous stop
// left off: the mark's offset when the mark is of this file, else its start. It is nil
// without a path (the agent named no log).
func CommandReader(path string, read func(path string, from int64) ([]string, int64, error)) func(*loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
	if path == "" {
		return nil
	}
	return func(prev *loop.TranscriptMark) ([]string, *loop.TranscriptMark, error) {
		from := int64(0)
		if prev != nil && prev.Path == path {
			from = prev.Offset
		}
		cmds, next, err := read(path, from)
		if err != nil {
			return nil, nil, err
		}
		return cmds, &loop.TranscriptMark{Path: path, Offset: next}, nil
	}
}
