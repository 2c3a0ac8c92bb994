package loop

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop/gates"
)

// progressRun generates one loop's iterations: every snapshot tree is new, and each failure
// differs from the one before (older failures may come back, and the failing layer moves
// between gates, so rework happens). Messages never complete the loop.
type progressRun struct {
	rng   *rand.Rand
	cfg   *Config
	fails []string // fingerprints to draw from
}

func newProgressRun(rng *rand.Rand) progressRun {
	cfg := testConfig(func(c *Config) {
		c.MaxIterations = 1 + rng.Intn(40)
		switch rng.Intn(3) {
		case 0: // promise only, as most Ralph loops run
			c.Gates, c.Exit = nil, exitPromise
		case 1: // nothing but the limit
			c.Gates, c.Promises, c.Exit = nil, nil, ExitLimit
		}
	})
	return progressRun{rng: rng, cfg: cfg, fails: []string{"a", "b", "c"}}
}

// observation is iteration i's: tree t<i>, gates failing with a fingerprint unlike prev's.
func (p progressRun) observation(i int, prev string) (Observation, string) {
	msgs := []string{"", "working on it", "```\n<promise>DONE</promise>\n```", "<promise>NOT IT</promise>"}
	o := obs(fmt.Sprintf("t%d", i), msgs[p.rng.Intn(len(msgs))], nil)
	if len(p.cfg.Gates) == 0 {
		return o, ""
	}
	fp := prev
	for fp == prev {
		fp = p.fails[p.rng.Intn(len(p.fails))]
	}
	g := gateResults(gates.StatusPass, gates.StatusPass)
	k := p.rng.Intn(len(g)) // the failing layer moves between build and test
	g[k].Status, g[k].Fingerprint = gates.StatusFail, fp
	if k == 0 && p.rng.Intn(2) == 0 {
		g[1].Status, g[1].Fingerprint = gates.StatusFail, fp+"-test"
	}
	if p.rng.Intn(3) == 0 { // a false claim: the promise while a gate fails
		o.Message = done
	}
	o.Gates = g
	return o, fp
}

// TestBreakersRespectProgress is the breakers' promise, checked over generated loops: a
// loop whose snapshot tree changes every iteration and whose failing output changes is never
// paused by a breaker; it runs to its iteration limit and pauses there, naming the resume
// that raises it.
func TestBreakersRespectProgress(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	for run := 0; run < 2000; run++ {
		p := newProgressRun(rng)
		st := testState(func(s *State) { s.MaxIterations = p.cfg.MaxIterations })
		prev := ""
		for i := 1; i <= p.cfg.MaxIterations; i++ {
			o, fp := p.observation(i, prev)
			prev = fp
			v := decide(p.cfg, st, o)
			if i < p.cfg.MaxIterations {
				if v.Decision != DecideContinue {
					t.Fatalf("run %d (%s, limit %d): iteration %d: %s (%s); a moving loop must run to its limit", run, p.cfg.Exit, p.cfg.MaxIterations, i, v.Decision, v.Reason)
				}
				next := v.State
				st = &next
				continue
			}
			if v.Decision != DecidePause || !strings.Contains(v.Reason, "--max-iterations") {
				t.Fatalf("run %d: at its limit %d: %s (%s); want a pause naming the resume that raises it", run, i, v.Decision, v.Reason)
			}
		}
	}
}

