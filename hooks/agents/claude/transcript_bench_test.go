package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLastAssistantText reads the last turn of the 3.1 MB transcript and of ~95 MB made
// of thirty copies of it: the two must cost the same. "no-text" is the worst case, a file
// with no assistant text and no prompt (the big transcript without its user and assistant
// lines), read backwards all the way.
func BenchmarkLastAssistantText(b *testing.B) {
	data := readCorpus(b, bigTranscript)
	dir := b.TempDir() // both files on the same file system
	small := filepath.Join(dir, "3MB.jsonl")
	large := filepath.Join(dir, "95MB.jsonl")
	if err := os.WriteFile(small, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(large, bytes.Repeat(data, 30), 0o644); err != nil {
		b.Fatal(err)
	}
	var bookkeeping []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if k := peekType(l); k != kindAssistant && k != kindUser {
			bookkeeping = append(bookkeeping, l...)
		}
	}
	noText := filepath.Join(dir, "no-text.jsonl")
	if err := os.WriteFile(noText, bookkeeping, 0o644); err != nil {
		b.Fatal(err)
	}
	want, err := LastAssistantText(small)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name, path string
		size       int
	}{{"3MB", small, len(data)}, {"95MB", large, 30 * len(data)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := LastAssistantText(bc.path)
				if err != nil || got != want {
					b.Fatalf("got %.40q, %v", got, err)
				}
			}
			b.ReportMetric(float64(bc.size)/1e6, "file-MB")
		})
	}
	b.Run("no-text", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(bookkeeping)))
		for b.Loop() {
			if _, err := LastAssistantText(noText); !errors.Is(err, ErrNoAssistantText) {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUsageFrom sums the whole 3.1 MB transcript, and the last 10 KB as an incremental
// caller does after a short turn.
func BenchmarkUsageFrom(b *testing.B) {
	path := filepath.Join(corpusDir(b), bigTranscript)
	data := readCorpus(b, bigTranscript)
	tail := int64(bytes.LastIndexByte(data[:len(data)-10000], '\n') + 1)
	b.Run("whole", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if u, _, _, err := UsageFrom(path, 0, ""); err != nil || u != bigUsage {
				b.Fatal(u, err)
			}
		}
	})
	b.Run("tail-10KB", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, _, err := UsageFrom(path, tail, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLineType compares peekType with encoding/json on the transcript's lines, most of
// them progress lines: the cheap check that lets both readers skip them undecoded.
func BenchmarkLineType(b *testing.B) {
	data := readCorpus(b, bigTranscript)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	b.Run("peekType", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				peekType(l)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			for _, l := range lines {
				var v struct {
					Type string `json:"type"`
				}
				_ = json.Unmarshal(l, &v)
			}
		}
	})
}
