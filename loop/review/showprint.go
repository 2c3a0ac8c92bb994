package review

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/checks"
)

// ShowOptions configure PrintShow and PrintDiff.
type ShowOptions struct {
	JSON  bool
	Color bool
}

// showTailLines is how much of each gate's output show prints.
const showTailLines = 20

// IterationView is `git loop show --json`: the record and what changed since the iteration
// before it.
type IterationView struct {
	Loop      string          `json:"loop"`
	Iteration *loop.Iteration `json:"record"`
	Previous  int             `json:"previous"` // -1 for the first
	Diffstat  []loop.FileStat `json:"diffstat"`
}

// Latest is the iteration number `show` and `diff` use when none is given.
const Latest = -1

// PrintShow prints iteration n (Latest: the newest): its decision and why, each gate with the
// end of its output, the agent's last message, and the diffstat since the iteration before.
func PrintShow(w io.Writer, h *loop.History, n int, opts ShowOptions) error {
	if n == Latest {
		n = h.State.Iteration
	}
	rec, err := h.Get(n)
	if err != nil {
		return err
	}
	prev, _ := previous(h, n)
	a, err := h.Before(prev)
	if err != nil {
		return err
	}
	b, err := gitstore.ParseHash(rec.Tree)
	if err != nil {
		return fmt.Errorf("%w: iteration %d has no tree", loop.ErrCorrupt, n)
	}
	stats, err := h.Diffstat(a, b)
	if err != nil {
		return err
	}
	if opts.JSON {
		v := IterationView{Loop: h.Name, Iteration: rec, Previous: -1, Diffstat: stats}
		if prev != nil {
			v.Previous = prev.Number
		}
		return textutil.WriteJSON(w, v)
	}
	printRecord(w, h, rec, opts)
	since := "the commit the loop started from"
	if prev != nil {
		since = fmt.Sprintf("iteration %d", prev.Number)
	}
	fmt.Fprintf(w, "\nchanges since %s:\n", since)
	if len(stats) == 0 {
		fmt.Fprintln(w, " none")
		return nil
	}
	printDiffstat(w, stats, opts.Color)
	return nil
}

// previous is the record of the iteration before n, or nil for the first.
func previous(h *loop.History, n int) (*loop.Iteration, error) {
	for m := n - 1; m >= 0; m-- {
		if rec, err := h.Get(m); err == nil {
			return rec, nil
		}
	}
	return nil, nil
}

func printRecord(w io.Writer, h *loop.History, rec *loop.Iteration, opts ShowOptions) {
	fmt.Fprintf(w, "iteration %d of loop %s (%s, %s", rec.Number, h.Name, textutil.TerminalSafe(rec.Kind), rec.At.Local().Format("2006-01-02 15:04:05"))
	if rec.Duration > 0 {
		fmt.Fprintf(w, ", %s", textutil.FormatDuration(rec.Duration))
	}
	fmt.Fprintln(w, ")")
	if rec.Decision != "" {
		fmt.Fprintf(w, "decision: %s", textutil.TerminalSafe(rec.Decision))
		if rec.Reason != "" {
			fmt.Fprintf(w, ": %s", textutil.TerminalSafe(rec.Reason))
		}
		fmt.Fprintln(w)
	}
	if len(rec.Unmet) > 0 {
		fmt.Fprintf(w, "unmet:    %s\n", textutil.TerminalSafe(strings.Join(rec.Unmet, ", ")))
	}
	if rec.Layer != "" {
		fmt.Fprintf(w, "rework:   layer %s\n", textutil.TerminalSafe(rec.Layer))
	}
	fmt.Fprintf(w, "snapshot: %s (tree %s)\n", rec.Snapshot, rec.Tree)
	if len(rec.Gates) > 0 {
		fmt.Fprintln(w, "\ngates:")
	}
	p := logPrinter{opts: LogOptions{Color: opts.Color}}
	for _, g := range rec.Gates {
		cell := gateCells[g.Status]
		fmt.Fprintf(w, "  %s %-12s %-8s %7s  exit %d\n", p.paint(cell.color, cell.char), textutil.TerminalSafe(g.Name), textutil.TerminalSafe(g.Status), textutil.FormatDuration(g.Duration), g.ExitCode)
		if g.Judge != nil {
			fmt.Fprintf(w, "      evaluator %s\n", textutil.TerminalSafe(judgeLine(g.Judge)))
		}
		if tail := textutil.TerminalSafe(strings.TrimRight(textutil.LastLines(g.Tail, showTailLines), "\n")); tail != "" && !g.Passed() {
			for _, line := range strings.Split(tail, "\n") {
				fmt.Fprintf(w, "      | %s\n", line)
			}
		}
	}
	PrintWeakened(w, rec.Weakened)
	if rec.Message != "" {
		fmt.Fprintln(w, "\nagent's last message:")
		for _, line := range strings.Split(textutil.TerminalSafe(strings.TrimRight(rec.Message, "\n")), "\n") {
			fmt.Fprintf(w, "  > %s\n", line)
		}
	}
}

