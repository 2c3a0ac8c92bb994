package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop/spec"
)

// maxSpec bounds a spec read from a file or standard input.
const maxSpec = 1 << 20

// scoreCommand is `git loop score [--json] TEXT|--file F`: it exits 1 when the spec is only
// an intent, as `check` does when a gate fails, so scripts can test a spec.
func scoreCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "score", Usage: "score a spec's clarity on five dimensions; name its shape and workflow", ArgsUsage: "TEXT", Category: groupSetup,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "file", Usage: "read the spec from `FILE` (- for standard input)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			text, err := specText(c)
			if err != nil {
				return err
			}
			s := spec.ScoreSpec(text)
			if err := spec.PrintScore(out, s, c.Bool("json")); err != nil {
				return err
			}
			if s.Shape == spec.ShapeIntent {
				return fmt.Errorf("%w (%d/10): add %s", spec.ErrIntent, s.Total, strings.Join(s.Weak(), ", "))
			}
			return nil
		},
	}
}

// specText is the spec given as arguments (joined by spaces) or by --file.
func specText(c *cli.Context) (string, error) {
	file := c.String("file")
	switch {
	case file != "" && c.NArg() > 0:
		return "", usageError{msg: "give the spec as TEXT or with --file, not both"}
	case file == "" && c.NArg() == 0:
		return "", usageError{msg: "score needs a spec: `git loop score 'TEXT'` or `git loop score --file SPEC.md` (- for standard input)"}
	case file == "":
		return strings.Join(c.Args().Slice(), " "), nil
	}
	var data []byte
	var err error
	if file == "-" {
		data, err = io.ReadAll(io.LimitReader(c.App.Reader, maxSpec))
	} else {
		data, err = readBounded(file, maxSpec)
	}
	if err != nil {
		return "", usageError{msg: fmt.Sprintf("read --file: %v", err)}
	}
	return string(data), nil
}

// readBounded reads at most n bytes of file.
func readBounded(file string, n int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}
