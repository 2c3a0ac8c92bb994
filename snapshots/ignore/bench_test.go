package ignore

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchIgnore is a root .gitignore in the style of the common templates
// (Go, Node, Python, Java, editors, OS files), about 200 patterns.
func benchIgnore() string {
	lines := []string{
		"# Binaries", "*.exe", "*.exe~", "*.dll", "*.so", "*.dylib", "*.test", "*.out",
		"go.work", "go.work.sum", "/vendor/", "/bin/", "/dist/",
		"node_modules/", "npm-debug.log*", "yarn-debug.log*", "yarn-error.log*", ".pnpm-debug.log*",
		"lerna-debug.log*", "report.[0-9]*.[0-9]*.[0-9]*.[0-9]*.json", "pids", "*.pid", "*.seed", "*.pid.lock",
		"lib-cov", "coverage", "*.lcov", ".nyc_output", ".grunt", "bower_components", ".lock-wscript",
		"build/Release", "jspm_packages/", "web_modules/", "*.tsbuildinfo", ".npm", ".eslintcache",
		".stylelintcache", ".rpt2_cache/", ".rts2_cache_cjs/", ".node_repl_history", "*.tgz", ".yarn-integrity",
		".env", ".env.development.local", ".env.test.local", ".env.production.local", ".env.local",
		".cache", ".parcel-cache", ".next", "out", ".nuxt", ".vuepress/dist", ".docusaurus",
		".serverless/", ".fusebox/", ".dynamodb/", ".tern-port", ".vscode-test", ".yarn/cache",
		".yarn/unplugged", ".yarn/build-state.yml", ".yarn/install-state.gz", ".pnp.*",
		"__pycache__/", "*.py[cod]", "*$py.class", "*.egg-info/", ".installed.cfg", "*.egg", "MANIFEST",
		"*.manifest", "*.spec", "pip-log.txt", "pip-delete-this-directory.txt", "htmlcov/", ".tox/", ".nox/",
		".coverage", ".coverage.*", "nosetests.xml", "coverage.xml", "*.cover", "*.py,cover", ".hypothesis/",
		".pytest_cache/", "cover/", "*.mo", "*.pot", "local_settings.py", "db.sqlite3", "db.sqlite3-journal",
		"instance/", ".webassets-cache", ".scrapy", "docs/_build/", ".pybuilder/", "target/", ".ipynb_checkpoints",
		"profile_default/", "ipython_config.py", ".pdm.toml", "__pypackages__/", "celerybeat-schedule",
		"celerybeat.pid", "*.sage.py", ".venv", "env/", "venv/", "ENV/", "env.bak/", "venv.bak/",
		".spyderproject", ".spyproject", ".ropeproject", "/site", ".mypy_cache/", ".dmypy.json", "dmypy.json",
		".pyre/", ".pytype/", "cython_debug/", "*.class", "*.log", "*.ctxt", ".mtj.tmp/", "*.jar", "*.war",
		"*.nar", "*.ear", "*.zip", "*.tar.gz", "*.rar", "hs_err_pid*", "replay_pid*",
		".DS_Store", ".AppleDouble", ".LSOverride", "Icon\r", "._*", ".DocumentRevisions-V100", ".fseventsd",
		".Spotlight-V100", ".TemporaryItems", ".Trashes", ".VolumeIcon.icns", ".com.apple.timemachine.donotpresent",
		".AppleDB", ".AppleDesktop", "Network Trash Folder", "Temporary Items", ".apdisk",
		"*~", ".fuse_hidden*", ".directory", ".Trash-*", ".nfs*", "Thumbs.db", "Thumbs.db:encryptable",
		"ehthumbs.db", "ehthumbs_vista.db", "*.stackdump", "[Dd]esktop.ini", "$RECYCLE.BIN/", "*.cab", "*.msi",
		"*.msix", "*.msm", "*.msp", "*.lnk", ".idea/", "*.iml", "*.ipr", "*.iws", "out/", ".idea_modules/",
		"atlassian-ide-plugin.xml", ".vscode/*", "!.vscode/settings.json", "!.vscode/tasks.json",
		"!.vscode/launch.json", "!.vscode/extensions.json", "*.code-workspace", ".history/", "*.swp", "*.swo",
		"[._]*.s[a-v][a-z]", "[._]*.sw[a-p]", "[._]s[a-rt-v][a-z]", "[._]ss[a-gi-z]", "[._]sw[a-p]",
		"Session.vim", "Sessionx.vim", ".netrwhist", "tags", "[._]*.un~", "/testdata/golden/*.actual",
		"**/generated/**", "docs/**/*.tmp", "/scratch", "internal/**/mock_*.go", "!internal/keep/mock_keep.go",
		"*.pb.go", "!api/**/*.pb.go", "tmp/", "logs/", "*.bak", "*.orig", "*.rej",
	}
	return strings.Join(lines, "\n") + "\n"
}

// benchCase is one Match call as the walker makes it.
type benchCase struct {
	m     *Matcher
	path  string
	isDir bool
}

// benchCases builds about 15,000 paths over a source tree whose src/ and
// web/ directories carry their own small .gitignore files.
func benchCases() []benchCase {
	root := NewMatcher(Parse([]byte("*.local\n.idea/\n"), ""), Parse([]byte("/secret\n"), "")).
		With(Parse([]byte(benchIgnore()), ""))
	src := root.With(Parse([]byte("*.gen.go\n!keep.gen.go\n/scratch/\n"), "src"))
	web := root.With(Parse([]byte("dist\n*.map\n!vendor.map\n"), "web"))
	r := rand.New(rand.NewPCG(1, 2))
	exts := []string{".go", ".go", ".go", "_test.go", ".js", ".ts", ".json", ".md", ".py", ".pyc", ".o", ".txt", ".yaml", ".map", ".gen.go", ""}
	var cases []benchCase
	for len(cases) < 15000 {
		top, m := []string{"src", "web", "docs", "internal", "cmd"}[r.IntN(5)], root
		switch top {
		case "src":
			m = src
		case "web":
			m = web
		}
		dir := fmt.Sprintf("%s/pkg%d/sub%d", top, r.IntN(60), r.IntN(8))
		cases = append(cases, benchCase{m, dir, true})
		for range 10 {
			name := fmt.Sprintf("file%d%s", r.IntN(500), exts[r.IntN(len(exts))])
			cases = append(cases, benchCase{m, dir + "/" + name, false})
		}
	}
	return cases
}

// BenchmarkMatch measures one Match call (ns/op is per path) over a
// realistic tree and ignore rules.
func BenchmarkMatch(b *testing.B) {
	cases := benchCases()
	excluded := 0
	for _, c := range cases {
		if c.m.Match(c.path, c.isDir) {
			excluded++
		}
	}
	b.ReportMetric(float64(excluded)/float64(len(cases)), "excluded/op")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := &cases[i]
		c.m.Match(c.path, c.isDir)
		if i++; i == len(cases) {
			i = 0
		}
	}
}

// BenchmarkMatchTree measures matching a whole 15,000-path tree.
func BenchmarkMatchTree(b *testing.B) {
	cases := benchCases()
	b.ReportAllocs()
	for b.Loop() {
		for i := range cases {
			cases[i].m.Match(cases[i].path, cases[i].isDir)
		}
	}
}

// BenchmarkParse measures parsing and compiling the template .gitignore.
func BenchmarkParse(b *testing.B) {
	content := []byte(benchIgnore())
	b.ReportAllocs()
	for b.Loop() {
		NewMatcher(Parse(content, ""))
	}
}
