package checks

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
)

// Kinds of weakening.
const (
	KindFileRemoved      = "file-removed"      // a test file is gone, or renamed out of the runner's sight
	KindTestRemoved      = "test-removed"      // a test that existed at start is gone
	KindSkipAdded        = "skip-added"        // a skip, ignore or only marker was added
	KindAssertionRemoved = "assertion-removed" // an assertion of a test that existed at start was removed or changed
	KindCommandChanged   = "command-changed"   // the script or make target a gate runs changed
	KindFilterAdded      = "filter-added"      // test selection narrowed, or failures ignored, in a file that says how tests run
	KindThresholdLowered = "threshold-lowered" // a coverage or quality threshold was lowered
)

// Change is one file that changed between the loop's start and an iteration, with its
// contents then and now (nil when it did not exist).
type Change struct {
	Path     string
	Old, New []byte
}

// Weakening is one way an iteration weakened the checks, with the lines that show it.
type Weakening struct {
	Kind string `json:"kind"`
	Path string `json:"path"`
	// Line is where it shows: in the start's file for what was removed, in the iteration's
	// for what was added.
	Line int    `json:"line,omitempty"`
	Test string `json:"test,omitempty"`
	// Why is one line: what changed and why it weakens the checks.
	Why string `json:"why"`
	// Hunk is the lines themselves, "-" for the start's and "+" for the iteration's.
	Hunk string `json:"hunk,omitempty"`
	// Key identifies the weakening across iterations, for approvals.
	Key string `json:"key"`
	// Allowed says what allowed it ("loop.testEdits = allow", "the task names calc_test.go",
	// "approved at iteration 3"); empty while it keeps the loop from completing.
	Allowed string `json:"allowed,omitempty"`
}

// maxHunkLines bounds a weakening's hunk.
const maxHunkLines = 12

// Find lists the weakenings in changes, given the commands of the loop's gates (which name
// the scripts and make targets that run the tests). New tests, new assertions and new
// files never count. The result is sorted by path, line and kind.
func Find(changes []Change, gateRuns []string) []Weakening {
	var out []Weakening
	gateFiles := GateFiles(gateRuns)
	oldTests, newTests := map[string][]testRef{}, map[string]int{}
	for _, c := range changes {
		oldLang, newLang := testLang(c.Path, c.Old), testLang(c.Path, c.New)
		if c.New == nil {
			newLang = ""
		}
		if c.Old != nil && oldLang != "" {
			for _, t := range findTests(oldLang, splitLines(c.Old)) {
				k := testKey(oldLang, c.Path, t.Name)
				oldTests[k] = append(oldTests[k], testRef{path: c.Path, test: t})
			}
		}
		if newLang != "" {
			for _, t := range findTests(newLang, splitLines(c.New)) {
				newTests[testKey(newLang, c.Path, t.Name)]++
			}
		}
		if c.Old != nil && c.New == nil && oldLang != "" && len(findTests(oldLang, splitLines(c.Old))) == 0 {
			out = append(out, weakening(KindFileRemoved, c.Path, 1, "", fmt.Sprintf("test file %s was removed or renamed out of the runner's sight", c.Path), ""))
		}
		if c.Old != nil && c.New != nil && (oldLang != "" || newLang != "") {
			lang := newLang
			if lang == "" {
				lang = oldLang
			}
			out = append(out, assertionsRemoved(lang, c)...)
		}
		if newLang != "" {
			out = append(out, skipsAdded(newLang, c)...)
		}
		if slices.Contains(gateFiles, c.Path) && c.Old != nil {
			out = append(out, gateFileChanged(c))
			continue
		}
		if kind := configKind(c.Path); kind != "" {
			out = append(out, configWeakenings(kind, c, gateRuns)...)
		}
	}
	out = append(out, testsRemoved(oldTests, newTests, changes)...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Kind < b.Kind
	})
	return out
}

