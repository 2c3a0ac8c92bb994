package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// The toolchain scripts (testdata/script/toolchain_*.txtar) run gates with the real make,
// C compiler, npm and node, pytest, go and cargo. A script whose toolchain is missing skips,
// naming it; .ci/run installs what Debian packages (pytest).

// pytestCommand is a command line that runs pytest here, or "": pytest, pytest-3 (Debian's
// python3-pytest) or python3 -m pytest, the first that answers --version.
var pytestCommand = sync.OnceValue(func() string {
	for _, c := range [][]string{{"pytest"}, {"pytest-3"}, {"python3", "-m", "pytest"}, {"/usr/bin/python3", "-m", "pytest"}} {
		if exec.Command(c[0], append(c[1:], "--version")...).Run() == nil {
			return strings.Join(c, " ")
		}
	}
	return ""
})

// toolchainEnv gives scripts what the real toolchains need under a hermetic HOME: the
// command that runs pytest ($PYTEST), rustup's and cargo's homes (the rustup proxies find
// their toolchains there), and npm without its update check. Python writes no bytecode:
// its cache trusts a source file's size and whole-second mtime, so a script that rewrites a
// module twice in a second with the same size would run the stale one.
func toolchainEnv(env *testscript.Env) {
	env.Setenv("PYTEST", pytestCommand())
	env.Setenv("PYTHONDONTWRITEBYTECODE", "1")
	home, _ := os.UserHomeDir()
	for _, kv := range [][2]string{{"RUSTUP_HOME", ".rustup"}, {"CARGO_HOME", ".cargo"}} {
		v := os.Getenv(kv[0])
		if v == "" && home != "" {
			v = filepath.Join(home, kv[1])
		}
		if v != "" {
			env.Setenv(kv[0], v)
		}
	}
	env.Setenv("npm_config_update_notifier", "false")
	env.Setenv("npm_config_fund", "false")
	env.Setenv("npm_config_audit", "false")
}

// toolchainCondition answers [pytest]: whether some command runs pytest.
func toolchainCondition(cond string) (bool, bool) {
	if cond == "pytest" {
		return pytestCommand() != "", true
	}
	return false, false
}
