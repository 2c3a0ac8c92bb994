package report

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-loop/git-loop/loop"
)

// hostile is text an agent or a gate may print, which the HTML report must show as text.
const hostile = `<script>alert(1)</script><img src="https://example.com/x.png" onerror="alert(2)">`

// checkSelfContained fails unless page loads nothing from anywhere and runs no script: no
// script element, no tag referring to anything (src, href, srcset, xlink:href), no
// stylesheet import. Text may name a URL: escaped, it is no reference.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	lower := strings.ToLower(page)
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "<embed", "@import", "url("} {
		if i := strings.Index(lower, bad); i >= 0 {
			t.Fatalf("the HTML report contains %q: …%s…", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	if m := referenceRE.FindString(lower); m != "" {
		t.Fatalf("the HTML report refers to something: %s", m)
	}
}

// referenceRE finds a tag with an attribute that loads or links something.
var referenceRE = regexp.MustCompile(`<[a-z][^<>]*\s(src|href|srcset|xlink:href|action|formaction|background)\s*=[^<>]*>`)

// checkNoURL fails if page names any URL at all (for pages whose text has none).
func checkNoURL(t *testing.T, page string) {
	t.Helper()
	if i := strings.Index(strings.ToLower(page), "http"); i >= 0 {
		t.Fatalf("the HTML report names a URL: …%s…", page[max(0, i-80):min(len(page), i+80)])
	}
}

// TestReportHTMLEscapes: agent messages, gate output, reasons and the task are escaped, and
// the page is self-contained: no script, no external asset.
func TestReportHTMLEscapes(t *testing.T) {
	r := longReport(3)
	r.Task = "task " + hostile
	r.Reason = "reason " + hostile
	r.Timeline[1].Message = "message " + hostile
	r.Timeline[1].Reason = "why " + hostile
	r.Timeline[2].Diffstat = &StepDiff{Added: 1, Changed: 1, Files: []loop.FileStat{{Path: hostile, Added: 1}}}
	r.Defects.Items[0].Summary = "summary " + hostile
	r.Rework = append(r.Rework, ReworkEvent{Iteration: 1, Layer: "test", Reason: hostile})
	r.ReleaseReasons = append(r.ReleaseReasons, hostile)
	page, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(page))
	for _, want := range []string{"message &lt;script&gt;alert(1)&lt;/script&gt;", "task &lt;script&gt;", "summary &lt;script&gt;", "why &lt;script&gt;"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
}

// FuzzReportHTML: whatever the agent writes and the gates print, the page has no script and
// no external reference.
func FuzzReportHTML(f *testing.F) {
	f.Add(hostile, "--- FAIL: <b>x</b>", "build")
	f.Add("</pre><script>x</script>", "</title><script>", "a\"b")
	f.Add("javascript:alert(1)", "<svg onload=alert(1)>", "<style>")
	f.Fuzz(func(t *testing.T, message, tail, reason string) {
		r := longReport(2)
		r.Timeline[1].Message, r.Timeline[2].Reason, r.Task = message, reason, tail
		r.Defects.Items[0].Summary = failureLine(tail)
		page, err := r.HTML()
		if err != nil {
			t.Fatal(err)
		}
		lower := strings.ToLower(string(page))
		if strings.Contains(lower, "<script") || strings.Count(lower, "<svg") != 4 || handlerRE.MatchString(lower) || strings.Count(lower, "<style") != 1 {
			t.Fatalf("the page lets the text through as markup:\n%s", page)
		}
	})
}

// handlerRE finds an event handler attribute in a tag (escaped text has no "<").
var handlerRE = regexp.MustCompile(`<[a-z][^<>]*\son[a-z]+\s*=`)

var rectRE = regexp.MustCompile(`<rect class="[dg]-`)

// TestReportHTMLSizes: the matrix of a loop of 1 iteration and of 500 has one cell per
// iteration and gate (plus the decision row), at a readable size: a long loop scrolls. A
// loop just started has no figure.
func TestReportHTMLSizes(t *testing.T) {
	for _, n := range []int{0, 1, 500} {
		r := longReport(n)
		page, err := r.HTML()
		if err != nil {
			t.Fatal(err)
		}
		checkSelfContained(t, string(page))
		checkNoURL(t, string(page))
		if n == 0 {
			if !strings.Contains(string(page), "No iteration yet.") || strings.Contains(string(page), "<svg") {
				t.Errorf("a loop without iterations draws figures:\n%s", page)
			}
			continue
		}
		matrix := string(page)[strings.Index(string(page), `<svg id="matrix"`):]
		matrix = matrix[:strings.Index(matrix, "</svg>")]
		if got, want := len(rectRE.FindAllString(matrix, -1)), n*(1+len(r.Layers)); got != want {
			t.Errorf("%d iterations: %d matrix cells, want %d", n, got, want)
		}
		g := newGrid(r)
		if g.cell < cellMin || g.cell > cellMax || len(page) > 4<<20 {
			t.Errorf("%d iterations: cell %.1fpx, page %d bytes", n, g.cell, len(page))
		}
		if n == 500 && !strings.Contains(string(page), `id="iteration-500"`) {
			t.Errorf("the iterations table does not reach iteration 500")
		}
		if !strings.Contains(string(page), `class="line-coverage"`) || !strings.Contains(string(page), `class="bar-gates"`) || n > 1 && !strings.Contains(string(page), `<polyline class="line-passed"`) {
			t.Errorf("%d iterations: the timeline has no coverage line or durations", n)
		}
	}
}

// chromium finds Debian's chromium (or chromium-browser) on PATH.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install chromium): the HTML report is not rendered")
	return ""
}

// TestReportHTMLRendersInChromium loads HTML reports in headless Chromium and checks the
// DOM it built: for a recorded loop, the summary, the matrix and timeline SVGs with their cells
// and the agent's message as escaped text; for a loop of 500 iterations, every matrix cell
// and the timeline's lines. No script element either way.
func TestReportHTMLRendersInChromium(t *testing.T) {
	browser := chromium(t)
	recorded, _ := reportOfLoop(t)
	dom := renderDOM(t, browser, recorded)
	for _, want := range []string{`<svg id="matrix"`, `<svg id="timeline"`, `<footer id="verdict"`, `<rect class="g-fail"`, `<rect class="g-pass"`,
		`class="bar-gates"`, "Verdict: ", "done &lt;script&gt;alert(1)&lt;/script&gt;", `<tr id="iteration-2">`, "fixed.txt"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	if cells := len(rectRE.FindAllString(dom, -1)); cells != 2*(1+len(recorded.Layers)) {
		t.Errorf("the rendered matrix has %d cells, want %d", cells, 2*(1+len(recorded.Layers)))
	}
	long := longReport(500)
	dom = renderDOM(t, browser, long)
	if cells := len(rectRE.FindAllString(dom, -1)); cells != 500*(1+len(long.Layers)) {
		t.Errorf("the rendered 500-iteration matrix has %d cells, want %d", cells, 500*(1+len(long.Layers)))
	}
	for _, want := range []string{`<polyline class="line-passed"`, `<polyline class="line-coverage"`, `<tr id="iteration-500">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered 500-iteration report lacks %q", want)
		}
	}
}

// renderDOM loads r's HTML page in headless Chromium and returns the DOM it built.
func renderDOM(t *testing.T, browser string, r Report) string {
	t.Helper()
	page, err := r.HTML()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+path)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	if !strings.Contains(dom, "</html>") || strings.Contains(strings.ToLower(dom), "<script") {
		t.Fatalf("chromium did not load the page, or it has a script:\n%.2000s", dom)
	}
	return dom
}
