package snapshots

import (
	"fmt"
	"testing"

	"github.com/git-loop/git-loop/gitstore"
)

// BenchmarkStatCache1M loads a stat cache of a synthetic tree of 1,000,000 files (10,000
// directories of 100) and looks every file up, as a clean snapshot does. Run with -benchmem:
// git-loop runs with garbage collection off, so B/op is what this part of a snapshot adds to
// its memory, and B/file (the cache file's own bytes included) shows it bounded per file.
func BenchmarkStatCache1M(b *testing.B) {
	const dirs, perDir = 10000, 100
	c := newStatCache()
	for d := 0; d < dirs; d++ {
		cd := &cachedDir{entries: perDir, files: make([]cachedFile, perDir)}
		for f := range cd.files {
			name := fmt.Sprintf("file%03d.go", f)
			cd.files[f] = cachedFile{name: name, mode: gitstore.ModeFile, hash: gitstore.HashObject(gitstore.BlobObject, []byte(name)),
				stat: fileStat{size: int64(f), mtimeSec: 1700000000, mtimeNsec: int64(d), ino: uint64(d*perDir + f)}}
		}
		c.dirs[fmt.Sprintf("dir%05d", d)] = cd
	}
	data := c.encode()
	names := make([]string, perDir)
	for f := range names {
		names[f] = fmt.Sprintf("file%03d.go", f)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf := append([]byte(nil), data...) // what os.ReadFile makes of the cache file
		parsed, err := parseStatCache(buf)
		if err != nil {
			b.Fatal(err)
		}
		for _, cd := range parsed.dirs {
			for _, name := range names {
				if _, _, ok := cd.file(name); !ok {
					b.Fatalf("%s not found", name)
				}
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(data))/dirs/perDir, "cachefile-B/file")
}
