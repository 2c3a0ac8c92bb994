package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/gates"
)

// mdMatrixRows bounds the gate matrix in report.md: a longer loop shows its first and last
// rows (the YAML, JSON and HTML reports and `git loop log` have every iteration).
const (
	mdMatrixHead = 20
	mdMatrixTail = 40
)

// mdCells are the matrix's cells in Markdown, one per gate status ("" for not run).
var mdCells = map[string]string{
	gates.StatusPass: "✓", gates.StatusFail: "✗ fail", gates.StatusBlocked: "! blocked", gates.StatusSkip: "– skip",
	gates.StatusTimeout: "⏱ timeout", gates.StatusError: "E error", "": "·",
}

// summaryBox is the table at the top of report.md.
func (r Report) summaryBox(b *strings.Builder) {
	e := r.Execution
	passing := 0
	for _, l := range r.Layers {
		if l.Final == gates.StatusPass {
			passing++
		}
	}
	found, fixed := 0, 0
	for _, d := range r.Defects.Items {
		found++
		if d.Fixed() {
			fixed++
		}
	}
	fmt.Fprintf(b, "| | |\n|---|---|\n| verdict | **%s** |\n| status | %s |\n| reason | %s |\n| iterations | %d of %d |\n",
		r.Release, r.Status, mdCell(r.Reason), e.Iterations, e.MaxIterations)
	fmt.Fprintf(b, "| duration | %s (%s → %s) |\n", time.Duration(e.Seconds*float64(time.Second)).Round(time.Second),
		e.StartedAt.UTC().Format("2006-01-02 15:04:05"), e.EndedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(b, "| gates passing | %d of %d |\n| defects | %d found, %d fixed |\n| rework | %s |\n\n",
		passing, len(r.Layers), found, fixed, textutil.CountNoun(len(r.Rework), "time"))
}

// mdRow is one row of the Markdown gate matrix: an iteration, or a run of iterations
// with the same decision and gate results.
type mdRow struct {
	first, last     int
	decision, cells string
	added, deleted  int
	files           int
}

// matrixRows are the judged iterations' rows, identical neighbours merged.
func (r Report) matrixRows() []mdRow {
	var rows []mdRow
	for _, s := range r.Timeline {
		if len(s.Gates) == 0 && s.Decision == "" {
			continue // the start and checkpoints judge nothing
		}
		cells := make([]string, len(r.Layers))
		for i, l := range r.Layers {
			cells[i] = mdCells[s.Gates[l.Gate]]
			if cells[i] == "" {
				cells[i] = s.Gates[l.Gate]
			}
		}
		row := mdRow{first: s.Iteration, last: s.Iteration, decision: textutil.OrDefaultString(s.Decision, s.Kind), cells: strings.Join(cells, " | ")}
		if d := s.Diffstat; d != nil {
			row.added, row.deleted, row.files = d.Added, d.Deleted, d.Changed
		}
		if n := len(rows); n > 0 && rows[n-1].decision == row.decision && rows[n-1].cells == row.cells && rows[n-1].last == row.first-1 {
			p := &rows[n-1]
			p.last, p.added, p.deleted, p.files = row.last, p.added+row.added, p.deleted+row.deleted, p.files+row.files
			continue
		}
		rows = append(rows, row)
	}
	return rows
}

// mdMatrix writes the iteration × gate matrix.
func (r Report) mdMatrix(b *strings.Builder) {
	rows := r.matrixRows()
	if len(rows) == 0 || len(r.Layers) == 0 {
		return
	}
	b.WriteString("## Gate matrix\n\n| iteration | decision |")
	sep := "|---|---|"
	for _, l := range r.Layers {
		fmt.Fprintf(b, " %s |", mdCell(l.Gate))
		sep += "---|"
	}
	b.WriteString(" changes |\n" + sep + "---|\n")
	hasDiff := len(r.Timeline) > 0 && r.Timeline[len(r.Timeline)-1].Diffstat != nil
	for i, row := range rows {
		if len(rows) > mdMatrixHead+mdMatrixTail && i >= mdMatrixHead && i < len(rows)-mdMatrixTail {
			if i == mdMatrixHead {
				fmt.Fprintf(b, "| … | %d more rows: `git loop log` lists every iteration |%s\n", len(rows)-mdMatrixHead-mdMatrixTail, strings.Repeat(" |", len(r.Layers)))
			}
			continue
		}
		iter := fmt.Sprint(row.first)
		if row.last != row.first {
			iter = fmt.Sprintf("%d–%d", row.first, row.last)
		}
		changes := "·"
		if hasDiff && row.files > 0 {
			changes = fmt.Sprintf("%s, +%d −%d", textutil.FilesText(row.files), row.added, row.deleted)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", iter, row.decision, row.cells, changes)
	}
	b.WriteString("\n✓ pass · ✗ fail · ! blocked · – skip · ⏱ timeout · E error · · not run\n\n")
}

// mdReworkShown bounds the rework events report.md lists: the first and last ones.
const mdReworkShown = 10

// mdRework lists the iterations that sent the agent back to a layer.
func (r Report) mdRework(b *strings.Builder) {
	b.WriteString("## Rework\n\n")
	n := len(r.Rework)
	for i, e := range r.Rework {
		if n > 2*mdReworkShown && i >= mdReworkShown && i < n-mdReworkShown {
			if i == mdReworkShown {
				fmt.Fprintf(b, "- … %d more\n", n-2*mdReworkShown)
			}
			continue
		}
		fmt.Fprintf(b, "- iteration %d: back to %s (%s)\n", e.Iteration, mdCell(e.Layer), mdCell(textutil.FirstLine(e.Reason)))
	}
	b.WriteString("\n")
}

// mdDefects lists the defects found, fixed or still open.
func (r Report) mdDefects(b *strings.Builder) {
	if len(r.Layers) == 0 {
		return
	}
	b.WriteString("## Defects found and fixed\n\n")
	if len(r.Defects.Items) == 0 {
		b.WriteString("No gate failed.\n\n")
		return
	}
	for _, d := range r.Defects.Items {
		state := "open"
		if d.Fixed() {
			state = fmt.Sprintf("fixed at iteration %d", d.FixedAt)
		}
		seen := fmt.Sprintf("found at iteration %d", d.FirstSeen)
		if d.Occurrences > 1 {
			seen += fmt.Sprintf(", seen %d times, last at %d", d.Occurrences, d.LastSeen)
		}
		if d.Reopened > 0 {
			seen += fmt.Sprintf(", came back %s", textutil.CountNoun(d.Reopened, "time"))
		}
		fmt.Fprintf(b, "- **%s** (layer %d, %s): %s — %s; %s\n", mdCell(d.Gate), d.Layer, d.Status, mdCode(d.Summary), seen, state)
	}
	b.WriteString("\n")
}

// mdCode quotes s as inline code, whatever backticks it holds.
func mdCode(s string) string {
	s = mdCell(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// layerSummaries lists each gate's last diagnostics for report.md.
func layerSummaries(layers []LayerReport) string {
	var b strings.Builder
	for _, l := range layers {
		if s := judgeSummary(l); s != "" {
			fmt.Fprintf(&b, "- %s: %s\n", l.Gate, mdCell(s))
		}
		if l.Diagnostics != nil {
			if s := l.Diagnostics.String(); s != "" {
				fmt.Fprintf(&b, "- %s: %s\n", l.Gate, s)
			}
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "Diagnostics (last run of each gate):\n" + b.String() + "\n"
}

// judgeSummary says what an evaluator gate judges and its last verdict: `evaluator judges
// "the README explains --judge"; last verdict unmet: the README says nothing`; "" for a
// command gate.
func judgeSummary(l LayerReport) string {
	if l.Judge == "" {
		return ""
	}
	s := fmt.Sprintf("evaluator judges %q", l.Judge)
	for i := len(l.Runs) - 1; i >= 0; i-- {
		if j := l.Runs[i].Judge; j != nil {
			s += "; last verdict " + j.Verdict
			if j.Reason != "" {
				s += ": " + textutil.FirstLine(j.Reason)
			}
			if j.Evaluator != "" {
				s += " (by `" + j.Evaluator + "`)"
			}
			break
		}
	}
	return s
}
