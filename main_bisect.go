package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/review"
)

// bisectCommand is `git loop bisect [NAME] [--good I] [--bad J] -- CMD…`.
func bisectCommand(out, errOut io.Writer) *cli.Command {
	return &cli.Command{
		Name: "bisect", Usage: "find the first iteration at which a command fails, in a scratch worktree", ArgsUsage: "[NAME] -- CMD [ARG…] | [NAME] --judge", Category: groupReview,
		Description: "CMD exits 0 for good, 125 when it cannot judge an iteration, anything else for bad (as with git bisect run).\n" +
			"With --judge, the loop's evaluator gates judge each snapshot instead (with the agent's message of that\n" +
			"iteration; a recorded verdict is reused): met is good, unmet bad, anything else untestable.\n" +
			"The good iteration defaults to the first, the bad one to the newest. Your worktree is never touched.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "good", Usage: "an iteration `I` where CMD passes", Value: review.Latest, DefaultText: "the first"},
			&cli.IntFlag{Name: "bad", Usage: "an iteration `J` where CMD fails", Value: review.Latest, DefaultText: "the newest"},
			&cli.DurationFlag{Name: "timeout", Usage: "kill CMD after `DURATION` (the iteration counts as untestable)", Value: gates.DefaultTimeout},
			jsonFlag,
			&cli.BoolFlag{Name: "judge", Usage: "judge each snapshot by the loop's evaluator gates instead of CMD"}, trustFlag,
		},
		Action: func(c *cli.Context) error {
			command := agentArgs(c)
			switch {
			case c.Bool("judge") && len(command) > 0:
				return usageError{msg: "bisect takes a command after -- or --judge, not both"}
			case c.Bool("judge"):
				command = []string{"the evaluator"}
			case len(command) == 0:
				return missingCommand("bisect")
			}
			name, err := oneName(c)
			if err != nil {
				return err
			}
			if err := checkBisectEnds(c); err != nil {
				return err
			}
			return withRecent(name, func(s *loop.Store, name string) error {
				s.Trust = c.Bool("trust")
				res, err := review.Bisect(s, c.Context, name, review.BisectOptions{Good: c.Int("good"), Bad: c.Int("bad"),
					Command: command, Timeout: c.Duration("timeout"), Progress: errOut, Judge: c.Bool("judge")})
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return textutil.WriteJSON(out, res)
				}
				if len(res.Ambiguous) > 0 {
					fmt.Fprintf(out, "the first bad iteration is one of %s, %d: the command could not judge the others (exit 125); iteration %d is good, %d is bad (%d snapshots tested)\n",
						strings.Trim(fmt.Sprint(res.Ambiguous), "[]"), res.FirstBad, res.LastGood, res.FirstBad, res.Tested)
				} else {
					fmt.Fprintf(out, "iteration %d is the first bad one (iteration %d is good; %d snapshots tested)\n", res.FirstBad, res.LastGood, res.Tested)
				}
				if len(res.Untestable) > 0 {
					fmt.Fprintf(out, "untestable, skipped: %s\n", strings.Trim(fmt.Sprint(res.Untestable), "[]"))
				}
				if tail := strings.TrimSpace(res.Output); tail != "" {
					fmt.Fprintf(out, "\n%s at iteration %d ended with:\n", command[0], res.FirstBad)
					for _, line := range strings.Split(strings.TrimRight(tail, "\n"), "\n") {
						fmt.Fprintf(out, "  | %s\n", line)
					}
				}
				fmt.Fprintln(out)
				return withHistory(name, func(h *loop.History) error {
					return review.PrintDiff(c.Context, out, h, res.LastGood, res.FirstBad, review.ShowOptions{Color: useColor(out)})
				})
			})
		},
	}
}

// checkBisectEnds refuses --good and --bad values no loop could have: a negative iteration,
// or a good end that is not before the bad one.
func checkBisectEnds(c *cli.Context) error {
	for _, flag := range []string{"good", "bad"} {
		if c.IsSet(flag) && c.Int(flag) < 0 {
			return usageError{msg: fmt.Sprintf("--%s takes an iteration number, 0 or more; see `git loop log`", flag)}
		}
	}
	if c.IsSet("good") && c.IsSet("bad") && c.Int("good") >= c.Int("bad") {
		return usageError{msg: fmt.Sprintf("--good %d must be an iteration before --bad %d", c.Int("good"), c.Int("bad"))}
	}
	return nil
}
