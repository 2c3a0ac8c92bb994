package gates

import (
	"os/exec"
	"testing"
	"time"
)

// TestProcessExited: a running child has not exited; one that has is seen to, before and
// after it is reaped, and asking does not reap it: its Wait still gets its exit status.
func TestProcessExited(t *testing.T) {
	tests := []struct {
		name     string
		run      string
		exits    bool
		wantCode int
	}{
		{"runs", "sleep 30", false, -1},
		{"exited 0", "exit 0", true, 0},
		{"exited 3", "exit 3", true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tt.run)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			pid := cmd.Process.Pid
			if !tt.exits {
				if processExited(pid) {
					t.Fatal("a running child was said to have exited")
				}
				return
			}
			for i := 0; !processExited(pid); i++ {
				if i > 1000 {
					t.Fatal("a child that exits was never seen to")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !processExited(pid) {
				t.Error("asking twice changed the answer")
			}
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != tt.wantCode {
				t.Errorf("Wait got exit code %d, want %d: the child was reaped by the question", code, tt.wantCode)
			}
			if !processExited(pid) {
				t.Error("a reaped child was said to run")
			}
		})
	}
}
