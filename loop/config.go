package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-loop/git-loop/gitstore"
	"github.com/git-loop/git-loop/loop/gates"
	"github.com/git-loop/git-loop/loop/spec"
)

// Exit policies: which signals complete a loop.
const (
	exitBoth    = "both"
	exitGates   = "gates"
	exitPromise = "promise"
	exitEither  = "either"
	// ExitLimit is the policy of a loop with no promise, no marker and no gate: nothing
	// completes it, it runs to its iteration limit, as the original Ralph loop does.
	ExitLimit = "limit"
)

// DefaultMaxIterations is used when no configuration sets a limit.
const DefaultMaxIterations = 10

// MaxIterationsCap is the highest iteration limit: more is no limit in all but name (weeks of
// agent runs), and would slip past the rule that a loop without a limit says --unlimited.
const MaxIterationsCap = 100_000

// checkIterationCap refuses a limit above MaxIterationsCap, naming --unlimited.
func checkIterationCap(n int) error {
	if n > MaxIterationsCap {
		return fmt.Errorf("%w: --max-iterations %d is no limit in all but name (at most %d); give a real limit, or --unlimited for a loop that only its promise or gates end", ErrConfig, n, MaxIterationsCap)
	}
	return nil
}

// Config is a loop's goal and configuration, fixed at start and stored as loop.json.
type Config struct {
	Name          string       `json:"name"`
	Prompt        string       `json:"prompt"`
	Promises      []string     `json:"promises"`
	Gates         []gates.Gate `json:"gates"`
	Exit          string       `json:"exit"`
	MaxIterations int          `json:"max_iterations"`
	Unlimited     bool         `json:"unlimited,omitempty"`
	Base          string       `json:"base,omitempty"` // HEAD commit when the loop started
	Branch        string       `json:"branch,omitempty"`
	Worktree      string       `json:"worktree"`
	StartedAt     time.Time    `json:"started_at"`
	// Spec is the score of the loop's spec (its prompt, with its gates and promises as
	// evidence); Shape is how the loop runs: tool, or colleague (pausing at checkpoints).
	// Loops recorded before shaping have neither and run as tools.
	Spec  *spec.SpecScore `json:"spec,omitempty"`
	Shape string          `json:"shape,omitempty"`
	// Judges are the loop's evaluator gates, judged in order after its command gates, by
	// Evaluator (set whenever Judges is).
	Judges    []Judge    `json:"judges,omitempty"`
	Evaluator *Evaluator `json:"evaluator,omitempty"`
	Policy
}

// Settings are what configuration files and flags may set for a new loop. Zero values mean
// "not set here".
type Settings struct {
	Prompt        string
	Promises      []string
	Gates         []gates.Gate
	Exit          string
	MaxIterations *int
	Unlimited     bool
	Shape         string // auto (run as the spec scores), tool or colleague
	Policy        Policy // from configuration files and imported state files
	Judges        []string
	Evaluator     Evaluator // its zero fields are not set here
	// Goal: the first judge is `git loop goal`'s CONDITION, so a missing evaluator is said
	// in the words the person typed (goal, not --judge).
	Goal bool
}

// ErrConfig marks invalid configuration or flags.
var ErrConfig = errors.New("invalid configuration")

// loadSettings reads personal defaults from git config (loop.*) and then the worktree's
// committed .gitloop, which wins. Flags are applied on top by the caller with Override.
func loadSettings(r *gitstore.Repo) (Settings, error) {
	var s Settings
	if err := s.Apply(r.Config, "git config"); err != nil {
		return s, err
	}
	path := filepath.Join(r.WorkTree, ".gitloop")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read .gitloop: %w", err)
	}
	file, err := gitstore.ParseConfig(path, data)
	if err != nil {
		return s, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if err := CheckKnownKeys(file); err != nil {
		return s, err
	}
	return s, s.Apply(file, ".gitloop")
}

