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
//
// Only the lines that differ are matched against the languages' patterns (a line counts as
// the same when only its white space changed), so a large test file with a line appended
// costs a pass to compare its lines, no more.
func Find(changes []Change, gateRuns []string) []Weakening {
	var out []Weakening
	gateFiles := GateFiles(gateRuns)
	removedTests, addedTests := map[string][]testRef{}, map[string][]testRef{}
	for _, c := range changes {
		d := diffLines(c)
		oldLang, newLang := testLang(c.Path, c.Old), ""
		if c.New != nil {
			newLang = testLang(c.Path, c.New)
		}
		if oldLang != "" {
			for _, t := range d.declared(oldLang, d.removed, d.oldLines) {
				k := testKey(oldLang, c.Path, t.Name)
				removedTests[k] = append(removedTests[k], testRef{path: c.Path, test: t, body: body(d.oldLines, t)})
			}
		}
		if newLang != "" {
			for _, t := range d.declared(newLang, d.added, d.newLines) {
				k := testKey(newLang, c.Path, t.Name)
				addedTests[k] = append(addedTests[k], testRef{path: c.Path, test: t, body: body(d.newLines, t)})
			}
		}
		if c.Old != nil && c.New == nil && oldLang != "" && len(findTests(oldLang, d.oldLines)) == 0 {
			out = append(out, weakening(KindFileRemoved, c.Path, 1, "", fmt.Sprintf("test file %s was removed or renamed out of the runner's sight", c.Path), ""))
		}
		if c.Old != nil && c.New != nil && (oldLang != "" || newLang != "") {
			out = append(out, assertionsRemoved(cmpOr(newLang, oldLang), c.Path, d)...)
		}
		if newLang != "" {
			out = append(out, skipsAdded(newLang, c.Path, d)...)
		}
		if slices.Contains(gateFiles, c.Path) && c.Old != nil {
			out = append(out, gateFileChanged(c.Path, d))
			continue
		}
		if kind := configKind(c.Path); kind != "" {
			out = append(out, configWeakenings(kind, c, d, gateRuns)...)
		}
	}
	out = append(out, testsRemoved(removedTests, addedTests, changes)...)
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

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// lineDiff is a change's lines, and which differ: removed are the start's lines (0-based)
// the iteration's file does not have, added the iteration's lines the start's did not
// have, each compared with white space runs made one space, as multisets.
type lineDiff struct {
	oldLines, newLines []string
	removed, added     []int
}

// diffLines compares a change's two contents line by line: the lines both begin and end
// with are the same, and between them each line is looked for among the other side's by
// its white-space-normalised hash.
func diffLines(c Change) lineDiff {
	d := lineDiff{oldLines: splitLines(c.Old), newLines: splitLines(c.New)}
	o, n := d.oldLines, d.newLines
	pre := 0
	for pre < len(o) && pre < len(n) && o[pre] == n[pre] {
		pre++
	}
	suf := 0
	for suf < len(o)-pre && suf < len(n)-pre && o[len(o)-1-suf] == n[len(n)-1-suf] {
		suf++
	}
	oldMid, newMid := o[pre:len(o)-suf], n[pre:len(n)-suf]
	d.removed = unmatched(oldMid, newMid, pre)
	d.added = unmatched(newMid, oldMid, pre)
	return d
}

// unmatched are the indexes (offset by base) of the lines of a that b does not have, as
// multisets of normalised lines.
func unmatched(a, b []string, base int) []int {
	if len(b) == 0 {
		out := make([]int, len(a))
		for i := range a {
			out[i] = base + i
		}
		return out
	}
	count := make(map[uint64]int, len(b))
	for _, l := range b {
		count[normHash(l)]++
	}
	var out []int
	for i, l := range a {
		if k := normHash(l); count[k] > 0 {
			count[k]--
		} else {
			out = append(out, base+i)
		}
	}
	return out
}

// normHash is the FNV-1a hash of a line with its runs of white space made one space and
// none at its ends: the line as norm has it, hashed without building it.
func normHash(s string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	space := false
	started := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
			space = started
			continue
		}
		if space {
			h = (h ^ ' ') * prime
			space = false
		}
		h = (h ^ uint64(c)) * prime
		started = true
	}
	return h
}

