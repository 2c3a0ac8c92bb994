package hooks

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/git-loop/git-loop/hooks/agents"
	"github.com/git-loop/git-loop/hooks/kit"
)

// TestRunRecoversAPanic: a bug of git-loop's that panics in a handler lets the agent stop
// (exit 0, one line on stderr), never exit 2, which Claude Code would feed back to the model
// as a block.
func TestRunRecoversAPanic(t *testing.T) {
	boom := &kit.Agent{Name: "boom", Product: "Boom", Events: []kit.Event{{Name: "stop",
		Run: func(context.Context, kit.Hook, kit.Streams) int {
			var m map[string]int
			m["x"]++ // a nil map: the kind of bug a payload may find
			return 1
		}}}}
	saved := agents.All
	agents.All = append(append([]*kit.Agent(nil), saved...), boom)
	defer func() { agents.All = saved }()

	var out, errb bytes.Buffer
	code := Run(context.Background(), "boom", "stop", Streams{Stdin: strings.NewReader("{}"), Stdout: &out, Stderr: &errb})
	if code != 0 || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q; want 0 and nothing", code, out.String())
	}
	if e := errb.String(); !strings.HasPrefix(e, "git-loop: hook boom stop: internal error: ") || strings.Count(e, "\n") != 1 {
		t.Errorf("stderr %q, want one line naming the internal error", e)
	}
}