// Apply merges the [loop] and [gate "…"] sections of c into s.
func (s *Settings) Apply(c *gitstore.Config, where string) error {
	if v := c.Get("loop", "", "prompt"); v != "" {
		s.Prompt = v
	}
	if v := c.All("loop", "", "promise"); len(v) > 0 {
		s.Promises = v
	}
	if v := c.Get("loop", "", "exit"); v != "" {
		s.Exit = v
	}
	if c.Has("loop", "", "maxiterations") {
		n, err := gitstore.ParseInt(c.Get("loop", "", "maxiterations"))
		if err != nil || n < 0 {
			return fmt.Errorf("%w: loop.maxIterations in %s: want a number ≥ 0, got %q", ErrConfig, where, c.Get("loop", "", "maxiterations"))
		}
		m := int(n)
		s.MaxIterations = &m
	}
	if c.Has("loop", "", "unlimited") {
		s.Unlimited = c.Bool("loop", "", "unlimited", false)
	}
	if v := c.Get("loop", "", "shape"); v != "" {
		s.Shape = v
	}
	var gs []gates.Gate
	for _, name := range c.Subsections("gate") {
		run := c.Get("gate", name, "run")
		if run == "" {
			return fmt.Errorf("%w: gate %q in %s has no run command; add `run = <command>`", ErrConfig, name, where)
		}
		gs = append(gs, gates.Gate{Name: name, Run: run, Timeout: c.Get("gate", name, "timeout"),
			Require: c.All("gate", name, "require"), Coverage: c.Get("gate", name, "coverage"),
			ExitCodes: c.Get("gate", name, "exitcodes")})
	}
	if len(gs) > 0 {
		s.Gates = gs
	}
	if err := s.applyJudges(c, where); err != nil {
		return err
	}
	return s.Policy.apply(c, where)
}

// knownKeys are the keys .gitloop may set, per section.
var knownKeys = map[string][]string{
	"loop": {"prompt", "promise", "exit", "maxiterations", "unlimited", "marker", "maxduration", "tokenbudget",
		"irreversible", "mustnot", "stucklimit", "sameerrorlimit", "noprogresslimit", "reworklimit", "shape",
		"judge", "evaluator", "evaluatortimeout", "evaluatorbudget", "evaluatorcostbudget", "testedits"},
	"gate":      {"run", "timeout", "require", "coverage", "exitcodes"},
	"criterion": {"verify", "gate"},
	"route":     {"layer"},
}

// CheckKnownKeys refuses misspelled or unknown keys in a committed .gitloop, which would
// otherwise be ignored silently (a typo in maxIterations would leave the default limit).
func CheckKnownKeys(c *gitstore.Config) error {
	for _, k := range c.Keys() {
		known, ok := knownKeys[k.Section]
		if !ok {
			return fmt.Errorf("%w: .gitloop has an unknown section [%s]; known: [loop], [gate \"NAME\"]", ErrConfig, k.Section)
		}
		if !slices.Contains(known, k.Key) {
			return fmt.Errorf("%w: .gitloop sets unknown key %s.%s; known keys: %s", ErrConfig, k.Section, k.Key, strings.Join(known, ", "))
		}
	}
	return nil
}

// Override applies flag values (non-zero fields of o) over s.
func (s *Settings) Override(o Settings) {
	if strings.TrimSpace(o.Prompt) != "" { // a blank prompt (an empty /loop) keeps the configured one
		s.Prompt = o.Prompt
	}
	if len(o.Promises) > 0 {
		s.Promises = o.Promises
	}
	if len(o.Gates) > 0 {
		s.Gates = o.Gates
	}
	if o.Exit != "" {
		s.Exit = o.Exit
	}
	if o.MaxIterations != nil {
		s.MaxIterations = o.MaxIterations
	}
	if o.Unlimited {
		s.Unlimited = true
	}
	if o.Shape != "" {
		s.Shape = o.Shape
	}
	if len(o.Judges) > 0 {
		s.Judges, s.Goal = o.Judges, o.Goal
	}
	s.Evaluator.override(o.Evaluator)
	s.Policy.override(o.Policy)
}

// ParseGateFlag parses --gate NAME=CMD.
func ParseGateFlag(v string) (gates.Gate, error) {
	name, run, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(run) == "" {
		return gates.Gate{}, fmt.Errorf("%w: --gate %q: want NAME=COMMAND, e.g. --gate 'test=go test ./...'", ErrConfig, v)
	}
	return gates.Gate{Name: name, Run: run}, nil
}

