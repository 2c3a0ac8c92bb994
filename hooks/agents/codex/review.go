package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/git-loop/git-loop/hooks/fileedit"
	"github.com/git-loop/git-loop/hooks/kit"
)

// Codex CLI (0.169.0) runs a hook from a hooks.json only when two things hold:
//
//   - for a project's .codex/hooks.json, the project is trusted: $CODEX_HOME/config.toml has
//     [projects."DIR"] trust_level = "trusted" for the checkout (or, in a linked worktree, for
//     the main checkout). `codex exec --trust` writes that entry. Untrusted, Codex loads
//     nothing from the project's .codex/ and says so once.
//   - the hook itself has been reviewed: config.toml has [hooks.state."KEY"] with
//     trusted_hash equal to the hash Codex computes for the hook now. The TUI's /hooks review
//     writes it; `codex app-server`'s hooks/list reports each hook's key, trustStatus
//     ("untrusted", "trusted", "modified") and currentHash. Without it the hook is skipped
//     without a word. This holds for the user's $CODEX_HOME/hooks.json too.
//
// KEY is "FILE:EVENT:GROUP:HANDLER": the hooks file's absolute path (symlinks resolved),
// the event's snake_case label ("stop"), the index of the matcher group in the event's
// array and of the handler in the group's "hooks". Codex computes the hash (codex-rs
// hooks/src/engine/discovery.rs, command_hook_hash, and config's version_for_toml) from
// the handler normalised: a JSON object {"event_name": LABEL, "matcher": M, "hooks":
// [HANDLER]} where HANDLER is {"type": "command", "command": C, "timeout": T, "async": A}
// plus "statusMessage" when set, T being the timeout with 600 for none and at least 1, and
// "matcher" only for events that use one (Stop does not: its matcher is dropped). Fields
// that are null are left out. That object is written as compact JSON with every object's
// keys sorted, as serde_json writes it, and hashed with SHA-256: "sha256:" and the hex
// digest. Checked against the real codex app-server in TestCodexReviewsMatchCodex
// (hooks/agents/codex).
//
// In a linked worktree Codex reads a project's hooks not from the worktree's own .codex/
// but from the main checkout's .codex/ (at the same place in the tree), and only when the
// worktree has a .codex directory too; the hooks' keys then name the main checkout's file.

// defaultTimeout is the timeout Codex gives a hook that sets none, in seconds.
const defaultTimeout = 600

// configHome is $CODEX_HOME, else ~/.codex under home.
func configHome(home string) string { return kit.EnvOr("CODEX_HOME", filepath.Join(home, ".codex")) }

// configFile is Codex's user configuration, where trust and reviews are recorded.
func configFile(home string) string { return filepath.Join(configHome(home), "config.toml") }

// hookRef is one of git-loop's hooks in a Codex hooks file, as Codex's review knows it.
type hookRef struct {
	key  string // FILE:stop:GROUP:HANDLER, the [hooks.state] key
	hash string // the trusted_hash Codex expects; "" when it cannot be computed
	why  string // why the hash cannot be computed
}

