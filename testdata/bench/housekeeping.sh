#!/usr/bin/env bash
# What a long loop leaves in .git without anyone running gc (issue 13): ITERATIONS (default
# 1000) checkpoints of a one-file repository, each after a change, with git's default
# gc.auto (6700), so that git-loop's own call of git's automatic maintenance is all that
# packs. Against it, the same changes recorded with `git stash create` (kept reachable with
# `git stash store`, as a tool would keep its snapshots) and packed once by `git gc`.
# Prints the loose objects left (target: under gc.auto) and .git's growth per iteration on
# each side, in bytes (du --apparent-size, directories included), and what the same loop
# costs once fully gc'd: the floor of git-loop's own records, which its housekeeping is held
# to (target: <= 1.2x). The stash ratio is the issue's first target; 1.2x of it is below what
# DESIGN.md's nine objects per iteration can cost in any pack (see the last line: each
# object's index entry, entry header and zlib stream, and the 20-byte name of each new
# object another new one refers to, all incompressible).
# A roll-up keeps the packs it merged and the loose objects it packed for an hour, for
# readers that may have listed them (a running git fsck), and a later roll-up removes them:
# the first lines are what the loop leaves within that hour; the "an hour on" lines what it
# leaves once a roll-up has removed them (simulated: the marks, the packed loose objects and
# the last removal's stamp are dated two hours back, and `git loop maintenance` runs once).
# Usage: ITERATIONS=1000 testdata/bench/housekeeping.sh
set -euo pipefail
n=${ITERATIONS:-1000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${KEEP:-}" ]; then trap - EXIT; echo "keeping $work"; fi
(cd "$root" && go build -tags urfave_cli_no_docs -o "$work/bin/git-loop" .)
export PATH=$work/bin:$PATH HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[loop]\n\tshape = tool\n\tnoProgressLimit = 1000000\n\tstuckLimit = 1000000\n' >"$GIT_CONFIG_GLOBAL"
size() { du -sb --apparent-size "$1/.git" | cut -f1; }
for r in loop stash; do
	mkdir -p "$work/$r" && (cd "$work/$r" && git init -q && echo start >work.txt && git add -A && git commit -qm base)
done
(cd "$work/loop" && git-loop start bench -p bench --promise NEVER-SAID --unlimited >/dev/null)
l0=$(size "$work/loop"); s0=$(size "$work/stash")
for i in $(seq "$n"); do
	echo "iteration $i" >"$work/loop/work.txt"
	(cd "$work/loop" && git-loop checkpoint >/dev/null)
	echo "iteration $i" >"$work/stash/work.txt"
	(cd "$work/stash" && git stash store -m "iteration $i" "$(git stash create)")
done
while [ -e "$work/loop/.git/objects/maintenance.lock" ] || [ -e "$work/loop/.git/gc.pid" ]; do sleep 0.1; done
(cd "$work/stash" && git gc -q)
loose=$(cd "$work/loop" && git count-objects -v | awk '/^count:/ {print $2}')
packs=$(cd "$work/loop" && git count-objects -v | awk '/^packs:/ {print $2}')
l1=$(size "$work/loop"); s1=$(size "$work/stash")
echo "after $n checkpoints, no manual gc, within the hour: $loose loose objects (gc.auto 6700), $packs packs (merged ones kept)"
awk -v n="$n" -v l=$((l1 - l0)) -v s=$((s1 - s0)) 'BEGIN {
	printf ".git growth per iteration within the hour: git-loop %.0f B, git stash create + gc %.0f B, ratio %.2fx\n", l/n, s/n, l/s }'
(cd "$work/loop" && git-loop maintenance >/dev/null &&
	find .git/objects -type f \( -name '*.keep' -o -path '*/objects/[0-9a-f][0-9a-f]/*' \) -exec touch -d '2 hours ago' {} + &&
	{ [ ! -e .git/loop/rollup-removed ] || touch -d '2 hours ago' .git/loop/rollup-removed; } &&
	git-loop maintenance)
loose=$(cd "$work/loop" && git count-objects -v | awk '/^count:/ {print $2}')
packs=$(cd "$work/loop" && git count-objects -v | awk '/^packs:/ {print $2}')
l1=$(size "$work/loop")
echo "an hour on: $loose loose objects, $packs packs"
# What git-loop's own records cost once packed by a full gc: the floor its maintenance aims at.
cp -r "$work/loop" "$work/loop-gc" && (cd "$work/loop-gc" && git gc -q)
g1=$(size "$work/loop-gc")
awk -v n="$n" -v l=$((l1 - l0)) -v s=$((s1 - s0)) -v g=$((g1 - l0)) 'BEGIN {
	printf ".git growth per iteration an hour on: git-loop %.0f B, git stash create + gc %.0f B, ratio %.2fx\n", l/n, s/n, l/s
	printf "git-loop fully gc'\''d: %.0f B per iteration; its housekeeping leaves %.2fx that (target <= 1.2x)\n", g/n, l/g
	printf "floor of DESIGN.md'\''s 9 objects per iteration in any pack, before reflog, timestamps or record content:\n"
	printf "   9 x (28 B of index + 2 B of entry header + 6 B of zlib framing) + 8 links between them x 20 B = 484 B, %.2fx stash\n", 484/(s/n) }'
