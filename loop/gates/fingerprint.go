package gates

import (
	"crypto/sha1"
	"encoding/hex"
	"io"
	"os"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/diag"
)

// fingerprintWindow bounds the normalised output a fingerprint covers, counted from the end,
// so that where the tail happened to be cut does not change the fingerprint.
const fingerprintWindow = 4 << 10

// Fingerprint identifies a gate failure so that reruns of the same failure match: the
// output is normalised (ANSI escapes stripped; temp paths, durations, UUIDs, hex strings of 7
// or more characters and digit runs replaced by placeholders; whitespace collapsed), cut to
// its last few KiB (min(4 KiB, tailBytes/2)), and hashed with the gate's name and status. The
// result is the first 12 hex digits of the SHA-1.
func Fingerprint(name, status, tail string, tailBytes int) string {
	norm := normalizeGateOutput(tail)
	window := fingerprintWindow
	if tailBytes > 0 {
		window = min(window, max(tailBytes/2, 64))
	}
	if len(norm) > window {
		norm = norm[len(norm)-window:]
	}
	h := sha1.New()
	io.WriteString(h, name)
	h.Write([]byte{0})
	io.WriteString(h, status)
	h.Write([]byte{0})
	io.WriteString(h, norm)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

var (
	// A temp directory and the (usually random) name directly under it.
	reTempPath = textutil.LazyRegexp(`(?:/private)?(?:/tmp|/var/tmp|/var/folders/[^/\s]+/[^/\s]+/[A-Z])(?:/[^/\s:'"()\[\]]*)?` +
		`|(?i:[a-z]:\\(?:[^\\\s]+\\)*?(?:Temp|tmp)(?:\\[^\\\s:'"()\[\]]*)?)`)
	// Go-style and unit-suffixed durations: 0.12s, 350ms, 1m30.5s, 2h0m0s, 12µs.
	reDuration = textutil.LazyRegexp(`\b(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+\b`)
	reUUID     = textutil.LazyRegexp(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reHex      = textutil.LazyRegexp(`\b(?:0[xX])?[0-9a-fA-F]{7,}\b`)
)

// normalizeGateOutput rewrites output so that what varies between runs of the same failure
// (timings, counters, addresses, hashes, temp directories, colours) does not.
func normalizeGateOutput(s string) string {
	s = diag.StripANSI(s)
	if tmp := strings.TrimRight(os.TempDir(), `/\`); len(tmp) > 1 {
		s = strings.ReplaceAll(s, tmp, "/tmp")
	}
	s = reTempPath().ReplaceAllString(s, "TMP")
	s = reDuration().ReplaceAllString(s, "D")
	s = reUUID().ReplaceAllString(s, "U")
	s = reHex().ReplaceAllStringFunc(s, func(m string) string {
		digits := strings.TrimPrefix(strings.TrimPrefix(m, "0x"), "0X")
		if strings.ContainsAny(digits, "0123456789") && strings.ContainsAny(digits, "abcdefABCDEF") {
			return "H"
		}
		return m // all digits (a number, replaced next) or all letters (a word: "defaced")
	})
	// Digit runs become N and whitespace runs one space, by hand: these match everywhere,
	// and a regexp replacement costs a pass over its state per match.
	var b strings.Builder
	b.Grow(len(s))
	for _, field := range strings.Fields(s) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for i := 0; i < len(field); i++ {
			c := field[i]
			if c < '0' || c > '9' {
				b.WriteByte(c)
			} else if i == 0 || field[i-1] < '0' || field[i-1] > '9' {
				b.WriteByte('N')
			}
		}
	}
	return b.String()
}
