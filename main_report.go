package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/report"
)

// reportCommand is `git loop report [NAME] --format md|yaml|json|html [-o FILE]`.
func reportCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "report", Usage: "a loop's report: the verdict, gate matrix, defects and timeline", ArgsUsage: "[NAME]", Category: groupReview,
		Description: "Works on any loop, running or ended; NAME defaults to this worktree's active or latest loop.\n" +
			"md is the summary a reviewer reads first; yaml and json carry the whole record; html is one\n" +
			"self-contained page with the matrix and a timeline chart.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: report.FormatMarkdown, Usage: "`FORMAT`: " + strings.Join(report.ReportFormats, ", ")},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` (atomically; its mode kept, a symlink followed) instead of standard output (-)"},
		},
		Action: func(c *cli.Context) error {
			// A report reads every iteration of a loop, ten thousand in a long one: its garbage
			// grows with the loop, so it is collected (main switches collection off for the
			// short commands, whose garbage stays small).
			debug.SetGCPercent(100)
			name, err := oneName(c)
			if err != nil {
				return err
			}
			format := c.String("format")
			if err := report.CheckReportFormat(format); err != nil {
				return usageError{msg: err.Error()}
			}
			if c.IsSet("output") && c.String("output") == "" {
				return usageError{msg: "-o needs a file name; leave it out to print the report"}
			}
			return withHistory(name, func(h *loop.History) error {
				r, err := report.FromHistory(h)
				if err != nil {
					return err
				}
				data, err := r.Render(format)
				if err != nil {
					return err
				}
				if path := c.String("output"); path != "" && path != "-" {
					if err := report.ReplaceFile(path, data, 0o644); err != nil {
						return err
					}
					fmt.Fprintf(out, "wrote the %s report of loop %s (%s) to %s\n", format, h.Name, r.Release, path)
					return nil
				}
				_, err = out.Write(data)
				return err
			})
		},
	}
}
