package sessionlog

// MaxLineBytes caps one line (without its newline); longer lines are skipped unread.
const MaxLineBytes = 64 << 20

// Limits bounds the transcript readers; tests shrink them to cross every boundary.
type Limits struct {
	Chunk    int // the first read backwards: the last turn of a stop usually fits in it
	MaxChunk int // later reads double with the bytes already read, up to this; also the forward buffer
	MaxLine  int // a longer line (without its newline) is skipped
}

// DefaultLimits: a small first read, since copying from the page cache is most of what a stop
// pays here (on the 3.1 MB corpus transcript, a call costs about 23 µs with 8 KiB, 65 µs with
// 64 KiB).
var DefaultLimits = Limits{Chunk: 8 << 10, MaxChunk: 256 << 10, MaxLine: MaxLineBytes}
