package importer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-loop/git-loop/loop"
	"github.com/git-loop/git-loop/loop/gates"
)

// ErrImport marks a state file that `git loop import` cannot read: unknown format, bad YAML
// front matter or JSON, a missing task. Nothing is recorded when it is returned. Such an
// error is also an ErrConfig: bad input, exit code 2.
var ErrImport = errors.New("cannot import")

// importErr is the one-line message for a file that cannot be imported.
type importErr struct{ file, problem, fix string }

func (e *importErr) Error() string {
	return fmt.Sprintf("%v %s: %s; %s", ErrImport, e.file, e.problem, e.fix)
}

// Is makes errors.Is find ErrImport and ErrConfig.
func (e *importErr) Is(target error) bool { return target == ErrImport || target == loop.ErrConfig }

// Import formats, named by the tool that writes the state file.
const (
	formatRalph      = "ralph-loop" // Claude Code ralph-loop plugin: .claude/ralph-loop.local.md
	formatStravinsky = "stravinsky" // Stravinsky continuation loop: .stravinsky/continuation-loop.md
	formatSafeRust   = "safe-rust"  // safe-rust verification loop: .safe-rust/loop-state.json
	formatLoopState  = "loop-state" // moo.md /loop plugin: .loop/state.json
	formatMoAI       = "moai"       // MoAI-ADK Ralph engine: .moai/cache/.moai_loop_state.json
)

// importFormats lists the formats import knows, in the order README documents them.
var importFormats = []string{formatRalph, formatSafeRust, formatLoopState, formatStravinsky, formatMoAI}

// maxImportSize bounds the state file read: these files are a few kilobytes.
const maxImportSize = 1 << 20

// Imported is what another loop tool's state file records, in one shape: what maps onto a
// git-loop loop, and one line for each thing that does not.
type Imported struct {
	Format        string   `json:"format"`
	Tool          string   `json:"tool"`
	File          string   `json:"file"`
	Prompt        string   `json:"prompt"`
	PromptDerived bool     `json:"prompt_derived,omitempty"` // the file records no task: it is described from the state
	Promises      []string `json:"promises,omitempty"`
	Markers       []string `json:"markers,omitempty"`
	MaxIterations *int     `json:"max_iterations,omitempty"`
	// Session is the agent session the old loop judged (ralph-loop's session_id): the new
	// loop is bound to it unless --session says otherwise.
	Session     string              `json:"session,omitempty"`
	Iteration   int                 `json:"iteration"` // reached in the old loop; the new one counts from 0
	Criteria    []ImportedCriterion `json:"criteria,omitempty"`
	Limits      loop.Limits         `json:"limits"`
	MaxDuration string              `json:"max_duration,omitempty"`
	NotCarried  []string            `json:"not_carried"`
}

// ImportedCriterion is a success criterion of the old loop and what it knew about it.
type ImportedCriterion struct {
	Name         string `json:"name"`
	Met          bool   `json:"met"`
	Verification string `json:"verification,omitempty"`
}

// Settings turns what was imported into start settings. Criteria become observation
// criteria: the agent reports them in its status block, as the old tools had it update them.
func (im *Imported) Settings() loop.Settings {
	s := loop.Settings{Prompt: im.Prompt, Promises: im.Promises, MaxIterations: im.MaxIterations}
	s.Policy.Markers = im.Markers
	s.Policy.Limits = im.Limits
	s.Policy.MaxDuration = im.MaxDuration
	for _, c := range im.Criteria {
		s.Policy.Criteria = append(s.Policy.Criteria, loop.Criterion{Name: c.Name, Verify: loop.VerifyObservation})
	}
	return s
}

// skip records one thing that is not carried over.
func (im *Imported) skip(format string, args ...any) {
	im.NotCarried = append(im.NotCarried, fmt.Sprintf(format, args...))
}

// ImportOptions are the inputs of Import: the file, an optional format overriding
// detection, and start's own options, whose flags override what the file records.
type ImportOptions struct {
	File   string
	Format string
	DryRun bool
	loop.StartOptions
	// DefaultSession binds the loop when neither StartOptions.Session (--session) nor the
	// file names a session: $CLAUDE_CODE_SESSION_ID, for instance.
	DefaultSession string
}

// ImportResult is what Import did: the mapping, the resolved configuration, and the new
// loop's state (nil on a dry run).
type ImportResult struct {
	Imported *Imported   `json:"imported"`
	Config   loop.Config `json:"config"`
	Session  string      `json:"session,omitempty"` // the agent session the loop is bound to
	State    *loop.State `json:"state,omitempty"`
	DryRun   bool        `json:"dry_run"`
}

