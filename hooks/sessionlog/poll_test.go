package sessionlog

import "testing"

// TestPoll: ready is asked at most tries times, with a sleep between asks and none after the
// last; it stops at the first yes.
func TestPoll(t *testing.T) {
	for _, tc := range []struct {
		tries, readyAt    int // readyAt: the ask that says yes (0: never)
		want              bool
		wantAsks, wantZzz int
	}{
		{tries: 5, readyAt: 1, want: true, wantAsks: 1, wantZzz: 0},
		{tries: 5, readyAt: 3, want: true, wantAsks: 3, wantZzz: 2},
		{tries: 5, readyAt: 0, want: false, wantAsks: 5, wantZzz: 4},
		{tries: 1, readyAt: 2, want: false, wantAsks: 1, wantZzz: 0},
		{tries: 0, readyAt: 0, want: false, wantAsks: 1, wantZzz: 0},
	} {
		asks, zzz := 0, 0
		got := Poll(tc.tries, func() { zzz++ }, func() bool { asks++; return asks == tc.readyAt })
		if got != tc.want || asks != tc.wantAsks || zzz != tc.wantZzz {
			t.Errorf("Poll(%d) with ready at ask %d = %v after %d asks, %d sleeps; want %v, %d, %d",
				tc.tries, tc.readyAt, got, asks, zzz, tc.want, tc.wantAsks, tc.wantZzz)
		}
	}
}
