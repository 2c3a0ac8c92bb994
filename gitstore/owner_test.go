package gitstore

import (
	"os/exec"
	"testing"
)

// TestOwnerGone: a name made by OwnerName says whether its maker still runs; one made on
// another boot or host, or not made by OwnerName, is never said to be gone.
func TestOwnerGone(t *testing.T) {
	me := currentOwner()
	if me.HostKey == "" {
		t.Skip("this system tells no process start times")
	}
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	dead, otherBoot := me, me
	dead.Pid = child.Process.Pid // reaped: its pid is free, or a later process's
	otherBoot.HostKey, otherBoot.Pid = "0123456789abcdef", child.Process.Pid
	tests := []struct {
		name string
		gone bool
	}{
		{OwnerName(), false},
		{dead.recordName(), true},
		{otherBoot.recordName(), false},
		{"gl1_not_a_record", false},
		{"something else", false},
	}
	for _, tt := range tests {
		if got := OwnerGone(tt.name); got != tt.gone {
			t.Errorf("OwnerGone(%q) = %v, want %v", tt.name, got, tt.gone)
		}
	}
	if OwnerName() == OwnerName() {
		t.Error("two names of this process are the same")
	}
}