// testRef is a test at start and the file it was in.
type testRef struct {
	path string
	test testAt
}

// testKey names a test across files: Go tests by package directory, others by name alone
// (a test moved to another file of the change is still there).
func testKey(lang, p, name string) string {
	if lang == langGo {
		return lang + "\x00" + path.Dir(p) + "\x00" + name
	}
	return lang + "\x00" + name
}

// testsRemoved reports the tests of start that are no longer declared anywhere in the
// changed files: per file when the whole file is gone, per test otherwise.
func testsRemoved(oldTests map[string][]testRef, newTests map[string]int, changes []Change) []Weakening {
	gone := map[string][]testRef{} // by old path
	for k, refs := range oldTests {
		for i := newTests[k]; i < len(refs); i++ {
			gone[refs[i].path] = append(gone[refs[i].path], refs[i])
		}
	}
	exists := map[string]bool{}
	for _, c := range changes {
		exists[c.Path] = c.New != nil
	}
	var out []Weakening
	for p, refs := range gone {
		sort.Slice(refs, func(i, j int) bool { return refs[i].test.Start < refs[j].test.Start })
		if !exists[p] {
			names := make([]string, len(refs))
			for i, r := range refs {
				names[i] = r.test.Name
			}
			out = append(out, weakening(KindFileRemoved, p, 1, strings.Join(names, ", "),
				fmt.Sprintf("test file %s was removed or renamed out of the runner's sight, and with it %s", p, listTests(names)), ""))
			continue
		}
		for _, r := range refs {
			out = append(out, weakening(KindTestRemoved, p, r.test.Start, r.test.Name,
				fmt.Sprintf("%s was removed from %s", r.test.Name, p), "-"+firstLineAt(changeOf(changes, p).Old, r.test.Start)))
		}
	}
	return out
}

func listTests(names []string) string {
	if len(names) == 1 {
		return "its test " + names[0]
	}
	return "its tests " + strings.Join(names, ", ")
}

func changeOf(changes []Change, p string) Change {
	for _, c := range changes {
		if c.Path == p {
			return c
		}
	}
	return Change{}
}

// assertionsRemoved reports, for each test of start that still exists, the assertion lines
// that are gone from the file (changed lines count as gone): one weakening per test.
func assertionsRemoved(lang string, c Change) []Weakening {
	r := rules[lang]
	oldLines, newLines := splitLines(c.Old), splitLines(c.New)
	have := multiset(newLines, r.assertion.MatchString)
	oldTests, newTests := findTests(lang, oldLines), findTests(lang, newLines)
	stillThere := map[string]bool{}
	for _, t := range newTests {
		stillThere[t.Name] = true
	}
	byTest := map[string][]int{} // test → removed assertion lines (1-based, in the old file)
	var order []string
	for i, line := range oldLines {
		if !r.assertion.MatchString(line) {
			continue
		}
		k := norm(line)
		if have[k] > 0 {
			have[k]--
			continue
		}
		test := enclosing(oldTests, i+1)
		if test == "" || !stillThere[test] {
			continue // outside any test (a helper), or in a test reported as removed
		}
		if _, ok := byTest[test]; !ok {
			order = append(order, test)
		}
		byTest[test] = append(byTest[test], i+1)
	}
	var out []Weakening
	for _, test := range order {
		lines := byTest[test]
		what := "assertion"
		if len(lines) > 1 {
			what = "assertions"
		}
		why := fmt.Sprintf("%s's %s at %s:%s %s removed or changed", test, what, c.Path, joinInts(lines), wasWere(len(lines)))
		out = append(out, weakening(KindAssertionRemoved, c.Path, lines[0], test, why, hunk(oldLines, lines, newLines, newTests, test)))
	}
	return out
}

