// Package report is what a loop comes to: the record built from its history (verdict,
// defects, rework, the timeline with each iteration's diffstat) and its renderings —
// report.yaml and report.md, which the engine stores in a loop's final commit through
// [Files], and JSON, HTML and SVG for `git loop report`.
//
// It reads loops through the engine (package loop) and never changes them; the engine does
// not import it, but is handed [Files] as its [loop.ReportFunc].
package report
