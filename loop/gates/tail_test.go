package gates

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestTailBuffer(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		writes    []string
		want      string
		truncated bool
	}{
		{"empty", 8, nil, "", false},
		{"short", 8, []string{"abc"}, "abc", false},
		{"exact", 4, []string{"abcd"}, "abcd", false},
		{"exact in pieces", 4, []string{"ab", "cd"}, "abcd", false},
		{"one over", 4, []string{"abcde"}, "bcde", true},
		{"wraps", 4, []string{"abc", "def"}, "cdef", true},
		{"wraps many times", 3, []string{"a", "b", "c", "d", "e", "f", "g"}, "efg", true},
		{"big write after small", 4, []string{"xy", "0123456789"}, "6789", true},
		{"small after big", 4, []string{"0123456789", "ab"}, "89ab", true},
		{"empty writes", 4, []string{"", "ab", "", "cd", ""}, "abcd", false},
		{"size zero keeps nothing", 0, []string{"abc"}, "", true},
		{"negative size keeps nothing", -5, []string{"abc"}, "", true},
		{"size one", 1, []string{"abc", "d"}, "d", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTailBuffer(tt.size)
			total := 0
			for _, w := range tt.writes {
				n, err := tb.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				total += len(w)
			}
			if got := tb.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if got := tb.Total(); got != int64(total) {
				t.Errorf("Total() = %d, want %d", got, total)
			}
			if got := tb.Truncated(); got != tt.truncated {
				t.Errorf("Truncated() = %v, want %v", got, tt.truncated)
			}
		})
	}
}

func TestTailBufferBytesIsACopy(t *testing.T) {
	tb := NewTailBuffer(4)
	tb.Write([]byte("abcd"))
	b := tb.Bytes()
	b[0] = 'X'
	if got := tb.String(); got != "abcd" {
		t.Fatalf("modifying Bytes() changed the buffer: %q", got)
	}
}

func TestTailBufferText(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{"plain", 16, []string{"hello"}, "hello"},
		{"cut mid-rune at start", 5, []string{"ééé"}, "éé"},            // kept "\xa9éé": partial rune dropped
		{"cut mid 4-byte rune", 6, []string{"x😀😀"}, "😀"},               // kept "\x9f\x98\x80😀"
		{"invalid bytes replaced", 16, []string{"a\xffb"}, "a\uFFFDb"}, // not cut: nothing dropped
		{"replacement keeps the limit", 4, []string{"\xff\xfe\xfd\xfc"}, "\uFFFD"},
		{"invalid at start, not cut", 8, []string{"\x80abc"}, "\uFFFDabc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTailBuffer(tt.size)
			for _, w := range tt.writes {
				tb.Write([]byte(w))
			}
			got := tb.Text()
			if got != tt.want {
				t.Errorf("Text() = %q, want %q", got, tt.want)
			}
			if !utf8.ValidString(got) || len(got) > tt.size {
				t.Errorf("Text() = %q: invalid UTF-8 or longer than %d", got, tt.size)
			}
		})
	}
}

func TestTailBufferConcurrent(t *testing.T) {
	tb := NewTailBuffer(64)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				tb.Write([]byte("0123456789"))
				_ = tb.Text()
			}
		})
	}
	wg.Wait()
	if tb.Total() != 80000 || len(tb.Bytes()) != 64 {
		t.Fatalf("Total %d, kept %d", tb.Total(), len(tb.Bytes()))
	}
}

func TestTailBufferLargeCopy(t *testing.T) {
	tb := NewTailBuffer(1000)
	src := io.LimitReader(strings.NewReader(strings.Repeat("abcdefghij", 100_000)), 1_000_000)
	n, err := io.Copy(tb, src)
	if err != nil || n != 1_000_000 {
		t.Fatalf("Copy = %d, %v", n, err)
	}
	if want := strings.Repeat("abcdefghij", 100); tb.String() != want {
		t.Fatalf("tail mismatch")
	}
}

// FuzzTailBuffer checks that writing data in arbitrary chunks keeps exactly the suffix of
// the concatenation.
func FuzzTailBuffer(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(5), []byte{1, 2, 3})
	f.Add([]byte("abc"), uint8(0), []byte{})
	f.Add(bytes.Repeat([]byte("xyz"), 100), uint8(7), []byte{0, 255, 13})
	f.Add([]byte("ééé😀\xff"), uint8(4), []byte{1})
	f.Fuzz(func(t *testing.T, data []byte, size uint8, chunks []byte) {
		tb := NewTailBuffer(int(size))
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(chunks) > 0 {
				n = min(int(chunks[i%len(chunks)]), len(rest))
			}
			if w, err := tb.Write(rest[:n]); w != n || err != nil {
				t.Fatalf("Write = %d, %v", w, err)
			}
			rest = rest[n:]
			if len(chunks) > 0 && i > 10*len(data)+10 {
				// all chunk sizes are zero: finish in one write
				chunks = nil
			}
		}
		want := data[max(len(data)-int(size), 0):]
		if got := tb.Bytes(); !bytes.Equal(got, want) {
			t.Fatalf("Bytes() = %q, want %q", got, want)
		}
		if tb.Total() != int64(len(data)) {
			t.Fatalf("Total() = %d, want %d", tb.Total(), len(data))
		}
		if tb.Truncated() != (len(data) > int(size)) {
			t.Fatalf("Truncated() = %v", tb.Truncated())
		}
		text := tb.Text()
		if !utf8.ValidString(text) || len(text) > int(size) {
			t.Fatalf("Text() = %q: invalid UTF-8 or longer than %d", text, size)
		}
	})
}
