package loop

import (
	"maps"
	"strings"
	"testing"
)

func TestParseExitCodes(t *testing.T) {
	tests := []struct {
		spec string
		want exitRule
		err  string
	}{
		{"", exitRule{}, ""},
		{"ci", exitRule{}, ""},
		{"CI", exitRule{}, ""},
		{"layered", exitRule{2: GateBlocked, 3: GateSkip}, ""},
		{"5=skip", exitRule{5: GateSkip}, ""},
		{"2=blocked, 3=skip 5=skip", exitRule{2: GateBlocked, 3: GateSkip, 5: GateSkip}, ""},
		{"layered 3=fail", exitRule{2: GateBlocked, 3: GateFail}, ""},
		{"3=fail layered", exitRule{2: GateBlocked, 3: GateFail}, ""},
		{"1=PASS", exitRule{1: GatePass}, ""},
		{"0=fail", nil, "exit 0 always passes"},
		{"256=skip", nil, "from 1 to 255"},
		{"-1=skip", nil, "from 1 to 255"},
		{"x=skip", nil, "from 1 to 255"},
		{"3=maybe", nil, "pass, fail, blocked or skip"},
		{"3=timeout", nil, "pass, fail, blocked or skip"},
		{"strict", nil, "neither ci, layered nor CODE=STATUS"},
	}
	for _, tt := range tests {
		got, err := ParseExitCodes(tt.spec)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseExitCodes(%q): error %v, want one saying %q", tt.spec, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("ParseExitCodes(%q): %v", tt.spec, err)
		case tt.err == "" && !maps.Equal(got, tt.want):
			t.Errorf("ParseExitCodes(%q) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestExitRuleStatus(t *testing.T) {
	ci, layered := exitRule{}, exitRule{2: GateBlocked, 3: GateSkip}
	for _, tt := range []struct {
		rule exitRule
		code int
		want string
	}{
		{ci, 0, GatePass}, {ci, 1, GateFail}, {ci, 2, GateFail}, {ci, 3, GateFail}, {ci, 5, GateFail},
		{ci, 101, GateFail}, {ci, 127, GateFail}, {ci, 255, GateFail},
		{layered, 0, GatePass}, {layered, 1, GateFail}, {layered, 2, GateBlocked}, {layered, 3, GateSkip}, {layered, 4, GateFail},
	} {
		if got := tt.rule.status(tt.code); got != tt.want {
			t.Errorf("%v.status(%d) = %s, want %s", tt.rule, tt.code, got, tt.want)
		}
	}
}

// FuzzParseExitCodes: any value parses or is refused without panicking, and a parsed rule
// passes exit 0 and gives every status one of the four a gate may declare.
func FuzzParseExitCodes(f *testing.F) {
	for _, s := range []string{"", "ci", "layered", "2=blocked 3=skip", "5=skip,1=pass", "0=fail", "3=maybe", "layered 3=fail"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		rule, err := ParseExitCodes(spec)
		if err != nil {
			return
		}
		if rule.status(0) != GatePass {
			t.Fatalf("%q: exit 0 does not pass", spec)
		}
		for code := 1; code < 256; code++ {
			switch st := rule.status(code); st {
			case GatePass, GateFail, GateBlocked, GateSkip:
			default:
				t.Fatalf("%q: exit %d reads as %q", spec, code, st)
			}
		}
	})
}
