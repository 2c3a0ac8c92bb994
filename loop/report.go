package loop

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"go.yaml.in/yaml/v3"
)

// Release decisions of a report.
const (
	Ship     = "SHIP"     // completed, every gate passes, nothing skipped or assumed
	Monitor  = "MONITOR"  // completed with skipped gates or assumed criteria
	Research = "RESEARCH" // paused or cancelled: not done
)

// Report is the record of a loop written when it stops running: report.yaml holds all of it,
// report.md summarises it for a person.
type Report struct {
	Loop      string        `json:"loop"`
	Status    string        `json:"status"`
	Reason    string        `json:"reason"`
	Release   string        `json:"release_decision"`
	Task      string        `json:"task"`
	Spec      *SpecScore    `json:"spec,omitempty"`  // the task's score at start
	Shape     string        `json:"shape,omitempty"` // how the loop ran: tool or colleague
	Execution Execution     `json:"execution"`
	Layers    []LayerReport `json:"layers"`
	Defects   Defects       `json:"defects"`
	Rework    []ReworkEvent `json:"rework"`
	Timeline  []Step        `json:"iterations"`
}

// Execution is when the loop ran and for how long.
type Execution struct {
	StartedAt     time.Time `json:"started_at"`
	EndedAt       time.Time `json:"ended_at"`
	Seconds       float64   `json:"duration_s"`
	Iterations    int       `json:"iterations"`
	MaxIterations int       `json:"max_iterations"`
}

