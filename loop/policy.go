package loop

import (
	"fmt"
	"path"
	"regexp"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
)

// Policy is how a loop judges iterations beyond its gates and promises: extra completion
// markers, criteria, routing of failures to layers, hard limits and circuit-breaker
// thresholds. It is part of loop.json (its fields appear at the top level there).
type Policy struct {
	Markers      []string    `json:"markers,omitempty"`
	Criteria     []Criterion `json:"criteria,omitempty"`
	Routes       []Route     `json:"routes,omitempty"`
	MaxDuration  string      `json:"max_duration,omitempty"` // wall clock, e.g. "2h"
	TokenBudget  int64       `json:"token_budget,omitempty"` // total tokens from the transcript
	Irreversible []string    `json:"irreversible,omitempty"` // path globs an iteration must not touch
	MustNot      []string    `json:"must_not,omitempty"`     // command fragments the agent must not run
	// TestEdits says whether an iteration may weaken the checks that existed at start
	// (TestEditsRefuse, the default, or TestEditsAllow).
	TestEdits string `json:"test_edits,omitempty"`
	Limits    Limits `json:"limits"`
}

// Limits are circuit-breaker thresholds; zero means the default.
type Limits struct {
	Stuck      int `json:"stuck,omitempty"`       // same unmet set this many times (default 5)
	SameError  int `json:"same_error,omitempty"`  // same failure fingerprint (default 3)
	NoProgress int `json:"no_progress,omitempty"` // tree unchanged this many iterations (default 3)
	Rework     int `json:"rework,omitempty"`      // one layer sent back to more than this (default 3)
}

// Default circuit-breaker thresholds.
const (
	defaultStuck      = 5
	defaultSameError  = 3
	defaultNoProgress = 3
	defaultRework     = 3
)

func (l Limits) stuck() int      { return orDefault(l.Stuck, defaultStuck) }
func (l Limits) sameError() int  { return orDefault(l.SameError, defaultSameError) }
func (l Limits) noProgress() int { return orDefault(l.NoProgress, defaultNoProgress) }
func (l Limits) rework() int     { return orDefault(l.Rework, defaultRework) }

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// Verification kinds of a criterion.
const (
	verifyExecution   = "execution"   // a gate proves it
	VerifyObservation = "observation" // the agent's status block reports it
	VerifyAssumption  = "assumption"  // only assumed: can never complete a loop
)

// Criterion is a named success condition and how it is verified.
type Criterion struct {
	Name   string `json:"name"`
	Verify string `json:"verify"`
	Gate   string `json:"gate,omitempty"` // for execution: the gate that proves it
}

// Route sends a failure whose gate output matches Pattern (a regular expression) to the
// layer of gate Layer for rework.
type Route struct {
	Pattern string `json:"pattern"`
	Layer   string `json:"layer"`
}

// applyPolicy reads the policy keys of [loop], [criterion "…"] and [route "…"].
func (p *Policy) apply(c *gitstore.Config, where string) error {
	if v := c.All("loop", "", "marker"); len(v) > 0 {
		p.Markers = v
	}
	if v := c.Get("loop", "", "maxduration"); v != "" {
		if _, err := time.ParseDuration(v); err != nil {
			return fmt.Errorf("%w: loop.maxDuration %q in %s: want a duration such as 2h", ErrConfig, v, where)
		}
		p.MaxDuration = v
	}
	if c.Has("loop", "", "tokenbudget") {
		n, err := gitstore.ParseInt(c.Get("loop", "", "tokenbudget"))
		if err != nil || n < 0 {
			return fmt.Errorf("%w: loop.tokenBudget in %s: want a number of tokens such as 2m", ErrConfig, where)
		}
		p.TokenBudget = n
	}
	if v := c.All("loop", "", "irreversible"); len(v) > 0 {
		for _, g := range v {
			if _, err := path.Match(g, ""); err != nil {
				return fmt.Errorf("%w: loop.irreversible %q in %s: bad glob", ErrConfig, g, where)
			}
		}
		p.Irreversible = v
	}
	if v := c.All("loop", "", "mustnot"); len(v) > 0 {
		p.MustNot = v
	}
	if v := c.Get("loop", "", "testedits"); v != "" {
		if v != TestEditsRefuse && v != TestEditsAllow && v != TestEditsJudge {
			return fmt.Errorf("%w: loop.testEdits %q in %s: want refuse (the default: a weakened check keeps the loop from completing), judge (the evaluator decides) or allow", ErrConfig, v, where)
		}
		p.TestEdits = v
	}
	for key, dst := range map[string]*int{"stucklimit": &p.Limits.Stuck, "sameerrorlimit": &p.Limits.SameError,
		"noprogresslimit": &p.Limits.NoProgress, "reworklimit": &p.Limits.Rework} {
		if c.Has("loop", "", key) {
			n, err := gitstore.ParseInt(c.Get("loop", "", key))
			if err != nil || n < 1 {
				return fmt.Errorf("%w: loop.%s in %s: want a number ≥ 1", ErrConfig, key, where)
			}
			*dst = int(n)
		}
	}
	return p.applySections(c, where)
}

