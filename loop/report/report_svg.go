package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// svgRect, svgText, svgLine and svgSeries are the shapes the report's inline SVG is drawn
// with; coordinates are pre-formatted so the template only places them.
type svgRect struct {
	X, Y, W, H string
	Class      string
	Title      string
}

type svgText struct {
	X, Y, Anchor, Class, Text string
}

type svgLine struct {
	X1, Y1, X2, Y2 string
}

type svgSeries struct {
	Class  string
	Points []string // polyline points "x,y x,y", one string per unbroken run
	Dots   []svgRect
}

// svgFigure is one drawing: its row labels, drawn apart so that they stay in view while a
// long loop's plot scrolls sideways, and the plot, whose view starts at Left.
type svgFigure struct {
	Left, Width, Height string // Width is the plot's, from Left on
	Labels              []svgText
	Rects               []svgRect
	Texts               []svgText
	Lines               []svgLine
	Series              []svgSeries
}

// size sets the figure's dimensions for grid g and a height.
func (f *svgFigure) size(g grid, height float64) {
	f.Left, f.Width, f.Height = px(g.left), px(g.width()-g.left), px(height)
}

// grid is the x axis the matrix and the timeline share: one column per iteration after
// the start, so a column of the chart sits under the matrix's.
type grid struct {
	steps  []Step // the columns
	left   float64
	cell   float64
	labels int // a tick label every labels columns
}

// Figure geometry, in CSS pixels.
const (
	figurePlot  = 960.0 // the plot's width for a short loop; a long one scrolls
	cellMin     = 3.0
	cellMax     = 40.0
	rowHeight   = 18.0
	panelHeight = 70.0
	panelGap    = 22.0
)

func newGrid(r Report) grid {
	g := grid{}
	for _, s := range r.Timeline {
		if s.Kind != "start" {
			g.steps = append(g.steps, s)
		}
	}
	longest := len("decision")
	for _, l := range r.Layers {
		longest = max(longest, min(len([]rune(l.Gate)), 24))
	}
	g.left = float64(longest)*7.5 + 12
	g.cell = math.Max(cellMin, math.Min(cellMax, math.Floor(figurePlot/float64(max(1, len(g.steps))))))
	g.labels = niceStep(int(math.Ceil(44 / g.cell)))
	return g
}