// declared are the tests whose declaration lines are among which (indexes into lines), with
// their extent in the whole file.
func (d lineDiff) declared(lang string, which []int, lines []string) []testAt {
	r := rules[lang]
	any := false
	for _, i := range which {
		if r.testDecl.MatchString(lines[i]) {
			any = true
			break
		}
	}
	if !any {
		return nil
	}
	set := map[int]bool{}
	for _, i := range which {
		set[i+1] = true
	}
	var out []testAt
	for _, t := range findTests(lang, lines) {
		if set[t.Start] {
			out = append(out, t)
		}
	}
	return out
}

// testRef is a test and the file it is in, with its body's hash.
type testRef struct {
	path string
	test testAt
	body uint64
}

// body hashes the lines of a test after its declaration, white space runs made one space:
// a test renamed with the same body checks what it checked.
func body(lines []string, t testAt) uint64 {
	h := uint64(14695981039346656037)
	for j := t.Start; j < t.End && j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) != "" {
			h = (h ^ normHash(lines[j])) * 1099511628211
		}
	}
	return h
}

// testKey names a test across files: Go tests by package directory, others by name alone
// (a test moved to another file of the change is still there).
func testKey(lang, p, name string) string {
	if lang == langGo {
		return lang + "\x00" + path.Dir(p) + "\x00" + name
	}
	return lang + "\x00" + name
}

