package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/diag"
	"github.com/git-loop/git-loop/loop/spec"
)

// Release decisions of a report.
const (
	Ship     = "SHIP"     // completed, every gate passes, nothing skipped or assumed
	Monitor  = "MONITOR"  // completed with skipped gates or assumed criteria
	Research = "RESEARCH" // paused or cancelled: not done
)

// Report is the record of a loop written when it stops running: report.yaml holds all of it,
// report.md summarises it for a person.
type Report struct {
	Loop    string `json:"loop"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Release string `json:"release_decision"`
	// ReleaseReasons say why the verdict is not SHIP (empty for SHIP).
	ReleaseReasons []string        `json:"release_reasons"`
	Task           string          `json:"task"`
	Spec           *spec.SpecScore `json:"spec,omitempty"`  // the task's score at start
	Shape          string          `json:"shape,omitempty"` // how the loop ran: tool or colleague
	Execution      Execution       `json:"execution"`
	Layers         []LayerReport   `json:"layers"`
	Defects        Defects         `json:"defects"`
	// Weakened lists every weakening of the checks an iteration made, and how it was resolved.
	Weakened []WeakeningReport `json:"weakened_checks,omitempty"`
	Rework   []ReworkEvent     `json:"rework"`
	Timeline []Step            `json:"iterations"`
}

// Execution is when the loop ran and for how long.
type Execution struct {
	StartedAt     time.Time `json:"started_at"`
	EndedAt       time.Time `json:"ended_at"`
	Seconds       float64   `json:"duration_s"`
	Iterations    int       `json:"iterations"`
	MaxIterations int       `json:"max_iterations"`
}

// LayerReport is one gate over the loop's life.
type LayerReport struct {
	Layer    int    `json:"layer"`
	Gate     string `json:"gate"`
	Final    string `json:"final_status"`
	Attempts int    `json:"attempts"`
	Failures int    `json:"failures"`
	// Diagnostics is what the gate's last output said (tests, errors, coverage).
	Diagnostics *diag.Diagnostics `json:"diagnostics,omitempty"`
	// Judge is the condition of an evaluator gate (see loop.Judge); empty for a command gate.
	Judge string `json:"judge,omitempty"`
	// Runs is every attempt of the gate, oldest first.
	Runs []GateRun `json:"runs"`
}

// GateRun is one attempt of a gate: the iteration it ran in and what it found.
type GateRun struct {
	Iteration   int               `json:"iteration"`
	Status      string            `json:"status"`
	ExitCode    int               `json:"exit_code"`
	DurationMS  int64             `json:"duration_ms"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Diagnostics *diag.Diagnostics `json:"diagnostics,omitempty"`
	// Judge is an evaluator gate's verdict, reason, evaluator, input size and cost.
	Judge *loop.JudgeInfo `json:"judge,omitempty"`
}

// Defects counts distinct failures (by fingerprint) found per layer and those resolved, and
// lists each one.
type Defects struct {
	Found    map[string]int `json:"found_by_layer"`
	Resolved map[string]int `json:"resolved_by_layer"`
	Items    []Defect       `json:"items"`
}

// ReworkEvent is an iteration that sent the agent back to a layer.
type ReworkEvent struct {
	Iteration int    `json:"iteration"`
	Layer     string `json:"layer"`
	Reason    string `json:"reason"`
}

