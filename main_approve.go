package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
)

// approveCommand is `git loop approve [NAME]`: a person allows the weakenings of the checks
// the loop's last judged iteration found.
func approveCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "approve", Usage: "allow the weakened checks the last iteration found (the task is about those tests)", ArgsUsage: "[NAME]", Category: groupDrive,
		Flags: []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			return withLoop(c, func(s *loop.Store, name string) error {
				st, approved, err := s.Approve(name)
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return textutil.WriteJSON(out, map[string]any{"loop": name, "iteration": st.Iteration, "approved": approved})
				}
				for _, w := range approved {
					fmt.Fprintf(out, "approved: %s\n", w.Why)
				}
				fmt.Fprintf(out, "loop %s: %d weakening(s) of the checks approved at iteration %d; the next stop may complete with them (recorded on refs/loop/%s)\n",
					name, len(approved), st.Iteration, name)
				return nil
			})
		},
	}
}
