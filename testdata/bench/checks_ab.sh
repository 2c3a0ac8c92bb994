#!/usr/bin/env bash
# What comparing the checks with the loop's start costs a stop (issue 24), on the scale tree:
# the active Claude Code stop hook of REV (a commit from before the comparison, built from
# `git archive`) against the working tree's, interleaved in one worktree, 50 files changed
# before each stop (the same 50 each time, tests among them). Each build drives its own loop
# in its own copy of the same repository (one loop per worktree), stopping by turns. Prints
# the medians and their ratio.
# The tree is COPIES copies of the Go distribution's sources, as in scale.sh.
# Usage: COPIES=8 ROUNDS=21 testdata/bench/checks_ab.sh REV
set -euo pipefail
rev=${1:?usage: checks_ab.sh REV}
copies=${COPIES:-8}
rounds=${ROUNDS:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src-a" "$work/bin"
(cd "$root" && git archive "$rev" | tar -x -C "$work/src-a")
(cd "$work/src-a" && go build -tags urfave_cli_no_docs -o "$work/bin/a" .)
(cd "$root" && go build -tags urfave_cli_no_docs -o "$work/bin/b" .)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
export CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=1000000
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n[loop]\n\tshape = tool\n\tnoProgressLimit = 1000000\n\tstuckLimit = 1000000\n\tsameErrorLimit = 1000000\n' >"$GIT_CONFIG_GLOBAL"
. "$root/testdata/bench/lib.sh"
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
goroot=$(go env GOROOT)
echo "== preparing $copies copies of the Go source tree ($goroot/src)"
repo=$work/repo
mkdir -p "$repo"
for i in $(seq "$copies"); do cp -r "$goroot/src" "$repo/c$i"; done
cd "$repo"
perturbed_repo
git ls-files '*.go' | awk 'NR % 37 == 0 && ++n <= 50' >"$work/pool50"
echo "   $(grep -c '_test\.go$' "$work/pool50") of the 50 changed files are tests"
touch_files() { xargs -d '\n' sh -c 'for f; do echo "// $0" >>"$f"; done' "$1" <"$2"; }
cd "$work" && cp -a repo repo-a && mv repo repo-b
for v in a b; do
	(cd "$work/repo-$v" && "$work/bin/$v" start bench -p bench --promise NEVER-SAID --unlimited --gate "pass=true" >/dev/null)
done
stop() { # v round: change the 50 files, then time the stop
	cd "$work/repo-$1"
	touch_files "$2" "$work/pool50"
	printf '{"session_id":"s","transcript_path":"","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"working, %s"}' "$PWD" "$2" >"$work/payload-$1.json"
	time_us "$work/bin/$1" hook claude stop <"$work/payload-$1.json"
}
for v in a b; do stop $v warm >/dev/null; done
echo "== active stop hook, one gate (true), 50 files changed before each stop ($rounds rounds, interleaved)"
for i in $(seq "$rounds"); do
	order="a b"; [ $((i % 2)) = 0 ] && order="b a"
	for v in $order; do stop $v "r$i" >>"$work/$v"; done
done
a=$(median <"$work/a"); b=$(median <"$work/b")
awk -v r="$rev" -v a="$a" -v b="$b" 'BEGIN { printf "%s: %.1f ms   working tree: %.1f ms   ratio %.3fx\n", r, a/1000, b/1000, b/a }'
(cd "$work/repo-b" && "$work/bin/b" log bench -n 3)
