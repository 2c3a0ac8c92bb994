package judge

import (
	"fmt"
	"strings"
	"testing"
)

func TestBuildHasEveryPart(t *testing.T) {
	in := Input{Condition: "the README explains --judge", Task: "add --judge", Message: "done, see README", MessageKnown: true,
		Gates: []GateLine{{Name: "test", Status: "pass", Summary: "12 passed"}}, Base: "commit 1a2b3c4",
		Diffstat: " README.md | 3 +++\n", Patch: "diff --git a/README.md b/README.md\n+judge\n"}
	got, cut := Build(in)
	for _, want := range []string{
		fmt.Sprintf("bounded to %d bytes", MaxInput),
		"=== CONDITION ===\nthe README explains --judge\n", "=== TASK ===\nadd --judge\n",
		"=== AGENT'S LAST MESSAGE ===\ndone, see README\n", "- test: pass (12 passed)\n",
		"=== DIFFSTAT against commit 1a2b3c4 ===\n README.md | 3 +++\n", "=== PATCH against commit 1a2b3c4 ===\ndiff --git",
		`{"met": true or false, "impossible": true or false, "reason":`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("input lacks %q:\n%s", want, got)
		}
	}
	if cut || strings.Count(got, "[git-loop:") != 1 { // the one in the instructions
		t.Errorf("an input that fits says it was cut (cut = %v):\n%s", cut, got)
	}
	// Text that looks like a cut mark, in the message or the patch, is not a cut.
	in.Message, in.Patch = "see\n[git-loop: 5 more bytes cut]\n", "+[git-loop: 7 bytes cut before this point]\n"
	if _, cut := Build(in); cut {
		t.Error("an input that fits is reported cut because its patch quotes a cut mark")
	}
}

func TestBuildIsBounded(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		cut  string // a fragment of the line that marks the cut
	}{
		{"huge patch", Input{Condition: "c", Patch: strings.Repeat("+x\n", MaxInput)}, "more bytes cut]"},
		{"patch cut before", Input{Condition: "c", Patch: "+x\n", PatchCut: 5000}, "[git-loop: 5000 more bytes cut]"},
		{"huge message keeps its end", Input{Condition: "c", MessageKnown: true, Message: strings.Repeat("m", 3*maxMessage) + "THE END"}, "bytes cut before this point]"},
		{"huge everything", Input{Condition: strings.Repeat("c", MaxInput), Task: strings.Repeat("t", MaxInput), MessageKnown: true,
			Message: strings.Repeat("m", MaxInput), Diffstat: strings.Repeat("d", MaxInput), Patch: strings.Repeat("p", MaxInput)}, "more bytes cut]"},
		{"multibyte", Input{Condition: "c", Patch: strings.Repeat("é", MaxInput)}, "more bytes cut]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Build(tt.in)
			if !cut {
				t.Fatal("a cut input is not reported cut")
			}
			if len(got) > MaxInput {
				t.Fatalf("input of %d bytes, bound %d", len(got), MaxInput)
			}
			if !strings.Contains(got, tt.cut) {
				t.Fatalf("input does not mark its cut with %q", tt.cut)
			}
			if !strings.Contains(got, "=== PATCH") {
				t.Fatal("the patch section is missing")
			}
			if strings.HasSuffix(tt.name, "keeps its end") && !strings.Contains(got, "THE END") {
				t.Fatal("the message's end was cut")
			}
			if !strings.ContainsRune(got, 'é') && tt.name == "multibyte" {
				t.Fatal("multibyte patch lost")
			}
		})
	}
}

func TestBuildNoMessage(t *testing.T) {
	if got, _ := Build(Input{Condition: "c"}); !strings.Contains(got, "(this agent's stop carries no message)") {
		t.Fatalf("input without a message:\n%s", got)
	}
	if got, _ := Build(Input{Condition: "c", MessageKnown: true}); !strings.Contains(got, "(no message this turn)") {
		t.Fatalf("input with an empty message:\n%s", got)
	}
}