// DiffView is `git loop diff --json`.
type DiffView struct {
	Loop        string          `json:"loop"`
	From        int             `json:"from"`
	To          int             `json:"to"`
	Diffstat    []loop.FileStat `json:"diffstat"`
	MessageDiff []MessageLine   `json:"message_diff"`
}

// MessageLine is one line of the diff between two iterations' agent messages.
type MessageLine struct {
	Op   string `json:"op"` // "=", "-" or "+"
	Text string `json:"text"`
}

// PrintDiff prints the rework between iterations from and to (Latest to: the newest, and
// from the one before it): the diffstat and patch of their snapshots (by git diff, so the
// patch is exactly git's), then how the agent's message changed.
func PrintDiff(ctx context.Context, w io.Writer, h *loop.History, from, to int, opts ShowOptions) error {
	if to == Latest {
		to = h.State.Iteration
	}
	if from == Latest {
		from = to - 1
	}
	if from < 0 || from == to && to == 0 { // only the start: no iteration before it to compare with
		return nothingToCompare(w, h, to, opts)
	}
	b, err := h.Get(to)
	if err != nil {
		return err
	}
	var a *loop.Iteration
	if from >= 0 {
		if a, err = h.Get(from); err != nil {
			return err
		}
	}
	ta, err := h.Before(a)
	if err != nil {
		return err
	}
	tb, _ := gitstore.ParseHash(b.Tree)
	stats, err := h.Diffstat(ta, tb)
	if err != nil {
		return err
	}
	msg := messageDiff(a, b)
	if opts.JSON {
		return textutil.WriteJSON(w, DiffView{Loop: h.Name, From: from, To: to, Diffstat: stats, MessageDiff: msg})
	}
	fmt.Fprintf(w, "loop %s: iteration %d → %d\n", h.Name, from, to)
	if len(stats) == 0 {
		fmt.Fprintln(w, "no change to the worktree")
	} else if err := gitDiff(h, ctx, w, ta, tb, opts.Color); err != nil {
		return err
	}
	printMessageDiff(w, msg, from, to, opts.Color)
	return nil
}

// nothingToCompare answers a diff of a loop that has only iteration to (its start): there
// is no iteration before it, which is said plainly rather than diffed against the base.
func nothingToCompare(w io.Writer, h *loop.History, to int, opts ShowOptions) error {
	if opts.JSON {
		return textutil.WriteJSON(w, DiffView{Loop: h.Name, From: to, To: to, Diffstat: []loop.FileStat{}, MessageDiff: []MessageLine{}})
	}
	fmt.Fprintf(w, "loop %s has only iteration %d (its start): nothing to compare yet; `git loop show %s %d` shows what it recorded\n", h.Name, to, h.Name, to)
	return nil
}

// gitDiff runs git diff --stat --patch between two trees, writing to w.
func gitDiff(h *loop.History, ctx context.Context, w io.Writer, a, b gitstore.Hash, color bool) error {
	from := a.String()
	if a.IsZero() {
		from = emptyTree
	}
	mode := "--color=never"
	if color {
		mode = "--color=always"
	}
	cmd := exec.CommandContext(ctx, "git", "--no-pager", "--git-dir", h.GitDir(), "diff", "--no-ext-diff", mode, "--stat", "--patch", from, b.String())
	cmd.Stdout, cmd.Stderr, cmd.Env = w, w, gitstore.CleanGitEnv()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("git diff of the snapshots: %w", err)
	}
	return nil
}

// emptyTree is git's empty tree, for a diff from nothing.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// messageDiff is a line diff of the agent's messages of two iterations.
func messageDiff(a, b *loop.Iteration) []MessageLine {
	old := ""
	if a != nil {
		old = a.Message
	}
	var out []MessageLine
	for _, d := range textutil.LineDiff(ensureNewline(old), ensureNewline(b.Message)) {
		op := map[diffmatchpatch.Operation]string{diffmatchpatch.DiffEqual: "=", diffmatchpatch.DiffDelete: "-", diffmatchpatch.DiffInsert: "+"}[d.Type]
		for _, line := range strings.SplitAfter(d.Text, "\n") {
			if line != "" {
				out = append(out, MessageLine{Op: op, Text: strings.TrimSuffix(line, "\n")})
			}
		}
	}
	return out
}