// Import starts a loop equivalent to the one recorded in another tool's state file, through
// Start (so configuration, flags and one-loop-per-worktree rules are the same). Precedence:
// git config, then .gitloop, then the file, then the flags. The file is only read.
func Import(s *loop.Store, opts ImportOptions) (*ImportResult, error) {
	data, err := readImportFile(opts.File)
	if err != nil {
		return nil, err
	}
	im, err := parseImport(opts.File, data, opts.Format)
	if err != nil {
		return nil, err
	}
	settings := im.Settings()
	settings.Override(opts.Flags)
	start := opts.StartOptions
	start.Flags = settings
	if im.Format == formatSafeRust { // its gates exit 0 pass, 1 fail, 2 blocked, 3 skip
		start.GateExitCodes = gates.ExitCodesLayered
	}
	for _, session := range []string{im.Session, opts.DefaultSession} { // --session, then the file's
		if start.Session == "" {
			start.Session = session
		}
	}
	cfg, err := s.StartConfig(start)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", opts.File, err)
	}
	res := &ImportResult{Imported: im, Config: cfg, Session: start.Session, DryRun: opts.DryRun}
	if opts.DryRun {
		return res, nil
	}
	if res.State, err = s.Start(start); err != nil {
		return nil, err
	}
	return res, nil
}

// readImportFile reads a state file, bounded, refusing directories and huge files.
func readImportFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, importError(path, fmt.Sprintf("cannot read it (%v)", unwrapPathError(err)), "give the path of a loop state file")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxImportSize+1))
	if err != nil {
		return nil, importError(path, fmt.Sprintf("cannot read it (%v)", unwrapPathError(err)), "give the path of a loop state file")
	}
	if len(data) > maxImportSize {
		return nil, importError(path, "it is larger than 1 MiB", "loop state files are small; check the path")
	}
	return data, nil
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// importError is the one-line message for a file that cannot be imported: the file, the
// problem, the fix.
func importError(file, problem, fix string) error {
	return &importErr{file: file, problem: strings.Join(strings.Fields(problem), " "), fix: fix} // YAML errors span lines
}

// parseImport reads data, the content of state file path, in format (detected from the
// path and the content when empty). An accepted file always yields a non-empty task.
func parseImport(path string, data []byte, format string) (*Imported, error) {
	if format == "" {
		format = detectFormat(path, data)
	}
	parse, ok := importParsers[format]
	if !ok {
		if format == "" {
			return nil, importError(path, "not a loop state file git-loop knows", "import one of .claude/ralph-loop.local.md, .safe-rust/loop-state.json, .loop/state.json, .stravinsky/continuation-loop.md, .moai/cache/.moai_loop_state.json, or name the format with --format "+strings.Join(importFormats, "|"))
		}
		return nil, importError(path, fmt.Sprintf("unknown format %q", format), "use --format "+strings.Join(importFormats, "|"))
	}
	im := &Imported{Format: format, Tool: importTools[format], File: path, NotCarried: []string{}}
	if err := parse(im, string(data)); err != nil {
		return nil, err
	}
	im.Prompt = strings.TrimSpace(im.Prompt)
	if im.Prompt == "" { // every parser refuses this already; kept as the guarantee callers rely on
		return nil, importError(path, "it records no task", "start the loop with `git loop start -p TASK`")
	}
	return im, nil
}

var importParsers = map[string]func(*Imported, string) error{
	formatRalph:      parseRalph,
	formatStravinsky: parseStravinsky,
	formatSafeRust:   parseSafeRust,
	formatLoopState:  parseLoopState,
	formatMoAI:       parseMoAI,
}

var importTools = map[string]string{
	formatRalph:      "Claude Code ralph-loop plugin",
	formatStravinsky: "Stravinsky continuation loop",
	formatSafeRust:   "safe-rust verification loop",
	formatLoopState:  "moo.md /loop plugin",
	formatMoAI:       "MoAI-ADK loop",
}

// detectFormat names the format of a state file from its path, else from its content, or
// returns "" when neither tells.
func detectFormat(path string, data []byte) string {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case strings.HasPrefix(base, "ralph-loop") && strings.HasSuffix(base, ".local.md"): // also ralph-loop-<session>.local.md
		return formatRalph
	case base == "continuation-loop.md":
		return formatStravinsky
	case base == "loop-state.json" && dir == ".safe-rust":
		return formatSafeRust
	case base == ".moai_loop_state.json":
		return formatMoAI
	case base == "state.json" && dir == ".loop":
		return formatLoopState
	}
	return sniffFormat(data)
}

// sniffFormat recognises a format by the keys only it writes.
func sniffFormat(data []byte) string {
	text := strings.TrimPrefix(string(data), "\ufeff")
	if front, _, ok := splitFrontMatter(text); ok {
		switch {
		case strings.Contains(front, "iteration_count:"):
			return formatStravinsky
		case strings.Contains(front, "completion_promise:"), strings.Contains(front, "max_iterations:"):
			return formatRalph
		}
		return ""
	}
	m, err := decodeJSONObject(text)
	if err != nil {
		return ""
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("gates_remaining", "current_layer", "gates_passed"):
		return formatSafeRust
	case has("criteriaStatus", "spec"):
		return formatLoopState
	case has("last_error_count", "files_modified", "completion_reason"):
		return formatMoAI
	}
	return ""
}
