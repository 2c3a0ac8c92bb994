package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/git-loop/git-loop/gitstore"
)

// Report formats of `git loop report --format`.
const (
	FormatMarkdown = "md"
	formatYAML     = "yaml"
	formatJSON     = "json"
	formatHTML     = "html"
)

// ReportFormats lists the formats, in the order help text names them.
var ReportFormats = []string{FormatMarkdown, formatYAML, formatJSON, formatHTML}

// ErrReportFormat means a report format that does not exist was asked for.
var ErrReportFormat = errors.New("unknown report format")

// CheckReportFormat reports whether format is one of ReportFormats.
func CheckReportFormat(format string) error {
	for _, f := range ReportFormats {
		if format == f {
			return nil
		}
	}
	return fmt.Errorf("%w %q: use --format %s", ErrReportFormat, format, strings.Join(ReportFormats, ", "))
}

// Render renders the report in format: md, yaml, json or html.
func (r Report) Render(format string) ([]byte, error) {
	switch format {
	case FormatMarkdown:
		return []byte(r.Markdown()), nil
	case formatYAML:
		return r.YAML(), nil
	case formatJSON:
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("render the report as JSON: %w", err)
		}
		return append(data, '\n'), nil
	case formatHTML:
		return r.HTML()
	}
	return nil, CheckReportFormat(format)
}

// ReplaceFile writes data to a file the user names (a report, an agent's settings): atomically,
// following a symlink to the file it names, keeping an existing file's permissions (a new
// one gets perm). It is gitstore.ReplaceFile, for the packages that reach gitstore through
// loop.
func ReplaceFile(path string, data []byte, perm fs.FileMode) error {
	return gitstore.ReplaceFile(path, data, perm)
}

// ResolveLink is the file a symlink at path names (path itself when it is no symlink); a
// link to nothing is an error. It is gitstore.ResolveLink.
func ResolveLink(path string) (string, error) { return gitstore.ResolveLink(path) }
