package loop

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/internal/textutil"
	"github.com/git-loop/git-loop/loop/checks"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/judge"
)

// Values of loop.testEdits: whether an iteration may change the checks that existed at start.
const (
	// TestEditsRefuse (the default): a weakened check keeps the loop from completing, unless
	// the task names the file or a person approves it (`git loop approve`).
	TestEditsRefuse = "refuse"
	// TestEditsAllow: weakenings are recorded and shown, and never keep the loop from
	// completing (a task that is about its tests).
	TestEditsAllow = "allow"
	// TestEditsJudge: the loop's evaluator judges the weakenings against the task, once
	// every command gate passes; those it judges part of the task are allowed.
	TestEditsJudge = "judge"
)

// testEditsJudge is the name of the evaluator's result on the test edits: recorded with the
// iteration's gates (counted against the evaluator budget, its verdict reused for the same
// tree and message), but no gate of the loop's.
const testEditsJudge = "test-edits"

// maxCheckFileBytes bounds the check files read for weakenings: larger ones are generated
// or data, not tests.
const maxCheckFileBytes = 1 << 20

// maxStateWeakenings bounds the weakenings state.json keeps (the iteration keeps them all).
const maxStateWeakenings = 10

// Approval is a person's word that a weakening of the checks is wanted (`git loop approve`).
type Approval struct {
	Key       string `json:"key"`
	Iteration int    `json:"iteration"` // the iteration whose weakenings were approved
	Why       string `json:"why,omitempty"`
}

// weakenings compares the checks in tree with those at the loop's start and says, for each
// weakening, what allows it (the configuration, the task's scope, a person's approval) or
// nothing. Only the paths that differ are read, and of those only the files that say what
// the checks are.
func (s *Store) weakenings(cfg *Config, st *State, tree gitstore.Hash) ([]checks.Weakening, error) {
	start, err := s.startTree(st)
	if err != nil || start == tree {
		return nil, err
	}
	changed, err := s.Repo.ChangedEntries(start, tree)
	if err != nil {
		return nil, fmt.Errorf("compare the checks with the loop's start: %w", err)
	}
	runs := make([]string, len(cfg.Gates))
	for i, g := range cfg.Gates {
		runs[i] = g.Run
	}
	gateFiles := checks.GateFiles(runs)
	var changes []checks.Change
	for _, c := range changed {
		if !checks.IsCheckFile(c.Path) && !slices.Contains(gateFiles, c.Path) {
			continue
		}
		old, err := s.checkFile(c.Path, c.Old)
		if err != nil {
			return nil, err
		}
		cur, err := s.checkFile(c.Path, c.New)
		if err != nil {
			return nil, err
		}
		if old != nil || cur != nil {
			changes = append(changes, checks.Change{Path: c.Path, Old: old, New: cur})
		}
	}
	ws := checks.Find(changes, runs)
	for i := range ws {
		ws[i].Allowed = allowedBy(cfg, st, ws[i])
	}
	return ws, nil
}

// checkFile is the content of the blob entry e at path, or nil where there is none (no
// entry, a submodule, or a blob too large to be a test).
func (s *Store) checkFile(p string, e gitstore.TreeEntry) ([]byte, error) {
	if e.Mode == 0 || e.Mode == gitstore.ModeGitlink {
		return nil, nil
	}
	data, err := s.Repo.ReadTyped(gitstore.BlobObject, e.Hash)
	if err != nil {
		return nil, fmt.Errorf("read %s for the checks: %w", p, err)
	}
	if len(data) > maxCheckFileBytes {
		return nil, nil
	}
	return data, nil
}

// startTree is the tree of the loop's start snapshot (I_0): recorded in the state since
// weakenings are checked, read from iteration 0 for loops started before.
func (s *Store) startTree(st *State) (gitstore.Hash, error) {
	if st.StartTree != "" {
		return gitstore.ParseHash(st.StartTree)
	}
	h, err := s.OpenHistory(st.Name)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	rec, err := h.Get(0)
	if err != nil {
		return gitstore.ZeroHash, err
	}
	return gitstore.ParseHash(rec.Tree)
}

