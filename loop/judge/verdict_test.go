package judge

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	claude := `{"type":"result","subtype":"success","is_error":false,"duration_ms":2140,"num_turns":1,` +
		`"result":"` + "```json\\n{\\\"met\\\": false, \\\"impossible\\\": false, \\\"reason\\\": \\\"README does not mention --judge\\\"}\\n```" + `",` +
		`"session_id":"0b7c","total_cost_usd":0.0031,"usage":{"input_tokens":1200,"output_tokens":40}}`
	tests := []struct {
		name    string
		out     string
		want    Verdict
		wantErr string // a fragment of the error; "" for none
	}{
		{name: "bare met", out: `{"met": true, "impossible": false, "reason": "done"}`, want: Verdict{Met: true, Reason: "done"}},
		{name: "bare unmet", out: `{"met": false, "reason": "the README says nothing"}` + "\n", want: Verdict{Reason: "the README says nothing"}},
		{name: "impossible", out: `{"met": false, "impossible": true, "reason": "contradicts the task"}`, want: Verdict{Impossible: true, Reason: "contradicts the task"}},
		{name: "prose then object", out: "Looking at the patch, the flag is documented.\n{\"met\": true, \"reason\": \"documented\"}", want: Verdict{Met: true, Reason: "documented"}},
		{name: "code fence", out: "Verdict:\n```json\n{\n  \"met\": false,\n  \"reason\": \"tests of auth changed\"\n}\n```\n", want: Verdict{Reason: "tests of auth changed"}},
		{name: "last object wins", out: `I will answer {"met": true, "reason": "example"} in this format.` + "\n" + `{"met": false, "reason": "not yet"}`, want: Verdict{Reason: "not yet"}},
		{name: "object after verdict without met is ignored", out: `{"met": true, "reason": "ok"} {"note": "bye"}`, want: Verdict{Met: true, Reason: "ok"}},
		{name: "claude json wrapper", out: claude, want: Verdict{Reason: "README does not mention --judge", CostUSD: 0.0031}},
		{name: "claude stream-json", out: `{"type":"system","subtype":"init"}` + "\n" + `{"type":"assistant","message":{"content":[{"type":"text","text":"{\"met\": true}"}]}}` + "\n" +
			`{"type":"result","is_error":false,"result":"{\"met\": true, \"reason\": \"holds\"}","total_cost_usd":0.5}`, want: Verdict{Met: true, Reason: "holds", CostUSD: 0.5}},
		{name: "claude error wrapper", out: `{"type":"result","is_error":true,"result":"API Error: 529 overloaded","total_cost_usd":0}`, wantErr: "API Error: 529"},
		{name: "gemini wrapper", out: `{"response": "{\"met\": true, \"reason\": \"yes\"}", "stats": {}}`, want: Verdict{Met: true, Reason: "yes"}},
		{name: "structured output", out: `{"type":"result","result":"","structured_output":{"met":true,"reason":"s"},"total_cost_usd":0.01}`, want: Verdict{Met: true, Reason: "s", CostUSD: 0.01}},
		{name: "keys in another case", out: `{"Met": true, "Reason": "ok"}`, want: Verdict{Met: true, Reason: "ok"}},
		{name: "reason not a string", out: `{"met": false, "reason": ["a", "b"]}`, want: Verdict{Reason: `["a", "b"]`}},
		{name: "null impossible", out: `{"met": true, "impossible": null}`, want: Verdict{Met: true}},
		{name: "empty", out: "", wantErr: `no JSON object with "met"`},
		{name: "garbage", out: "I think it is done!!! {{{ not json", wantErr: `no JSON object with "met"`},
		{name: "met as string", out: `{"met": "true", "reason": "x"}`, wantErr: `"met" is "true", not true or false`},
		{name: "met as number", out: `{"met": 1}`, wantErr: `"met" is 1`},
		{name: "impossible as string", out: `{"met": false, "impossible": "yes"}`, wantErr: `"impossible" is "yes"`},
		{name: "met and impossible", out: `{"met": true, "impossible": true}`, wantErr: "both met and impossible"},
		{name: "truncated object", out: `{"met": true, "reason": "cut off`, wantErr: `no JSON object with "met"`},
		{name: "wrapper without verdict", out: `{"type":"result","result":"All done, the README is updated.","total_cost_usd":0.2}`, want: Verdict{CostUSD: 0.2}, wantErr: `no JSON object with "met"`},
		{name: "bad verdict then none valid", out: `{"met": "no"} trailing`, wantErr: `"met" is "no"`},
		{name: "valid earlier, invalid last", out: `{"met": true, "reason": "a"} {"met": "maybe"}`, wantErr: `"met" is "maybe"`},
		{name: "example met, then invalid answer", out: "An answer looks like {\"met\": true}.\n{\"met\": true, \"impossible\": \"no\"}", wantErr: `"impossible" is "no"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.out)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrNoVerdict) {
					t.Fatalf("Parse() error = %v, want ErrNoVerdict containing %q", err, tt.wantErr)
				}
				if got.Met {
					t.Fatalf("Parse() = %+v with an error: a verdict in error is never met", got)
				}
				if got.CostUSD != tt.want.CostUSD {
					t.Fatalf("Parse() cost = %v, want %v", got.CostUSD, tt.want.CostUSD)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse() error = %v", err)
			}
			if got != tt.want {
				t.Fatalf("Parse() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseLongReasonIsBounded(t *testing.T) {
	v, err := Parse(`{"met": false, "reason": "` + strings.Repeat("é", maxReason) + `"}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Reason) > maxReason+len("…") || !strings.HasSuffix(v.Reason, "…") {
		t.Fatalf("reason of %d bytes, want at most %d and marked cut", len(v.Reason), maxReason)
	}
}

