package share

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/git-loop/git-loop/loop"
)

// PrintPush writes one line per ref a push sent, saying what the remote did with it.
func PrintPush(w io.Writer, rep *PushReport) {
	fmt.Fprintf(w, "pushed to %s:\n", rep.Remote)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rep.Refs {
		what := map[byte]string{'*': "new", ' ': "updated", '=': "up to date", '!': "rejected", '+': "forced", '-': "deleted"}[r.Flag]
		if r.Reason != "" {
			what += " (" + r.Reason + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", r.To, what)
	}
	tw.Flush()
}

// PrintFetch writes the loops a fetch brought, named as reading commands take them.
func PrintFetch(w io.Writer, rep *FetchReport) {
	if len(rep.Loops) == 0 {
		fmt.Fprintf(w, "%s has no loops\n", rep.Remote)
	} else {
		fmt.Fprintf(w, "loops of %s (read them with `git loop log %s`):\n", rep.Remote, rep.Loops[0].Name)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, st := range rep.Loops {
			fmt.Fprintf(tw, "  %s\t%s\titeration %s\n", st.Name, st.Status, loop.FormatIteration(st.Iteration, st.MaxIterations))
		}
		tw.Flush()
	}
	if rep.NotesMerged {
		fmt.Fprintf(w, "provenance notes merged into %s (see `git log --notes=loop`)\n", loop.NotesRef)
	}
}
