package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Config is git configuration in git-config syntax, possibly merged from several files. Later
// values win, as with git. Section and key names are case-insensitive, subsections are not.
type Config struct {
	values map[string][]string // "section\x00subsection\x00key" → values in file order
	subs   map[string][]string // lowercased section → subsections in first-seen order
	repo   *includeRepo        // while loading a repository's files: what includeIf tests
}

// NewConfig returns an empty configuration.
func NewConfig() *Config {
	return &Config{values: map[string][]string{}, subs: map[string][]string{}}
}

// ParseConfig parses data in git-config syntax (as .gitmodules and .gitloop use). name is
// used in errors.
func ParseConfig(name string, data []byte) (*Config, error) {
	c := NewConfig()
	if err := c.merge(name, data, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadConfigFile merges the file at path into c; a missing file is not an error.
func (c *Config) LoadConfigFile(path string) error {
	return c.mergeFile(path, 0)
}

func (c *Config) mergeFile(path string, depth int) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read config %q: %w", path, err)
	}
	return c.merge(path, data, depth)
}

// merge adds the settings in data; include.path entries are followed (relative to name's
// directory) up to a small depth, as git does, and so are includeIf.<condition>.path entries
// whose condition holds for the repository being loaded (see includeRepo).
func (c *Config) merge(name string, data []byte, depth int) error {
	entries, err := parseConfigEntries(data)
	if err != nil {
		return &syntaxError{file: name, err: err}
	}
	for _, e := range entries {
		sec, sub := e.section()
		if e.key == "path" && !e.bare && (sec == "include" && sub == "" || sec == "includeif" && c.repo.holds(sub, name)) {
			if depth < 10 {
				if err := c.mergeFile(resolveInclude(name, e.value), depth+1); err != nil {
					return err
				}
			}
			continue
		}
		if sub != "" {
			c.noteSub(sec, sub)
		}
		value := e.value
		if e.bare {
			value = bareValue
		}
		c.add(sec, sub, e.key, value)
	}
	return nil
}

// bareValue stands for a key written without "=" (git's NULL value: true as a boolean, ""
// as a string). A NUL byte cannot occur in a parsed value, so it cannot be confused with one.
const bareValue = "\x00"

// syntaxError is a configuration file the parser rejects.
type syntaxError struct {
	file string
	err  error
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("parse config %q: %v; check its syntax with `git config -f %s --list`", e.file, e.err, e.file)
}

func (e *syntaxError) Unwrap() error { return e.err }

func resolveInclude(from, path string) string {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, path[2:])
		}
	}
	if filepath.IsAbs(path) {
		return path
	}
	// joined as text and left to the file system, as git does: through a symlinked
	// directory, ".." is the real parent, which filepath.Join's cleaning would not be
	return filepath.Dir(from) + string(filepath.Separator) + path
}

func configKey(section, sub, key string) string {
	return strings.ToLower(section) + "\x00" + sub + "\x00" + strings.ToLower(key)
}

func (c *Config) add(section, sub, key, value string) {
	k := configKey(section, sub, key)
	c.values[k] = append(c.values[k], value)
}

func (c *Config) noteSub(section, sub string) {
	for _, s := range c.subs[section] {
		if s == sub {
			return
		}
	}
	c.subs[section] = append(c.subs[section], sub)
}

// Merge adds other's settings after c's, so other's values win.
func (c *Config) Merge(other *Config) {
	for k, v := range other.values {
		c.values[k] = append(c.values[k], v...)
	}
	for sec, subs := range other.subs {
		for _, s := range subs {
			c.noteSub(sec, s)
		}
	}
}

// ConfigKey names one key: lowercased section and key, subsection as written.
type ConfigKey struct {
	Section, Subsection, Key string
}

// Keys lists every key set, in no particular order.
func (c *Config) Keys() []ConfigKey {
	keys := make([]ConfigKey, 0, len(c.values))
	for k := range c.values {
		parts := strings.SplitN(k, "\x00", 3)
		keys = append(keys, ConfigKey{Section: parts[0], Subsection: parts[1], Key: parts[2]})
	}
	return keys
}

