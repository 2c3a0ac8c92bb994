package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
)

//go:embed report.html.tmpl
var reportHTML string

// reportTemplate is the HTML report: one self-contained page, inline CSS and SVG, no
// script and no external asset. html/template escapes every value put in it.
var reportTemplate = sync.OnceValue(func() *template.Template { return template.Must(template.New("report").Parse(reportHTML)) })

// htmlView is what the HTML template shows, pre-formatted.
type htmlView struct {
	R           Report
	Task        string
	VerdictText string
	Generated   string
	Summary     []keyValue
	Gates       []htmlGate
	Columns     int
	Dots        bool // draw a dot per value (there is room for them)
	Matrix      svgFigure
	Timeline    svgFigure
	Steps       []htmlStep
}

type keyValue struct{ Key, Value string }

type htmlGate struct {
	LayerReport
	Found, Fixed int
	Diagnostics  string
}

type htmlStep struct {
	Iteration int
	At        string
	Decision  string
	Gates     string
	Elapsed   string
	Files     string
	Reason    string
	Message   string
	Diff      *StepDiff
}

// HTML renders the report as one self-contained HTML page: the summary, the iteration ×
// gate matrix and a timeline (durations, tests, coverage) as inline SVG, the defects, and
// every iteration's diffstat. Control characters in the loop's text are shown as escapes
// (see terminalSafe), so the page holds none.
func (r Report) HTML() ([]byte, error) {
	g := newGrid(r)
	v := htmlView{R: r, Task: r.Task, VerdictText: verdictText(r.Release), Columns: len(g.steps), Dots: g.cell >= 6,
		Generated: "as of " + r.Execution.EndedAt.UTC().Format("2006-01-02 15:04:05 UTC"), Summary: r.htmlSummary(),
		Matrix: matrixFigure(r, g), Timeline: timelineFigure(g)}
	for _, l := range r.Layers {
		hg := htmlGate{LayerReport: l, Found: r.Defects.Found[l.Gate], Fixed: r.Defects.Resolved[l.Gate]}
		if l.Diagnostics != nil {
			hg.Diagnostics = l.Diagnostics.String()
		}
		if s := judgeSummary(l); s != "" {
			hg.Diagnostics = s
		}
		v.Gates = append(v.Gates, hg)
	}
	for _, s := range r.Timeline {
		v.Steps = append(v.Steps, htmlStepOf(r, s))
	}
	var b bytes.Buffer
	if err := reportTemplate().Execute(&b, v); err != nil {
		return nil, fmt.Errorf("render the report as HTML: %w", err)
	}
	// html/template escapes markup, not control characters: the loop's text may hold them
	return []byte(textutil.TerminalSafe(b.String())), nil
}

// htmlSummary is the summary box's lines.
func (r Report) htmlSummary() []keyValue {
	e := r.Execution
	passing, found, fixed := 0, len(r.Defects.Items), 0
	for _, l := range r.Layers {
		if l.Final == gates.StatusPass {
			passing++
		}
	}
	for _, d := range r.Defects.Items {
		if d.Fixed() {
			fixed++
		}
	}
	return []keyValue{
		{"status", r.Status}, {"reason", r.Reason},
		{"iterations", fmt.Sprintf("%d of %d", e.Iterations, e.MaxIterations)},
		{"duration", fmt.Sprintf("%s (%s → %s)", time.Duration(e.Seconds*float64(time.Second)).Round(time.Second),
			e.StartedAt.UTC().Format("2006-01-02 15:04:05"), e.EndedAt.UTC().Format("2006-01-02 15:04:05 UTC"))},
		{"gates passing", fmt.Sprintf("%d of %d", passing, len(r.Layers))},
		{"defects", fmt.Sprintf("%d found, %d fixed", found, fixed)},
		{"rework", textutil.CountNoun(len(r.Rework), "time")},
		{"shape", textutil.OrDefaultString(r.Shape, spec.ShapeTool)},
	}
}

// htmlStepOf is one row of the iterations table.
func htmlStepOf(r Report, s Step) htmlStep {
	h := htmlStep{Iteration: s.Iteration, At: s.At.UTC().Format("2006-01-02 15:04:05"), Decision: textutil.OrDefaultString(s.Decision, s.Kind),
		Elapsed: textutil.FormatDuration(time.Duration(s.ElapsedMS) * time.Millisecond), Reason: s.Reason, Message: s.Message}
	var gates []string
	for _, l := range r.Layers {
		if st, ok := s.Gates[l.Gate]; ok {
			gates = append(gates, l.Gate+" "+st)
		}
	}
	var others []string // gates no longer in the configuration
	for name, st := range s.Gates {
		if !hasLayer(r.Layers, name) {
			others = append(others, name+" "+st)
		}
	}
	sort.Strings(others)
	h.Gates = strings.Join(append(gates, others...), ", ")
	if d := s.Diffstat; d != nil && d.Changed > 0 {
		h.Diff, h.Files = d, textutil.FilesText(d.Changed)
	}
	return h
}

func hasLayer(layers []LayerReport, gate string) bool {
	for _, l := range layers {
		if l.Gate == gate {
			return true
		}
	}
	return false
}
