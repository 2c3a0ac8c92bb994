package gitstore

import (
	"strings"
	"testing"
)

func TestCleanGitEnv(t *testing.T) {
	t.Setenv("GIT_DIR", "/elsewhere/.git")
	t.Setenv("GIT_WORK_TREE", "/elsewhere")
	t.Setenv("GIT_INDEX_FILE", "/elsewhere/.git/index")
	t.Setenv("GIT_AUTHOR_NAME", "kept")
	env := strings.Join(CleanGitEnv(), "\n")
	for _, gone := range []string{"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE="} {
		if strings.Contains(env, gone) {
			t.Errorf("%s is still in the environment", gone)
		}
	}
	if !strings.Contains(env, "GIT_AUTHOR_NAME=kept") {
		t.Error("an unrelated git variable was dropped")
	}
}
