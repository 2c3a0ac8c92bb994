package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/share"
)

// pushCommand is `git loop push [REMOTE] [NAME|LOCAL:THEIRS…]`: loops to a remote, with the
// user's own git, never forced.
func pushCommand(out io.Writer) *cli.Command {
	return &cli.Command{
		Name: "push", Usage: "push loops (refs/loop/*) and their provenance notes to a remote, never forced", ArgsUsage: "[REMOTE] [NAME|LOCAL:THEIRS…]", Category: groupShare,
		Description: "REMOTE defaults to origin; NAME… to every loop; LOCAL:THEIRS pushes loop LOCAL as the remote's loop THEIRS. Snapshots holding likely secrets are refused.",
		Flags:       []cli.Flag{&cli.BoolFlag{Name: "allow-secrets", Usage: "push even when snapshots hold likely secrets (.env*, *.pem, ssh or PEM private keys)"}},
		Action: func(c *cli.Context) error {
			return withStore(func(s *loop.Store) error {
				remote, names, err := pushArgs(s, c.Args().Slice())
				if err != nil {
					return err
				}
				rep, err := share.Push(s, c.Context, share.PushOptions{Remote: remote, Names: names, AllowSecrets: c.Bool("allow-secrets")})
				if rep != nil && len(rep.Refs) > 0 {
					share.PrintPush(out, rep)
				}
				return err
			})
		},
	}
}

// pushArgs splits push's [REMOTE] [NAME|LOCAL:THEIRS…]: the first argument is the remote
// when it is a configured remote, a URL or a path with a '/' that names no fetched loop
// (REMOTE/NAME, which push refuses), or a directory that is not also a loop's name;
// otherwise every argument is a loop name.
func pushArgs(s *loop.Store, args []string) (string, []string, error) {
	if len(args) == 0 {
		return "", nil, nil
	}
	first := args[0]
	if first == "" {
		return "", nil, usageError{msg: "the remote is empty; name a remote (see `git remote`) or leave it out for origin"}
	}
	if share.IsRemote(s, first) {
		return first, args[1:], nil
	}
	if remote, _, ok := strings.Cut(first, "/"); ok && loop.CheckReadName(first) == nil {
		// REMOTE/NAME: a fetched loop, or one of a remote's not fetched yet (unless a
		// directory of that path is meant); a loop's name, which Push refuses as read-only.
		if _, _, err := s.ReadState(first); err == nil || (share.IsRemote(s, remote) && !isDir(first)) {
			return "", args, nil
		}
	}
	if local, _, ok := strings.Cut(first, ":"); ok && loop.CheckName(local) == nil {
		if _, _, err := s.ReadState(local); err == nil {
			return "", args, nil // LOCAL:THEIRS
		}
	}
	if strings.ContainsAny(first, ":/") {
		return first, args[1:], nil
	}
	if loop.CheckName(first) == nil {
		if _, _, err := s.ReadState(first); err == nil {
			return "", args, nil
		}
	}
	if isDir(first) {
		return first, args[1:], nil
	}
	return "", nil, fmt.Errorf("%w %q: it is neither a remote (see `git remote`) nor a loop (see `git loop list --all`)", loop.ErrNoRemote, first)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