func (p *Policy) applySections(c *gitstore.Config, where string) error {
	for _, name := range c.Subsections("criterion") {
		cr := Criterion{Name: name, Verify: c.Get("criterion", name, "verify"), Gate: c.Get("criterion", name, "gate")}
		switch cr.Verify {
		case verifyExecution:
			if cr.Gate == "" {
				return fmt.Errorf("%w: criterion %q in %s is verified by execution but names no gate; add `gate = NAME`", ErrConfig, name, where)
			}
		case VerifyObservation, VerifyAssumption:
		default:
			return fmt.Errorf("%w: criterion %q in %s: verify must be execution, observation or assumption", ErrConfig, name, where)
		}
		p.Criteria = append(p.Criteria, cr)
	}
	for _, pattern := range c.Subsections("route") {
		if _, err := regexp.Compile(pattern); err != nil {
			return fmt.Errorf("%w: route %q in %s is not a regular expression: %v", ErrConfig, pattern, where, err)
		}
		p.Routes = append(p.Routes, Route{Pattern: pattern, Layer: c.Get("route", pattern, "layer")})
	}
	return nil
}

// checkAgainst verifies references to gates (criteria and routes) exist.
func (p *Policy) checkAgainst(gs []gates.Gate) error {
	has := map[string]bool{}
	for _, g := range gs {
		has[g.Name] = true
	}
	for _, c := range p.Criteria {
		if c.Verify == verifyExecution && !has[c.Gate] {
			return fmt.Errorf("%w: criterion %q names gate %q, which is not configured", ErrConfig, c.Name, c.Gate)
		}
	}
	for _, r := range p.Routes {
		if !has[r.Layer] {
			return fmt.Errorf("%w: route %q sends failures to layer %q, which is not a gate", ErrConfig, r.Pattern, r.Layer)
		}
	}
	return nil
}

// override applies the non-zero fields of o over p (an imported loop's markers, criteria,
// limits and duration over the configured ones).
func (p *Policy) override(o Policy) {
	if len(o.Markers) > 0 {
		p.Markers = o.Markers
	}
	if len(o.Criteria) > 0 {
		p.Criteria = o.Criteria
	}
	if len(o.Routes) > 0 {
		p.Routes = o.Routes
	}
	if o.MaxDuration != "" {
		p.MaxDuration = o.MaxDuration
	}
	if o.TokenBudget > 0 {
		p.TokenBudget = o.TokenBudget
	}
	if len(o.Irreversible) > 0 {
		p.Irreversible = o.Irreversible
	}
	if len(o.MustNot) > 0 {
		p.MustNot = o.MustNot
	}
	if o.TestEdits != "" {
		p.TestEdits = o.TestEdits
	}
	for _, l := range []struct{ dst, src *int }{{&p.Limits.Stuck, &o.Limits.Stuck}, {&p.Limits.SameError, &o.Limits.SameError},
		{&p.Limits.NoProgress, &o.Limits.NoProgress}, {&p.Limits.Rework, &o.Limits.Rework}} {
		if *l.src > 0 {
			*l.dst = *l.src
		}
	}
}
