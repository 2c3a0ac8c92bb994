package spec

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/git-loop/git-loop/internal/textutil"
)

// ErrIntent marks a spec that scores as a mere intent: `score`, a check a person runs, exits
// 1 with it. `start` never refuses a loop for its score: the score is advice.
var ErrIntent = errors.New("the spec is only an intent")

// PrintScore writes a spec's score as a short table with what to add to each weak
// dimension, or as JSON.
func PrintScore(w io.Writer, s SpecScore, asJSON bool) error {
	if asJSON {
		return textutil.WriteJSON(w, s)
	}
	fmt.Fprintf(w, "spec: %s\n", s.Summary())
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DIMENSION\tSCORE\tFOUND\tTO ADD")
	for _, d := range s.Dimensions {
		found := "-"
		if len(d.Found) > 0 {
			shown := make([]string, min(len(d.Found), 2))
			for i := range shown {
				shown[i] = textutil.Clip(d.Found[i], 32)
			}
			found = strings.Join(shown, ", ")
			if len(d.Found) > 2 {
				found += fmt.Sprintf(" (+%d)", len(d.Found)-2)
			}
		}
		fmt.Fprintf(tw, "%s\t%d/2\t%s\t%s\n", d.Name, d.Score, found, d.Missing)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, shapeMeaning(s.Shape))
	return nil
}

// shapeMeaning says in one line what a shape means for a loop.
func shapeMeaning(shape string) string {
	switch shape {
	case ShapeTool:
		return "shape tool: the loop can run on its own"
	case ShapeColleague:
		return "shape colleague: a loop runs on it unattended, but the agent would do better with what the table says; `--shape colleague` adds checkpoints for a person"
	}
	return "shape intent: vague; a loop on it runs to its limit unattended, but the agent has little to aim at — add what the table says"
}
