package ignore

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randTrees is how many random trees TestGitOracleRandom tries; raise it
// for a deeper search, e.g. go test -run OracleRandom -ignore.trees=5000.
var randTrees = flag.Int("ignore.trees", 50, "number of random trees to compare with git")

// randSeed0 is the first seed TestGitOracleRandom uses.
var randSeed0 = flag.Uint64("ignore.seed", 0, "first random tree seed")

// randNames are the file and directory names random trees draw from,
// chosen to collide with the random patterns and to hit special bytes.
var randNames = []string{
	"a", "b", "ab", "abc", "ba", "a.o", "b.o", "x.txt", "y.md", "foo", "bar",
	"foo.bar", "A", "B1", "1", "_z", ".h", "x y", "t ", "#c", "!n", "[b]",
	"q*", `e\f`, "a.b.c", "zz", "Foo", "b-",
}

// randTree is a random worktree: files, directories and ignore files.
type randTree struct {
	r      *rand.Rand
	files  map[string]string
	dirs   []string // every directory, "" for the root
	global string
	info   string
}

func newRandTree(seed uint64) *randTree {
	t := &randTree{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), files: map[string]string{}}
	t.fill("", 0)
	for _, d := range t.dirs {
		if d == "" || t.r.IntN(3) == 0 {
			t.files[joinRel(d, ".gitignore")] = t.ignoreFile(d)
		}
	}
	if t.r.IntN(2) == 0 {
		t.global = t.ignoreFile("")
	}
	if t.r.IntN(2) == 0 {
		t.info = t.ignoreFile("")
	}
	return t
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// fill adds random entries to dir.
func (t *randTree) fill(dir string, depth int) {
	t.dirs = append(t.dirs, dir)
	used := map[string]bool{".gitignore": true}
	for range 2 + t.r.IntN(5) {
		name := randNames[t.r.IntN(len(randNames))]
		if used[name] {
			continue
		}
		used[name] = true
		p := joinRel(dir, name)
		if depth < 3 && t.r.IntN(3) == 0 {
			t.fill(p, depth+1)
			if t.r.IntN(4) == 0 { // an otherwise empty directory
				t.files[p+"/"] = ""
			}
			continue
		}
		t.files[p] = ""
	}
}

// ignoreFile returns random ignore-file content for directory dir.
func (t *randTree) ignoreFile(dir string) string {
	var sb strings.Builder
	n := 1 + t.r.IntN(7)
	if t.r.IntN(4) == 0 {
		n = indexMin + t.r.IntN(12) // long enough to be indexed
	}
	for range n {
		sb.WriteString(t.pattern(dir))
		sb.WriteString([]string{"\n", "\n", "\n", "\r\n"}[t.r.IntN(4)])
	}
	return sb.String()
}

// pattern returns one random pattern line from a small grammar.
func (t *randTree) pattern(dir string) string {
	var sb strings.Builder
	switch t.r.IntN(12) {
	case 0:
		return "# comment"
	case 1:
		sb.WriteString("!")
	case 2:
		sb.WriteString("!")
		sb.WriteString("/")
	case 3:
		sb.WriteString("/")
	}
	n := 1
	if t.r.IntN(3) == 0 {
		n = 2 + t.r.IntN(3)
	}
	for i := range n {
		if i > 0 {
			sb.WriteString("/")
		}
		sb.WriteString(t.segment(dir, n == 1))
	}
	switch t.r.IntN(10) {
	case 0:
		sb.WriteString("/")
	case 1:
		sb.WriteString("  ")
	case 2:
		sb.WriteString(`\ `)
	}
	return sb.String()
}

// segment returns one slash-free piece of a pattern; alone says it is the
// whole pattern, which then should rarely match nearly everything.
func (t *randTree) segment(dir string, alone bool) string {
	k := t.r.IntN(16)
	if alone && k < 8 && t.r.IntN(4) != 0 {
		k = 10
	}
	switch k {
	case 0:
		return "*"
	case 1, 2:
		return "**"
	case 3:
		return "*.o"
	case 4:
		return "[a-c]*"
	case 5:
		return "[!a]*"
	case 6:
		return "[[:alpha:]]*"
	case 7:
		return "?"
	case 8:
		return `\#c`
	case 9:
		return `\!n`
	}
	name := randNames[t.r.IntN(len(randNames))]
	if dir != "" && t.r.IntN(4) == 0 {
		parts := strings.Split(dir, "/")
		name = parts[t.r.IntN(len(parts))]
	}
	return t.mangle(name)
}

// mangle sometimes turns a literal name into a wildcard pattern for it.
func (t *randTree) mangle(name string) string {
	if name == "" || t.r.IntN(2) == 0 {
		return name
	}
	i := t.r.IntN(len(name))
	switch t.r.IntN(6) {
	case 0:
		return name[:i] + "?" + name[i+1:]
	case 1:
		return name[:i] + "*" + name[i+1:]
	case 2:
		return name[:i] + "**" + name[i:]
	case 3:
		return name[:i] + "[" + name[i:i+1] + "x]" + name[i+1:]
	case 4:
		return name[:i] + "*"
	default:
		return "*" + name[i:]
	}
}

func (t *randTree) describe() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "core.excludesFile %q\ninfo/exclude %q\n", t.global, t.info)
	for _, d := range t.dirs {
		if c, ok := t.files[joinRel(d, ".gitignore")]; ok {
			fmt.Fprintf(&sb, "%s/.gitignore %q\n", d, c)
		}
	}
	return sb.String()
}

// TestGitOracleRandom compares the walker with git on seeded random trees.
func TestGitOracleRandom(t *testing.T) {
	trees := *randTrees
	if testing.Short() {
		trees = min(trees, 10)
	}
	listed, total := 0, 0
	for seed := *randSeed0; seed < *randSeed0+uint64(trees); seed++ {
		tree := newRandTree(seed)
		r := newGitRepo(t)
		r.write(t, tree.files)
		r.writeExcludes(t, tree.global, tree.info)
		r.compare(t, fmt.Sprintf("seed %d:\n%s", seed, tree.describe()))
		listed += len(r.untracked(t))
		total += len(tree.files)
	}
	if listed == 0 || listed == total {
		t.Errorf("git listed %d of %d entries: the random patterns do not discriminate", listed, total)
	}
	t.Logf("git listed %d of %d entries", listed, total)
}
