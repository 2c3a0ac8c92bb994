package sessionlog

import (
	"bytes"
	"io"
)

// BackReader returns the lines of the first size bytes of a file from the last to the first.
// The last line need not end in a newline. Lines longer than maxLine are skipped: the buffer
// grows to hold a long line but never much beyond maxLine.
type BackReader struct {
	r       io.ReaderAt
	lo      int64  // file offset of buf[a]
	buf     []byte // buf[a:b] is file[lo:lo+b-a], the part not yet returned
	a, b    int
	clean   int // the last clean bytes of the window hold no newline: already searched
	read    int // bytes read so far
	chunk   int
	most    int
	maxLine int
}

// NewBackReader reads the first size bytes of r backwards, a line at a time (Prev), within
// the limits lim.
func NewBackReader(r io.ReaderAt, size int64, lim Limits) *BackReader {
	return &BackReader{r: r, lo: size, chunk: lim.Chunk, most: lim.MaxChunk, maxLine: lim.MaxLine}
}

// prev returns the line before the ones already returned, without its newline, or io.EOF.
// The line is valid until the next call.
func (br *BackReader) Prev() ([]byte, error) {
	for {
		win := br.buf[br.a:br.b]
		if i := bytes.LastIndexByte(win[:len(win)-br.clean], '\n'); i >= 0 {
			br.b, br.clean = br.a+i, 0
			if line := win[i+1:]; len(line) <= br.maxLine {
				return line, nil
			}
			continue
		}
		br.clean = len(win)
		if br.lo == 0 { // win is the file's first line
			if len(win) == 0 {
				return nil, io.EOF
			}
			br.b, br.clean = br.a, 0
			if len(win) <= br.maxLine {
				return win, nil
			}
			continue
		}
		var err error
		if len(win) > br.maxLine {
			err = br.skipLine()
		} else {
			err = br.fill()
		}
		if err != nil {
			return nil, err
		}
	}
}

// fill reads the bytes before the window into the buffer: the first chunk, then as much as
// was read already (up to most), or as much as the window holds when a long line makes it
// grow, so that the number of reads and the bytes copied stay linear in the bytes scanned;
// but never more than makes the window one byte over maxLine.
func (br *BackReader) fill() error {
	have := br.b - br.a
	n := max(br.chunk, have, min(br.read, br.most))
	n = min(n, br.maxLine+1-have)
	if int64(n) > br.lo {
		n = int(br.lo)
	}
	if br.a < n { // no room before the window: move it to the end of a big enough buffer
		if size := have + n; size > len(br.buf) {
			buf := make([]byte, size)
			copy(buf[len(buf)-have:], br.buf[br.a:br.b])
			br.buf = buf
		} else {
			copy(br.buf[len(br.buf)-have:], br.buf[br.a:br.b])
		}
		br.a, br.b = len(br.buf)-have, len(br.buf)
	}
	if _, err := br.r.ReadAt(br.buf[br.a-n:br.a], br.lo-int64(n)); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the file shrank while being read
		}
		return err
	}
	br.a -= n
	br.lo -= int64(n)
	br.read += n
	return nil
}

// skipLine drops the window, the end of a line longer than maxLine, and the rest of that line
// before it, reading backwards to the newline that ends the line before.
func (br *BackReader) skipLine() error {
	buf := br.buf // at least maxLine+1 bytes: the window outgrew maxLine in it
	for br.lo > 0 {
		n := len(buf)
		if int64(n) > br.lo {
			n = int(br.lo)
		}
		seg := buf[len(buf)-n:]
		if _, err := br.r.ReadAt(seg, br.lo-int64(n)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		br.lo -= int64(n)
		br.read += n
		if i := bytes.LastIndexByte(seg, '\n'); i >= 0 {
			br.a, br.b, br.clean = len(buf)-n, len(buf)-n+i, 0
			return nil
		}
	}
	br.a, br.b, br.clean = len(buf), len(buf), 0 // the long line was the first one
	return nil
}
