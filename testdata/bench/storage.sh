#!/usr/bin/env bash
# Storage added per iteration (issue 5): what one `git loop checkpoint` adds to .git/objects
# against what `git stash create` adds for the same change, in two identical repositories
# (each writes the change's blobs and trees; the loop adds its state commit and record).
# Sizes are bytes of loose objects, as both write them; unchanged blobs are shared by both.
# Prints each round and the median ratio.
# Usage: testdata/bench/storage.sh [rounds]   (default 10)
set -euo pipefail
rounds=${1:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/bin/git-loop" .)
export PATH=$work/bin:$PATH HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[loop]\n\tshape = tool\n' >"$GIT_CONFIG_GLOBAL"
src=$(go env GOROOT)/src
for r in stash loop; do
	cp -r "$src" "$work/$r"
	(cd "$work/$r" && git init -q && git add -A && git commit -qm base && git gc -q)
done
(cd "$work/loop" && git-loop start bench -p bench --promise DONE --unlimited >/dev/null)
loose() { find "$1/.git/objects" -type f -path '*/objects/??/*' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
mapfile -t files < <(cd "$work/stash" && git ls-files '*.go' | awk 'NR % 211 == 0' | head -n 40)
: >"$work/ratios"
for i in $(seq "$rounds"); do
	for r in stash loop; do # the same change in both: five tracked files edited (stash create
		# records tracked files only), cumulative from HEAD as both record it
		for f in "${files[@]:$(( (i * 5) % 35 )):5}"; do echo "// round $i" >>"$work/$r/$f"; done
	done
	s0=$(loose "$work/stash"); (cd "$work/stash" && git stash create >/dev/null); s1=$(loose "$work/stash")
	l0=$(loose "$work/loop"); (cd "$work/loop" && git-loop checkpoint >/dev/null); l1=$(loose "$work/loop")
	echo "round $i: stash create $((s1 - s0)) B, loop checkpoint $((l1 - l0)) B"
	awk -v l=$((l1 - l0)) -v s=$((s1 - s0)) 'BEGIN { printf "%.3f\n", l / s }' >>"$work/ratios"
done
sort -n "$work/ratios" | awk '{a[NR]=$1} END {printf "median ratio loop/stash: %.2fx (target <= 1.2x)\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
