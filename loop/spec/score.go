package spec

import (
	"fmt"
	"strings"
	"unicode"
)

// Spec shapes, from a spec's total score: how much a loop can be left alone with it.
const (
	ShapeTool      = "tool"      // total ≥ 8; as a loop's shape, it runs unattended (the default)
	ShapeColleague = "colleague" // total 5–7; as a loop's shape (asked for), it pauses at checkpoints
	ShapeIntent    = "intent"    // total < 5: vague; only advice, never a loop's shape
)

// Workflows a spec's wording asks for.
const (
	workflowBuild    = "build"
	workflowDebug    = "debug"
	workflowRefactor = "refactor"
)

// The five dimensions a spec is scored on, in order.
const (
	dimOutcome     = "outcome"
	dimScope       = "scope"
	dimConstraints = "constraints"
	DimSuccess     = "success"
	DimDone        = "done"
)

// Dimension is one scored aspect of a spec: 0 (absent), 1 (partly there) or 2 (clear),
// with the evidence found and, below 2, what to add.
type Dimension struct {
	Name    string   `json:"name"`
	Score   int      `json:"score"`
	Found   []string `json:"found"`
	Missing string   `json:"missing,omitempty"`
}

// SpecScore is a spec's score on the five dimensions, its shape and its workflow.
type SpecScore struct {
	Dimensions []Dimension `json:"dimensions"`
	Total      int         `json:"total"` // 0..10
	Shape      string      `json:"shape"`
	Workflow   string      `json:"workflow"`
	// WorkflowFound are the words that named the workflow (none: build by default).
	WorkflowFound []string `json:"workflow_found"`
}

// ScoreSpec scores a spec's text on outcome, scope, constraints, success and done (0–2
// each), and names its shape and workflow. It is pure and deterministic; every point is
// backed by evidence quoted from the text, and every missing point says what to add.
func ScoreSpec(text string) SpecScore {
	t := newSpecText(text)
	s := SpecScore{Dimensions: []Dimension{
		scoreOutcome(t), scoreScope(t), scoreConstraints(t), scoreSuccess(t), scoreDone(t),
	}}
	s.Sum()
	s.Workflow, s.WorkflowFound = workflowOf(t)
	return s
}

// Sum sums the dimensions and names the shape.
func (s *SpecScore) Sum() {
	s.Total = 0
	for _, d := range s.Dimensions {
		s.Total += d.Score
	}
	s.Shape = shapeOf(s.Total)
}

// shapeOf names the shape of a total score: tool (≥ 8), colleague (5–7), intent (< 5).
func shapeOf(total int) string {
	switch {
	case total >= 8:
		return ShapeTool
	case total >= 5:
		return ShapeColleague
	}
	return ShapeIntent
}

// Weak returns the names of the dimensions scoring below 2.
func (s SpecScore) Weak() []string {
	var out []string
	for _, d := range s.Dimensions {
		if d.Score < 2 {
			out = append(out, d.Name)
		}
	}
	return out
}

// Summary is one line: "6/10 (suggests colleague checkpoints), workflow debug". The shape is
// said as what the score suggests, never as a bare word: "colleague" beside "runs unattended"
// read as if the loop needed one.
func (s SpecScore) Summary() string {
	return fmt.Sprintf("%d/10 (%s), workflow %s", s.Total, suggests(s.Shape), s.Workflow)
}

// suggests says what a spec's shape suggests for a loop on it, for Summary.
func suggests(shape string) string {
	switch shape {
	case ShapeTool:
		return "suggests running unattended"
	case ShapeColleague:
		return "suggests colleague checkpoints"
	}
	return "only an intent: vague"
}

// specText is a spec prepared for matching: its lower-case words (anything but letters and
// digits separates them, so "don't" is "don t"), and its whitespace-separated fields.
type specText struct {
	raw    string
	words  []string
	fields []string
}

func newSpecText(raw string) specText {
	words := strings.FieldsFunc(strings.ToLower(raw), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	// Fields are read outside code spans, which count whole.
	return specText{raw: raw, words: words, fields: strings.Fields(reCodeSpan().ReplaceAllString(raw, " "))}
}

// find returns the phrases (written as words separated by single spaces) that occur in t,
// each once, in order of first occurrence, and how many occurrences there were in all. At
// each word the longest phrase wins, so "must not" is not also counted as "must".
func (t specText) find(phrases []string) (found []string, n int) {
	split := make([][]string, len(phrases))
	for i, p := range phrases {
		split[i] = strings.Fields(p)
	}
	seen := map[string]bool{}
	for i := 0; i < len(t.words); {
		best := -1
		for j, p := range split {
			if len(p) > 0 && hasWordsAt(t.words, i, p) && (best < 0 || len(p) > len(split[best])) {
				best = j
			}
		}
		if best < 0 {
			i++
			continue
		}
		n++
		if !seen[phrases[best]] {
			seen[phrases[best]] = true
			found = append(found, phrases[best])
		}
		i += len(split[best])
	}
	return found, n
}

func hasWordsAt(words []string, i int, p []string) bool {
	if i+len(p) > len(words) {
		return false
	}
	for k, w := range p {
		if words[i+k] != w {
			return false
		}
	}
	return true
}

// quoted adds quotes to each piece of evidence.
func quoted(prefix string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%s %q", prefix, x)
	}
	return out
}

// dim builds a dimension from two kinds of evidence: 2 when both are present, 1 with one.
func dim(name string, a, b []string, missA, missB string) Dimension {
	d := Dimension{Name: name, Found: append(append([]string{}, a...), b...)}
	switch {
	case len(a) > 0 && len(b) > 0:
		d.Score = 2
	case len(a) > 0:
		d.Score, d.Missing = 1, missB
	case len(b) > 0:
		d.Score, d.Missing = 1, missA
	default:
		d.Missing = missA + "; " + missB
	}
	return d
}
