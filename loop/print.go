package loop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-loop/git-loop/loop/internal/textutil"
)

// Status returns the state and configuration of loop name (or of this worktree's loop).
func (s *Store) Status(name string) (*State, *Config, error) {
	name, err := s.Resolve(name)
	if err != nil {
		return nil, nil, err
	}
	tip, err := s.ReadTip(name)
	if err != nil {
		return nil, nil, err
	}
	st, cfgLine, hit := readHot(s.Repo, name, tip) // one read for both, on the hot path
	if hit {
		if cfg, ok := hotConfig(cfgLine, st); ok {
			return s.withProblems(name, st), cfg, nil
		}
	} else if st, err = s.cachedStateAt(name, tip); err != nil {
		return nil, nil, err
	}
	cfg, err := s.ReadConfig(name, tip)
	if err != nil {
		return nil, nil, err
	}
	writeHotState(s.Repo, name, tip, st, cfg)
	return s.withProblems(name, st), cfg, nil
}

// withProblems returns st, or a copy of it carrying its problems (see Problems).
func (s *Store) withProblems(name string, st *State) *State {
	probs := s.Problems(name, st)
	if len(probs) == 0 {
		return st
	}
	cp := *st
	cp.Problems = probs
	return &cp
}

// WithProblems returns states, each carrying what keeps it from being enforced now (see
// Problems), for list to print.
func (s *Store) WithProblems(states []*State) []*State {
	out := make([]*State, len(states))
	for i, st := range states {
		out[i] = s.withProblems(st.Name, st)
	}
	return out
}

// PrintStatus writes a loop's state and what it is for; as JSON, {"state": …, "config": …}.
func PrintStatus(w io.Writer, st *State, cfg *Config, asJSON bool) error {
	if asJSON {
		return writeJSON(w, struct {
			State  *State  `json:"state"`
			Config *Config `json:"config"`
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
	for i, g := range cfg.Gates {
		fmt.Fprintf(&b, "gate %d:    %s: %s%s\n", i+1, textutil.TerminalSafe(g.Name), textutil.TerminalSafe(g.Run), textutil.TerminalSafe(gateConditions(g)))
	}
	PrintShape(&b, cfg)
	_, err := w.Write(b.Bytes())
	return err
}

// PrintExit writes what ends a loop: its exit policy and promises, as typed (not escaped).
func PrintExit(w io.Writer, cfg *Config) {
	if cfg.Exit == ExitLimit {
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
func PrintState(w io.Writer, st *State, asJSON bool, verb string) error {
	if asJSON {
		return writeJSON(w, st)
	}
	if verb != "" {
		fmt.Fprintf(w, "loop %s %s\n", st.Name, verb)
	}
	fmt.Fprintf(w, "loop:      %s\n", st.Name)
	fmt.Fprintf(w, "status:    %s (%s)\n", st.Status, textutil.TerminalSafe(st.Reason))
	if st.Status == StatusPaused {
		fmt.Fprintf(w, "continue:  %s, then tell the agent to go on\n", textutil.TerminalSafe(ResumeCommand(st)))
	}
	for _, p := range st.Problems {
		fmt.Fprintf(w, "problem:   %s\n", textutil.TerminalSafe(p.Text))
	}
	fmt.Fprintf(w, "iteration: %s\n", FormatIteration(st.Iteration, st.MaxIterations))
	if st.Session != "" {
		fmt.Fprintf(w, "session:   %s\n", textutil.TerminalSafe(st.Session))
	}
	fmt.Fprintf(w, "worktree:  %s\n", textutil.TerminalSafe(st.Worktree))
	fmt.Fprintf(w, "snapshot:  %s\n", Short(st.Snapshot))
	fmt.Fprintf(w, "updated:   %s\n", st.UpdatedAt.Local().Format(time.DateTime))
	fmt.Fprintf(w, "history:   git log --first-parent refs/loop/%s\n", st.Name)
	return nil
}

// PrintList writes one line per loop, or a JSON array.
func PrintList(w io.Writer, states []*State, asJSON bool) error {
	if asJSON {
		if states == nil {
			states = []*State{}
		}
		return writeJSON(w, states)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st.Name, status, FormatIteration(st.Iteration, st.MaxIterations),
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
func PrintCheckpoint(w io.Writer, st *State, rec *Iteration, asJSON bool) error {
	if asJSON {
		return writeJSON(w, rec)
	}
	change := "no change since the previous iteration"
	if rec.Changed {
		change = "tree changed"
	}
	fmt.Fprintf(w, "loop %s: iteration %s recorded, snapshot %s (%s; %s, %d hashed)\n",
		st.Name, FormatIteration(rec.Number, st.MaxIterations), Short(rec.Snapshot), change, FilesText(rec.Files), rec.Hashed)
	return nil
}

// WriteJSON prints v as indented JSON, as every --json output is.
func WriteJSON(w io.Writer, v any) error { return writeJSON(w, v) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func Short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
