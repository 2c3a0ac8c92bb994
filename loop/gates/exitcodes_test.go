package gates

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
		{"layered", exitRule{2: StatusBlocked, 3: StatusSkip}, ""},
		{"5=skip", exitRule{5: StatusSkip}, ""},
		{"2=blocked, 3=skip 5=skip", exitRule{2: StatusBlocked, 3: StatusSkip, 5: StatusSkip}, ""},
		{"layered 3=fail", exitRule{2: StatusBlocked, 3: StatusFail}, ""},
		{"3=fail layered", exitRule{2: StatusBlocked, 3: StatusFail}, ""},
		{"1=PASS", exitRule{1: StatusPass}, ""},
		{"0=fail", nil, "exit 0 always passes"},
		{"256=skip", nil, "from 1 to 255"},
		{"-1=skip", nil, "from 1 to 255"},
		{"x=skip", nil, "from 1 to 255"},
		{"3=maybe", nil, "pass, fail, blocked or skip"},
		{"3=timeout", nil, "pass, fail, blocked or skip"},
		{"strict", nil, "neither ci, layered nor CODE=STATUS"},
	}
	for _, tt := range tests {
		got, err := parseExitCodes(tt.spec)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseExitCodes(%q): error %v, want one saying %q", tt.spec, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("parseExitCodes(%q): %v", tt.spec, err)
		case tt.err == "" && !maps.Equal(got, tt.want):
			t.Errorf("parseExitCodes(%q) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestExitRuleStatus(t *testing.T) {
	ci, layered := exitRule{}, exitRule{2: StatusBlocked, 3: StatusSkip}
	for _, tt := range []struct {
		rule exitRule
		code int
		want string
	}{
		{ci, 0, StatusPass}, {ci, 1, StatusFail}, {ci, 2, StatusFail}, {ci, 3, StatusFail}, {ci, 5, StatusFail},
		{ci, 101, StatusFail}, {ci, 127, StatusFail}, {ci, 255, StatusFail},
		{layered, 0, StatusPass}, {layered, 1, StatusFail}, {layered, 2, StatusBlocked}, {layered, 3, StatusSkip}, {layered, 4, StatusFail},
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
		rule, err := parseExitCodes(spec)
		if err != nil {
			return
		}
		if rule.status(0) != StatusPass {
			t.Fatalf("%q: exit 0 does not pass", spec)
		}
		for code := 1; code < 256; code++ {
			switch st := rule.status(code); st {
			case StatusPass, StatusFail, StatusBlocked, StatusSkip:
			default:
				t.Fatalf("%q: exit %d reads as %q", spec, code, st)
			}
		}
	})
}
