package review

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// PrintStatus writes a loop's state and what it is for; as JSON, {"state": …, "config": …}.
func PrintStatus(w io.Writer, st *loop.State, cfg *loop.Config, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, struct {
			State  *loop.State  `json:"state"`
			Config *loop.Config `json:"config"`
		}{st, cfg})
	}
	var b bytes.Buffer // one write, not a system call per line
	if err := PrintState(&b, st, false, ""); err != nil {
		return err
	}
	prompt, _, more := strings.Cut(strings.TrimSpace(cfg.Prompt), "\n")
	if more {
		prompt += " …"
	}
	fmt.Fprintf(&b, "task:      %s\n", textutil.TerminalSafe(prompt))
	PrintExit(&b, cfg)
	for i, g := range cfg.AllGates() {
		fmt.Fprintf(&b, "gate %d:    %s: %s%s\n", i+1, textutil.TerminalSafe(g.Name), textutil.TerminalSafe(g.Run), textutil.TerminalSafe(loop.GateConditions(g)))
	}
	loop.PrintShape(&b, cfg)
	_, err := w.Write(b.Bytes())
	return err
}

// PrintExit writes what ends a loop: its exit policy and promises, as typed (not escaped).
func PrintExit(w io.Writer, cfg *loop.Config) {
	if cfg.Exit == loop.ExitLimit {
		fmt.Fprintf(w, "exit:      limit: no promise or gate ends this loop; it runs to its iteration limit\n")
		return
	}
	fmt.Fprintf(w, "exit:      %s", textutil.TerminalSafe(cfg.Exit))
	for _, p := range cfg.Promises {
		fmt.Fprintf(w, ", promise \"%s\"", textutil.TerminalSafe(p))
	}
	fmt.Fprintln(w)
}

// PrintState writes st for a person, or as JSON. verb ("started", "paused"…) heads the line.
func PrintState(w io.Writer, st *loop.State, asJSON bool, verb string) error {
	if asJSON {
		return textutil.WriteJSON(w, st)
	}
	if verb != "" {
		fmt.Fprintf(w, "loop %s %s\n", st.Name, verb)
	}
	fmt.Fprintf(w, "loop:      %s\n", st.Name)
	fmt.Fprintf(w, "status:    %s (%s)\n", st.Status, textutil.TerminalSafe(st.Reason))
	switch {
	case st.ResumesItself():
		fmt.Fprintf(w, "continue:  by itself at the next stop once its cause (%s) has passed; or now: %s, then tell the agent to go on\n", st.Transient, textutil.TerminalSafe(loop.ResumeCommand(st)))
	case st.Status == loop.StatusPaused:
		fmt.Fprintf(w, "continue:  %s, then tell the agent to go on\n", textutil.TerminalSafe(loop.ResumeCommand(st)))
	}
	for _, p := range st.Problems {
		fmt.Fprintf(w, "problem:   %s\n", textutil.TerminalSafe(p.Text))
	}
	for _, wk := range st.Weakened {
		fmt.Fprintf(w, "weakened:  %s (`git loop approve %s` allows it)\n", textutil.TerminalSafe(wk.Why), st.Name)
	}
	fmt.Fprintf(w, "iteration: %s\n", loop.FormatIteration(st.Iteration, st.MaxIterations))
	if st.Session != "" {
		fmt.Fprintf(w, "session:   %s\n", textutil.TerminalSafe(st.Session))
	}
	fmt.Fprintf(w, "worktree:  %s\n", textutil.TerminalSafe(st.Worktree))
	fmt.Fprintf(w, "snapshot:  %s\n", textutil.Short(st.Snapshot))
	fmt.Fprintf(w, "updated:   %s\n", st.UpdatedAt.Local().Format(time.DateTime))
	fmt.Fprintf(w, "history:   git log --first-parent refs/loop/%s\n", st.Name)
	return nil
}

// PrintList writes one line per loop, or a JSON array.
func PrintList(w io.Writer, states []*loop.State, asJSON bool) error {
	if asJSON {
		if states == nil {
			states = []*loop.State{}
		}
		return textutil.WriteJSON(w, states)
	}
	if len(states) == 0 {
		fmt.Fprintln(w, "no loops (use --all to include ended ones)")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tITERATION\tUPDATED\tWORKTREE")
	var notes []string
	for _, st := range states {
		where := textutil.TerminalSafe(st.Worktree)
		if st.Remote != "" {
			where = "fetched from " + st.Remote
		}
		status := st.Status
		if st.Unenforced() {
			status += " (!)"
		}
		for _, p := range st.Problems {
			mark := "note:"
			if p.Unenforced {
				mark = "(!)"
			}
			notes = append(notes, fmt.Sprintf("%s %s: %s", mark, st.Name, textutil.TerminalSafe(p.Text)))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st.Name, status, loop.FormatIteration(st.Iteration, st.MaxIterations),
			st.UpdatedAt.Local().Format(time.DateTime), where)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

// PrintCheckpoint reports a recorded checkpoint.
func PrintCheckpoint(w io.Writer, st *loop.State, rec *loop.Iteration, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, rec)
	}
	change := "no change since the previous iteration"
	if rec.Changed {
		change = "tree changed"
	}
	fmt.Fprintf(w, "loop %s: iteration %s recorded, snapshot %s (%s; %s, %d hashed)\n",
		st.Name, loop.FormatIteration(rec.Number, st.MaxIterations), textutil.Short(rec.Snapshot), change, textutil.FilesText(rec.Files), rec.Hashed)
	return nil
}