// resolve validates settings and fills defaults for a new loop's Config.
func (s Settings) resolve() (Config, error) {
	c := Config{Prompt: s.Prompt, Promises: s.Promises, Gates: s.Gates, Exit: s.Exit, Unlimited: s.Unlimited, Policy: s.Policy}
	if c.Promises == nil {
		c.Promises = []string{}
	}
	if c.Gates == nil {
		c.Gates = []gates.Gate{}
	}
	if err := checkGates(c.Gates); err != nil {
		return c, err
	}
	if err := c.Policy.checkAgainst(c.Gates); err != nil {
		return c, err
	}
	if err := c.setJudges(s.Judges, s.Evaluator, s.Goal); err != nil {
		return c, err
	}
	c.MaxIterations = DefaultMaxIterations
	if s.MaxIterations != nil {
		c.MaxIterations = *s.MaxIterations
	}
	if c.MaxIterations == 0 && !c.Unlimited {
		if c.boundedOnly() {
			return c, fmt.Errorf("%w: --max-iterations 0 means no limit, but a loop with no promise and no gate ends only at its limit: give a limit of 1 or more, or a promise or gate to end it", ErrConfig)
		}
		return c, fmt.Errorf("%w: a max of 0 iterations means no limit; confirm with --unlimited (or loop.unlimited = true)", ErrConfig)
	}
	if c.Unlimited {
		c.MaxIterations = 0
	}
	if c.MaxIterations < 0 {
		return c, fmt.Errorf("%w: --max-iterations %d: want a number ≥ 1", ErrConfig, c.MaxIterations)
	}
	if err := checkIterationCap(c.MaxIterations); err != nil {
		return c, err
	}
	exit, err := resolveExit(c.Exit, len(c.Promises) > 0, c.hasChecks())
	if err != nil {
		return c, err
	}
	c.Exit = exit
	if s.Exit == "" && c.boundedOnly() {
		c.Exit = ExitLimit
	}
	return c, c.checkCompletable()
}

// boundedOnly reports whether nothing but its iteration limit can end the loop: it has no
// promise, no completion marker and no gate.
func (c *Config) boundedOnly() bool {
	return len(c.Promises) == 0 && !c.hasChecks() && len(c.Markers) == 0
}

// hasChecks reports whether the loop has a gate: a command gate or an evaluator gate.
func (c *Config) hasChecks() bool { return len(c.Gates) > 0 || len(c.Judges) > 0 }

// checkCompletable refuses a loop that has no task or could never end: a loop that nothing
// completes is legal when its iteration limit bounds it.
func (c *Config) checkCompletable() error {
	if strings.TrimSpace(c.Prompt) == "" {
		return fmt.Errorf("%w: a loop needs a task: pass -p PROMPT or --prompt-file FILE (or set loop.prompt in .gitloop)", ErrConfig)
	}
	for _, p := range c.Promises {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("%w: --promise is empty; give the phrase the agent must write, e.g. --promise 'ALL TESTS PASS'", ErrConfig)
		}
		if err := checkPromise(p); err != nil {
			return err
		}
	}
	if c.Exit == ExitLimit && c.MaxIterations == 0 {
		if c.boundedOnly() {
			return fmt.Errorf("%w: a loop with no promise and no gate only ends at its iteration limit, so it cannot be --unlimited: give --max-iterations N, or a way to complete (--promise PHRASE, --gate NAME=CMD)", ErrConfig)
		}
		return fmt.Errorf("%w: exit policy limit ends the loop at its iteration limit only, so it cannot be --unlimited: give --max-iterations N", ErrConfig)
	}
	if c.Exit == exitPromise && len(c.Promises) == 0 && len(c.Markers) == 0 {
		return fmt.Errorf("%w: exit policy promise needs a promise; add --promise PHRASE or choose --exit gates", ErrConfig)
	}
	return nil
}

func checkGates(gs []gates.Gate) error {
	seen := map[string]bool{}
	for _, g := range gs {
		if seen[g.Name] {
			return fmt.Errorf("%w: gate %q is defined twice; give each gate its own name", ErrConfig, g.Name)
		}
		seen[g.Name] = true
		if err := g.Check(); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// resolveExit picks the default policy (both when a promise and gates exist) and checks that
// the chosen policy can ever be met.
func resolveExit(exit string, hasPromise, hasGates bool) (string, error) {
	if exit == "" {
		switch {
		case hasPromise && hasGates:
			return exitBoth, nil
		case hasGates:
			return exitGates, nil
		default:
			return exitPromise, nil
		}
	}
	switch exit {
	case exitBoth, exitEither:
		if !hasPromise || !hasGates {
			return "", fmt.Errorf("%w: exit policy %q needs a promise and a gate; add --promise and --gate, or choose gates or promise", ErrConfig, exit)
		}
	case exitGates:
		if !hasGates {
			return "", fmt.Errorf("%w: exit policy gates needs at least one gate; add --gate NAME=CMD", ErrConfig)
		}
	case exitPromise, ExitLimit:
	default:
		return "", fmt.Errorf("%w: unknown exit policy %q; use both, gates, promise, either or limit", ErrConfig, exit)
	}
	return exit, nil
}

// FormatIteration renders "i of N" (or "i" when unlimited).
func FormatIteration(i, max int) string {
	if max == 0 {
		return strconv.Itoa(i)
	}
	return fmt.Sprintf("%d of %d", i, max)
}
