package textutil

import "github.com/sergi/go-diff/diffmatchpatch"

// LineDiff is a line-level diff of a and b: each Diff's text is whole lines.
func LineDiff(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
}
