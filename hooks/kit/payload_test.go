package kit

import "testing"

func TestLineCol(t *testing.T) {
	data := []byte("ab\ncd\n\nef")
	for _, tt := range []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {1, 1, 1}, {2, 1, 2}, {4, 2, 1}, {5, 2, 2}, {7, 3, 1}, {9, 4, 2}, {99, 4, 3}} {
		if l, c := lineCol(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("lineCol(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}