// LayerReport is one gate over the loop's life.
type LayerReport struct {
	Layer    int    `json:"layer"`
	Gate     string `json:"gate"`
	Final    string `json:"final_status"`
	Attempts int    `json:"attempts"`
	Failures int    `json:"failures"`
	// Diagnostics is what the gate's last output said (tests, errors, coverage).
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`
}

// Defects counts distinct failures (by fingerprint) found per layer and those resolved.
type Defects struct {
	Found    map[string]int `json:"found_by_layer"`
	Resolved map[string]int `json:"resolved_by_layer"`
}

// ReworkEvent is an iteration that sent the agent back to a layer.
type ReworkEvent struct {
	Iteration int    `json:"iteration"`
	Layer     string `json:"layer"`
	Reason    string `json:"reason"`
}

// Step is one iteration in the timeline.
type Step struct {
	Iteration int               `json:"iteration"`
	Kind      string            `json:"kind"`
	Decision  string            `json:"decision,omitempty"`
	Changed   bool              `json:"changed"`
	Gates     map[string]string `json:"gates,omitempty"`
}

// BuildReport assembles the report from the configuration, the final state and every
// iteration record, oldest first.
func BuildReport(cfg *Config, st *State, iters []Iteration) Report {
	r := Report{Loop: st.Name, Status: st.Status, Reason: st.Reason, Task: strings.TrimSpace(cfg.Prompt), Spec: cfg.Spec, Shape: cfg.Shape,
		Execution: Execution{StartedAt: st.StartedAt, EndedAt: st.UpdatedAt, Seconds: st.UpdatedAt.Sub(st.StartedAt).Seconds(),
			Iterations: st.Iteration, MaxIterations: st.MaxIterations},
		Defects: Defects{Found: map[string]int{}, Resolved: map[string]int{}}, Rework: []ReworkEvent{}, Timeline: []Step{}}
	layers := make([]LayerReport, len(cfg.Gates))
	for i, g := range cfg.Gates {
		layers[i] = LayerReport{Layer: i + 1, Gate: g.Name, Final: "not run"}
	}
	seen := map[string]bool{}
	for _, it := range iters {
		step := Step{Iteration: it.Number, Kind: it.Kind, Decision: it.Decision, Changed: it.Changed}
		for _, g := range it.Gates {
			if step.Gates == nil {
				step.Gates = map[string]string{}
			}
			step.Gates[g.Name] = g.Status
			if g.Layer >= 1 && g.Layer <= len(layers) {
				l := &layers[g.Layer-1]
				l.Attempts++
				l.Final = g.Status
				l.Diagnostics = g.Diagnostics
				if g.Failed() {
					l.Failures++
					if key := g.Name + g.Fingerprint; !seen[key] {
						seen[key] = true
						r.Defects.Found[g.Name]++
					}
				}
			}
		}
		if it.Decision == DecideContinue && it.Layer != "" {
			r.Rework = append(r.Rework, ReworkEvent{Iteration: it.Number, Layer: it.Layer, Reason: it.Reason})
		}
		r.Timeline = append(r.Timeline, step)
	}
	for _, l := range layers {
		if l.Final == GatePass && r.Defects.Found[l.Gate] > 0 {
			r.Defects.Resolved[l.Gate] = r.Defects.Found[l.Gate]
		}
	}
	r.Layers = layers
	r.Release = release(cfg, st, layers)
	return r
}

func release(cfg *Config, st *State, layers []LayerReport) string {
	if st.Status != StatusCompleted {
		return Research
	}
	for _, l := range layers {
		if l.Final != GatePass {
			return Monitor
		}
	}
	for _, c := range cfg.Criteria {
		if c.Verify == VerifyAssumption {
			return Monitor
		}
	}
	return Ship
}

// YAML renders the report as YAML, with the same field names as its JSON form (it goes
// through JSON first, so times and numbers read the same in both).
func (r Report) YAML() []byte {
	var v map[string]any
	data, _ := json.Marshal(r)
	json.Unmarshal(data, &v)
	out, err := yaml.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("error: %q\n", err.Error()))
	}
	return out
}

// Markdown renders the summary a reviewer reads first.
func (r Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Loop %s: %s\n\n", r.Loop, r.Release)
	fmt.Fprintf(&b, "| | |\n|---|---|\n| status | %s |\n| reason | %s |\n| iterations | %d of %d |\n| duration | %s |\n\n",
		r.Status, mdCell(r.Reason), r.Execution.Iterations, r.Execution.MaxIterations, time.Duration(r.Execution.Seconds*float64(time.Second)).Round(time.Second))
	fmt.Fprintf(&b, "**Task:** %s\n\n", mdCell(firstLine(r.Task)))
	if r.Spec != nil {
		fmt.Fprintf(&b, "**Spec:** %s; ran as %s\n\n", r.Spec.Summary(), orDefaultString(r.Shape, ShapeTool))
	}
	if len(r.Layers) > 0 {
		b.WriteString("| layer | gate | final | attempts | failures | defects found | resolved |\n|---|---|---|---|---|---|---|\n")
		for _, l := range r.Layers {
			fmt.Fprintf(&b, "| %d | %s | %s | %d | %d | %d | %d |\n", l.Layer, l.Gate, l.Final, l.Attempts, l.Failures, r.Defects.Found[l.Gate], r.Defects.Resolved[l.Gate])
		}
		b.WriteString("\n")
	}
	b.WriteString(layerSummaries(r.Layers))
	if len(r.Rework) > 0 {
		b.WriteString("Rework:\n")
		for _, e := range r.Rework {
			fmt.Fprintf(&b, "- iteration %d: back to %s (%s)\n", e.Iteration, e.Layer, e.Reason)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "**Verdict: %s** — %s\n", r.Release, verdictText(r.Release))
	return b.String()
}

func verdictText(release string) string {
	switch release {
	case Ship:
		return "every gate passes and nothing rests on an assumption."
	case Monitor:
		return "completed, but some gates were skipped or a criterion is only assumed."
	}
	return "the loop did not complete; a person should look before shipping."
}

func mdCell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// iterations reads every iteration record in state commit tree root, oldest first.
func (s *Store) iterations(root gitstore.Hash) ([]Iteration, error) {
	dir, err := s.Repo.LookupPath(root, iterationsDir)
	if err != nil {
		return nil, nil // a loop with no records yet
	}
	shards, err := s.Repo.ReadTree(dir)
	if err != nil {
		return nil, err
	}
	var out []Iteration
	for _, sh := range shards {
		files, err := s.Repo.ReadTree(sh.Hash)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			data, err := s.Repo.ReadTyped(gitstore.BlobObject, f.Hash)
			if err != nil {
				return nil, err
			}
			var it Iteration
			if err := json.Unmarshal(data, &it); err != nil {
				return nil, fmt.Errorf("%w: %s/%s/%s: %v", ErrCorrupt, iterationsDir, sh.Name, f.Name, err)
			}
			out = append(out, it)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

// reportFiles builds report.yaml and report.md for state next of loop cfg, from the records
// in state commit tip plus rec (the iteration being recorded, or nil).
func (s *Store) reportFiles(cfg *Config, next *State, tip gitstore.Hash, rec *Iteration) (map[string][]byte, error) {
	c, err := s.Repo.ReadCommit(tip)
	if err != nil {
		return nil, err
	}
	iters, err := s.iterations(c.Tree)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		iters = append(iters, *rec)
	}
	r := BuildReport(cfg, next, iters)
	return map[string][]byte{"report.yaml": r.YAML(), "report.md": []byte(r.Markdown())}, nil
}
