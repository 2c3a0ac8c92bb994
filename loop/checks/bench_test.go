package checks

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkFindAppended is Find on the stop of a loop on a large tree: big real test files
// (the Go distribution's own) whose only change is a line appended, the common case when
// an agent works near tests.
func BenchmarkFindAppended(b *testing.B) {
	var changes []Change
	for _, name := range []string{"strings/strings_test.go", "fmt/fmt_test.go", "net/http/serve_test.go", "regexp/all_test.go", "time/time_test.go"} {
		data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", name))
		if err != nil {
			b.Skipf("the Go distribution's sources are not here: %v", err)
		}
		changes = append(changes, Change{Path: name, Old: data, New: append(append([]byte{}, data...), "// appended\n"...)})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w := Find(changes, []string{"go test ./..."}); len(w) != 0 {
			b.Fatalf("weakenings in an appended comment: %+v", w)
		}
	}
}
