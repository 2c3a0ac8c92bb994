#!/usr/bin/env bash
# Times the Claude Code stop hook of two builds in one run, interleaved so that a busy or
# shared machine slows both alike: REV (a commit, built from `git archive`) against the
# working tree. Active: a loop without gates, the last message read from the 3.1 MB
# transcript; idle: no loop. Prints medians.
# Usage: testdata/bench/hook_ab.sh REV [rounds]   (default 101)
set -euo pipefail
rev=${1:?usage: hook_ab.sh REV [rounds]}
rounds=${2:-101}
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$root/testdata/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src-a" "$work/bin"
(cd "$root" && git archive "$rev" | tar -x -C "$work/src-a")
(cd "$work/src-a" && go build -o "$work/bin/a" .)
(cd "$root" && go build -o "$work/bin/b" .)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[loop]\n\tshape = tool\n\tnoProgressLimit = 1000000\n\tstuckLimit = 1000000\n' >"$GIT_CONFIG_GLOBAL"
. "$root/testdata/bench/lib.sh"
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null 2>&1 || true; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u/1000 }'; }
for v in a b; do
  mkdir -p "$work/$v/repo" "$work/$v/idle"
  (cd "$work/$v/repo" && git init -q && echo a >a.txt && git add -A && git commit -qm init &&
    "$work/bin/$v" start bench -p bench --promise NEVER-SAID --unlimited >/dev/null)
  (cd "$work/$v/idle" && git init -q)
  for kind in repo idle; do
    printf '{"session_id":"s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' \
      "$corpus" "$work/$v/$kind" >"$work/$v/$kind.json"
  done
done
hook() { "$work/bin/$1" hook claude stop <"$work/$1/$2.json"; }
for i in $(seq "$rounds"); do
  order="a b"; [ $((i % 2)) = 0 ] && order="b a"
  for v in $order; do
    time_us hook "$v" repo >>"$work/$v.active"
    time_us hook "$v" idle >>"$work/$v.idle"
  done
done
for v in a b; do
  name=$rev; [ "$v" = b ] && name="working tree"
  echo "$name: active $(ms "$(median <"$work/$v.active")"), idle $(ms "$(median <"$work/$v.idle")")"
done
