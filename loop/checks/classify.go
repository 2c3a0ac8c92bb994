package checks

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// Languages whose tests Find reads.
const (
	langGo     = "go"
	langPython = "python"
	langJS     = "js"
	langRust   = "rust"
	langC      = "c"
)

// testLang is the language of a test file, or "" for a file no runner treats as tests.
// Rust and C sources outside test directories count when they hold tests (hasTests).
func testLang(p string, content []byte) string {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	inTestDir := hasDir(p, "test", "tests", "__tests__", "spec", "specs", "testing")
	switch ext {
	case ".go":
		if strings.HasSuffix(base, "_test.go") {
			return langGo
		}
	case ".py":
		if strings.HasPrefix(base, "test_") || strings.HasSuffix(stem, "_test") || base == "conftest.py" {
			return langPython
		}
	case ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts":
		if hasSuffixAny(stem, ".test", ".spec", "-test", "_test") || strings.HasPrefix(stem, "test-") || strings.HasPrefix(stem, "test_") ||
			hasDir(p, "__tests__") || (inTestDir && !hasDir(p, "node_modules", "fixtures")) {
			return langJS
		}
	case ".rs":
		if hasDir(p, "tests") || hasTests(content, "#[test]", "#[cfg(test)]", "#[tokio::test]") {
			return langRust
		}
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp":
		if strings.HasPrefix(stem, "test") || hasSuffixAny(stem, "_test", "-test", "_tests", "_unittest") || inTestDir {
			return langC
		}
	}
	return ""
}

// configKind names a file that defines how tests run, or "".
func configKind(p string) string {
	base := path.Base(p)
	switch {
	case base == "package.json":
		return "package.json"
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || path.Ext(base) == ".mk":
		return "makefile"
	case base == "pytest.ini" || base == "pyproject.toml" || base == "setup.cfg" || base == "tox.ini" || base == ".coveragerc" || base == "noxfile.py":
		return "python"
	case base == "Cargo.toml" || base == ".cargo/config.toml" || strings.HasSuffix(p, ".cargo/config.toml") || base == "nextest.toml":
		return "cargo"
	case strings.HasPrefix(base, "jest.config.") || strings.HasPrefix(base, "vitest.config.") || strings.HasPrefix(base, "vite.config.") ||
		strings.HasPrefix(base, ".mocharc") || base == ".nycrc" || base == ".nycrc.json" || base == ".c8rc" || base == ".c8rc.json" ||
		strings.HasPrefix(base, "karma.conf") || strings.HasPrefix(base, "playwright.config."):
		return "js"
	case strings.HasPrefix(p, ".github/workflows/") || base == ".gitlab-ci.yml" || strings.HasPrefix(p, ".circleci/") || base == "Jenkinsfile" || base == "azure-pipelines.yml":
		return "ci"
	case (path.Ext(base) == ".sh" || path.Ext(base) == ".bash") && (strings.HasPrefix(base, "test") || hasSuffixAny(strings.TrimSuffix(base, path.Ext(base)), "_test", "-test", "_tests") || hasDir(p, "test", "tests")),
		path.Ext(base) == ".bats":
		return "shell"
	}
	return ""
}

// reGateFile matches a word of a gate's command that names a file in the worktree: a
// relative path with a directory or an extension (check.sh, ./ci/test, scripts/run.py).
var reGateFile = regexp.MustCompile(`^(?:\./)?(?:[\w.-]+/)*[\w.-]+$`)

// interpreters run the script their first argument names.
var interpreters = []string{"sh", "bash", "dash", "zsh", "ksh", "python", "python3", "python2", "node", "ruby", "perl",
	"php", "pwsh", "bats", "deno", "bun", "tsx", "ts-node", "Rscript", "tclsh", "lua"}

// GateFiles are the scripts the gates' commands run (`sh check.sh`, `./ci/test`, `python3
// scripts/run_tests.py`): a command segment's program when it is a path in the worktree, or
// the script an interpreter is given. The files a gate's programs read (`grep -q x
// docs/commands.txt`, `cat cover.txt`) are its input, not the check.
func GateFiles(runs []string) []string {
	var out []string
	add := func(word string) {
		if !reGateFile.MatchString(word) || !(strings.Contains(word, "/") || path.Ext(word) != "") {
			return
		}
		if p := path.Clean(word); !slices.Contains(out, p) && !strings.HasPrefix(p, "..") {
			out = append(out, p)
		}
	}
	for _, run := range runs {
		dir := "" // where a `cd DIR &&` before the command went
		for _, seg := range strings.FieldsFunc(run, func(r rune) bool { return strings.ContainsRune(";&|()\n", r) }) {
			words := strings.FieldsFunc(seg, func(r rune) bool { return strings.ContainsRune(" \t'\"<>", r) })
			if len(words) >= 2 && words[0] == "cd" {
				dir = path.Join(dir, words[1])
				continue
			}
			add := func(word string) {
				if !reGateFile.MatchString(word) || !(strings.Contains(word, "/") || path.Ext(word) != "") {
					return // a program on PATH, not a file of the worktree
				}
				if !path.IsAbs(word) {
					word = path.Join(dir, word)
				}
				add(word)
			}
			for len(words) > 0 && (strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") || words[0] == "exec" || words[0] == "time" || words[0] == "env") {
				words = words[1:]
			}
			if len(words) == 0 {
				continue
			}
			prog := path.Base(words[0])
			if !slices.Contains(interpreters, prog) {
				add(words[0])
				continue
			}
			for _, w := range words[1:] {
				if w == "-m" || w == "-c" || w == "-e" && prog != "bash" && prog != "sh" {
					break // a module or inline code: no script file
				}
				if !strings.HasPrefix(w, "-") {
					add(w)
					break
				}
			}
		}
	}
	return out
}

// IsCheckFile reports whether a change to path may weaken the checks: a test file (for
// Rust, any source, since tests live beside the code), or a file that says how tests run.
// The caller reads only these files' contents, and the files the gates name (GateFiles).
func IsCheckFile(p string) bool {
	if configKind(p) != "" {
		return true
	}
	switch path.Ext(p) {
	case ".rs":
		return true
	}
	return testLang(p, nil) != ""
}

func hasDir(p string, names ...string) bool {
	dirs := strings.Split(path.Dir(p), "/")
	for _, d := range dirs {
		for _, n := range names {
			if d == n {
				return true
			}
		}
	}
	return false
}

func hasSuffixAny(s string, suffixes ...string) bool {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) {
			return true
		}
	}
	return false
}

func hasTests(content []byte, markers ...string) bool {
	for _, m := range markers {
		if strings.Contains(string(content), m) {
			return true
		}
	}
	return false
}

// IsTestPath reports whether path, by its name alone, holds tests or says how they run: a
// task naming it is about the checks. A source file that holds tests beside its code (Rust's
// src/lib.rs) is not: a task naming it is about the code.
func IsTestPath(p string) bool { return configKind(p) != "" || testLang(p, nil) != "" && !mixesCode(p) }

// mixesCode reports whether tests at p may sit beside the code they test (Rust sources
// outside tests/).
func mixesCode(p string) bool { return path.Ext(p) == ".rs" && !hasDir(p, "tests") }