// allowedBy says what allows a weakening, or "": loop.testEdits, a person's approval, or
// the task asking to edit the file: a sentence of it names the file (its path, its name, or
// a directory holding it) with a verb of editing, and does not ask for it to pass ("Rewrite
// check_test.sh: it is obsolete" allows; "Make TestAdd in calc_test.go pass" does not), when
// the file is a test or test configuration by its name (a task naming src/lib.rs is about
// the code, not its tests).
func allowedBy(cfg *Config, st *State, w checks.Weakening) string {
	if cfg.TestEdits == TestEditsAllow {
		return "loop.testEdits = allow"
	}
	for _, a := range st.Approved {
		if a.Key == w.Key {
			return fmt.Sprintf("approved by a person at iteration %d", a.Iteration)
		}
	}
	if !checks.IsTestPath(w.Path) {
		return ""
	}
	for _, sentence := range sentences(cfg.Prompt) {
		if named := taskNames(sentence, w.Path); named != "" && asksToEdit(sentence) {
			return "the task asks to edit " + named
		}
	}
	return ""
}

// sentences splits a task into its sentences (and lines), roughly: what one sentence says
// of a file is read with the verbs of that sentence only. A full stop ends a sentence only
// before white space, as file names hold them too.
func sentences(task string) []string {
	return reSentenceEnd().Split(task, -1)
}

var reSentenceEnd = textutil.LazyRegexp(`[.!?]+(?:\s+|$)|\n`)

// editVerbs are the verbs with which a task asks to change a file; passVerbs those with
// which it asks for a check to pass, which never allow changing it.
var (
	editVerbs = []string{"add", "update", "change", "rewrite", "remove", "delete", "drop", "replace", "rename", "refactor", "edit",
		"modify", "fix", "move", "split", "merge", "clean", "adjust", "correct", "simplify", "retire", "skip", "disable"}
	passVerbs = []string{"pass", "passes", "passing", "green", "succeed", "succeeds"}
)

// asksToEdit reports whether a sentence asks to change something (a verb of editing, in any
// of its forms) and not for a check to pass.
func asksToEdit(sentence string) bool {
	words := strings.FieldsFunc(strings.ToLower(sentence), func(r rune) bool { return r < 'a' || r > 'z' })
	edit := false
	for _, w := range words {
		if slices.Contains(passVerbs, w) {
			return false
		}
		for _, v := range editVerbs {
			edit = edit || inflects(w, v)
		}
	}
	return edit
}

// inflects reports whether word is verb or one of its regular forms: remove, removes,
// removed, removing; add, adds, added, adding; fix, fixes, fixed.
func inflects(word, verb string) bool {
	rest, ok := strings.CutPrefix(word, strings.TrimSuffix(verb, "e"))
	if !ok {
		return false
	}
	switch rest {
	case "", "s", "es", "ed", "d", "ing", "ding", "e":
		return rest != "e" || strings.HasSuffix(verb, "e")
	}
	return false
}

// taskNames is what of path the task names: the path itself, a directory of it written with
// its trailing slash ("tests/"), or its file name; "" when none.
func taskNames(task, p string) string {
	if task == "" {
		return ""
	}
	if containsWord(task, p) {
		return p
	}
	for dir := path.Dir(p); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if containsWord(task, dir+"/") {
			return dir + "/"
		}
	}
	if base := path.Base(p); containsWord(task, base) {
		return base
	}
	return ""
}

// containsWord reports whether s holds w with no letter, digit or underscore on either
// side (so "calc_test.go" is not named by "mycalc_test.go").
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := j == 0 || !isWordByte(s[j-1]), j+len(w) == len(s) || !isWordByte(s[j+len(w)])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// blocking are the weakenings nothing allows.
func blocking(ws []checks.Weakening) []checks.Weakening {
	var out []checks.Weakening
	for _, w := range ws {
		if w.Allowed == "" {
			out = append(out, w)
		}
	}
	return out
}