// skipsAdded reports each line of the iteration's file that turns tests off and was not in
// the start's file.
func skipsAdded(lang string, c Change) []Weakening {
	r := rules[lang]
	newLines := splitLines(c.New)
	isMarker := func(s string) bool {
		for _, m := range r.skip {
			if m.re.MatchString(s) {
				return true
			}
		}
		return false
	}
	had := multiset(splitLines(c.Old), isMarker)
	tests := findTests(lang, newLines)
	var out []Weakening
	for i, line := range newLines {
		for _, m := range r.skip {
			if !m.re.MatchString(line) {
				continue
			}
			if k := norm(line); had[k] > 0 {
				had[k]--
				break
			}
			test := enclosing(tests, i+1)
			where := c.Path + ":" + fmt.Sprint(i+1)
			if test != "" {
				where = test + " at " + where
			}
			out = append(out, weakening(KindSkipAdded, c.Path, i+1, test,
				fmt.Sprintf("`%s` was added to %s: it %s", clip(strings.TrimSpace(line), 80), where, m.why), "+"+line))
			break
		}
	}
	return out
}

// hunk shows the removed lines, and the lines the test has now that it did not have.
func hunk(oldLines []string, removed []int, newLines []string, newTests []testAt, test string) string {
	var b []string
	for _, n := range removed {
		b = append(b, fmt.Sprintf("-%s", oldLines[n-1]))
	}
	old := multiset(oldLines, func(string) bool { return true })
	for _, t := range newTests {
		if t.Name != test {
			continue
		}
		for _, line := range newLines[t.Start-1 : t.End] {
			if k := norm(line); old[k] > 0 {
				old[k]--
				continue
			}
			if strings.TrimSpace(line) != "" {
				b = append(b, "+"+line)
			}
		}
	}
	if len(b) > maxHunkLines {
		b = append(b[:maxHunkLines], fmt.Sprintf("… %d more lines", len(b)-maxHunkLines))
	}
	return strings.Join(b, "\n")
}

// weakening builds one, with its key: what it is, where, and the lines that show it, not
// their line numbers (an edit above does not make it a new one).
func weakening(kind, p string, line int, test, why, hunk string) Weakening {
	h := sha1.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", kind, p, test, norm(hunk))
	return Weakening{Kind: kind, Path: p, Line: line, Test: test, Why: why, Hunk: hunk, Key: hex.EncodeToString(h.Sum(nil))[:12]}
}

// multiset counts the normalised lines that keep.
func multiset(lines []string, keep func(string) bool) map[string]int {
	m := map[string]int{}
	for _, l := range lines {
		if keep(l) {
			m[norm(l)]++
		}
	}
	return m
}

// norm is a line with its runs of white space made one space, so reindenting changes
// nothing.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

func splitLines(b []byte) []string {
	if b == nil {
		return nil
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func firstLineAt(b []byte, n int) string {
	lines := splitLines(b)
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

func wasWere(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

// clip cuts s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// gateFileChanged reports a change to a file a gate's command names: the script is the
// check itself.
func gateFileChanged(c Change) Weakening {
	oldLines, newLines := splitLines(c.Old), splitLines(c.New)
	var h []string
	now := multiset(newLines, func(string) bool { return true })
	for _, l := range oldLines {
		if k := norm(l); now[k] > 0 {
			now[k]--
			continue
		}
		h = append(h, "-"+l)
	}
	had := multiset(oldLines, func(string) bool { return true })
	for _, l := range newLines {
		if k := norm(l); had[k] > 0 {
			had[k]--
			continue
		}
		h = append(h, "+"+l)
	}
	if len(h) > maxHunkLines {
		h = append(h[:maxHunkLines], fmt.Sprintf("… %d more lines", len(h)-maxHunkLines))
	}
	why := fmt.Sprintf("%s, which a gate runs, changed: restore it", c.Path)
	if c.New == nil {
		why = fmt.Sprintf("%s, which a gate runs, was removed: restore it", c.Path)
	}
	return weakening(KindCommandChanged, c.Path, 1, "", why, strings.Join(h, "\n"))
}
