package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGitDaemon is `gitdaemon DIR`: it serves the repositories under DIR with a real
// `git daemon` on a free port of 127.0.0.1, pushes allowed, sets $DAEMON to its git:// URL
// and stops it when the script ends. Guard scripts with [!gitdaemon] skip.
func cmdGitDaemon(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitdaemon DIR")
	}
	if !haveGitDaemon() {
		ts.Fatalf("git daemon is not installed; guard the script with [!gitdaemon] skip")
	}
	base := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(base, 0o777))
	port, err := freePort()
	ts.Check(err)
	// git-daemon itself, not `git daemon`: git would run it as a child that killing git
	// leaves serving on the port after the script.
	cmd := exec.Command(gitDaemonPath(), "--enable=receive-pack", "--export-all", "--reuseaddr",
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+base, base)
	cmd.Env = append(os.Environ(), "HOME="+ts.Getenv("HOME"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+ts.Getenv("GIT_CONFIG_GLOBAL"))
	ts.Check(cmd.Start())
	ts.Defer(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			ts.Fatalf("git daemon did not listen on %s", addr)
		}
	}
	ts.Setenv("DAEMON", "git://"+addr)
}

// scriptCondition answers the scripts' own conditions: [pytest] (toolchains_test.go), and
// [gitdaemon], which is true when git has a daemon to serve repositories with.
func scriptCondition(cond string) (bool, error) {
	if cond == "gitdaemon" {
		return haveGitDaemon(), nil
	}
	if ok, known := toolchainCondition(cond); known {
		return ok, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

func haveGitDaemon() bool {
	p := gitDaemonPath()
	if p == "" {
		return false
	}
	_, err := os.Stat(p)
	return err == nil
}

// gitDaemonPath is git-daemon's program in git's exec path, or "".
func gitDaemonPath() string {
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return ""
	}
	return filepath.Join(strings.TrimSpace(string(execPath)), "git-daemon")
}

// freePort is a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
