package checks

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// genGoTests writes a Go test file of n tests, each with a few assertions.
func genGoTests(rng *rand.Rand, n int) (string, [][]int) {
	var b strings.Builder
	b.WriteString("package p\n\nimport \"testing\"\n")
	line := 3
	var asserts [][]int // per test, the assertion lines
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "\nfunc TestCase%d(t *testing.T) {\n", i)
		line += 2
		var as []int
		for j := 0; j < 1+rng.Intn(3); j++ {
			fmt.Fprintf(&b, "\tif got := F%d(%d); got != %d {\n\t\tt.Errorf(\"case %d.%d: %%d\", got)\n\t}\n", i, j, rng.Intn(100), i, j)
			as = append(as, line+1)
			line += 3
		}
		b.WriteString("}\n")
		line++
		asserts = append(asserts, as)
	}
	return b.String(), asserts
}

// TestFindProperties: over generated test files, an unchanged file has no weakening; new
// tests, new assertions and blank lines never count; removing any assertion of a test or a
// whole test always does; and a weakening's key does not move with the lines above it.
func TestFindProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for run := 0; run < 300; run++ {
		src, asserts := genGoTests(rng, 1+rng.Intn(5))
		lines := strings.Split(src, "\n")
		same := []Change{{"p_test.go", []byte(src), []byte(src)}}
		if w := Find(same, nil); len(w) != 0 {
			t.Fatalf("run %d: an unchanged file has weakenings %+v", run, w)
		}
		grown := src + "\nfunc TestMore(t *testing.T) {\n\tif F(1) != 2 {\n\t\tt.Fatal(\"more\")\n\t}\n}\n"
		grown = strings.Replace(grown, "\n}\n", "\n\tif F(9) != 9 {\n\t\tt.Error(\"extra\")\n\t}\n}\n", 1)
		grown = "\n\n" + grown
		if w := Find([]Change{{"p_test.go", []byte(src), []byte(grown)}}, nil); len(w) != 0 {
			t.Fatalf("run %d: growing the tests counts as weakening: %+v", run, w)
		}
		ti := rng.Intn(len(asserts))
		victim := asserts[ti][rng.Intn(len(asserts[ti]))]
		cut := append(append([]string{}, lines[:victim-1]...), lines[victim:]...)
		w := Find([]Change{{"p_test.go", []byte(src), []byte(strings.Join(cut, "\n"))}}, nil)
		if len(w) == 0 || w[0].Kind != KindAssertionRemoved || w[0].Test != fmt.Sprintf("TestCase%d", ti) {
			t.Fatalf("run %d: removing line %d (%q) of TestCase%d gave %+v", run, victim, lines[victim-1], ti, w)
		}
		shifted := Find([]Change{{"p_test.go", []byte("// header\n\n" + src), []byte("// header\n\n" + strings.Join(cut, "\n"))}}, nil)
		if len(shifted) != len(w) || shifted[0].Key != w[0].Key {
			t.Fatalf("run %d: the key moved with the lines above it: %+v vs %+v", run, shifted, w)
		}
		decl := fmt.Sprintf("func TestCase%d(", ti)
		start := strings.Index(src, decl)
		end := start + strings.Index(src[start:], "\n}\n") + 3
		removed := Find([]Change{{"p_test.go", []byte(src), []byte(src[:start] + src[end:])}}, nil)
		if len(removed) != 1 || removed[0].Kind != KindTestRemoved {
			t.Fatalf("run %d: removing TestCase%d gave %+v", run, ti, removed)
		}
	}
}

// FuzzFind: any pair of contents, under any path, gives weakenings that are well formed:
// a kind, a key, one-line reasons, lines within the files.
func FuzzFind(f *testing.F) {
	f.Add("calc_test.go", goTest, strings.Replace(goTest, "got != 4", "got != 0", 1), "go test ./...")
	f.Add("test_calc.py", pyTest, "", "pytest")
	f.Add("package.json", packageJSON, strings.Replace(packageJSON, "node --test", "exit 0", 1), "npm test")
	f.Add("Makefile", makefile, "test:\n\ttrue\n", "make test")
	f.Add("src/lib.rs", rsLib, strings.Replace(rsLib, "#[test]", "#[test]\n#[ignore]", 1), "cargo test")
	f.Fuzz(func(t *testing.T, p, old, cur, gate string) {
		c := Change{Path: p, Old: []byte(old), New: []byte(cur)}
		if cur == "" {
			c.New = nil
		}
		for _, w := range Find([]Change{c}, []string{gate}) {
			if w.Kind == "" || len(w.Key) != 12 || strings.Contains(w.Why, "\n") || w.Line < 0 {
				t.Fatalf("malformed weakening %+v", w)
			}
		}
	})
}