// unmetWeakened is what a weakened iteration has unmet.
func unmetWeakened(n int) string {
	if n == 1 {
		return "the checks as strong as at start (1 weakening)"
	}
	return fmt.Sprintf("the checks as strong as at start (%d weakenings)", n)
}

// weakenedText is the continuation's part on the weakenings iteration found: the first ten
// with their reasons and lines, how many more, what the evaluator said of them (if it
// judged them), and what to do.
func weakenedText(name string, iteration int, ws []checks.Weakening, gates []GateResult) string {
	if len(ws) == 0 {
		return ""
	}
	judged := ""
	for _, g := range gates {
		if g.Name == testEditsJudge && g.Judge != nil && g.Judge.Reason != "" {
			judged = fmt.Sprintf("\nThe evaluator (`%s`) judged these changes not part of the task (%s): %s\n", g.Judge.Evaluator, g.Judge.Verdict, g.Judge.Reason)
		}
	}
	var b strings.Builder
	b.WriteString("\nThe checks are weaker than at the loop's start; a check you change cannot vouch for the code, so this cannot complete:\n")
	for _, w := range capWeakenings(ws) { // the message goes into the agent's context at each stop
		fmt.Fprintf(&b, "\n- %s\n", w.Why)
		if w.Hunk != "" {
			b.WriteString(fence(w.Hunk) + "\n")
		}
	}
	if more := len(ws) - maxStateWeakenings; more > 0 {
		fmt.Fprintf(&b, "\n… and %d more (`git loop show %s %d` lists them all)\n", more, name, iteration)
	}
	b.WriteString(judged)
	fmt.Fprintf(&b, "\nRestore them and fix the code instead. If the task really is to change these tests, say so to the person: they can allow it with `git loop approve %s`.\n", name)
	return b.String()
}

// capWeakenings keeps the first maxStateWeakenings, for state.json.
func capWeakenings(ws []checks.Weakening) []checks.Weakening {
	if len(ws) > maxStateWeakenings {
		return ws[:maxStateWeakenings]
	}
	return ws
}

// withApprovals answers again what allows each weakening, against st: the state this stop
// records over, which a `git loop approve` may have changed while the gates ran.
func withApprovals(ws []checks.Weakening, cfg *Config, st *State) []checks.Weakening {
	out := make([]checks.Weakening, len(ws))
	for i, w := range ws {
		if !strings.HasPrefix(w.Allowed, evaluatorAllowed) { // the evaluator's word stands
			w.Allowed = allowedBy(cfg, st, w)
		}
		out[i] = w
	}
	return out
}

// CheckWeakenings compares the checks in loop name's worktree now with those at its start,
// as the next stop would, and records nothing.
func (s *Store) CheckWeakenings(name string) ([]checks.Weakening, error) {
	_, st, err := s.ReadState(name)
	if err != nil {
		return nil, err
	}
	cfg, err := s.Config(name, st)
	if err != nil {
		return nil, err
	}
	wt := s.Repo
	if !IsFetched(name) {
		if wt, err = s.WorktreeOf(name, st); err != nil {
			return nil, err
		}
	}
	snap, err := takeSnapshot(wt)
	if err != nil {
		return nil, err
	}
	return s.weakenings(cfg, st, snap.Tree)
}

// Blocking are the weakenings nothing allows: those that keep a loop from completing.
func Blocking(ws []checks.Weakening) []checks.Weakening { return blocking(ws) }

// allowedText is "; the checks were weakened as allowed (approved by a person at iteration
// 2)" for a completion with weakenings something allowed, or "".
func allowedText(ws []checks.Weakening) string {
	if len(ws) == 0 {
		return ""
	}
	by := []string{}
	for _, w := range ws {
		if !slices.Contains(by, w.Allowed) {
			by = append(by, w.Allowed)
		}
	}
	return fmt.Sprintf("; %d weakening(s) of the checks allowed (%s)", len(ws), strings.Join(by, "; "))
}

