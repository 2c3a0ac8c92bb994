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
	Rework          map[string]int `json:"rework,omitempty"`
}

// TreeAt is the snapshot tree of one iteration.
type TreeAt struct {
	Iteration int    `json:"iteration"`
	Tree      string `json:"tree"`
}

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

// observe records an iteration that did not complete and returns why a breaker trips, or "".
// prevTree is the previous iteration's tree.
func (b *Breakers) observe(cfg *Config, prevTree string, iter int, obs Observation, unmet []string, failing []GateResult, layer string) string {
	var reasons []string
	key := strings.Join(sortedCopy(unmet), ", ")
	b.SameUnmet = countSame(b.LastUnmet == key, b.SameUnmet)
	b.LastUnmet = key
	if b.SameUnmet >= cfg.Limits.stuck() {
		reasons = append(reasons, fmt.Sprintf("stuck: the same unmet set (%s) %d times in a row", key, b.SameUnmet))
	}
	fp := fingerprintOf(failing)
	if fp == "" {
		b.SameFingerprint, b.LastFingerprint = 0, ""
	} else {
		b.SameFingerprint = countSame(b.LastFingerprint == fp, b.SameFingerprint)
		b.LastFingerprint = fp
		if b.SameFingerprint >= cfg.Limits.sameError() {
			reasons = append(reasons, fmt.Sprintf("the same failure in %s %d times in a row", failing[0].Name, b.SameFingerprint))
		}
	}
	if obs.Tree == prevTree {
		b.Unchanged++
		if b.Unchanged >= cfg.Limits.noProgress() {
			reasons = append(reasons, fmt.Sprintf("no progress: the worktree has not changed for %d iterations", b.Unchanged))
		}
	} else {
		b.Unchanged = 0
		for _, t := range b.Trees {
			if t.Tree == obs.Tree {
				reasons = append(reasons, fmt.Sprintf("thrashing: the worktree went back to iteration %d's", t.Iteration))
				break
			}
		}
	}
	b.remember(prevTree, iter-1)
	if layer != "" {
		if b.Rework == nil {
			b.Rework = map[string]int{}
		}
		b.Rework[layer]++
		if b.Rework[layer] > cfg.Limits.rework() {
			reasons = append(reasons, fmt.Sprintf("layer %s sent back %d times: escalating for a person", layer, b.Rework[layer]))
		}
	}
	if len(reasons) == 0 {
		return ""
	}
	return reasons[0]
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
