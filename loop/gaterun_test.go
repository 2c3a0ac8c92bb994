package loop

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop/gates"
)

// TestGateResultJSON: an iteration records a command gate's result as gates.Result's fields,
// and an evaluator gate's with its verdict after them, as before the gate runner was a
// package of its own; and reads both back.
func TestGateResultJSON(t *testing.T) {
	for _, tt := range []struct {
		res  GateResult
		want string
	}{
		{GateResult{Result: gates.Result{Name: "t", Layer: 2, Status: gates.StatusPass, Duration: 1500 * time.Millisecond, Tail: "ok"}},
			`{"name":"t","layer":2,"status":"pass","exit_code":0,"duration_ns":1500000000,"tail":"ok"}`},
		{GateResult{Result: gates.Result{Name: "j", Layer: 3, Status: gates.StatusFail, ExitCode: -1, Fingerprint: "0123456789ab"}, Judge: &JudgeInfo{Condition: "c", Evaluator: "e", Verdict: VerdictUnmet}},
			`{"name":"j","layer":3,"status":"fail","exit_code":-1,"duration_ns":0,"tail":"","fingerprint":"0123456789ab","judge":{"condition":"c","evaluator":"e","verdict":"unmet"}}`},
	} {
		b, err := json.Marshal(tt.res)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("got  %s\nwant %s", b, tt.want)
		}
		var back GateResult
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(back); string(again) != tt.want {
			t.Errorf("read back as %s", again)
		}
	}
}
