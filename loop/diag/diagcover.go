package diag

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrCoverageFormat means a coverage report is in no format git-loop reads.
var ErrCoverageFormat = errors.New("unrecognised coverage report")

// ParseCoverageReport returns the line (or statement) coverage, in percent, of a coverage
// report, recognised by its content: a Go coverprofile ("mode: set", statements covered by
// any block, counting repeated blocks once), lcov.info (LH over LF, or DA lines), Cobertura
// XML (the root's line-rate), coverage.py JSON (totals.percent_covered) or istanbul's
// coverage-summary.json (total.lines.pct).
func ParseCoverageReport(data []byte) (float64, error) {
	text := bytes.TrimLeft(data, "\ufeff \t\r\n")
	var v float64
	var err error
	switch {
	case bytes.HasPrefix(text, []byte("mode:")):
		v, err = goCoverprofile(string(text))
	case bytes.HasPrefix(text, []byte("<")):
		v, err = coberturaRate(text)
	case bytes.HasPrefix(text, []byte("{")):
		v, err = jsonCoverage(text)
	case bytes.Contains(text, []byte("SF:")) || bytes.Contains(text, []byte("DA:")):
		v, err = lcovCoverage(string(text))
	default:
		err = fmt.Errorf("%w: want a Go coverprofile, lcov.info, Cobertura XML, coverage.py JSON or coverage-summary.json", ErrCoverageFormat)
	}
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: the coverage is not a number", ErrCoverageFormat)
	}
	return min(max(v, 0), 100), nil
}

// goCoverprofile reads "file:l.c,l.c statements count" lines after the mode line.
func goCoverprofile(text string) (float64, error) {
	type block struct{ stmts, covered int64 }
	blocks := map[string]*block{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if i == 0 || line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			return 0, fmt.Errorf("%w: Go coverprofile line %d: want FILE:RANGE STATEMENTS COUNT", ErrCoverageFormat, i+1)
		}
		stmts, err1 := strconv.ParseInt(fields[1], 10, 32)
		count, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || stmts < 0 || count < 0 {
			return 0, fmt.Errorf("%w: Go coverprofile line %d: bad numbers", ErrCoverageFormat, i+1)
		}
		b := blocks[fields[0]]
		if b == nil {
			b = &block{stmts: stmts}
			blocks[fields[0]] = b
		}
		if count > 0 {
			b.covered = stmts
		}
	}
	var total, covered int64
	for _, b := range blocks {
		total += b.stmts
		covered += b.covered
	}
	return ratio(covered, total)
}

// lcovCoverage sums LH and LF over the records; a record without them counts its DA lines.
func lcovCoverage(text string) (float64, error) {
	var total, hit, daTotal, daHit int64
	sawLF := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch key {
		case "LF", "LH":
			n, err := strconv.ParseInt(val, 10, 32)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%w: lcov %s:%s is not a count", ErrCoverageFormat, key, val)
			}
			if key == "LF" {
				total, sawLF = total+n, true
			} else {
				hit += n
			}
		case "DA":
			parts := strings.Split(val, ",")
			if len(parts) < 2 {
				return 0, fmt.Errorf("%w: lcov DA:%s: want LINE,COUNT", ErrCoverageFormat, val)
			}
			daTotal++
			if n, err := strconv.ParseInt(parts[1], 10, 64); err == nil && n > 0 {
				daHit++
			}
		}
	}
	if !sawLF {
		total, hit = daTotal, daHit
	}
	return ratio(hit, total)
}

// coberturaRate reads line-rate (0–1) from the root <coverage> element.
func coberturaRate(data []byte) (float64, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0, fmt.Errorf("%w: XML without a <coverage> element (Cobertura)", ErrCoverageFormat)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Local != "coverage" {
			return 0, fmt.Errorf("%w: XML root <%s>, want Cobertura's <coverage>", ErrCoverageFormat, el.Name.Local)
		}
		for _, a := range el.Attr {
			if a.Name.Local == "line-rate" {
				rate, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
				if err != nil || rate < 0 || rate > 1 {
					return 0, fmt.Errorf("%w: Cobertura line-rate %q: want a number from 0 to 1", ErrCoverageFormat, a.Value)
				}
				return rate * 100, nil
			}
		}
		return 0, fmt.Errorf("%w: Cobertura <coverage> has no line-rate", ErrCoverageFormat)
	}
}

// jsonCoverage reads coverage.py's totals.percent_covered or istanbul's total.lines.pct.
func jsonCoverage(data []byte) (float64, error) {
	var doc struct {
		Totals *struct {
			PercentCovered *float64 `json:"percent_covered"`
		} `json:"totals"`
		Total *struct {
			Lines *struct {
				Pct json.RawMessage `json:"pct"`
			} `json:"lines"`
		} `json:"total"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return 0, fmt.Errorf("%w: JSON: %v", ErrCoverageFormat, err)
	}
	switch {
	case doc.Totals != nil && doc.Totals.PercentCovered != nil:
		return *doc.Totals.PercentCovered, nil
	case doc.Total != nil && doc.Total.Lines != nil:
		var pct float64
		if err := json.Unmarshal(doc.Total.Lines.Pct, &pct); err != nil {
			return 0, fmt.Errorf("%w: coverage-summary.json total.lines.pct is %s, not a number", ErrCoverageFormat, doc.Total.Lines.Pct)
		}
		return pct, nil
	}
	return 0, fmt.Errorf("%w: JSON without totals.percent_covered (coverage.py) or total.lines.pct (istanbul)", ErrCoverageFormat)
}

// ratio is covered/total in percent; a report with nothing to cover is an error, since
// 0% and 100% would both mislead.
func ratio(covered, total int64) (float64, error) {
	if total <= 0 {
		return 0, fmt.Errorf("%w: the report covers no lines", ErrCoverageFormat)
	}
	return float64(covered) * 100 / float64(total), nil
}
