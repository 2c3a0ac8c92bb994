package sessionlog

import (
	"bufio"
	"io"
)

// Forward calls fn with each complete line (without its newline) of the first size bytes
// of r from offset from, and returns the offset after the last complete line: a line still
// being written waits for the next call. Lines longer than lim.MaxLine are counted but not
// passed, and never held whole in memory.
func Forward(r io.ReaderAt, size, from int64, lim Limits, fn func(line []byte) error) (int64, error) {
	var (
		next       = from
		pending    []byte // a line longer than the reader's buffer, being assembled
		pendingLen int    // its length so far, counted even once it is dropped
	)
	bufSize := int(min(max(size-from, 16), int64(lim.MaxChunk)))
	br := bufio.NewReaderSize(io.NewSectionReader(r, from, size-from), bufSize)
	for {
		frag, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if pendingLen+len(frag) <= lim.MaxLine {
				pending = append(pending, frag...)
			} else {
				pending = pending[:0] // too long: keep only its length
			}
			pendingLen += len(frag)
			continue
		}
		if err == io.EOF {
			return next, nil
		}
		if err != nil {
			return from, err
		}
		n := pendingLen + len(frag)
		line := frag
		if pendingLen > 0 {
			pending = append(pending, frag...)
			line = pending
		}
		next += int64(n)
		if n-1 <= lim.MaxLine {
			if err := fn(line[:n-1]); err != nil {
				return from, err
			}
		}
		pending, pendingLen = pending[:0], 0
	}
}
