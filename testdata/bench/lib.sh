# Shared by the benchmark scripts (source it).

# median: the median of the numbers on standard input, one per line.
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# perturbed_repo: makes the current directory's files a repository as a working project
# looks: four fifths committed (and packed), the rest untracked, then 1/97 of the tracked
# files changed and 1/101 deleted. Prints how many files it holds.
perturbed_repo() {
	git init -q
	find . -path ./.git -prune -o -type f -print | awk 'NR % 5 != 0' | git add --pathspec-from-file=-
	git commit -qm base
	git gc -q
	git ls-files | awk 'NR % 97 == 0' | while read -r f; do echo "// changed" >>"$f"; done
	git ls-files | awk 'NR % 101 == 0' | xargs rm -f
	local files all
	files=$(git ls-files | wc -l); all=$(find . -path ./.git -prune -o -type f -print | wc -l)
	echo "   $all files in the worktree, $files tracked, $(du -sh --exclude=.git . | cut -f1)"
}