// Step is one iteration in the timeline.
type Step struct {
	Iteration int       `json:"iteration"`
	Kind      string    `json:"kind"`
	At        time.Time `json:"at"`
	// ElapsedMS is the time since the iteration before (or the start): the agent's work and
	// the checks; GatesMS is the checks alone (snapshot, gates, decision).
	ElapsedMS int64             `json:"elapsed_ms"`
	GatesMS   int64             `json:"gates_ms,omitempty"`
	Decision  string            `json:"decision,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Layer     string            `json:"layer,omitempty"`
	Changed   bool              `json:"changed"`
	Gates     map[string]string `json:"gates,omitempty"`
	// Tests passing and failing, summed over the gates that reported them, and the coverage
	// of the last gate (in gate order) that reported one; absent when none did.
	TestsPassed *int     `json:"tests_passed,omitempty"`
	TestsFailed *int     `json:"tests_failed,omitempty"`
	Coverage    *float64 `json:"coverage,omitempty"`
	// Message is the start of the agent's last message.
	Message string `json:"message,omitempty"`
	// Diffstat is what changed since the iteration before; only `git loop report` reads the
	// snapshots for it, so the report stored in the loop's final commit has none.
	Diffstat *StepDiff `json:"diffstat,omitempty"`
}

// buildReport assembles the report from the configuration, the final state and every
// iteration record, oldest first.
func buildReport(cfg *loop.Config, st *loop.State, iters []loop.Iteration) Report {
	r := Report{Loop: st.Name, Status: st.Status, Reason: st.Reason, Task: strings.TrimSpace(cfg.Prompt), Spec: cfg.Spec, Shape: cfg.Shape,
		Execution: Execution{StartedAt: st.StartedAt, EndedAt: st.UpdatedAt, Seconds: st.UpdatedAt.Sub(st.StartedAt).Seconds(),
			Iterations: st.Iteration, MaxIterations: st.MaxIterations},
		Rework: []ReworkEvent{}, Timeline: make([]Step, 0, len(iters))}
	gates := cfg.AllGates()
	layers := make([]LayerReport, len(gates))
	for i, g := range gates {
		layers[i] = LayerReport{Layer: i + 1, Gate: g.Name, Final: "not run", Runs: make([]GateRun, 0, len(iters))}
		if cond, ok := strings.CutPrefix(g.Run, loop.JudgeRun); ok && i >= len(cfg.Gates) {
			layers[i].Judge = cond
		}
	}
	defects := defectLog{}
	var weakened weakenedLog
	prevAt := st.StartedAt
	for _, it := range iters {
		weakened.record(it)
		step := newStep(it, prevAt)
		prevAt = it.At
		for _, g := range it.Gates {
			defects.record(it.Number, g)
			if g.Layer < 1 || g.Layer > len(layers) {
				continue
			}
			l := &layers[g.Layer-1]
			l.Attempts++
			l.Final = g.Status
			l.Diagnostics = g.Diagnostics
			l.Runs = append(l.Runs, GateRun{Iteration: it.Number, Status: g.Status, ExitCode: g.ExitCode,
				DurationMS: g.Duration.Milliseconds(), Fingerprint: g.Fingerprint, Diagnostics: g.Diagnostics, Judge: g.Judge})
			if g.Failed() {
				l.Failures++
			}
		}
		if it.Decision == loop.DecideContinue && it.Layer != "" {
			r.Rework = append(r.Rework, ReworkEvent{Iteration: it.Number, Layer: it.Layer, Reason: it.Reason})
		}
		r.Timeline = append(r.Timeline, step)
	}
	r.Defects = defects.summary()
	r.Layers = layers
	r.Weakened = weakened.summary()
	r.Release, r.ReleaseReasons = verdict(cfg, st, layers, r.Weakened)
	return r
}

// YAML renders the report as YAML, with the same field names, order and values as its JSON
// form (it is converted from it).
func (r Report) YAML() []byte {
	data, err := json.Marshal(r)
	if err == nil {
		data, err = jsonToYAML(data)
	}
	if err != nil {
		return []byte(fmt.Sprintf("error: %q\n", err.Error()))
	}
	return data
}

// Markdown renders the summary a reviewer reads first: a summary box, the gates, the
// iteration × gate matrix, the defects found and fixed, the rework, and the verdict. Control
// characters in the loop's text are rendered visibly (see terminalSafe).
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Loop %s: %s\n\n", r.Loop, r.Release)
	r.summaryBox(&b)
	fmt.Fprintf(&b, "**Task:** %s\n\n", mdCell(textutil.FirstLine(r.Task)))
	if r.Spec != nil {
		fmt.Fprintf(&b, "**Spec:** %s; ran as %s\n\n", r.Spec.Summary(), textutil.OrDefaultString(r.Shape, spec.ShapeTool))
	}
	if len(r.Layers) > 0 {
		b.WriteString("## Gates\n\n| layer | gate | final | attempts | failures | defects found | resolved |\n|---|---|---|---|---|---|---|\n")
		for _, l := range r.Layers {
			fmt.Fprintf(&b, "| %d | %s | %s | %d | %d | %d | %d |\n", l.Layer, mdCell(l.Gate), l.Final, l.Attempts, l.Failures, r.Defects.Found[l.Gate], r.Defects.Resolved[l.Gate])
		}
		b.WriteString("\n")
	}
	b.WriteString(layerSummaries(r.Layers))
	r.mdMatrix(&b)
	r.mdDefects(&b)
	r.mdWeakened(&b)
	if len(r.Rework) > 0 {
		r.mdRework(&b)
	}
	fmt.Fprintf(&b, "---\n\n**Verdict: %s** — %s\n", r.Release, verdictText(r.Release))
	for _, why := range r.ReleaseReasons {
		fmt.Fprintf(&b, "- %s\n", mdCell(why))
	}
	return textutil.TerminalSafe(b.String()) // it is printed to terminals: agents' and gates' text shows its controls
}

func mdCell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// Files is the report git-loop records in a loop's final commit: report.yaml, the whole
// record, and report.md, its summary for a person (a [loop.ReportFunc]).
func Files(cfg *loop.Config, st *loop.State, iters []loop.Iteration) map[string][]byte {
	r := buildReport(cfg, st, iters)
	return map[string][]byte{"report.yaml": r.YAML(), "report.md": []byte(r.Markdown())}
}
