package diag

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ErrBadRequirement means a gate's `require` condition cannot be parsed.
var ErrBadRequirement = errors.New("bad require condition")

// requireSyntax is the fix named by every requirement parse error.
const requireSyntax = "write METRIC OP NUMBER, e.g. `require = coverage >= 85`; metrics: coverage, passed, failed, skipped, errors, warnings; operators: >= > <= < == !="

// Requirement is a condition a gate's diagnostics must meet for the gate to pass, such as
// coverage >= 85 or failed == 0.
type Requirement struct {
	Metric string
	Op     string
	Value  float64
}

// requireOps are the comparison operators.
var requireOps = []string{">=", "<=", "==", "!=", ">", "<"}

// ParseRequirement parses "METRIC OP NUMBER": a metric name (case-insensitive), an operator
// (>= > <= < == !=) and a non-negative number, which may end in % for coverage. Spaces
// between the parts are optional.
func ParseRequirement(s string) (Requirement, error) {
	text := strings.TrimSpace(s)
	i := 0
	for i < len(text) && (text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z') {
		i++
	}
	r := Requirement{Metric: strings.ToLower(text[:i])}
	if r.Metric == "" {
		return r, fmt.Errorf("%w %q: it does not start with a metric; %s", ErrBadRequirement, s, requireSyntax)
	}
	if !slices.Contains(metricNames, r.Metric) {
		return r, fmt.Errorf("%w %q: unknown metric %q; %s", ErrBadRequirement, s, r.Metric, requireSyntax)
	}
	rest := strings.TrimSpace(text[i:])
	j := 0
	for j < len(rest) && strings.IndexByte("<>=!", rest[j]) >= 0 {
		j++
	}
	switch r.Op = rest[:j]; {
	case r.Op == "":
		return r, fmt.Errorf("%w %q: no comparison after %s; %s", ErrBadRequirement, s, r.Metric, requireSyntax)
	case !slices.Contains(requireOps, r.Op):
		return r, fmt.Errorf("%w %q: unknown operator %q; %s", ErrBadRequirement, s, r.Op, requireSyntax)
	}
	num := strings.TrimSpace(rest[j:])
	if r.Metric == metricCoverage {
		num = strings.TrimSpace(strings.TrimSuffix(num, "%"))
	}
	if num == "" || strings.Trim(num, "0123456789.") != "" || strings.Count(num, ".") > 1 || num == "." {
		return r, fmt.Errorf("%w %q: %q is not a number ≥ 0; %s", ErrBadRequirement, s, num, requireSyntax)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return r, fmt.Errorf("%w %q: %q is not a number; %s", ErrBadRequirement, s, num, requireSyntax)
	}
	if r.Metric == metricCoverage && v > 100 {
		return r, fmt.Errorf("%w %q: coverage is a percentage, at most 100", ErrBadRequirement, s)
	}
	r.Value = v
	return r, nil
}

// Holds reports whether value v meets the requirement.
func (r Requirement) Holds(v float64) bool {
	switch r.Op {
	case ">=":
		return v >= r.Value
	case ">":
		return v > r.Value
	case "<=":
		return v <= r.Value
	case "<":
		return v < r.Value
	case "==":
		return v == r.Value
	case "!=":
		return v != r.Value
	}
	return false
}

// String renders the requirement in its canonical form: "coverage >= 85".
func (r Requirement) String() string {
	return r.Metric + " " + r.Op + " " + strconv.FormatFloat(r.Value, 'f', -1, 64)
}

// negated is the operator that holds when r.Op does not, for "72.5% < 85%".
var negated = map[string]string{">=": "<", ">": "<=", "<=": ">", "<": ">=", "==": "!=", "!=": "=="}

// Unmet says why value v does not meet the requirement: "coverage 72.5% < 85%".
func (r Requirement) Unmet(v float64) string {
	return fmt.Sprintf("%s %s %s %s", r.Metric, r.format(v), negated[r.Op], r.format(r.Value))
}

func (r Requirement) format(v float64) string {
	if r.Metric == metricCoverage {
		// Truncated to two decimals, so 84.96 shows as 84.96% rather than a rounded 85%.
		return strconv.FormatFloat(math.Trunc(v*100)/100, 'f', -1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
