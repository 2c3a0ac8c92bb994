package loop

import (
	"fmt"
	"strings"

	"github.com/git-loop/git-loop/loop/spec"
)

// Briefing describes a loop for an agent session that starts, resumes or was compacted: the
// task, where the loop stands, what is unmet and what completes it. It says so when this
// session's stops are not held (the loop is paused, or bound to another session).
func (s *Store) Briefing(name, session string) (string, error) {
	st, cfg, err := s.Status(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "git-loop: loop %q is %s in this worktree, iteration %s.\n", name, st.Status, FormatIteration(st.Iteration, st.MaxIterations))
	switch {
	case st.Status != StatusActive:
		fmt.Fprintf(&b, "Its stops are not held while it is %s (%s); a person resumes it with `%s`.\n", st.Status, st.Reason, ResumeCommand(st))
		return b.String(), nil
	case st.Session != "" && session != "" && st.Session != session:
		fmt.Fprintf(&b, "It belongs to another agent session (%s); this session's stops are not held.\n", st.Session)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "Task:\n%s\n", strings.TrimSpace(cfg.Prompt))
	if st.Breakers.LastUnmet != "" {
		fmt.Fprintf(&b, "Unmet at the last stop: %s.\n", st.Breakers.LastUnmet)
	}
	fmt.Fprintf(&b, "%s Stopping earlier sends you back with what still fails.\n", endSentence(cfg))
	if cfg.Shape == spec.ShapeColleague {
		b.WriteString("It runs as a colleague: it pauses for a person after your plan (the first stop), after each stop, and before completing.\n")
	}
	return b.String(), nil
}
