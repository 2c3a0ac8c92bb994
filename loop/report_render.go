package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Report formats of `git loop report --format`.
const (
	FormatMarkdown = "md"
	FormatYAML     = "yaml"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// ReportFormats lists the formats, in the order help text names them.
var ReportFormats = []string{FormatMarkdown, FormatYAML, FormatJSON, FormatHTML}

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
	case FormatYAML:
		return r.YAML(), nil
	case FormatJSON:
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("render the report as JSON: %w", err)
		}
		return append(data, '\n'), nil
	case FormatHTML:
		return r.HTML()
	}
	return nil, CheckReportFormat(format)
}

// WriteFileAtomic writes data to path through a temporary file in the same directory and a
// rename, so a reader sees the old file or the whole new one, never part of it.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w; check that the directory exists and is writable", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing left to remove
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