// gitLoopHooks returns git-loop's Stop hooks in the Codex hooks file doc, keyed as
// Codex keys them with keyFile as the file's name.
func gitLoopHooks(doc []byte, keyFile string) ([]hookRef, error) {
	var file struct {
		Hooks struct {
			Stop []struct {
				Hooks []map[string]json.RawMessage `json:"hooks"`
			} `json:"Stop"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(bytes.TrimPrefix(doc, []byte("\xef\xbb\xbf")), &file); err != nil {
		return nil, fmt.Errorf("hooks: read Codex hooks %s: %w", keyFile, err)
	}
	var refs []hookRef
	for g, group := range file.Hooks.Stop {
		for h, handler := range group.Hooks {
			var command string
			if json.Unmarshal(handler["command"], &command) != nil {
				continue
			}
			if agent, event, ok := kit.GitLoopHookArgs(command); !ok || agent != "codex" || event != "stop" {
				continue
			}
			ref := hookRef{key: fmt.Sprintf("%s:stop:%d:%d", keyFile, g, h)}
			ref.hash, ref.why = HookHash("stop", handler)
			refs = append(refs, ref)
		}
	}
	return refs, nil
}

// HookHash is the hash Codex records as a command hook's trusted_hash, for a handler
// of an event whose matcher Codex ignores (Stop), or why git-loop cannot compute it. It is
// one of Codex's trust rules as git-loop knows them, which Codex's package (hooks/agents/codex)
// holds to what the real Codex computes.
func HookHash(event string, handler map[string]json.RawMessage) (hash, why string) {
	norm := map[string]any{"type": "command", "timeout": uint64(defaultTimeout), "async": false}
	for k, raw := range handler {
		if string(raw) == "null" {
			continue
		}
		var err error
		switch k {
		case "type":
			var t string
			if err = json.Unmarshal(raw, &t); err == nil && t != "command" {
				return "", fmt.Sprintf("it is a %q hook, not a command", t)
			}
		case "command", "statusMessage":
			var s string
			err = json.Unmarshal(raw, &s)
			norm[k] = s
		case "timeout":
			var t uint64
			if err = json.Unmarshal(raw, &t); err == nil {
				norm[k] = max(t, 1)
			}
		case "async":
			var a bool
			err = json.Unmarshal(raw, &a)
			norm[k] = a
		default:
			return "", fmt.Sprintf("it has a field git-loop does not know how Codex hashes (%q)", k)
		}
		if err != nil {
			return "", fmt.Sprintf("its %q is not what Codex expects (%v)", k, err)
		}
	}
	identity := map[string]any{"event_name": event, "hooks": []any{norm}}
	sum := sha256.Sum256(serdeJSON(identity))
	return "sha256:" + hex.EncodeToString(sum[:]), ""
}

// serdeJSON writes v (maps, slices, strings, bools, unsigned integers) as compact JSON with
// sorted object keys, escaping strings exactly as Rust's serde_json does: only '"', '\\'
// and control characters, the latter as \b \t \n \f \r or \u00xx.
func serdeJSON(v any) []byte {
	var b bytes.Buffer
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				write(k)
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for i, e := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		case string:
			b.WriteByte('"')
			for i := 0; i < len(v); i++ {
				switch c := v[i]; {
				case c == '"' || c == '\\':
					b.WriteByte('\\')
					b.WriteByte(c)
				case c == '\b':
					b.WriteString(`\b`)
				case c == '\t':
					b.WriteString(`\t`)
				case c == '\n':
					b.WriteString(`\n`)
				case c == '\f':
					b.WriteString(`\f`)
				case c == '\r':
					b.WriteString(`\r`)
				case c < 0x20:
					fmt.Fprintf(&b, `\u%04x`, c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case uint64:
			b.WriteString(strconv.FormatUint(v, 10))
		default:
			panic(fmt.Sprintf("serdeJSON: %T", v))
		}
	}
	write(v)
	return b.Bytes()
}

// mainCheckoutOf is the main checkout Codex reads a linked worktree's project hooks
// from, found as Codex finds it: dir's .git file names a git directory
// <common>/worktrees/NAME, and the main checkout is <common>'s parent. It is "" for a
// regular checkout, or when dir's .git is anything else.
func mainCheckoutOf(dir string) string {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil || fi.IsDir() {
		return ""
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if gitdir = strings.TrimSpace(gitdir); !ok || gitdir == "" {
		return ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(dir, gitdir)
	}
	gitdir = kit.Physical(gitdir)
	worktrees := filepath.Dir(gitdir)
	if filepath.Base(worktrees) != "worktrees" {
		return ""
	}
	return kit.Physical(filepath.Dir(filepath.Dir(worktrees)))
}

// ProjectHooks is the hooks file Codex reads for the project checked out at dir (the
// main checkout's, in a linked worktree), named as Codex names it in its keys, and the main
// checkout in a linked worktree ("" elsewhere). Like HookHash, it is held to the real
// Codex in hooks/agents/codex.
func ProjectHooks(dir string) (file, mainCheckout string) {
	if main := mainCheckoutOf(dir); main != "" {
		return filepath.Join(main, ".codex", "hooks.json"), main
	}
	return filepath.Join(kit.Physical(dir), ".codex", "hooks.json"), ""
}

// userHooks is the user's hooks file as Codex names it in its keys ($CODEX_HOME with
// symlinks resolved).
func userHooks(home string) string {
	return filepath.Join(kit.Physical(configHome(home)), "hooks.json")
}

// projectTrust is Codex's trust for the project at dir as config records it, looked up
// as Codex does: the checkout's path, then the main checkout's (a linked worktree); the
// first entry found decides. level is "trusted", "untrusted" or "" (none).
func projectTrust(cfg fileedit.TOMLDoc, dir, mainCheckout string) (level, key string) {
	keys := []string{kit.Physical(dir), filepath.Clean(dir)}
	if mainCheckout != "" {
		keys = append(keys, mainCheckout)
	}
	for _, k := range keys {
		if e, ok := cfg.Lookup("projects", k, "trust_level"); ok {
			return e.Str, k
		}
	}
	return "", keys[0]
}

// readConfig reads and scans config.toml; a missing file is an empty one.
func readConfig(path string) (fileedit.TOMLDoc, error) {
	doc, err := kit.ReadIfExists(path)
	if err != nil {
		return fileedit.TOMLDoc{}, fmt.Errorf("hooks: read Codex's configuration: %w", err)
	}
	d, err := fileedit.ScanTOML(doc)
	if err != nil {
		return d, fmt.Errorf("hooks: %s: %w", path, err)
	}
	return d, nil
}

// reviewProblem says why Codex would not run the hook ref by what config records of
// it, or "" when its review is on record and current.
func reviewProblem(cfg fileedit.TOMLDoc, cfgPath string, ref hookRef, installCmd string) (kit.Problem, bool) {
	reviewFix := fmt.Sprintf("`%s` records the review, as Codex's /hooks does", installCmd)
	if e, ok := cfg.Lookup("hooks", "state", ref.key, "enabled"); ok && e.Raw == "false" {
		return kit.Problem{
			Why: fmt.Sprintf("the hook is turned off in Codex's /hooks (%s: enabled = false under [hooks.state.%s])", cfgPath, fileedit.QuoteTOML(ref.key)),
			Fix: "turn it on in Codex's /hooks, or delete that enabled = false",
		}, true
	}
	if ref.hash == "" {
		return kit.Problem{
			Why: fmt.Sprintf("git-loop cannot tell whether Codex has reviewed the hook %s: %s", ref.key, ref.why),
			Fix: "review it in Codex's /hooks",
		}, true
	}
	e, ok := cfg.Lookup("hooks", "state", ref.key, "trusted_hash")
	switch {
	case !ok:
		return kit.Problem{
			Why: fmt.Sprintf("Codex runs a hook only once it has been reviewed, and %s records no review of %s", cfgPath, ref.key),
			Fix: reviewFix,
		}, true
	case e.Str != ref.hash:
		return kit.Problem{
			Why: fmt.Sprintf("the hook %s changed since it was reviewed (%s records %s; it is now %s)", ref.key, cfgPath, e.Str, ref.hash),
			Fix: reviewFix,
		}, true
	}
	return kit.Problem{}, false
}

// recordReviews records, in Codex's config.toml at cfgPath, the review of each hook
// in refs whose review is missing or stale, as Codex's /hooks does ([hooks.state."KEY"]
// trusted_hash). The file is edited in place, everything else kept byte for byte; it is
// created when missing. A file Codex could not read, or whose [hooks.state] cannot take a
// new table without rewriting what is there, is left as it is, and the result says why.
func recordReviews(cfgPath string, refs []hookRef) (kit.InstallResult, error) {
	res := kit.InstallResult{Path: cfgPath}
	target, doc, created, err := kit.ReadForEdit(cfgPath, "Codex's configuration")
	if err != nil {
		return res, err
	}
	res.Created = created
	out := doc
	for _, ref := range refs {
		what := fmt.Sprintf("the review of Codex hook %s, as Codex's /hooks records it (trusted_hash %s)", ref.key, ref.hash)
		if ref.hash == "" {
			continue
		}
		d, err := fileedit.ScanTOML(out)
		if err != nil {
			res.Kept = fmt.Sprintf("%s is not TOML that git-loop can read (%v), so no review was recorded; review the hook in Codex's /hooks", cfgPath, err)
			return res, nil
		}
		if e, ok := d.Lookup("hooks", "state", ref.key, "trusted_hash"); ok && e.Str == ref.hash {
			res.Present = append(res.Present, what)
			continue
		}
		next, err := fileedit.SetTOMLString(out, []string{"hooks", "state", ref.key, "trusted_hash"}, ref.hash)
		if err != nil {
			res.Kept = fmt.Sprintf("%s was left as it is (%v), so the review of %s was not recorded; review the hook in Codex's /hooks", cfgPath, err, ref.key)
			return res, nil
		}
		out = next
		res.Added = append(res.Added, what)
	}
	if len(res.Added) == 0 {
		res.Created = false
		return res, nil
	}
	return res, kit.WriteEdited(cfgPath, target, out, 0o600)
}
