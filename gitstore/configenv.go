package gitstore

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// git passes `git -c key=value` on to the commands it runs, git-loop among them, in
// GIT_CONFIG_PARAMETERS; GIT_CONFIG_COUNT with GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n>
// set more. Both have the command scope: they win over every file.

// envConfig is the configuration the environment sets (see above). Its include.path and
// includeIf.<condition>.path entries are followed where they stand, as git does; repo is
// what conditions test (nil: none holds).
func envConfig(repo *includeRepo) (*Config, error) {
	c := NewConfig()
	c.repo = repo
	if err := c.addCounted(); err != nil { // git reads these first, so git -c wins over them
		return nil, err
	}
	if params := os.Getenv("GIT_CONFIG_PARAMETERS"); params != "" {
		if err := c.addParameters(params); err != nil {
			return nil, fmt.Errorf("read GIT_CONFIG_PARAMETERS (git -c): %w", err)
		}
	}
	return c, nil
}

// addCounted adds GIT_CONFIG_COUNT's GIT_CONFIG_KEY_<n> = GIT_CONFIG_VALUE_<n> pairs.
func (c *Config) addCounted() error {
	count := strings.TrimSpace(os.Getenv("GIT_CONFIG_COUNT"))
	if count == "" {
		return nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return fmt.Errorf("GIT_CONFIG_COUNT=%q is not a count: fix or unset it", count)
	}
	for i := 0; i < n; i++ {
		key, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
		if !ok || key == "" {
			return fmt.Errorf("GIT_CONFIG_KEY_%d is missing (GIT_CONFIG_COUNT=%d): set it or lower the count", i, n)
		}
		value, ok := os.LookupEnv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
		if !ok {
			return fmt.Errorf("GIT_CONFIG_VALUE_%d is missing (GIT_CONFIG_COUNT=%d): set it or lower the count", i, n)
		}
		if err := c.addDotted(key, value); err != nil {
			return fmt.Errorf("GIT_CONFIG_KEY_%d: %w", i, err)
		}
	}
	return nil
}

// addParameters adds GIT_CONFIG_PARAMETERS: shell-quoted words separated by spaces, each
// 'key'='value', or 'key'= for `git -c key` (no "=": true), or 'key=value' (older gits), as
// git's sq_quote writes them (a quote is '\” and an exclamation mark '\!').
func (c *Config) addParameters(s string) error {
	for {
		s = strings.TrimLeft(s, " ")
		if s == "" {
			return nil
		}
		key, rest, err := sqWord(s)
		if err != nil {
			return err
		}
		var value string
		bare := true
		if strings.HasPrefix(rest, "=") { // 'key'='value', or 'key'= for a key without "="
			if rest = rest[1:]; rest != "" && rest[0] != ' ' {
				if value, rest, err = sqWord(rest); err != nil {
					return err
				}
				bare = false
			}
		} else if k, v, ok := strings.Cut(key, "="); ok { // 'key=value'
			key, value, bare = k, v, false
		}
		if rest != "" && rest[0] != ' ' {
			return fmt.Errorf("unexpected %q after %q", rest, key)
		}
		if bare {
			value = bareValue
		}
		if err := c.addDotted(key, value); err != nil {
			return err
		}
		s = rest
	}
}

// sqWord reads one single-quoted word at the start of s ('it'\”s' is "it's", 'a'\!'b' "a!b").
func sqWord(s string) (word, rest string, err error) {
	var b strings.Builder
	for {
		if !strings.HasPrefix(s, "'") {
			return "", "", fmt.Errorf("expected a quoted word at %q", s)
		}
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated quote in %q", s)
		}
		b.WriteString(s[1 : 1+end])
		s = s[2+end:]
		if !strings.HasPrefix(s, `\'`) && !strings.HasPrefix(s, `\!`) {
			return b.String(), s, nil
		}
		b.WriteByte(s[1])
		s = s[2:]
	}
}

// addDotted adds "section[.subsection].key" = value.
func (c *Config) addDotted(dotted, value string) error {
	first := strings.IndexByte(dotted, '.')
	last := strings.LastIndexByte(dotted, '.')
	if first <= 0 || last == len(dotted)-1 {
		return fmt.Errorf("%q is not a key of the form section.key", dotted)
	}
	sec, key, sub := dotted[:first], dotted[last+1:], ""
	if last > first {
		sub = dotted[first+1 : last]
	}
	lsec := strings.ToLower(sec)
	if strings.EqualFold(key, "path") && value != bareValue && (lsec == "include" && sub == "" || lsec == "includeif" && c.repo.holds(sub, "")) {
		if !filepath.IsAbs(value) && !strings.HasPrefix(value, "~/") {
			return fmt.Errorf("%s=%s: relative config includes must come from files; give an absolute path", dotted, value)
		}
		return c.mergeFile(resolveInclude("", value), 1)
	}
	if sub != "" {
		c.noteSub(lsec, sub)
	}
	c.add(sec, sub, key, value)
	return nil
}
