package review

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// LogOptions configure PrintLog.
type LogOptions struct {
	JSON  bool
	Color bool // ANSI colour: only on a terminal, never with NO_COLOR (the caller decides)
	Limit int  // print at most this many iterations (0: all)
}

// LogEntry is one line of `git loop log --json`.
type LogEntry struct {
	Iteration  int          `json:"iteration"`
	At         time.Time    `json:"at"`
	DurationMS int64        `json:"duration_ms"`
	Kind       string       `json:"kind"`
	Decision   string       `json:"decision,omitempty"`
	Reason     string       `json:"reason,omitempty"`
	Gates      []GateStatus `json:"gates"`
	// Weakened is "unresolved" when the iteration weakened the checks and nothing allowed it,
	// "allowed" when something did (see `git loop show`), empty otherwise.
	Weakened     string `json:"weakened,omitempty"`
	FilesChanged int    `json:"files_changed"`
	Snapshot     string `json:"snapshot"`
}

// GateStatus is one cell of the gate matrix.
type GateStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"` // a GateResult status, or gateNotRun
}

// gateNotRun is a gate's status in an iteration that did not run it ("." in the matrix).
const gateNotRun = "not-run"

// decisionWidth fits the longest decision or kind a log line shows ("checkpoint").
const decisionWidth = len("checkpoint")

// gateCells are the matrix's characters, one per status, readable without colour.
var gateCells = map[string]struct {
	char  string
	color string
}{
	gates.StatusPass: {"+", "32"}, gates.StatusFail: {"x", "31"}, gates.StatusBlocked: {"!", "33"}, gates.StatusSkip: {"-", "2"},
	gates.StatusTimeout: {"T", "35"}, gates.StatusError: {"E", "35"}, gateNotRun: {".", "2"},
}

// PrintLog prints one line per iteration, newest first, streaming: number, time, duration,
// decision, the gate matrix (one cell per gate, in the loop's gate order) and files changed.
func PrintLog(w io.Writer, h *loop.History, opts LogOptions) error {
	bw := bufio.NewWriterSize(w, 16<<10)
	defer bw.Flush()
	p := logPrinter{w: bw, h: h, opts: opts}
	if opts.JSON {
		bw.WriteString("[")
	} else {
		p.header()
	}
	var pending *loop.Iteration
	printed := 0
	err := h.Each(func(rec *loop.Iteration) error {
		if pending != nil {
			if err := p.line(pending, rec); err != nil {
				return err
			}
			if printed++; opts.Limit > 0 && printed >= opts.Limit {
				pending = nil
				return loop.ErrStop
			}
			if printed%64 == 0 {
				bw.Flush() // the first screen shows before the whole history is read
			}
		}
		pending = rec
		return nil
	})
	if err != nil {
		return err
	}
	if pending != nil {
		if err := p.line(pending, nil); err != nil {
			return err
		}
	}
	if opts.JSON {
		bw.WriteString("\n]\n")
	}
	return nil
}

type logPrinter struct {
	w     *bufio.Writer
	h     *loop.History
	opts  LogOptions
	first bool
}

func (p *logPrinter) header() {
	st, cfg := p.h.State, p.h.Config
	fmt.Fprintf(p.w, "loop %s · %s · iteration %s\n", p.h.Name, st.Status, loop.FormatIteration(st.Iteration, st.MaxIterations))
	if gs := cfg.AllGates(); len(gs) > 0 {
		names := make([]string, len(gs))
		for i, g := range gs {
			names[i] = fmt.Sprintf("%d %s", i+1, textutil.TerminalSafe(g.Name))
		}
		fmt.Fprintf(p.w, "gates: %s   (+ pass, x fail, ! blocked, - skip, T timeout, E error, . not run; W checks weakened, w allowed)\n", strings.Join(names, ", "))
	}
}

// line prints rec, with files changed since prev (the iteration before it; nil for the first).
func (p *logPrinter) line(rec, prev *loop.Iteration) error {
	files, err := p.h.ChangedFiles(prev, rec)
	if err != nil {
		return err
	}
	e := LogEntry{Iteration: rec.Number, At: rec.At, DurationMS: rec.Duration.Milliseconds(), Kind: rec.Kind,
		Decision: rec.Decision, Reason: textutil.FirstLine(rec.Reason), Gates: gateRow(p.h.Config.AllGates(), rec), Weakened: weakenedMark(rec), FilesChanged: len(files), Snapshot: rec.Snapshot}
	if p.opts.JSON {
		sep := ",\n"
		if !p.first {
			sep, p.first = "\n", true
		}
		data, err := json.Marshal(e)
		if err != nil {
			return err
		}
		p.w.WriteString(sep)
		p.w.Write(data)
		return nil
	}
	decision := textutil.TerminalSafe(textutil.OrDefaultString(e.Decision, e.Kind))
	fmt.Fprintf(p.w, "%5d  %s  %7s  %s  %s  %s\n", e.Iteration, e.At.Local().Format("2006-01-02 15:04:05"),
		textutil.FormatDuration(rec.Duration), p.paint(decisionColor(decision), fmt.Sprintf("%-*s", decisionWidth, decision)), p.matrix(e.Gates, e.Weakened), textutil.FilesText(len(files)))
	return nil
}

// weakenedMark says whether rec weakened the checks: "unresolved", "allowed" or "".
func weakenedMark(rec *loop.Iteration) string {
	mark := ""
	for _, w := range rec.Weakened {
		if w.Allowed == "" {
			return "unresolved"
		}
		mark = "allowed"
	}
	return mark
}

// gateRow is rec's status for each of the loop's gates, in order.
func gateRow(gs []gates.Gate, rec *loop.Iteration) []GateStatus {
	row := make([]GateStatus, len(gs))
	for i, g := range gs {
		row[i].Name, row[i].Status = g.Name, gateNotRun
		for _, r := range rec.Gates {
			if r.Name == g.Name {
				row[i].Status = r.Status
			}
		}
	}
	return row
}

// matrix is the gate row's cells in brackets, then W when the iteration weakened the
// checks (w when that was allowed), else a space, so the columns after it stay aligned.
func (p *logPrinter) matrix(row []GateStatus, weakened string) string {
	var b strings.Builder
	b.WriteByte('[')
	for _, c := range row {
		cell := gateCells[c.Status]
		if cell.char == "" {
			cell = gateCells[gates.StatusError]
		}
		b.WriteString(p.paint(cell.color, cell.char))
	}
	b.WriteByte(']')
	switch weakened {
	case "unresolved":
		b.WriteString(p.paint("31", "W"))
	case "allowed":
		b.WriteString(p.paint("33", "w"))
	default:
		b.WriteByte(' ')
	}
	return b.String()
}

func (p *logPrinter) paint(color, s string) string {
	if !p.opts.Color || color == "" {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}

func decisionColor(d string) string {
	switch d {
	case loop.DecideComplete:
		return "32"
	case loop.DecidePause:
		return "33"
	case loop.DecideCancelled:
		return "31"
	}
	return ""
}
