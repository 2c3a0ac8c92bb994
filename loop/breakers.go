package loop

import (
	"fmt"
	"sort"
	"strings"
)

// Breakers is the memory the circuit breakers keep between iterations, in state.json.
type Breakers struct {
	LastUnmet       string         `json:"last_unmet,omitempty"`
	SameUnmet       int            `json:"same_unmet,omitempty"`
	LastFingerprint string         `json:"last_fingerprint,omitempty"`
	SameFingerprint int            `json:"same_fingerprint,omitempty"`
	Unchanged       int            `json:"unchanged,omitempty"`
	Trees           []TreeAt       `json:"trees,omitempty"` // recent snapshot trees, oldest first
	Revisits        int            `json:"revisits,omitempty"`
	LastLayer       string         `json:"last_layer,omitempty"`
	Rework          map[string]int `json:"rework,omitempty"` // returns to each layer after another was worked
}

// TreeAt is the snapshot tree of one iteration.
type TreeAt struct {
	Iteration int    `json:"iteration"`
	Tree      string `json:"tree"`
}

// thrashRevisits is how many iterations in a row must return to an earlier iteration's tree
// for the loop to be thrashing: one return is an agent undoing an experiment, two in a row
// (A, B, A, B) is a loop going round in circles.
const thrashRevisits = 2

// maxTrees bounds the thrashing memory.
const maxTrees = 50

func (b Breakers) clone() Breakers {
	c := b
	c.Trees = append([]TreeAt(nil), b.Trees...)
	c.Rework = make(map[string]int, len(b.Rework))
	for k, v := range b.Rework {
		c.Rework[k] = v
	}
	return c
}

// observe records an iteration that did not complete and returns why a breaker trips, or
// "", and advice for the agent and the person, or "". prevTree is the previous iteration's
// tree. The breakers stop only a loop that is going nowhere: an iteration whose tree is new
// and whose failure differs from the last one resets every count it contradicts, so a loop
// that moves runs to its limit (TestBreakersRespectProgress).
func (b *Breakers) observe(cfg *Config, prevTree string, iter int, obs Observation, unmet []string, failing []GateResult, layer string) (reason, advice string) {
	var reasons []string
	fp := fingerprintOf(failing)
	sameTree := obs.Tree == prevTree
	sameFailure := fp != "" && fp == b.LastFingerprint
	if fp == "" {
		b.SameFingerprint, b.LastFingerprint = 0, ""
	} else {
		b.SameFingerprint = countSame(sameFailure, b.SameFingerprint)
		b.LastFingerprint = fp
		if b.SameFingerprint >= cfg.Limits.sameError() {
			same := fmt.Sprintf("the same failure in %s %d times in a row", failing[0].Name, b.SameFingerprint)
			if what := failureWhat(failing[0]); what != "" {
				same += " (" + what + ")"
			}
			reasons = append(reasons, same)
		}
	}
	key := strings.Join(sortedCopy(unmet), ", ")
	b.SameUnmet = countSame(b.LastUnmet == key && (sameTree || sameFailure), b.SameUnmet)
	b.LastUnmet = key
	if b.SameUnmet >= cfg.Limits.stuck() {
		reasons = append(reasons, fmt.Sprintf("stuck: the same unmet set (%s) %d times in a row with nothing new in the worktree or the failure", key, b.SameUnmet))
	}
	if sameTree {
		b.Unchanged++
		if b.Unchanged >= cfg.Limits.noProgress() {
			reasons = append(reasons, fmt.Sprintf("no progress: the worktree has not changed for %d iterations", b.Unchanged))
		}
	} else {
		b.Unchanged = 0
		if back := b.seen(obs.Tree); back >= 0 {
			b.Revisits++
			if b.Revisits >= thrashRevisits {
				reasons = append(reasons, fmt.Sprintf("thrashing: the worktree went back to iteration %d's, after another return to an earlier tree", back))
			}
		} else {
			b.Revisits = 0
		}
	}
	b.remember(prevTree, iter-1)
	advice = b.rework(cfg, layer)
	if advice != "" && cfg.Limits.Rework > 0 { // a person set the limit: they asked to be called
		reasons = append(reasons, advice+": escalating for a person")
		advice = ""
	}
	if len(reasons) == 0 {
		return "", advice
	}
	return reasons[0], ""
}

// rework counts a return to layer after other work (another layer, or a pass) and says when
// the returns to it exceed the rework limit. Sent back to one layer iteration after
// iteration is work on that layer, not rework.
func (b *Breakers) rework(cfg *Config, layer string) string {
	last := b.LastLayer
	b.LastLayer = layer
	if layer == "" || layer == last {
		return ""
	}
	if b.Rework == nil {
		b.Rework = map[string]int{}
	}
	n, worked := b.Rework[layer]
	if !worked {
		b.Rework[layer] = 0
		return ""
	}
	b.Rework[layer] = n + 1
	if n+1 > cfg.Limits.rework() {
		return fmt.Sprintf("layer %s sent back again after other work, %d times", layer, n+1)
	}
	return ""
}

// seen returns the iteration whose tree was tree, or -1.
func (b *Breakers) seen(tree string) int {
	for _, t := range b.Trees {
		if t.Tree == tree {
			return t.Iteration
		}
	}
	return -1
}

// remember adds the previous iteration's tree to the thrashing memory.
func (b *Breakers) remember(tree string, iter int) {
	if tree == "" {
		return
	}
	for _, t := range b.Trees {
		if t.Tree == tree {
			return
		}
	}
	b.Trees = append(b.Trees, TreeAt{Iteration: iter, Tree: tree})
	if len(b.Trees) > maxTrees {
		b.Trees = b.Trees[len(b.Trees)-maxTrees:]
	}
}

func countSame(same bool, n int) int {
	if same {
		return n + 1
	}
	return 1
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// fingerprintOf identifies the current failure: the failing gates' names and fingerprints.
func fingerprintOf(failing []GateResult) string {
	parts := make([]string, 0, len(failing))
	for _, g := range failing {
		parts = append(parts, g.Name+"="+g.Fingerprint)
	}
	return strings.Join(parts, ";")
}
