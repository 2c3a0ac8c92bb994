package gates

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// TailBuffer is an io.Writer that keeps only the last Cap bytes written to it and counts
// all bytes written, so a command's output can be captured in bounded memory however much
// it prints. It is safe for concurrent use.
type TailBuffer struct {
	mu    sync.Mutex
	size  int
	buf   []byte // allocated on the first write; len(buf) == size
	w     int    // next write position in buf
	total int64
}

// NewTailBuffer returns a TailBuffer keeping the last n bytes (none when n ≤ 0).
func NewTailBuffer(n int) *TailBuffer {
	return &TailBuffer{size: max(n, 0)}
}

// Write keeps the tail of p and always reports all of p as written.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if t.size == 0 || len(p) == 0 {
		return len(p), nil
	}
	if t.buf == nil {
		t.buf = make([]byte, t.size)
	}
	if len(p) >= t.size {
		copy(t.buf, p[len(p)-t.size:])
		t.w = 0
		return len(p), nil
	}
	k := copy(t.buf[t.w:], p)
	copy(t.buf, p[k:])
	t.w = (t.w + len(p)) % t.size
	return len(p), nil
}

// Bytes returns a copy of the bytes kept: the last min(Total, Cap) bytes written, in order.
func (t *TailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.total < int64(t.size) {
		return append([]byte(nil), t.buf[:t.w]...)
	}
	out := make([]byte, 0, t.size)
	out = append(out, t.buf[t.w:]...)
	return append(out, t.buf[:t.w]...)
}

// String returns the bytes kept as a string, unchanged (not necessarily valid UTF-8).
func (t *TailBuffer) String() string { return string(t.Bytes()) }

// Total returns the number of bytes written so far, kept or not.
func (t *TailBuffer) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Cap returns the most bytes the buffer keeps.
func (t *TailBuffer) Cap() int { return t.size }

// Truncated reports whether earlier bytes have been dropped.
func (t *TailBuffer) Truncated() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total > int64(t.size)
}

// Text returns the bytes kept as valid UTF-8 of at most Cap bytes: when earlier output was
// dropped, a rune cut in half at the start is removed; invalid bytes become U+FFFD.
func (t *TailBuffer) Text() string {
	t.mu.Lock()
	truncated := t.total > int64(t.size)
	t.mu.Unlock()
	return validTail(t.Bytes(), truncated, t.size)
}

// validTail turns a byte tail into valid UTF-8 no longer than limit bytes, dropping a partial
// rune at the start when the tail was cut there, and then whole runes from the start when
// replacement characters made the text longer than limit.
func validTail(b []byte, cut bool, limit int) string {
	if cut {
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
			b = b[1:]
		}
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	if len(s) > limit {
		s = s[len(s)-limit:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	return s
}
