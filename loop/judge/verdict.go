package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Verdict is an evaluator's answer about one condition.
type Verdict struct {
	Met        bool   `json:"met"`
	Impossible bool   `json:"impossible,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// CostUSD is what the evaluator's run cost, when its output reports it (Claude Code's
	// `--output-format json` wrapper does, as total_cost_usd); 0 when unknown.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Parser limits.
const (
	// maxParse is how much of an evaluator's output is read, counted from its end: the
	// verdict is its last word.
	maxParse = 256 << 10
	// maxAttempts bounds the '{' from which a JSON object is tried and not found, so that
	// output full of braces costs linear time.
	maxAttempts = 512
	// maxDepth bounds the wrappers (a JSON result string holding the verdict) unwrapped.
	maxDepth = 3
	// maxReason bounds the reason kept from a verdict.
	maxReason = 4 << 10
)

// ErrNoVerdict means the evaluator's output holds no valid verdict.
var ErrNoVerdict = errors.New("no valid verdict")

// Parse finds the evaluator's verdict in its output: the last JSON object with a "met" key,
// wherever it is (alone, after prose, inside a code fence), or the verdict inside the result
// string of a headless agent's JSON wrapper (Claude Code's `-p --output-format json` and
// `stream-json`, whose cost it reads too; Gemini CLI's `response`). A verdict is valid only
// when "met" is a JSON boolean, "impossible" is absent or a boolean, and they are not both
// true; anything else is ErrNoVerdict, with what was wrong. The last verdict is the answer:
// an invalid one is never passed over for an earlier one (an example, a first thought). The cost is returned with an
// error too, when the wrapper reported it.
func Parse(out string) (Verdict, error) {
	return parse(out, 0)
}

func parse(out string, depth int) (Verdict, error) {
	if len(out) > maxParse {
		out = out[len(out)-maxParse:]
	}
	objs := objects(out)
	for i := len(objs) - 1; i >= 0; i-- {
		obj := objs[i]
		if inner, cost, isErr, ok := wrapped(obj); ok {
			if isErr {
				return Verdict{CostUSD: cost}, fmt.Errorf("%w: the evaluator reported an error: %s", ErrNoVerdict, clip(inner, 300))
			}
			if depth >= maxDepth {
				return Verdict{CostUSD: cost}, fmt.Errorf("%w: wrappers nested too deep", ErrNoVerdict)
			}
			v, err := parse(inner, depth+1)
			if v.CostUSD == 0 {
				v.CostUSD = cost
			}
			return v, err
		}
		if _, ok := field(obj, "met"); ok {
			return fromObject(obj) // the last verdict is the answer, valid or not
		}
	}
	return Verdict{}, fmt.Errorf(`%w: the output holds no JSON object with "met" (want {"met": true|false, "impossible": true|false, "reason": "…"})`, ErrNoVerdict)
}

// fromObject checks and reads a verdict object.
func fromObject(obj map[string]json.RawMessage) (Verdict, error) {
	var v Verdict
	raw, _ := field(obj, "met")
	if err := json.Unmarshal(raw, &v.Met); err != nil {
		return Verdict{}, fmt.Errorf("%w: \"met\" is %s, not true or false", ErrNoVerdict, clip(string(raw), 40))
	}
	if raw, ok := field(obj, "impossible"); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v.Impossible); err != nil {
			return Verdict{}, fmt.Errorf("%w: \"impossible\" is %s, not true or false", ErrNoVerdict, clip(string(raw), 40))
		}
	}
	if raw, ok := field(obj, "reason"); ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &v.Reason); err != nil {
			v.Reason = string(raw) // a reason is words for the agent, whatever its type
		}
	}
	v.Reason = clip(strings.TrimSpace(v.Reason), maxReason)
	if v.Met && v.Impossible {
		return Verdict{}, fmt.Errorf("%w: the verdict says both met and impossible", ErrNoVerdict)
	}
	return v, nil
}

// wrapped recognises a headless agent's JSON wrapper and returns the text it wraps, the cost
// it reports and whether it reports an error.
func wrapped(obj map[string]json.RawMessage) (inner string, cost float64, isErr, ok bool) {
	if _, hasMet := field(obj, "met"); hasMet {
		return "", 0, false, false
	}
	for _, key := range []string{"total_cost_usd", "cost_usd"} {
		if raw, found := field(obj, key); found && json.Unmarshal(raw, &cost) == nil {
			break
		}
	}
	if raw, found := field(obj, "is_error"); found {
		json.Unmarshal(raw, &isErr)
	}
	if raw, found := field(obj, "structured_output"); found && !isErr {
		if len(raw) > 0 && raw[0] == '{' {
			return string(raw), cost, false, true
		}
	}
	for _, key := range []string{"result", "response"} {
		raw, found := field(obj, key)
		if !found {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, cost, isErr, true
		}
	}
	return "", 0, false, false
}

// field looks a key up as JSON decoding into a struct would: exactly, else ignoring case.
func field(obj map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := obj[key]; ok {
		return v, true
	}
	for k, v := range obj {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// objects decodes the top-level JSON objects found in text, in order: from each '{' not
// inside an object already decoded, one object is tried.
func objects(text string) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	failed := 0
	for i := 0; i < len(text) && failed < maxAttempts; {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		i += j
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err != nil || obj == nil {
			failed++
			i++
			continue
		}
		out = append(out, obj)
		i += int(dec.InputOffset())
	}
	return out
}

// clip cuts s to n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
