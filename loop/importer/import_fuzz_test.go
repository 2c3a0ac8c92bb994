package importer

import (
	"strings"
	"testing"

	"github.com/git-loop/git-loop/loop"
)

// FuzzParseImport: no input panics any parser; an accepted file yields a non-empty task and
// settings a loop can be configured from; a refused one gets a one-line message.
func FuzzParseImport(f *testing.F) {
	seeds := []string{ralphFixture, officialRalph, "---\ncompletion_promise: \"a\"\ncompletion_promise: b\n  x\n---\nt\n", stravinskyFixture, safeRustFixture, loopStateFixture, moaiFixture,
		"---\nmax_iterations: [\n---\nx\n", "---\n---\n", "---\ncompletion_promise: null\n---\n\n",
		`{"spec":"s","criteriaStatus":{"a":{"met":true,"verification":"assumption"}},"circuitBreaker":{"maxStuck":2}}`,
		`{"current_layer":1,"last_failure":{"layer":[1]},"safety_limits":{"timeout_minutes":1e3}}`,
		`{"iteration":1e400}`, "\ufeff---\r\niteration_count: 1\r\n---\r\n## Iteration 1\r\n", "{", "",
		"---\na: &a [*a]\n---\nx\n", "---\n? [a]\n: b\n---\nx\n",
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	f.Fuzz(func(t *testing.T, data string, which uint8) {
		format := ""
		if which%6 > 0 {
			format = importFormats[int(which%6)-1]
		}
		im, err := parseImport("state", []byte(data), format)
		if err != nil {
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Fatalf("a multi-line message: %q", msg)
			}
			return
		}
		if strings.TrimSpace(im.Prompt) == "" {
			t.Fatalf("accepted with an empty task: %+v", im)
		}
		s := im.Settings()
		if s.MaxIterations != nil && *s.MaxIterations <= 0 {
			t.Fatalf("a limit of %d carried over", *s.MaxIterations)
		}
		for _, c := range s.Policy.Criteria {
			if strings.TrimSpace(c.Name) == "" || c.Verify != loop.VerifyObservation {
				t.Fatalf("bad criterion %+v", c)
			}
		}
		for _, line := range im.NotCarried {
			if strings.Contains(line, "\n") {
				t.Fatalf("a not-carried line spans lines: %q", line)
			}
		}
	})
}
