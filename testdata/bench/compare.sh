#!/usr/bin/env bash
# Times whole git-loop commands against git's own equivalent, in one run, and prints the
# median ratio of each pair (issue 2's speed targets):
#   checkpoint, clean tree       vs  GIT_INDEX_FILE=<persistent scratch> git add -A && git write-tree
#   checkpoint, 50 files changed vs  the same, after 50 files changed
#   status on a packed repository with >= 100k objects  vs  git cat-file -p refs/loop/x:state.json
# The tree is the Go distribution's sources ($(go env GOROOT)/src), with some files committed,
# changed, deleted and untracked. Usage: testdata/bench/compare.sh [rounds]   (default 15)
set -euo pipefail
rounds=${1:-15}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/bin/git-loop" .)   # before HOME moves: keep the module cache
export PATH=$work/bin:$PATH
goroot=$(go env GOROOT)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[loop]\n\tshape = tool\n' >"$GIT_CONFIG_GLOBAL"


. "$root/testdata/bench/lib.sh"
# time_us CMD... : wall time of one run in microseconds, read straight from EPOCHREALTIME:
# a $(...) around the clock would fork and add half a millisecond to both sides
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
report() { # name, file of git times, file of git-loop times
	local g l; g=$(median <"$2"); l=$(median <"$3")
	awk -v n="$1" -v g="$g" -v l="$l" 'BEGIN { printf "%-34s git %8.1f ms   git-loop %8.1f ms   ratio %.2fx\n", n, g/1000, l/1000, l/g }'
}

echo "== preparing the Go source tree ($goroot/src)"
repo=$work/go
cp -r "$goroot/src" "$repo"
cd "$repo"
perturbed_repo

scratch=$work/scratch-index
cp .git/index "$scratch"
gitsnap() { GIT_INDEX_FILE=$scratch git add -A && GIT_INDEX_FILE=$scratch git write-tree; }
git-loop start bench -p bench --promise DONE --unlimited >/dev/null
gitsnap >/dev/null; git-loop checkpoint >/dev/null   # warm both caches

echo "== checkpoint, clean tree ($rounds rounds, alternating)"
: >"$work/g"; : >"$work/l"
for _ in $(seq "$rounds"); do
	time_us gitsnap >>"$work/g"
	time_us git-loop checkpoint >>"$work/l"
done
report "checkpoint, clean" "$work/g" "$work/l"

echo "== checkpoint, 50 files changed ($rounds rounds, alternating)"
mapfile -t pool < <(git ls-files '*.go' | awk 'NR % 37 == 0' | head -n 50)
: >"$work/g"; : >"$work/l"
for i in $(seq "$rounds"); do
	for f in "${pool[@]}"; do echo "// g$i" >>"$f"; done
	time_us gitsnap >>"$work/g"
	for f in "${pool[@]}"; do echo "// l$i" >>"$f"; done
	time_us git-loop checkpoint >>"$work/l"
done
report "checkpoint, 50 changed" "$work/g" "$work/l"

echo "== status on a packed repository with >= 100k objects"
big=$work/big
git init -q "$big"
cd "$big"
{ # 110k blobs in 110 commits of 1000 files each, through fast-import
	for c in $(seq 110); do
		echo "commit refs/heads/main"; echo "committer B <b@e> $((1700000000 + c)) +0000"
		msg="c$c"; echo "data ${#msg}"; echo "$msg"
		for f in $(seq 1000); do
			body="$c $f"; echo "M 100644 inline d$c/f$f"; echo "data ${#body}"; echo "$body"
		done
	done
} | git fast-import --quiet
git checkout -q main
git gc -q
objects=$(git count-objects -v | awk '/^in-pack/ {print $2}')
echo "   $objects objects in packs"
git-loop start big -p bench --promise DONE >/dev/null
git gc -q   # the loop's own objects packed too
: >"$work/g"; : >"$work/l"
for _ in $(seq "$rounds"); do
	time_us git cat-file -p refs/loop/big:state.json >>"$work/g"
	time_us git-loop status big >>"$work/l"
done
report "status, packed 100k objects" "$work/g" "$work/l"