// niceStep rounds n up to 1, 2 or 5 times a power of ten.
func niceStep(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

func (g grid) width() float64 { return g.left + float64(len(g.steps))*g.cell + 24 }

func (g grid) x(i int) float64 { return g.left + float64(i)*g.cell }

func px(v float64) string { return fmt.Sprintf("%.1f", v) }

// ticks labels the iteration numbers under a figure, at height y.
func (g grid) ticks(y float64) []svgText {
	var out []svgText
	for i, s := range g.steps {
		if s.Iteration%g.labels == 0 || i == 0 || i == len(g.steps)-1 && len(g.steps) < 2*g.labels {
			out = append(out, svgText{X: px(g.x(i) + g.cell/2), Y: px(y), Anchor: "middle", Class: "tick", Text: fmt.Sprint(s.Iteration)})
		}
	}
	return out
}

// decisionClass colours the matrix's decision row.
func decisionClass(s Step) string {
	switch s.Decision {
	case loop.DecideComplete:
		return "d-complete"
	case loop.DecidePause:
		return "d-pause"
	case loop.DecideCancelled:
		return "d-cancelled"
	case loop.DecideContinue:
		return "d-continue"
	}
	return "d-other"
}

// gateClass colours a matrix cell by gate status ("" when the gate did not run).
func gateClass(status string) string {
	switch status {
	case gates.StatusPass, gates.StatusFail, gates.StatusBlocked, gates.StatusSkip, gates.StatusTimeout, gates.StatusError:
		return "g-" + status
	}
	return "g-none"
}

// matrixFigure is the iteration × gate matrix: a decision row, then one row per gate.
func matrixFigure(r Report, g grid) svgFigure {
	top := 4.0
	rows := 1 + len(r.Layers)
	f := svgFigure{}
	gap := 1.0
	if g.cell < 5 {
		gap = 0
	}
	label := func(row int, text string) {
		f.Labels = append(f.Labels, svgText{X: px(g.left - 8), Y: px(top + float64(row)*rowHeight + 13), Anchor: "end", Class: "label", Text: text})
	}
	label(0, "decision")
	for li, l := range r.Layers {
		label(li+1, textutil.Clip(l.Gate, 24))
	}
	for i, s := range g.steps {
		x := g.x(i)
		d := textutil.OrDefaultString(s.Decision, s.Kind)
		f.Rects = append(f.Rects, svgRect{X: px(x), Y: px(top), W: px(g.cell - gap), H: px(rowHeight - 2), Class: decisionClass(s),
			Title: fmt.Sprintf("iteration %d: %s", s.Iteration, d)})
		for li, l := range r.Layers {
			st := s.Gates[l.Gate]
			f.Rects = append(f.Rects, svgRect{X: px(x), Y: px(top + float64(li+1)*rowHeight), W: px(g.cell - gap), H: px(rowHeight - 2),
				Class: gateClass(st), Title: fmt.Sprintf("iteration %d · %s: %s", s.Iteration, l.Gate, textutil.OrDefaultString(st, "not run"))})
		}
	}
	bottom := top + float64(rows)*rowHeight
	f.Texts = append(f.Texts, g.ticks(bottom+12)...)
	f.size(g, bottom+18)
	return f
}

// panel is one of the timeline's charts: where it sits, its top value, and its labels.
type panel struct {
	top         float64
	max         float64
	name, scale string
}

func (p panel) y(v float64) float64 { return p.top + panelHeight - v/p.max*panelHeight }

// timelineFigure charts, per iteration, the time it took (agent and checks, and the checks
// alone), the tests passing and failing, and the coverage.
func timelineFigure(g grid) svgFigure {
	f := svgFigure{}
	var maxMS, maxTests float64
	hasTests, hasCover := false, false
	for _, s := range g.steps {
		maxMS = math.Max(maxMS, float64(max(s.ElapsedMS, s.GatesMS)))
		if s.TestsPassed != nil || s.TestsFailed != nil {
			hasTests = true
			maxTests = math.Max(maxTests, float64(deref(s.TestsPassed)+deref(s.TestsFailed)))
		}
		hasCover = hasCover || s.Coverage != nil
	}
	dur := panel{top: 6, max: math.Max(maxMS, 1), name: "time", scale: "max " + textutil.FormatDuration(time.Duration(maxMS)*time.Millisecond)}
	tests := panel{top: dur.top + panelHeight + panelGap, max: math.Max(maxTests, 1), name: "tests", scale: fmt.Sprintf("max %d", int(maxTests))}
	cover := panel{top: tests.top + panelHeight + panelGap, max: 100, name: "coverage", scale: "0–100%"}
	for _, p := range []panel{dur, tests, cover} {
		f.frame(g, p)
	}
	for i, s := range g.steps {
		x, w := g.x(i)+g.cell*0.15, math.Max(g.cell*0.7, 1)
		f.bar(x, w, dur, float64(s.ElapsedMS), "bar-elapsed", fmt.Sprintf("iteration %d: %s since the iteration before", s.Iteration, textutil.FormatDuration(time.Duration(s.ElapsedMS)*time.Millisecond)))
		f.bar(x, w, dur, float64(s.GatesMS), "bar-gates", fmt.Sprintf("iteration %d: checks took %s", s.Iteration, textutil.FormatDuration(time.Duration(s.GatesMS)*time.Millisecond)))
	}
	f.Series = append(f.Series,
		g.series(tests, "line-passed", "tests passing", func(s Step) *float64 { return intValue(s.TestsPassed) }),
		g.series(tests, "line-failed", "tests failing", func(s Step) *float64 { return intValue(s.TestsFailed) }),
		g.series(cover, "line-coverage", "coverage %", func(s Step) *float64 { return s.Coverage }))
	if !hasTests {
		f.note(g, tests, "no gate reported test counts")
	}
	if !hasCover {
		f.note(g, cover, "no gate reported coverage")
	}
	bottom := cover.top + panelHeight
	f.Texts = append(f.Texts, g.ticks(bottom+14)...)
	f.size(g, bottom+20)
	return f
}

// frame draws a panel's base line and its label.
func (f *svgFigure) frame(g grid, p panel) {
	f.Lines = append(f.Lines, svgLine{X1: px(g.left), Y1: px(p.top + panelHeight), X2: px(g.width() - 20), Y2: px(p.top + panelHeight)})
	f.Labels = append(f.Labels, svgText{X: px(g.left - 8), Y: px(p.top + 12), Anchor: "end", Class: "label", Text: p.name},
		svgText{X: px(g.left - 8), Y: px(p.top + 26), Anchor: "end", Class: "scale", Text: p.scale})
}

func (f *svgFigure) bar(x, w float64, p panel, v float64, class, title string) {
	if v <= 0 {
		return
	}
	y := p.y(v)
	f.Rects = append(f.Rects, svgRect{X: px(x), Y: px(y), W: px(w), H: px(p.top + panelHeight - y), Class: class, Title: title})
}

func (f *svgFigure) note(g grid, p panel, text string) {
	f.Texts = append(f.Texts, svgText{X: px(g.left + 8), Y: px(p.top + panelHeight/2), Anchor: "start", Class: "note", Text: text})
}

// series is a line through the iterations that have a value, broken where one has none.
func (g grid) series(p panel, class, what string, value func(Step) *float64) svgSeries {
	s := svgSeries{Class: class}
	var run []string
	flush := func() {
		if len(run) > 1 {
			s.Points = append(s.Points, strings.Join(run, " "))
		}
		run = nil
	}
	for i, st := range g.steps {
		v := value(st)
		if v == nil {
			flush()
			continue
		}
		x, y := g.x(i)+g.cell/2, p.y(math.Max(0, math.Min(*v, p.max)))
		run = append(run, px(x)+","+px(y))
		r := math.Max(1.5, math.Min(3, g.cell/4))
		s.Dots = append(s.Dots, svgRect{X: px(x), Y: px(y), W: px(r), Class: class,
			Title: fmt.Sprintf("iteration %d: %s %s", st.Iteration, what, strings.TrimSuffix(fmt.Sprintf("%.1f", *v), ".0"))})
	}
	flush()
	return s
}

func intValue(p *int) *float64 {
	if p == nil {
		return nil
	}
	v := float64(*p)
	return &v
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
