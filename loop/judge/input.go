package judge

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxInput bounds what an evaluator reads on its standard input, in bytes. The input says
// so, and every part that was cut to fit says where and how much.
const MaxInput = 128 << 10

// Bounds of the parts of the input; the patch gets what the others leave of MaxInput.
const (
	maxCondition = 4 << 10
	maxTask      = 16 << 10
	maxMessage   = 16 << 10
	maxGates     = 8 << 10
	maxDiffstat  = 16 << 10
)

// GateLine is one command gate's result, as the evaluator reads it.
type GateLine struct {
	Name    string
	Status  string
	Summary string // what its output says, or its last line
}

// Input is what an evaluator is given to judge one condition.
type Input struct {
	Condition    string
	Task         string
	Message      string // the agent's last message
	MessageKnown bool   // false when the agent's protocol delivers no message
	Gates        []GateLine
	Base         string // what the diff is against, in words ("commit 1a2b3c4, where the loop started")
	Diffstat     string
	Patch        string
	// Cut says how many bytes of the diffstat and of the patch were left out before they
	// were handed here (they are read bounded), so the input can say so.
	DiffstatCut, PatchCut int64
}

// Build writes the evaluator's input: what to answer and how, then the condition, the task,
// the agent's last message, the gates' results, the diffstat and the patch. It is at most
// MaxInput bytes; a part cut to fit has a line that says how much was left out, and cut
// reports whether any part was.
func Build(in Input) (text string, cut bool) {
	var b builder
	fmt.Fprintf(&b, `You are the evaluator of a git-loop loop: an AI coding agent worked on the task below and
tried to stop. Judge only whether the CONDITION holds for the work as it stands in the patch
below (the agent's message is a claim, not evidence). Every command gate has passed.

Answer with one JSON object, and nothing after it:
{"met": true or false, "impossible": true or false, "reason": "one or two sentences"}
- met: true only if the condition holds now.
- impossible: true only if the condition can never hold whatever the agent does (it
  contradicts itself or the task); the loop then stops for a person.
- reason: when not met, what is missing, in words the agent can act on.

This input is bounded to %d bytes: a part cut to fit says so, in a line "[git-loop: N bytes cut …]".
`, MaxInput)
	b.section("CONDITION", in.Condition, maxCondition, 0, false)
	b.section("TASK", in.Task, maxTask, 0, false)
	msg := in.Message
	if !in.MessageKnown {
		msg = "(this agent's stop carries no message)"
	} else if strings.TrimSpace(msg) == "" {
		msg = "(no message this turn)"
	}
	b.section("AGENT'S LAST MESSAGE", msg, maxMessage, 0, true)
	var gates strings.Builder
	for _, g := range in.Gates {
		fmt.Fprintf(&gates, "- %s: %s", g.Name, g.Status)
		if g.Summary != "" {
			fmt.Fprintf(&gates, " (%s)", g.Summary)
		}
		gates.WriteByte('\n')
	}
	if len(in.Gates) == 0 {
		gates.WriteString("(this loop has no command gates)\n")
	}
	b.section("COMMAND GATES", gates.String(), maxGates, 0, false)
	base := "the loop's base"
	if in.Base != "" {
		base = in.Base
	}
	stat := in.Diffstat
	if strings.TrimSpace(stat) == "" && in.DiffstatCut == 0 {
		stat = "(no change)"
	}
	b.section("DIFFSTAT against "+base, stat, maxDiffstat, in.DiffstatCut, false)
	// The patch gets what is left, keeping room for its header and its cut line.
	room := MaxInput - b.Len() - 200
	b.section("PATCH against "+base, in.Patch, max(room, 0), in.PatchCut, false)
	out := b.String()
	if len(out) > MaxInput { // only when the fixed parts alone are near the bound
		out, b.cut = cutHead(out, MaxInput-80)+"\n[git-loop: the input was cut at its bound]\n", true
	}
	return out, b.cut
}

// builder is the input being written, and whether a part of it was cut.
type builder struct {
	strings.Builder
	cut bool
}

// section writes a titled part of at most limit bytes of body, marking a cut: by default the
// head is kept (a task, a patch); keepTail keeps the end (a message, whose last words count).
// already is how much the caller left out before.
func (b *builder) section(title, body string, limit int, already int64, keepTail bool) {
	fmt.Fprintf(b, "\n=== %s ===\n", title)
	cut := int64(0)
	if len(body) > limit {
		cut = int64(len(body) - limit)
		if keepTail {
			body = cutTail(body, limit)
		} else {
			body = cutHead(body, limit)
		}
	}
	cut += already
	b.cut = b.cut || cut > 0
	if keepTail && cut > 0 {
		fmt.Fprintf(b, "[git-loop: %d bytes cut before this point]\n", cut)
	}
	b.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	if !keepTail && cut > 0 {
		fmt.Fprintf(b, "[git-loop: %d more bytes cut]\n", cut)
	}
}

// cutHead keeps the first n bytes of s, on a rune boundary.
func cutHead(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cutTail keeps the last n bytes of s, on a rune boundary.
func cutTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}