// TestBreakersStopWhatIsNotMoving is the other side: a loop whose tree never changes, or
// whose failure repeats exactly, is paused well before a long limit.
func TestBreakersStopWhatIsNotMoving(t *testing.T) {
	tests := []struct {
		name   string
		cfg    func(*Config)
		obs    func(i int) Observation
		within int
		reason string
	}{
		{"an unchanged tree", nil, func(i int) Observation {
			o := obs("tree0", "", gateResults(gates.StatusPass, gates.StatusFail))
			o.Gates[1].Fingerprint = fmt.Sprint(i)
			return o
		}, defaultNoProgress, "no progress"},
		{"an unchanged tree, promise only", func(c *Config) { c.Gates, c.Exit = nil, exitPromise }, func(int) Observation { return obs("tree0", "", nil) }, defaultNoProgress, "no progress"},
		{"an unchanged tree, no exit condition", func(c *Config) { c.Gates, c.Promises, c.Exit = nil, nil, ExitLimit }, func(int) Observation { return obs("tree0", "", nil) }, defaultNoProgress, "no progress"},
		{"the same failure in new trees", nil, func(i int) Observation {
			return obs(fmt.Sprintf("t%d", i), "", gateResults(gates.StatusPass, gates.StatusFail))
		}, defaultSameError, "same failure"},
		{"two trees in turn", nil, func(i int) Observation {
			o := obs(fmt.Sprintf("t%d", i%2), "", gateResults(gates.StatusPass, gates.StatusFail))
			o.Gates[1].Fingerprint = fmt.Sprint(i)
			return o
		}, 4, "thrashing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(func(c *Config) {
				c.MaxIterations = 100
				if tt.cfg != nil {
					tt.cfg(c)
				}
			})
			st := testState(func(s *State) { s.MaxIterations = 100 })
			for i := 1; i <= tt.within; i++ {
				v := decide(cfg, st, tt.obs(i))
				if v.Decision == DecidePause {
					if !strings.Contains(v.Reason, tt.reason) {
						t.Fatalf("paused at %d for %q, want %q", i, v.Reason, tt.reason)
					}
					return
				}
				next := v.State
				st = &next
			}
			t.Fatalf("not paused within %d iterations", tt.within)
		})
	}
}

// TestBlockCap: an agent that stops honouring blocks past its cap would leave the loop
// active with nobody working on it, so the stop that would get the block past the cap
// pauses the loop instead. A tool run (for Claude Code) or a new prompt starts the count
// again; a tree that changed stands for a tool run when the transcript cannot say.
func TestBlockCap(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name  string
		stops []BlockCap // each stop's cap as the hook sees it
		trees []string
		pause int // the stop that pauses (1-based), 0 for none
	}{
		{"no tool in between: the third block is past a cap of 2",
			[]BlockCap{{Limit: 2}, {Limit: 2, Continued: true, Acted: &no}, {Limit: 2, Continued: true, Acted: &no}}, []string{"tree0", "tree0", "tree0"}, 3},
		{"a tool run resets the count",
			[]BlockCap{{Limit: 2}, {Limit: 2, Continued: true, Acted: &no}, {Limit: 2, Continued: true, Acted: &yes}, {Limit: 2, Continued: true, Acted: &no}}, []string{"tree0", "tree0", "tree0", "tree0"}, 0},
		{"a new prompt resets the count",
			[]BlockCap{{Limit: 2}, {Limit: 2, Continued: true, Acted: &no}, {Limit: 2}, {Limit: 2, Continued: true, Acted: &no}}, []string{"tree0", "tree0", "tree0", "tree0"}, 0},
		{"unknown: a changed tree stands for a tool run",
			[]BlockCap{{Limit: 2}, {Limit: 2, Continued: true}, {Limit: 2, Continued: true}}, []string{"t1", "t2", "t3"}, 0},
		{"unknown: an unchanged tree does not",
			[]BlockCap{{Limit: 2}, {Limit: 2, Continued: true}, {Limit: 2, Continued: true}}, []string{"t1", "t1", "t1"}, 3},
		{"no cap", []BlockCap{{}, {Continued: true}, {Continued: true}}, []string{"tree0", "tree0", "tree0"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(func(c *Config) { c.Limits.NoProgress, c.Limits.Stuck, c.Limits.SameError = 100, 100, 100 })
			st := testState(nil)
			for i, c := range tt.stops {
				c.Agent = "Claude Code"
				o := obs(tt.trees[i], "", gateResults(gates.StatusPass, gates.StatusFail))
				o.Cap = c
				v := decide(cfg, st, o)
				if tt.pause == i+1 {
					if v.Decision != DecidePause || !strings.Contains(v.Reason, "Claude Code stops honouring a stop hook after 2 blocks in a row") {
						t.Fatalf("stop %d: %s (%s); want a pause naming the cap", i+1, v.Decision, v.Reason)
					}
					return
				}
				if v.Decision != DecideContinue {
					t.Fatalf("stop %d: %s (%s); want continue", i+1, v.Decision, v.Reason)
				}
				next := v.State
				st = &next
			}
			if tt.pause != 0 {
				t.Fatalf("never paused; want a pause at stop %d", tt.pause)
			}
		})
	}
}