func TestParseManyBracesFindsVerdict(t *testing.T) {
	out := strings.Repeat(`{"a": "unterminated `, 2000) + "\n"
	if _, err := Parse(out); err == nil {
		t.Fatal("Parse() found a verdict in braces only")
	}
	if v, err := Parse(strings.Repeat("{ ", 100) + `{"met": true}`); err != nil || !v.Met {
		t.Fatalf("Parse() = %+v, %v; want met", v, err)
	}
}

func FuzzParseVerdict(f *testing.F) {
	for _, seed := range []string{
		`{"met": true, "impossible": false, "reason": "done"}`,
		"```json\n{\"met\": false, \"reason\": \"no\"}\n```",
		`{"type":"result","is_error":false,"result":"{\"met\": true}","total_cost_usd":0.1}`,
		`{"response": "{\"met\": false}"}`,
		`{"met": "true"}`, `{{{`, ``, `{"result": "{\"result\": \"{\\\"met\\\": true}\"}"}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		v, err := Parse(out)
		if err != nil {
			if v.Met || !errors.Is(err, ErrNoVerdict) {
				t.Fatalf("Parse(%q) = %+v, %v: an error is ErrNoVerdict and never met", out, v, err)
			}
			return
		}
		if v.Met && v.Impossible {
			t.Fatalf("Parse(%q) = %+v: met and impossible at once", out, v)
		}
		if len(v.Reason) > maxReason+len("…") {
			t.Fatalf("Parse(%q): reason of %d bytes", out, len(v.Reason))
		}
		if v.Met && !strings.Contains(strings.ToLower(out), "met") {
			t.Fatalf("Parse(%q) = met, from output that never says met", out)
		}
		if v.Met && !strings.Contains(out, "true") {
			t.Fatalf("Parse(%q) = met, from output without a JSON true", out)
		}
		// The last verdict is the answer: whatever came before, an invalid one ends it unmet.
		if v, err := Parse(out + "\n{\"met\": \"x\"}"); err == nil || v.Met {
			t.Fatalf("Parse(%q + an invalid verdict) = %+v, %v; want ErrNoVerdict", out, v, err)
		}
	})
}
