//go:build unix

package realagents

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OpenCode runs a project's plugins (.opencode/plugin/*.js) without asking, but has no
// command hooks: a stop hook is a plugin that, when a session goes idle, runs the hook and
// continues the session through the SDK client. That works only against a server — under
// plain `opencode run` the process exits at the first idle, before any continuation — so
// each Env runs `opencode serve` and the agent's runs attach to it
// (`opencode run --attach URL --dir REPO`).

// serverStart bounds the start of `opencode serve` (20 s seen on two cores shared with a
// load of 18).
const serverStart = 2 * time.Minute

// settledFor is how long a server must stay idle, with no hook running, to be taken as
// settled: a plugin that continues the session does so right after its hook answers.
const settledFor = 2 * time.Second

// server is a running `opencode serve`.
type server struct {
	url  string
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd has exited
}

// OpenCodeServer returns the URL of the Env's `opencode serve`, starting it the first time,
// which must come after the project's plugins are in place (the server loads a project's
// plugins when it first serves it): HookedArgs, ResumeArgs and DriverArgs call it. It runs
// in the repository in a process group of its own, stopped with everything it started when
// the test ends; its output is in the logs (server.stdout, server.stderr).
func (e *Env) OpenCodeServer() string {
	e.T.Helper()
	if e.server != nil {
		return e.server.url
	}
	if _, err := os.Stat(filepath.Join(e.Repo, ".opencode")); err == nil {
		if err := e.givePluginDeps(filepath.Join(e.Repo, ".opencode")); err != nil {
			e.T.Fatal(err)
		}
	}
	port, err := freePort()
	if err != nil {
		e.T.Fatal(err)
	}
	cmd := exec.Command(e.Exe, "serve", "--hostname", "127.0.0.1", "--port", port)
	cmd.Dir, cmd.Env = e.Repo, e.environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := os.Create(filepath.Join(e.logs, "server.stderr"))
	if err != nil {
		e.T.Fatal(err)
	}
	stdout, err := os.Create(filepath.Join(e.logs, "server.stdout"))
	if err != nil {
		e.T.Fatal(err)
	}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		e.T.Fatalf("start opencode serve: %v", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	e.server = s
	e.T.Cleanup(func() {
		s.stop()
		stdout.Close()
		stderr.Close()
	})
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(stdout, line)
			if _, u, ok := strings.Cut(line, "listening on "); ok {
				select {
				case listening <- strings.TrimSpace(u):
				default:
				}
			}
		}
		io.Copy(stdout, out)
		cmd.Wait()
		close(s.done)
	}()
	select {
	case s.url = <-listening:
		e.T.Logf("opencode serve listening on %s after %v", s.url, time.Since(start).Round(100*time.Millisecond))
	case <-s.done:
		e.T.Fatalf("opencode serve exited before it listened: %s", tailFile(filepath.Join(e.logs, "server.stderr")))
	case <-time.After(serverStart):
		e.T.Fatalf("opencode serve did not listen within %v", serverStart)
	}
	return s.url
}

// stop ends the server and whatever it started (hooks a plugin runs): SIGTERM to its group,
// SIGKILL to what is left of it after five seconds.
func (s *server) stop() {
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(-pgid, syscall.SIGKILL) // the group outlives its leader while a member runs
	<-s.done
}