func ensureNewline(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		return s + "\n"
	}
	return s
}

func printMessageDiff(w io.Writer, lines []MessageLine, from, to int, color bool) {
	changed := false
	for _, l := range lines {
		changed = changed || l.Op != "="
	}
	if len(lines) == 0 {
		fmt.Fprintf(w, "\nno agent message in iteration %d or %d (a start, checkpoint or restore records none)\n", from, to)
		return
	}
	if !changed {
		fmt.Fprintf(w, "\nthe agent's message is the same in iterations %d and %d\n", from, to)
		return
	}
	fmt.Fprintf(w, "\nthe agent's message, iteration %d → %d:\n", from, to)
	for _, l := range lines {
		prefix, col := " ", ""
		switch l.Op {
		case "-":
			prefix, col = "-", "31"
		case "+":
			prefix, col = "+", "32"
		}
		line := prefix + " " + textutil.TerminalSafe(l.Text)
		if color && col != "" {
			line = "\x1b[" + col + "m" + line + "\x1b[0m"
		}
		fmt.Fprintln(w, line)
	}
}

// printDiffstat prints stats as git's --stat does: path | n +++--- , then a summary line.
func printDiffstat(w io.Writer, stats []loop.FileStat, color bool) {
	width := 0
	for _, s := range stats {
		width = max(width, len(s.Path))
	}
	added, deleted := 0, 0
	for _, s := range stats {
		if s.Binary {
			fmt.Fprintf(w, " %-*s | Bin\n", width, s.Path)
			continue
		}
		added, deleted = added+s.Added, deleted+s.Deleted
		plus, minus := bar(s.Added, s.Deleted, 40)
		if color {
			plus, minus = "\x1b[32m"+plus+"\x1b[0m", "\x1b[31m"+minus+"\x1b[0m"
		}
		fmt.Fprintf(w, " %-*s | %4d %s%s\n", width, s.Path, s.Added+s.Deleted, plus, minus)
	}
	fmt.Fprintf(w, " %d file%s changed, %d insertion%s(+), %d deletion%s(-)\n",
		len(stats), textutil.Plural(len(stats)), added, textutil.Plural(added), deleted, textutil.Plural(deleted))
}

// bar scales a file's +/- counts to at most width characters.
func bar(added, deleted, width int) (string, string) {
	total := added + deleted
	if total > width {
		added, deleted = added*width/total, deleted*width/total
	}
	return strings.Repeat("+", added), strings.Repeat("-", deleted)
}

// judgeLine is an evaluator gate's record in one line: "`claude -p` judged unmet, input
// 5120 bytes, $0.0031", with "(cut to fit)" and "cached from iteration N" when they apply.
func judgeLine(j *loop.JudgeInfo) string {
	s := fmt.Sprintf("`%s` judged %s", j.Evaluator, j.Verdict)
	if j.InputBytes > 0 {
		s += fmt.Sprintf(", input %d bytes", j.InputBytes)
		if j.InputCut {
			s += " (cut to fit)"
		}
	}
	if j.CostUSD > 0 {
		s += fmt.Sprintf(", $%.4f", j.CostUSD)
	}
	if j.CachedFrom > 0 {
		s += fmt.Sprintf(", cached from iteration %d", j.CachedFrom)
	}
	return s
}

// PrintWeakened lists how the checks were weakened, each with what allowed it (or that
// nothing did) and its lines; nothing when they were not.
func PrintWeakened(w io.Writer, ws []checks.Weakening) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(w, "\nchecks weakened since the loop's start:")
	for _, wk := range ws {
		how := "unresolved: it keeps the loop from completing"
		if wk.Allowed != "" {
			how = "allowed: " + wk.Allowed
		}
		fmt.Fprintf(w, "  %s %s\n      (%s)\n", wk.Kind, textutil.TerminalSafe(wk.Why), textutil.TerminalSafe(how))
		for _, line := range strings.Split(textutil.TerminalSafe(wk.Hunk), "\n") {
			if line != "" {
				fmt.Fprintf(w, "      | %s\n", line)
			}
		}
	}
}