// Get returns the last value of section[.sub].key, or "" when unset or written without "=".
func (c *Config) Get(section, sub, key string) string {
	v := c.values[configKey(section, sub, key)]
	if len(v) == 0 || v[len(v)-1] == bareValue {
		return ""
	}
	return v[len(v)-1]
}

// Has reports whether section[.sub].key is set at all.
func (c *Config) Has(section, sub, key string) bool {
	return len(c.values[configKey(section, sub, key)]) > 0
}

// All returns every value of a multi-valued key, in order.
func (c *Config) All(section, sub, key string) []string {
	vs := c.values[configKey(section, sub, key)]
	out := make([]string, len(vs))
	for i, v := range vs {
		if v != bareValue {
			out[i] = v
		}
	}
	return out
}

// Subsections lists the subsections of section in the order they first appear.
func (c *Config) Subsections(section string) []string {
	return c.subs[strings.ToLower(section)]
}

// Bool reads a boolean the way git does (true/yes/on/1, false/no/off/0, a key written
// without "=" is true and an empty value false).
func (c *Config) Bool(section, sub, key string, def bool) bool {
	vs := c.values[configKey(section, sub, key)]
	if len(vs) == 0 {
		return def
	}
	if vs[len(vs)-1] == bareValue {
		return true
	}
	b, err := ParseBool(vs[len(vs)-1])
	if err != nil {
		return def
	}
	return b
}

// ParseBool parses a git boolean.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "1":
		return true, nil
	case "", "false", "no", "off", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean (use true or false)", s)
}

// ParseInt parses a git integer with an optional k, m or g suffix.
func ParseInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult, s = 1<<10, s[:n-1]
		case 'm', 'M':
			mult, s = 1<<20, s[:n-1]
		case 'g', 'G':
			mult, s = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v * mult, nil
}

// UserConfigFiles are the system and global configuration files git reads, honouring
// GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL and XDG_CONFIG_HOME.
func UserConfigFiles() []string {
	var files []string
	if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v == "" || v == "0" || strings.EqualFold(v, "false") {
		sys := os.Getenv("GIT_CONFIG_SYSTEM")
		if sys == "" {
			sys = "/etc/gitconfig"
		}
		files = append(files, sys)
	}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		return append(files, g)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	home, _ := os.UserHomeDir()
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// loadRepoConfig merges system, global, repository, (with extensions.worktreeConfig) the
// worktree's config.worktree, and the environment's (git -c), in git's order of precedence.
func loadRepoConfig(common, gitDir, givenGitDir string) (*Config, error) {
	c := NewConfig()
	c.repo = newIncludeRepo(gitDir, common, givenGitDir)
	for _, f := range UserConfigFiles() {
		if err := c.mergeUserFile(f); err != nil {
			return nil, err
		}
	}
	repoCfg := NewConfig()
	repoCfg.repo = c.repo
	if err := repoCfg.LoadConfigFile(filepath.Join(common, "config")); err != nil {
		return nil, err
	}
	c.Merge(repoCfg)
	if repoCfg.Bool("extensions", "", "worktreeconfig", false) {
		if err := c.LoadConfigFile(filepath.Join(gitDir, "config.worktree")); err != nil {
			return nil, err
		}
	}
	env, err := envConfig(c.repo) // git -c: the command scope, over every file
	if err != nil {
		return nil, err
	}
	c.Merge(env)
	return c, nil
}

// mergeUserFile merges a system or global file, skipping it whole when it (or a file it
// includes) does not parse: git-loop reads only a few keys from these files, so one bad line
// there must not stop every command (git itself refuses to run). Read errors are reported.
func (c *Config) mergeUserFile(path string) error {
	file := NewConfig()
	file.repo = c.repo
	err := file.LoadConfigFile(path)
	var syntax *syntaxError
	if errors.As(err, &syntax) {
		return nil
	}
	if err != nil {
		return err
	}
	c.Merge(file)
	return nil
}
