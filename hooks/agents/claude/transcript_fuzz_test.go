package claude

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-loop/git-loop/hooks/sessionlog"
	"github.com/git-loop/git-loop/hooks/sessionlog/logtest"
)

// fuzzSeeds adds the corpus's short lines, alone and in runs, as seeds; the fuzzer mutates
// them. Missing corpus: the synthetic seeds only.
func fuzzSeeds(add func(data []byte)) {
	add(nil)
	add([]byte("\xff\xfe\x00garbage\n{{{\n"))
	add(logtest.JSONLines(promptLine("go"), textLine("m1", "done", 1), toolUseLine("m1", 2), toolResultLine("ok"), progressLine("p")))
	add(logtest.JSONLines(promptLine("go"), textLine("m1", "done", 1)[:40]))
	add([]byte(`{"type":"assistant","Type":"user","message":{"content":"x"}}` + "\n" + `{"type":"us\u0065r","message":{"content":[{"type":"tool_result"}]}}`))
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 200)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	add(random)
	dir := os.Getenv("GITLOOP_TRANSCRIPTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "testdata", "transcripts")
	}
	for _, name := range []string{"short.jsonl", "tool_heavy.jsonl"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i, l := range lines {
			if len(l) < 4000 {
				add(l)
			}
			if i+3 <= len(lines) {
				if run := bytes.Join(lines[i:i+3], nil); len(run) < 8000 {
					add(run)
				}
			}
		}
	}
}

// FuzzLastAssistantText: on any bytes, with any chunk and line cap, the backwards reader does
// not panic and finds what the forward reference finds.
func FuzzLastAssistantText(f *testing.F) {
	fuzzSeeds(func(data []byte) { f.Add(data, uint16(7), uint16(0)) })
	f.Fuzz(func(t *testing.T, data []byte, chunk, maxLine uint16) {
		c := 1 + int(chunk)%2048
		m := sessionlog.MaxLineBytes
		if maxLine != 0 {
			m = int(maxLine) % 8192
		}
		checkAgainstRef(t, "fuzz", data, c, m)
	})
}

// FuzzPeekType: on valid JSON, peekType agrees with encoding/json or says it cannot tell.
func FuzzPeekType(f *testing.F) {
	fuzzSeeds(func(data []byte) {
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	})
	f.Fuzz(func(t *testing.T, line []byte) {
		checkPeekType(t, line)
	})
}

// FuzzUsageFrom: reading a growing transcript in pieces, cut anywhere, sums to what one read
// of the whole sums; next always lands just after a newline.
func FuzzUsageFrom(f *testing.F) {
	fuzzSeeds(func(data []byte) { f.Add(data, uint64(1), uint16(64)) })
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, chunk uint16) {
		c := 16 + int(chunk)%4096 // bufio's minimum is 16
		whole, next, _, err := usageFrom(bytes.NewReader(data), int64(len(data)), 0, "", logtest.Limits(c, sessionlog.MaxLineBytes))
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(bytes.LastIndexByte(data, '\n') + 1); next != want {
			t.Fatalf("next %d, want %d", next, want)
		}
		rng := rand.New(rand.NewPCG(seed, 5))
		var cuts []int
		for range rng.IntN(8) {
			cuts = append(cuts, rng.IntN(len(data)+1))
		}
		slices.Sort(cuts)
		if got := usageIncremental(t, data, cuts, c, sessionlog.MaxLineBytes); got != whole {
			t.Fatalf("cuts %v: got %+v, whole %+v", cuts, got, whole)
		}
	})
}

// TestFuzzSeedsPublicAPI runs the seeds through the file-based API once, so the public
// wrapper sees the same odd inputs as the in-memory reader.
func TestFuzzSeedsPublicAPI(t *testing.T) {
	dir := t.TempDir()
	n := 0
	fuzzSeeds(func(data []byte) {
		n++
		path := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, found := refLastText(data, sessionlog.MaxLineBytes)
		got, err := LastAssistantText(path)
		if found != (err == nil) || got != want || (err != nil && !errors.Is(err, ErrNoAssistantText)) {
			t.Fatalf("seed %d: got %q, %v; reference %q, %v", n, got, err, want, found)
		}
	})
}
