package sessionlog

import (
	"errors"
	"fmt"
	"os"
)

// ReadError wraps an error reading the log at path so that it names the path once.
func ReadError(path string, err error) error {
	if _, ok := errors.AsType[*os.PathError](err); ok {
		return fmt.Errorf("hooks: read transcript: %w", err)
	}
	return fmt.Errorf("hooks: read transcript %s: %w", path, err)
}

// Open opens a regular file for reading and returns its size. It opens without
// blocking, so a transcript path naming a FIFO (or a device) is refused below instead of
// waiting forever for a writer, which would trap the agent in its stop hook.
func Open(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("hooks: open transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("hooks: open transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("hooks: transcript %s is not a regular file (mode %s)", path, fi.Mode())
	}
	return f, fi.Size(), nil
}
