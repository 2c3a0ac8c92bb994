package report

import (
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// Defect is one distinct failure of a gate (one fingerprint): when it was found, how often
// it was seen, and the iteration at which the gate passed again after it (FixedAt, 0 while
// it is open).
type Defect struct {
	Layer       int    `json:"layer"`
	Gate        string `json:"gate"`
	Status      string `json:"status"` // the gate status it was first seen with: fail, blocked, timeout, error
	Fingerprint string `json:"fingerprint,omitempty"`
	Summary     string `json:"summary"`
	FirstSeen   int    `json:"first_seen"`
	LastSeen    int    `json:"last_seen"`
	Occurrences int    `json:"occurrences"`
	FixedAt     int    `json:"fixed_at,omitempty"`
	// Reopened counts the times it came back after the gate had passed.
	Reopened int `json:"reopened,omitempty"`
}

// Fixed reports whether the gate passed after the defect's last occurrence.
func (d Defect) Fixed() bool { return d.FixedAt > 0 }

// defectLog follows defects through the iterations, oldest first.
type defectLog struct {
	items []Defect
	index map[string]int // gate + fingerprint → position in items
}

// record notes gate result g of iteration n.
func (l *defectLog) record(n int, g loop.GateResult) {
	if g.Passed() {
		for i := range l.items {
			if d := &l.items[i]; d.Gate == g.Name && !d.Fixed() && d.LastSeen < n {
				d.FixedAt = n
			}
		}
		return
	}
	if !g.Failed() {
		return // a skip neither finds nor fixes anything
	}
	if l.index == nil {
		l.index = map[string]int{}
	}
	key := g.Name + "\x00" + g.Fingerprint
	if i, ok := l.index[key]; ok {
		d := &l.items[i]
		if d.Fixed() {
			d.FixedAt, d.Reopened = 0, d.Reopened+1
		}
		d.LastSeen, d.Occurrences = n, d.Occurrences+1
		return
	}
	l.index[key] = len(l.items)
	l.items = append(l.items, Defect{Layer: g.Layer, Gate: g.Name, Status: g.Status, Fingerprint: g.Fingerprint,
		Summary: defectSummary(g), FirstSeen: n, LastSeen: n, Occurrences: 1})
}

// summary counts the defects found and fixed per gate.
func (l *defectLog) summary() Defects {
	d := Defects{Found: map[string]int{}, Resolved: map[string]int{}, Items: l.items}
	if d.Items == nil {
		d.Items = []Defect{}
	}
	for _, it := range l.items {
		d.Found[it.Gate]++
		if it.Fixed() {
			d.Resolved[it.Gate]++
		}
	}
	return d
}

// defectSummary is one line saying what failed: the output's first line that names a
// failure, with the diagnostics' counts when the output had some.
func defectSummary(g loop.GateResult) string {
	line := failureLine(g.Tail)
	if line == "" {
		line = g.Status
	}
	if g.Diagnostics != nil {
		if s := g.Diagnostics.String(); s != "" {
			return line + " (" + s + ")"
		}
	}
	return line
}

// maxSummary bounds a defect's summary line, in runes.
const maxSummary = 160

// failureWords mark the line of a gate's output that says what failed.
var failureWords = []string{"fail", "error", "panic", "missing", "not found", "expected", "assert", "undefined", "cannot", "denied"}

// failureLine picks the line of a gate's output tail that best names the failure: the first
// one containing a failure word (case-insensitive), else the last non-blank one. It is
// trimmed, valid UTF-8 and at most maxSummary runes; "" for an output without text.
func failureLine(tail string) string {
	tail = strings.ToValidUTF8(tail, "\uFFFD")
	var last string
	for _, line := range strings.Split(tail, "\n") {
		line = strings.TrimSpace(strings.Map(printable, line))
		if line == "" {
			continue
		}
		lower := strings.ToLower(line)
		for _, w := range failureWords {
			if strings.Contains(lower, w) {
				return textutil.Clip(line, maxSummary)
			}
		}
		last = line
	}
	return textutil.Clip(last, maxSummary)
}

// printable drops control characters (tabs become spaces) from a summary line.
func printable(r rune) rune {
	switch {
	case r == '\t':
		return ' '
	case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return -1
	}
	return r
}
