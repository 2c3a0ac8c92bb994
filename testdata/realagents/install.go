//go:build unix

package realagents

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// installTimeout bounds one npm install (cold, on a slow link).
const installTimeout = 10 * time.Minute

// ErrUnavailable wraps every reason an agent cannot be installed here: no npm or node, no
// registry. The suite skips on it unless it is forced.
var ErrUnavailable = errors.New("agent unavailable")

// CacheDir is where the agents are installed: ${XDG_CACHE_HOME:-$HOME/.cache}/git-loop/agents
// (the platform's user cache directory elsewhere).
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("%w: find the user cache directory: %v", ErrUnavailable, err)
	}
	return filepath.Join(dir, "git-loop", "agents"), nil
}

// Installed is an agent ready to run.
type Installed struct {
	Agent
	// Exe is the agent's executable (its npm bin entry); Dir is its install directory.
	Exe, Dir string
	// Took is how long Install took; Cached says it found the agent already installed.
	Took   time.Duration
	Cached bool
}

var (
	installMu   sync.Mutex
	installOnce = map[string]*installResult{}
)

type installResult struct {
	once sync.Once
	inst Installed
	err  error
}

// announceOnce says, before the first download, what is downloaded and where.
var announceOnce sync.Once

// Install installs a (once per process) into CacheDir with `npm install --prefix DIR
// --no-audit --no-fund PACKAGE@VERSION [WITH…]` (and its PluginDeps into DIR/plugin-deps
// the same way), unless it is there already. A new install goes
// into a temporary directory renamed into place when complete, so a killed install leaves
// nothing half-made and two processes installing at once both end with one whole copy.
func Install(a Agent) (Installed, error) {
	installMu.Lock()
	r, ok := installOnce[a.Name]
	if !ok {
		r = &installResult{}
		installOnce[a.Name] = r
	}
	installMu.Unlock()
	r.once.Do(func() { r.inst, r.err = install(a) })
	return r.inst, r.err
}

func install(a Agent) (Installed, error) {
	start := time.Now()
	root, err := CacheDir()
	if err != nil {
		return Installed{}, err
	}
	dir := filepath.Join(root, a.dirName())
	inst := Installed{Agent: a, Exe: filepath.Join(dir, "node_modules", ".bin", a.Bin), Dir: dir}
	if complete(dir, a) {
		inst.Took, inst.Cached = time.Since(start), true
		return inst, nil
	}
	if _, err := exec.LookPath("node"); err != nil {
		return Installed{}, fmt.Errorf("%w: %s needs node on PATH: %v", ErrUnavailable, a.Spec(), err)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return Installed{}, fmt.Errorf("%w: installing %s needs npm on PATH: %v", ErrUnavailable, a.Spec(), err)
	}
	if err := os.MkdirAll(root, 0o777); err != nil {
		return Installed{}, fmt.Errorf("%w: create the agent cache: %v", ErrUnavailable, err)
	}
	announceOnce.Do(func() { // go test shows a passing package's output with -v only: also in the README
		fmt.Fprintf(os.Stderr, "git-loop's real-agent tests: installing the agents' CLIs from npm into %s, once (about 1.9 GB in all); %s=0 skips them\n", root, EnvVar)
	})
	tmp, err := os.MkdirTemp(root, a.dirName()+".tmp-")
	if err != nil {
		return Installed{}, fmt.Errorf("%w: create a directory to install %s: %v", ErrUnavailable, a.Spec(), err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; a failed install's leftovers otherwise
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	if err := npmInstall(ctx, npm, tmp, append([]string{a.Spec()}, a.With...)); err != nil {
		return Installed{}, err
	}
	if len(a.PluginDeps) > 0 {
		if err := npmInstall(ctx, npm, filepath.Join(tmp, pluginDeps), a.PluginDeps); err != nil {
			return Installed{}, err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, marker), []byte(a.specs()+"\n"), 0o666); err != nil {
		return Installed{}, fmt.Errorf("%w: mark %s installed: %v", ErrUnavailable, a.Spec(), err)
	}
	if !complete(tmp, a) {
		return Installed{}, fmt.Errorf("%w: npm installed %s but node_modules/.bin/%s is missing (or node, or %s)", ErrUnavailable, a.specs(), a.Bin, pluginDeps)
	}
	if err := os.Rename(tmp, dir); err != nil && !complete(dir, a) {
		return Installed{}, fmt.Errorf("%w: move %s into the cache: %v", ErrUnavailable, a.Spec(), err)
	}
	inst.Took = time.Since(start)
	return inst, nil
}

// npmInstall installs specs into prefix: one quick retry, so that an unreachable registry
// is a skip in seconds, not after npm's default minute and more of backing off.
func npmInstall(ctx context.Context, npm, prefix string, specs []string) error {
	args := append([]string{"install", "--prefix", prefix, "--no-audit", "--no-fund",
		"--no-update-notifier", "--loglevel=error", "--fetch-retries=1", "--fetch-retry-mintimeout=2000",
		"--fetch-retry-maxtimeout=5000", "--fetch-timeout=60000"}, specs...)
	cmd := exec.CommandContext(ctx, npm, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w: npm install %s: %v: %s", ErrUnavailable, strings.Join(specs, " "), err, npmError(out.String()))
	}
	return nil
}

// marker is written last into an install directory: its presence means the install is whole.
const marker = ".git-loop-installed"

// pluginDeps is the directory of an install that holds its PluginDeps.
const pluginDeps = "plugin-deps"

func complete(dir string, a Agent) bool {
	spec, err := os.ReadFile(filepath.Join(dir, marker))
	if err != nil || strings.TrimSpace(string(spec)) != a.specs() {
		return false
	}
	need := []string{filepath.Join("node_modules", ".bin", a.Bin)}
	if a.OwnNode {
		need = append(need, filepath.Join("node_modules", ".bin", "node"))
	}
	if len(a.PluginDeps) > 0 {
		need = append(need, filepath.Join(pluginDeps, "node_modules"), filepath.Join(pluginDeps, "package-lock.json"))
	}
	for _, n := range need {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return false
		}
	}
	return true
}

// npmError is what npm's output says went wrong, on one line: its "npm error" lines but
// the boilerplate (blank ones, the stack trace and what follows it, proxy advice, where the
// log is).
func npmError(out string) string {
	var said []string
	for _, line := range strings.Split(out, "\n") {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "npm error")
		text = strings.TrimSpace(text)
		if ok && strings.HasPrefix(text, "at ") { // a stack trace, then the error object again
			break
		}
		if !ok || text == "" || strings.HasPrefix(text, "syscall ") || strings.HasPrefix(text, "errno ") ||
			strings.Contains(text, "complete log") || strings.Contains(text, "proxy") ||
			strings.Contains(text, "network connectivity") {
			continue
		}
		said = append(said, text)
	}
	if len(said) == 0 {
		return tail(out, 600)
	}
	text := strings.Join(said, "; ")
	if len(text) > 600 {
		text = text[:600] + "…"
	}
	return text
}

// tail is the end of s, at most n bytes, on one line.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}
