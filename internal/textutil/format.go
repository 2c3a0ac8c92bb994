package textutil

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Plural is "s" unless n is 1.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// OrDefaultString is v, or d when v is empty.
func OrDefaultString(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// FirstLine is s up to its first newline.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// FilesText is "1 file" or "n files".
func FilesText(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// FormatDuration renders d for a person: "-" for none, 350ms, 2.5s, then whole seconds (1m30s).
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// WriteJSON prints v as indented JSON, as every --json output is.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Short is the first 12 characters of an object id (all of a shorter one).
func Short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Clip shortens s to at most n runes, marking the cut with "…".
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CountNoun is "1 error" or "3 errors".
func CountNoun(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// NormalizeSpace collapses every run of white space in s to one space and trims its ends.
func NormalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }
