package importer

import (
	"fmt"
	"io"
	"strings"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/review"
)

// PrintImport writes what an import carried over (as the new loop's resolved configuration
// has it, flags included), what it did not, one line each, and the new loop's state.
func PrintImport(w io.Writer, res *ImportResult, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, res)
	}
	im, cfg := res.Imported, res.Config
	fmt.Fprintf(w, "import %s (%s)\n", im.File, im.Tool)
	fmt.Fprintln(w, "carried over:")
	task, _, more := strings.Cut(cfg.Prompt, "\n")
	if more {
		task += " …"
	}
	derived := ""
	if im.PromptDerived && cfg.Prompt == im.Prompt {
		derived = " (described from the state: the file records no task; -p replaces it)"
	}
	fmt.Fprintf(w, "  task:           %s%s\n", task, derived)
	for _, p := range cfg.Promises {
		fmt.Fprintf(w, "  promise:        %q\n", p)
	}
	for _, m := range cfg.Markers {
		fmt.Fprintf(w, "  marker:         %s\n", m)
	}
	if len(cfg.Promises) == 0 && len(cfg.Markers) == 0 {
		fmt.Fprintf(w, "  promise:        none%s\n", noPromiseText(cfg))
	}
	fmt.Fprintf(w, "  exit:           %s\n", cfg.Exit)
	fmt.Fprintf(w, "  max iterations: %s\n", limitText(cfg))
	for _, g := range cfg.Gates {
		fmt.Fprintf(w, "  gate:           %s: %s%s\n", g.Name, g.Run, loop.GateConditions(g))
	}
	if res.Session != "" {
		from := ""
		if res.Session == im.Session {
			from = " (session_id: only that agent session's stops are judged; --session replaces it)"
		}
		fmt.Fprintf(w, "  session:        %s%s\n", textutil.TerminalSafe(res.Session), from)
	}
	for _, c := range cfg.Criteria {
		fmt.Fprintf(w, "  criterion:      %s (%s)\n", c.Name, c.Verify)
	}
	printLimits(w, cfg)
	fmt.Fprintln(w, "not carried over:")
	if len(im.NotCarried) == 0 {
		fmt.Fprintln(w, "  nothing")
	}
	for _, line := range im.NotCarried {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if res.DryRun {
		fmt.Fprintf(w, "dry run: nothing recorded; %s is unchanged; run without --dry-run to start the loop\n", im.File)
		return nil
	}
	fmt.Fprintf(w, "%s is left untouched: if the old tool's hook is still installed, stop its loop there\n", im.File)
	return review.PrintState(w, res.State, false, "started")
}

// noPromiseText says what ends a loop imported without a promise.
func noPromiseText(cfg loop.Config) string {
	switch {
	case len(cfg.Gates) > 0:
		return ": the gates decide"
	case cfg.MaxIterations > 0:
		return ": the loop runs to its iteration limit"
	}
	return ""
}

func limitText(cfg loop.Config) string {
	if cfg.MaxIterations == 0 {
		return "none (--unlimited)"
	}
	return fmt.Sprint(cfg.MaxIterations)
}

// printLimits writes the breaker thresholds and duration set other than by default.
func printLimits(w io.Writer, cfg loop.Config) {
	for _, l := range []struct {
		name string
		v    int
	}{{"stuck limit", cfg.Limits.Stuck}, {"same error", cfg.Limits.SameError}, {"no progress", cfg.Limits.NoProgress}, {"rework limit", cfg.Limits.Rework}} {
		if l.v > 0 {
			fmt.Fprintf(w, "  %-15s %d\n", l.name+":", l.v)
		}
	}
	if cfg.MaxDuration != "" {
		fmt.Fprintf(w, "  max duration:   %s\n", cfg.MaxDuration)
	}
}