// evaluatorAllowed heads what allows a weakening the evaluator judged part of the task.
const evaluatorAllowed = "the evaluator judged it part of the task"

// judgeTestEdits asks the loop's evaluator (loop.testEdits = judge) whether the weakenings
// nothing else allows are what the task asks for, once every command gate passes. It returns
// the evaluator's result, to record with the gates (nil when it was not asked), and the
// weakenings, those it judged part of the task allowed.
func (s *Store) judgeTestEdits(ctx context.Context, r judgeRun, ws []checks.Weakening) (*GateResult, []checks.Weakening) {
	todo := blocking(ws)
	if r.cfg.TestEdits != TestEditsJudge || r.cfg.Evaluator == nil || len(todo) == 0 || !Verified(r.gates) || ctx.Err() != nil {
		return nil, ws
	}
	ev := r.cfg.Evaluator
	cond := testEditsCondition(todo)
	info := &JudgeInfo{Condition: cond, Evaluator: ev.Command, Key: verdictKey(ev.Command, cond, r.tree.String(), r.message)}
	res := GateResult{Result: gates.Result{Name: testEditsJudge, ExitCode: -1}, Judge: info}
	switch {
	case s.cachedVerdict(r.name, r.st, &res):
		info = res.Judge
	case r.budget && r.st.EvaluatorRuns+ranJudges(r.gates) >= ev.budget(r.st):
		res.Status, info.Verdict = gates.StatusSkip, VerdictBudget
		info.Reason = "the evaluator budget is spent, so the test edits were not judged"
	default:
		in, err := s.judgeInput(ctx, r)
		if err != nil {
			res.Status, info.Verdict, info.Reason = gates.StatusError, VerdictFailed, fmt.Sprintf("the evaluator was not run: %v", err)
			break
		}
		in.Condition = cond
		input, cut := judge.Build(in)
		info.InputCut = cut
		runEvaluator(ctx, ev, input, &res, r.opts)
	}
	if res.Tail == "" {
		res.Tail = judgeTail(info)
	}
	if res.Status != gates.StatusPass {
		return &res, ws
	}
	out := make([]checks.Weakening, len(ws))
	for i, w := range ws {
		if w.Allowed == "" {
			w.Allowed = evaluatorAllowed + ": " + textutil.FirstLine(textutil.OrDefaultString(info.Reason, "no reason given"))
		}
		out[i] = w
	}
	return &res, out
}

// ranJudges counts the evaluator runs among results.
func ranJudges(results []GateResult) int {
	n := 0
	for _, g := range results {
		if g.Judge != nil && g.Judge.Ran {
			n++
		}
	}
	return n
}

// testEditsCondition is what the evaluator judges of the test edits: that they are what the
// task asks for, with each weakening's reason and lines.
func testEditsCondition(ws []checks.Weakening) string {
	var b strings.Builder
	b.WriteString("The changes below weaken tests or test configuration that existed when the loop started. " +
		"The condition is met only if the task itself asks for these changes (the tests are obsolete, wrong, or the subject of the task), " +
		"not if they make failing checks pass instead of fixing the code:\n")
	for _, w := range ws {
		fmt.Fprintf(&b, "\n- %s\n%s\n", w.Why, w.Hunk)
	}
	return b.String()
}

// maxRecordWeakenings bounds the weakenings an iteration record keeps: a stop after a mass
// deletion would otherwise write every test's hunk into each record.
const maxRecordWeakenings = 200

// recordedWeakenings are the weakenings an iteration record keeps.
func recordedWeakenings(ws []checks.Weakening) []checks.Weakening {
	if len(ws) > maxRecordWeakenings {
		return ws[:maxRecordWeakenings]
	}
	return ws
}
