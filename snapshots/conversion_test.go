package snapshots

import "testing"

// TestExcludedDirAttributes: an ignored directory's tracked files are snapshotted, and
// converted by that directory's .gitattributes as git add -A converts them.
func TestExcludedDirAttributes(t *testing.T) {
	dir := newRepo(t)
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "build/.gitattributes", "*.txt text eol=lf\n")
	write(t, dir, "build/x.txt", "a\nb\n")
	git(t, dir, "add", "-f", "build/x.txt", "build/.gitattributes")
	git(t, dir, "commit", "-qm", "x")
	write(t, dir, "build/x.txt", "a\r\nb\r\nc\r\n")
	checkSnapshot(t, dir)
	checkSnapshot(t, dir)
}
