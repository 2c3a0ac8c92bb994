package report

import (
	"fmt"
	"strings"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/checks"
)

// WeakeningReport is one weakening of the checks over the loop's life: what it was, when it
// was first and last seen, and how it was resolved.
type WeakeningReport struct {
	checks.Weakening
	FirstSeen int `json:"first_seen"`
	LastSeen  int `json:"last_seen"`
	// Resolution is "restored at iteration N" (gone from a later iteration), "allowed: …"
	// (what allowed it), or "unresolved" (in the last judged iteration, nothing allowing it).
	Resolution string `json:"resolution"`
}

// Resolutions of a weakening.
const resolutionUnresolved = "unresolved"

// weakenedLog gathers the weakenings of every judged iteration, by key, in the order first
// seen.
type weakenedLog struct {
	byKey     map[string]*WeakeningReport
	order     []string
	lastJudge int // the last iteration that compared the checks (a judged stop)
	present   map[string]bool
}

func (l *weakenedLog) record(it loop.Iteration) {
	if it.Kind != "stop" && it.Kind != "run" {
		return // checkpoints and the start do not compare the checks
	}
	if l.byKey == nil {
		l.byKey = map[string]*WeakeningReport{}
	}
	l.lastJudge, l.present = it.Number, map[string]bool{}
	for _, w := range it.Weakened {
		l.present[w.Key] = true
		r, ok := l.byKey[w.Key]
		if !ok {
			r = &WeakeningReport{Weakening: w, FirstSeen: it.Number}
			l.byKey[w.Key] = r
			l.order = append(l.order, w.Key)
		}
		r.LastSeen, r.Weakening = it.Number, w
	}
}

// summary resolves each weakening against the last judged iteration.
func (l *weakenedLog) summary() []WeakeningReport {
	out := make([]WeakeningReport, 0, len(l.order))
	for _, k := range l.order {
		r := *l.byKey[k]
		switch {
		case !l.present[k]:
			r.Resolution = fmt.Sprintf("restored at iteration %d", nextJudged(r.LastSeen, l))
		case r.Allowed != "":
			r.Resolution = "allowed: " + r.Allowed
		default:
			r.Resolution = resolutionUnresolved
		}
		out = append(out, r)
	}
	return out
}

// nextJudged is the first judged iteration after n that no longer had it: n+1 at the
// earliest (the log keeps only the last judged iteration's set, so this is its bound).
func nextJudged(n int, l *weakenedLog) int { return n + 1 }

// weakenedVerdict is what the weakenings say of the release: unresolved ones are research
// (the checks that passed are not the loop's), those allowed by configuration or by the
// task's scope are for a person to look at (monitor); a person's approval needs nothing more.
func weakenedVerdict(ws []WeakeningReport) (research, monitor []string) {
	for _, w := range ws {
		switch {
		case w.Resolution == resolutionUnresolved:
			research = append(research, "the checks were weakened and nothing allowed it: "+w.Why)
		case strings.HasPrefix(w.Resolution, "allowed: ") && !strings.Contains(w.Allowed, "approved by a person"):
			monitor = append(monitor, fmt.Sprintf("checks were weakened (%s): %s", w.Allowed, w.Why))
		}
	}
	return research, monitor
}

// mdWeakened is the report's section on weakened checks, when there were any.
func (r Report) mdWeakened(b *strings.Builder) {
	if len(r.Weakened) == 0 {
		return
	}
	b.WriteString("## Checks weakened\n\n")
	for _, w := range r.Weakened {
		fmt.Fprintf(b, "- **%s** %s (iteration %d", w.Kind, mdCell(w.Why), w.FirstSeen)
		if w.LastSeen != w.FirstSeen {
			fmt.Fprintf(b, " to %d", w.LastSeen)
		}
		fmt.Fprintf(b, "): %s\n", mdCell(w.Resolution))
	}
	b.WriteString("\n")
}
