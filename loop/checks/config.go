package checks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// configWeakenings checks a file that says how tests run: the scripts and make targets the
// gates run must not change; elsewhere, no filter may narrow what runs or ignore failures,
// and no threshold may drop.
func configWeakenings(kind string, c Change, d lineDiff, gateRuns []string) []Weakening {
	var out []Weakening
	var exempt map[string]bool // added lines a command-changed weakening shows already
	switch kind {
	case "package.json":
		out, exempt = scriptsChanged(c, gateRuns)
	case "makefile":
		out, exempt = targetsChanged(c, gateRuns)
	}
	out = append(out, filtersAdded(c.Path, d, exempt)...)
	return append(out, thresholdsLowered(c.Path, d)...)
}

var (
	reNpmScript = regexp.MustCompile(`\b(?:npm|pnpm|yarn|bun)\s+(?:--\S+\s+)*(?:run(?:-script)?\s+(?:--\S+\s+)*)?([\w:./-]+)`)
	reMake      = regexp.MustCompile(`(?:^|[;&|(]\s*|\s)(?:g?make)((?:\s+[^\s;&|)]+)*)`)
)

// npmScripts names the package.json scripts commands run: `npm test` is test, `npm run
// lint` lint, `yarn build` build.
func npmScripts(runs []string) []string {
	var out []string
	for _, run := range runs {
		for _, m := range reNpmScript.FindAllStringSubmatch(run, -1) {
			name := m[1]
			switch name {
			case "t", "tst":
				name = "test"
			case "install", "ci", "exec", "x", "i", "add", "dlx":
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

// scriptsChanged reports each script a gate runs (and those it runs in turn) whose command
// changed or went away.
func scriptsChanged(c Change, gateRuns []string) ([]Weakening, map[string]bool) {
	oldScripts, newScripts := packageScripts(c.Old), packageScripts(c.New)
	exempt := map[string]bool{}
	var out []Weakening
	seen := map[string]bool{}
	todo := npmScripts(gateRuns)
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		old, had := oldScripts[name]
		cur, has := newScripts[name]
		todo = append(todo, npmScripts([]string{old, cur})...)
		if !had || old == cur {
			continue
		}
		now := "removed"
		if has {
			now = strconv.Quote(cur)
			exempt[norm(fmt.Sprintf("%q: %q", name, cur))] = true
		}
		out = append(out, weakening(KindCommandChanged, c.Path, lineOf(c.New, strconv.Quote(name)+":"), "",
			fmt.Sprintf("%s's script %q, which a gate runs, changed from %q to %s: restore it", c.Path, name, old, now),
			fmt.Sprintf("-%q: %q\n+%q: %s", name, old, name, now)))
	}
	return out, exempt
}

// packageScripts reads package.json's scripts; nil when it does not parse.
func packageScripts(b []byte) map[string]string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if b == nil || json.Unmarshal(b, &pkg) != nil {
		return nil
	}
	return pkg.Scripts
}

// makeTargets names the targets make commands build; "" stands for the default target.
func makeTargets(runs []string) []string {
	var out []string
	for _, run := range runs {
		for _, m := range reMake.FindAllStringSubmatch(run, -1) {
			args, named := strings.Fields(m[1]), false
			for i := 0; i < len(args); i++ {
				a := args[i]
				switch {
				case a == "-C" || a == "-f" || a == "-j" || a == "-o" || a == "-W" || a == "-I":
					i++
				case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
				default:
					out, named = append(out, a), true
				}
			}
			if !named {
				out = append(out, "")
			}
		}
	}
	return out
}

// makeRule is one target's prerequisites and recipe, as written.
type makeRule struct {
	prereqs string
	recipe  []string
	line    int // 1-based
}

// parseMakefile reads a Makefile's explicit rules, and which target is the default.
func parseMakefile(b []byte) (map[string]makeRule, string) {
	rules, first := map[string]makeRule{}, ""
	var cur []string
	for i, line := range splitLines(b) {
		if strings.HasPrefix(line, "\t") {
			for _, t := range cur {
				r := rules[t]
				r.recipe = append(r.recipe, norm(line))
				rules[t] = r
			}
			continue
		}
		cur = nil
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		colon := strings.Index(t, ":")
		if colon <= 0 || strings.HasPrefix(t[colon:], ":=") || strings.ContainsAny(t[:colon], "=$") {
			continue
		}
		for _, target := range strings.Fields(t[:colon]) {
			if strings.HasPrefix(target, ".") {
				continue
			}
			rules[target] = makeRule{prereqs: norm(strings.TrimLeft(t[colon+1:], ":")), line: i + 1}
			cur = append(cur, target)
			if first == "" {
				first = target
			}
		}
	}
	return rules, first
}

// targetsChanged reports each make target a gate builds (and the targets it depends on)
// whose prerequisites or recipe changed, or that went away.
func targetsChanged(c Change, gateRuns []string) ([]Weakening, map[string]bool) {
	oldRules, oldFirst := parseMakefile(c.Old)
	newRules, _ := parseMakefile(c.New)
	exempt := map[string]bool{}
	var out []Weakening
	seen := map[string]bool{}
	var todo []string
	for _, t := range makeTargets(gateRuns) {
		if t == "" {
			t = oldFirst
		}
		todo = append(todo, t)
	}
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		old, had := oldRules[name]
		if seen[name] || !had {
			continue
		}
		seen[name] = true
		todo = append(todo, strings.Fields(old.prereqs)...)
		cur, has := newRules[name]
		if has && cur.prereqs == old.prereqs && slices.Equal(cur.recipe, old.recipe) {
			continue
		}
		h := []string{"-" + name + ": " + old.prereqs}
		for _, l := range old.recipe {
			h = append(h, "-\t"+l)
		}
		line := old.line
		if has {
			h = append(h, "+"+name+": "+cur.prereqs)
			for _, l := range cur.recipe {
				h = append(h, "+\t"+l)
				exempt[l] = true
			}
			line = cur.line
		}
		out = append(out, weakening(KindCommandChanged, c.Path, line, "",
			fmt.Sprintf("%s's target %s, which a gate builds, changed: restore it", c.Path, name), strings.Join(h, "\n")))
	}
	return append(out, variablesChanged(c, oldRules, seen, exempt)...), exempt
}

var (
	reMakeVarRef    = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]`)
	reMakeVarAssign = regexp.MustCompile(`^\s*(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:::=|:=|\?=|\+=|!=|=)\s*(.*?)\s*$`)
)

// variablesChanged reports each make variable the recipes of the gates' targets use whose
// assignments changed (TEST_CMD = true), marking the added lines exempt from the filter rule.
func variablesChanged(c Change, rules map[string]makeRule, targets map[string]bool, exempt map[string]bool) []Weakening {
	used := map[string]bool{}
	for name := range targets {
		for _, l := range rules[name].recipe {
			for _, m := range reMakeVarRef.FindAllStringSubmatch(l, -1) {
				used[m[1]] = true
			}
		}
	}
	if len(used) == 0 {
		return nil
	}
	oldVars, newVars := makeVariables(c.Old), makeVariables(c.New)
	names := make([]string, 0, len(used))
	for v := range used {
		names = append(names, v)
	}
	sort.Strings(names)
	var out []Weakening
	for _, v := range names {
		old, cur := oldVars[v], newVars[v]
		if slices.Equal(old.values, cur.values) {
			continue
		}
		var h []string
		for _, l := range old.lines {
			h = append(h, "-"+l)
		}
		for _, l := range cur.lines {
			h = append(h, "+"+l)
			exempt[norm(l)] = true
		}
		out = append(out, weakening(KindCommandChanged, c.Path, max(cur.first, old.first), "",
			fmt.Sprintf("%s's variable %s, which a gate's target runs, changed: restore it", c.Path, v), strings.Join(h, "\n")))
	}
	return out
}

// makeVar is a make variable's assignments in a file: their lines, values and the first's
// line number (1-based).
type makeVar struct {
	lines, values []string
	first         int
}

// makeVariables reads a Makefile's variable assignments outside recipes.
func makeVariables(b []byte) map[string]makeVar {
	vars := map[string]makeVar{}
	for i, line := range splitLines(b) {
		if strings.HasPrefix(line, "\t") {
			continue
		}
		m := reMakeVarAssign.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v := vars[m[1]]
		if v.first == 0 {
			v.first = i + 1
		}
		v.lines, v.values = append(v.lines, line), append(v.values, norm(m[2]))
		vars[m[1]] = v
	}
	return vars
}

// reFilter matches what narrows the tests a runner runs (to none: pytest --co, cargo test
// --no-run; to those that failed last or changed), drops its coverage threshold, or makes
// failures pass.
var reFilter = regexp.MustCompile(`(?:^|[\s"'=\[,])(?:-run|-skip|-k|--deselect|--ignore|--ignore-glob|--exclude|--skip|--testPathIgnorePatterns|--passWithNoTests|--pass-with-no-tests|--no-tests=pass` +
	`|--co|--collect-only|--lf|--last-failed|--sw|--stepwise|--no-cov|--no-run|--listTests|--onlyChanged|--changedSince` +
	`|--testNamePattern|--testPathPattern|--test-name-pattern|--test-skip-pattern|--grep|--fgrep)(?:[\s="']|$)` +
	`|(?:^|[\s"'])-p\s*no:(?:cov|pytest_cov)\b|\b(?:onlyChanged|testNamePattern|grep|fgrep)["']?\s*:` +
	`|(?:^|\s)-m\s+["']?not\b|\b(?:testPathIgnorePatterns|modulePathIgnorePatterns|testMatch|testRegex|collect_ignore(?:_glob)?|norecursedirs|testpaths|python_files|python_functions|python_classes|passWithNoTests)\b` +
	`|\|\|\s*(?:true|:|exit\s+0)\b|(?:^|[;&"'\s])exit\s+0\b|\b(?:autotests|test)\s*=\s*false\b|continue-on-error:\s*true`)

// filtersAdded reports each line added to a file that says how tests run that narrows what
// runs or makes failures pass (exempt: lines reported already).
func filtersAdded(p string, d lineDiff, exempt map[string]bool) []Weakening {
	var out []Weakening
	for _, i := range d.added {
		line := d.newLines[i]
		if !reFilter.MatchString(line) || exempt[norm(line)] || exemptLine(exempt, line) {
			continue
		}
		out = append(out, weakening(KindFilterAdded, p, i+1, "",
			fmt.Sprintf("`%s` was added to %s:%d: it narrows the tests that run or lets failures pass", clip(strings.TrimSpace(line), 80), p, i+1), "+"+line))
	}
	return out
}

// exemptLine reports whether a line holds a command reported already (a package.json script
// line is `"name": "command",`).
func exemptLine(exempt map[string]bool, line string) bool {
	t := norm(strings.TrimSuffix(strings.TrimSpace(line), ","))
	return exempt[t]
}

var (
	reThresholdKey = regexp.MustCompile(`(?i)fail[_-]?under|threshold|min[_-]?coverage|coverage[_-]?min|minimum|\b(?:lines|branches|functions|statements)\b\s*["']?\s*[:=]`)
	reNumber       = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// thresholdsLowered pairs each removed line that sets a threshold with the added line of the
// same shape, and reports those whose number dropped.
func thresholdsLowered(p string, d lineDiff) []Weakening {
	added := map[string][]int{} // shape → added line numbers
	for _, i := range d.added {
		if line := d.newLines[i]; reThresholdKey.MatchString(line) && reNumber.MatchString(line) {
			added[shape(line)] = append(added[shape(line)], i+1)
		}
	}
	if len(added) == 0 {
		return nil
	}
	var out []Weakening
	for _, i := range d.removed {
		line := d.oldLines[i]
		cands := added[shape(line)]
		if len(cands) == 0 || !reThresholdKey.MatchString(line) {
			continue
		}
		n := cands[0]
		added[shape(line)] = cands[1:]
		was, _ := strconv.ParseFloat(reNumber.FindString(line), 64)
		is, _ := strconv.ParseFloat(reNumber.FindString(d.newLines[n-1]), 64)
		if is < was {
			out = append(out, weakening(KindThresholdLowered, p, n, "",
				fmt.Sprintf("a threshold in %s:%d was lowered from %s to %s", p, n, reNumber.FindString(line), reNumber.FindString(d.newLines[n-1])),
				"-"+line+"\n+"+d.newLines[n-1]))
		}
	}
	return out
}

// shape is a line with its numbers blanked, to pair a changed threshold with its old self.
func shape(s string) string { return reNumber.ReplaceAllString(norm(s), "#") }

// lineOf is the first line (1-based) of b holding s, or 0.
func lineOf(b []byte, s string) int {
	for i, l := range splitLines(b) {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}
