// Package fileedit reads and edits configuration files other programs own without
// disturbing them: TOML (Codex CLI's config.toml: every header and value found with its
// position, one string value set in place, comments, order and spacing kept byte for byte)
// and JSON with comments (the agents' settings files, read tolerantly). The agents' hook
// files are merged by package hooks on top of it.
package fileedit