// testsRemoved reports the tests whose declarations were removed and not added anywhere in
// the change, under their name or (renamed) with the same body: per file when the whole file
// is gone, per test otherwise.
func testsRemoved(removed, added map[string][]testRef, changes []Change) []Weakening {
	renamed := map[uint64]int{} // bodies of tests added under a name no removed test had
	for k, refs := range added {
		for i := len(removed[k]); i < len(refs); i++ {
			renamed[refs[i].body]++
		}
	}
	gone := map[string][]testRef{} // by old path
	keys := make([]string, 0, len(removed))
	for k := range removed {
		keys = append(keys, k)
	}
	sort.Strings(keys) // which of two same bodies a rename claims does not depend on map order
	for _, k := range keys {
		refs := removed[k]
		for i := len(added[k]); i < len(refs); i++ {
			if renamed[refs[i].body] > 0 {
				renamed[refs[i].body]--
				continue
			}
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

// assertionsRemoved reports, for each test of start that still exists, its assertion lines
// that are gone from the file (changed lines count as gone): one weakening per test.
func assertionsRemoved(lang, p string, d lineDiff) []Weakening {
	r := rules[lang]
	var gone []int
	for _, i := range d.removed {
		if r.assertion.MatchString(d.oldLines[i]) {
			gone = append(gone, i+1)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	// An assertion reformatted across lines, or whose failure message alone changed, is
	// still there: gone are those whose statement the file now has fewer times.
	oldStmts, newStmts := stmtCounts(lang, d.oldLines), stmtCounts(lang, d.newLines)
	gone = slices.DeleteFunc(gone, func(n int) bool {
		st := stmtAt(lang, d.oldLines, n-1)
		return newStmts[st] >= oldStmts[st]
	})
	if len(gone) == 0 {
		return nil
	}
	oldTests, newTests := findTests(lang, d.oldLines), findTests(lang, d.newLines)
	stillThere := map[string]bool{}
	for _, t := range newTests {
		stillThere[t.Name] = true
	}
	byTest := map[string][]int{} // test → removed assertion lines (1-based, in the old file)
	var order []string
	for _, n := range gone {
		test := enclosing(oldTests, n)
		if test == "" || !stillThere[test] {
			continue // outside any test (a helper), or in a test reported as removed
		}
		if _, ok := byTest[test]; !ok {
			order = append(order, test)
		}
		byTest[test] = append(byTest[test], n)
	}
	var out []Weakening
	for _, test := range order {
		lines := byTest[test]
		what := "assertion"
		if len(lines) > 1 {
			what = "assertions"
		}
		why := fmt.Sprintf("%s's %s at %s:%s %s removed or changed", test, what, p, joinInts(lines), wasWere(len(lines)))
		out = append(out, weakening(KindAssertionRemoved, p, lines[0], test, why, hunk(d, lines, newTests, test)))
	}
	return out
}

// skipsAdded reports each line the iteration's file has and the start's did not that turns
// tests off.
func skipsAdded(lang, p string, d lineDiff) []Weakening {
	r := rules[lang]
	var out []Weakening
	var tests []testAt
	for _, i := range d.added {
		line := d.newLines[i]
		for _, m := range r.skip {
			if !m.re.MatchString(line) {
				continue
			}
			if tests == nil {
				tests = findTests(lang, d.newLines)
			}
			test := enclosing(tests, i+1)
			where := p + ":" + fmt.Sprint(i+1)
			if test != "" {
				where = test + " at " + where
			}
			out = append(out, weakening(KindSkipAdded, p, i+1, test,
				fmt.Sprintf("`%s` was added to %s: it %s", clip(strings.TrimSpace(line), 80), where, m.why), "+"+line))
			break
		}
	}
	return append(out, returnsAdded(lang, p, d)...)
}

// returnsAdded reports each bare return added at the top level of the body of a test that
// existed at start with lines after it: it ends the test before its checks run. A return
// inside a condition, or in a new test, is not reported.
func returnsAdded(lang, p string, d lineDiff) []Weakening {
	var out []Weakening
	var newTests []testAt
	var oldNames map[string]bool
	for _, i := range d.added {
		if !reBareReturn.MatchString(d.newLines[i]) {
			continue
		}
		if newTests == nil {
			newTests = findTests(lang, d.newLines)
			oldNames = map[string]bool{}
			for _, t := range findTests(lang, d.oldLines) {
				oldNames[t.Name] = true
			}
		}
		n := i + 1
		for _, t := range newTests {
			if n <= t.Start || n > t.End || !oldNames[t.Name] || indentOf(d.newLines[i]) != bodyIndent(d.newLines, t) || !codeAfter(d.newLines, n, t.End) {
				continue
			}
			out = append(out, weakening(KindSkipAdded, p, n, t.Name,
				fmt.Sprintf("`%s` was added to %s at %s:%d: it ends the test before its checks run", strings.TrimSpace(d.newLines[i]), t.Name, p, n), "+"+d.newLines[i]))
		}
	}
	return out
}

// bodyIndent is the indentation of the first line of a test's body.
func bodyIndent(lines []string, t testAt) int {
	for j := t.Start; j < t.End && j < len(lines); j++ { // lines[t.Start] is the line after the declaration
		if strings.TrimSpace(lines[j]) != "" {
			return indentOf(lines[j])
		}
	}
	return -1
}

// codeAfter reports whether lines after line n (1-based) up to end hold more than closing
// brackets.
func codeAfter(lines []string, n, end int) bool {
	for j := n; j < end && j < len(lines); j++ {
		if t := strings.TrimSpace(lines[j]); t != "" && strings.Trim(t, "});,]") != "" {
			return true
		}
	}
	return false
}

// hunk shows the removed lines, and the lines the test has now that it did not have.
func hunk(d lineDiff, removed []int, newTests []testAt, test string) string {
	var b []string
	for _, n := range removed {
		b = append(b, "-"+d.oldLines[n-1])
	}
	for _, t := range newTests {
		if t.Name != test {
			continue
		}
		for _, i := range d.added {
			if i+1 >= t.Start && i+1 <= t.End && strings.TrimSpace(d.newLines[i]) != "" {
				b = append(b, "+"+d.newLines[i])
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
func gateFileChanged(p string, d lineDiff) Weakening {
	var h []string
	for _, i := range d.removed {
		h = append(h, "-"+d.oldLines[i])
	}
	for _, i := range d.added {
		h = append(h, "+"+d.newLines[i])
	}
	if len(h) > maxHunkLines {
		h = append(h[:maxHunkLines], fmt.Sprintf("… %d more lines", len(h)-maxHunkLines))
	}
	why := fmt.Sprintf("%s, which a gate runs, changed: restore it", p)
	if d.newLines == nil {
		why = fmt.Sprintf("%s, which a gate runs, was removed: restore it", p)
	}
	return weakening(KindCommandChanged, p, 1, "", why, strings.Join(h, "\n"))
}