// awaitSettled waits until the server has nothing left to do for the project at dir: no
// session busy (GET /session/status lists the busy and retrying ones) and no process of its
// own running (a hook its plugin started; this is read from /proc, so elsewhere than Linux
// only the status counts), both for settledFor in a row. OpenCode does not wait for its
// plugins' event handlers: when `opencode run` exits at an idle session, the plugin may
// still be running the hook, or about to continue the session.
func (s *server) awaitSettled(dir string, timeout time.Duration) error {
	client := &http.Client{Timeout: 30 * time.Second} // a plugin's synchronous hook holds the server up
	status := s.url + "/session/status?directory=" + url.QueryEscape(dir)
	deadline := time.Now().Add(timeout)
	var quiet time.Time // since when the server has looked settled
	for {
		idle, why := false, ""
		resp, err := client.Get(status)
		if err == nil {
			var sessions map[string]struct {
				Type string `json:"type"`
			}
			err = json.NewDecoder(resp.Body).Decode(&sessions)
			resp.Body.Close()
			idle = err == nil
			for id, st := range sessions {
				if st.Type != "idle" {
					idle, why = false, fmt.Sprintf("session %s is %s", id, st.Type)
				}
			}
		}
		if err != nil {
			why = err.Error()
		}
		if kids := children(s.cmd.Process.Pid); idle && kids > 0 {
			idle, why = false, fmt.Sprintf("%d processes of its own run", kids)
		}
		switch {
		case !idle:
			quiet = time.Time{}
		case quiet.IsZero():
			quiet = time.Now()
		case time.Since(quiet) >= settledFor:
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("opencode serve did not settle within %v: %s", timeout, why)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// children counts the processes whose parent is pid (Linux: /proc/PID/task/*/children;
// elsewhere 0).
func children(pid int) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	n := 0
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		n += len(strings.Fields(string(b)))
	}
	return n
}

// givePluginDeps puts into dir, an OpenCode configuration directory (~/.config/opencode, a
// project's .opencode), what OpenCode would otherwise fetch from npm into it before it loads
// the directory's plugins, from the agent's install (PluginDeps): node_modules (a link to
// the install's, holding @opencode-ai/plugin) and the package.json and package-lock.json
// that name it. OpenCode installs nothing where node_modules exists and the lock file lists
// every dependency package.json names, and @opencode-ai/plugin.
func (e *Env) givePluginDeps(dir string) error {
	if len(e.PluginDeps) == 0 {
		return nil
	}
	deps := filepath.Join(e.Dir, pluginDeps)
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(deps, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o666)
		}
		if err != nil {
			return fmt.Errorf("give %s the plugin dependencies: %w", dir, err)
		}
	}
	os.Remove(filepath.Join(dir, "node_modules"))
	if err := os.Symlink(filepath.Join(deps, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		return fmt.Errorf("give %s the plugin dependencies: %w", dir, err)
	}
	return nil
}

// freePort is a TCP port of 127.0.0.1 free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// tailFile is the end of a file, on one line.
func tailFile(path string) string {
	b, _ := os.ReadFile(path)
	return tail(string(b), 600)
}

// TUI is OpenCode's interactive interface running in a pseudo-terminal (StartTUI).
type TUI struct {
	cmd  *exec.Cmd
	in   io.WriteCloser // held open: a terminal nobody types in
	done chan struct{}  // closed once cmd has exited
}

// StartTUI starts OpenCode's TUI in the repository on prompt (`opencode --prompt PROMPT`),
// as a person runs it, in a pseudo-terminal of 120 by 40 that util-linux's script(1) gives
// it (it skips the test where there is none). The TUI serves its session in-process, with
// the project's plugins. It runs until Stop, which the test's end calls too; what it drew
// is in the logs (tui.typescript).
func (e *Env) StartTUI(prompt string) *TUI {
	e.T.Helper()
	if out, err := exec.Command("script", "--version").CombinedOutput(); err != nil || !strings.Contains(string(out), "util-linux") {
		e.T.Skipf("SKIP OpenCode's TUI: no util-linux script(1) to give it a terminal (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(e.Repo, ".opencode")); err == nil {
		if err := e.givePluginDeps(filepath.Join(e.Repo, ".opencode")); err != nil {
			e.T.Fatal(err)
		}
	}
	line := "stty rows 40 cols 120; exec " + shellQuote(e.Exe) + " --prompt " + shellQuote(prompt)
	cmd := exec.Command("script", "--quiet", "--flush", "--return", "--command", line, filepath.Join(e.logs, "tui.typescript"))
	cmd.Dir, cmd.Env = e.Repo, append(e.environ(), "TERM=xterm-256color")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		e.T.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.T.Fatalf("start OpenCode's TUI: %v", err)
	}
	tui := &TUI{cmd: cmd, in: in, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(tui.done)
	}()
	e.T.Cleanup(tui.Stop)
	return tui
}

// Stop ends the TUI: SIGTERM to script(1)'s group, which ends OpenCode in its terminal (the
// suite's leftover check finds any process that outlives it), SIGKILL to what is left of
// the group after five seconds. Calling it again does nothing more.
func (t *TUI) Stop() {
	pgid := t.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-t.done:
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
	<-t.done
	t.in.Close()
}
