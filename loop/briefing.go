package loop

import (
	"fmt"
	"strings"
)

// Briefing describes an active loop for an agent session that starts, resumes or was
// compacted: the task, where the loop stands, what is unmet and what completes it.
func (s *Store) Briefing(name string) (string, error) {
	st, cfg, err := s.Status(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "git-loop: loop %q is %s in this worktree, iteration %s.\n", name, st.Status, formatIteration(st.Iteration, st.MaxIterations))
	fmt.Fprintf(&b, "Task:\n%s\n", strings.TrimSpace(cfg.Prompt))
	if st.Breakers.LastUnmet != "" {
		fmt.Fprintf(&b, "Unmet at the last stop: %s.\n", st.Breakers.LastUnmet)
	}
	fmt.Fprintf(&b, "The loop completes when %s. Stopping earlier sends you back with what still fails.\n", completionTerms(cfg))
	return b.String(), nil
}
