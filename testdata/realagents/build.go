package realagents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

var built struct {
	once sync.Once
	dir  string
	exe  string
	took time.Duration
	err  error
}

// GitLoop returns a git-loop built with `go build` from the module at moduleDir, once per
// process, and how long the build took (0 after the first call). It is what a person runs:
// the test binary itself may be built with the race detector, which makes every hook
// several times slower. RemoveBuild removes it.
func GitLoop(moduleDir string) (string, time.Duration, error) {
	first := false
	built.once.Do(func() {
		first = true
		start := time.Now()
		sweepBuilds()
		built.dir, built.err = os.MkdirTemp("", fmt.Sprintf("%s%d-", buildPrefix, os.Getpid()))
		if built.err != nil {
			built.err = fmt.Errorf("build git-loop: %w", built.err)
			return
		}
		built.exe = filepath.Join(built.dir, "git-loop")
		// The tag is the README's install command's (it leaves urfave/cli's Markdown
		// renderer out); it changes nothing where no file uses it.
		cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", built.exe, ".")
		cmd.Dir = moduleDir
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build git-loop: %v: %s", err, out)
		}
		built.took = time.Since(start)
	})
	if !first {
		return built.exe, 0, built.err
	}
	return built.exe, built.took, built.err
}

// buildPrefix starts the name of the directory GitLoop builds into, then the test process's
// id and a dash.
const buildPrefix = "git-loop-e2e-"

// sweepBuilds removes the build directories of test processes that no longer run: a run
// killed by go test's timeout never reaches RemoveBuild. Only where /proc tells whether a
// process runs; elsewhere nothing is removed.
func sweepBuilds() {
	if _, err := os.Stat("/proc/self"); err != nil {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), buildPrefix+"*"))
	for _, d := range dirs {
		var pid int
		if _, err := fmt.Sscanf(strings.TrimPrefix(filepath.Base(d), buildPrefix), "%d-", &pid); err != nil || pid <= 0 {
			continue // an older run's name, with no process id: left alone
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			os.RemoveAll(d)
		}
	}
}

// RemoveBuild removes what GitLoop built; TestMain calls it once the tests have run.
func RemoveBuild() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}
