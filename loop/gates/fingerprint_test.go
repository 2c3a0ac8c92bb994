package gates

import (
	"strings"
	"testing"
)

func TestNormalizeGateOutput(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31mFAIL\x1b[0m pkg", "FAIL pkg"},
		{"ok  \tpkg\t0.123s", "ok pkg D"},
		{"took 1m30.5s and 350ms, 12µs", "took D and D, D"},
		{"--- FAIL: TestX (0.00s)", "--- FAIL: TestX (D)"},
		{"commit 3f2a9c1d0b and 0x7ffe12ab34", "commit H and H"},
		{"a defaced facade", "a defaced facade"},
		{"id 123e4567-e89b-12d3-a456-426614174000 end", "id U end"},
		{"line 42: expected 3 got 4", "line N: expected N got N"},
		{"open /tmp/TestFoo1234/001/x.go: denied", "open TMP/N/x.go: denied"},
		{"open /tmp/tmp.AbCdEf/x.go", "open TMP/x.go"},
		{"/var/folders/ab/cd_ef/T/go-build99/b001/main.go", "TMP/bN/main.go"},
		{`C:\Users\me\AppData\Local\Temp\go-build1\x.go`, `TMP\x.go`},
		{"  many   spaces\n\n\tand lines  ", "many spaces and lines"},
	}
	for _, tt := range tests {
		if got := normalizeGateOutput(tt.in); got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGateFingerprint(t *testing.T) {
	a := "\x1b[1m--- FAIL: TestParse (0.01s)\x1b[0m\n    parse_test.go:42: got 17, want 18\n    at /tmp/TestParse3141/001/in.txt\nFAIL\tgithub.com/x/y\t0.532s\n"
	b := "--- FAIL: TestParse (1.27s)\n    parse_test.go:43: got 170, want 180\n    at /tmp/TestParse2718/001/in.txt\nFAIL\tgithub.com/x/y\t12.5s\n"
	other := "--- FAIL: TestFormat (0.01s)\n    format_test.go:42: got 17, want 18\nFAIL\tgithub.com/x/y\t0.532s\n"
	fa := Fingerprint("test", StatusFail, a, 0)
	if fb := Fingerprint("test", StatusFail, b, 0); fa != fb {
		t.Errorf("same failure, different fingerprints: %s %s", fa, fb)
	}
	for _, d := range []struct{ what, fp string }{
		{"another failure", Fingerprint("test", StatusFail, other, 0)},
		{"another gate", Fingerprint("lint", StatusFail, a, 0)},
		{"another status", Fingerprint("test", StatusBlocked, a, 0)},
	} {
		if d.fp == fa {
			t.Errorf("%s has the same fingerprint %s", d.what, fa)
		}
	}
	if len(fa) != 12 || strings.Trim(fa, "0123456789abcdef") != "" {
		t.Errorf("fingerprint %q is not 12 hex digits", fa)
	}
	// Where a long output happens to be cut does not matter.
	long := strings.Repeat("noise line 1234\n", 1000) + "the error\n"
	if Fingerprint("t", StatusFail, long[3:], 8192) != Fingerprint("t", StatusFail, long[7:], 8192) {
		t.Errorf("fingerprint depends on where the tail was cut")
	}
}
