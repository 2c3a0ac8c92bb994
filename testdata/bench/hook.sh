#!/usr/bin/env bash
# Times the Claude Code stop hook in one run and prints medians and ratios (issue 3):
#   idle (no active loop)  vs  a bash stop hook that reads stdin and tests for one file
#   active, no gates, last message read from the real 3.1 MB transcript
#   the same with that transcript repeated to ~95 MB
# Usage: testdata/bench/hook.sh [rounds]   (default 21)
set -euo pipefail
rounds=${1:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$root/testdata/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/bin/git-loop" .)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig PATH=$work/bin:$PATH
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[loop]\n\tshape = tool\n' >"$GIT_CONFIG_GLOBAL"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# time_us CMD... : wall time in microseconds (no $(...) around the clock: it would fork)
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null 2>&1 || true; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u/1000 }'; }

# the bash stop hook's idle path: read stdin, test for the state file, exit
cat >"$work/bash-hook" <<'SH'
#!/usr/bin/env bash
input=$(cat)
[[ -f .claude/ralph-loop.local.md ]] || exit 0
SH
chmod +x "$work/bash-hook"

repo=$work/repo
mkdir -p "$repo" && cd "$repo" && git init -q && echo a >a.txt && git add -A && git commit -qm init
printf '{"session_id":"s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' "$corpus" "$repo" >"$work/small.json"
idle() { git-loop hook claude stop <"$work/small.json"; }
bashhook() { "$work/bash-hook" <"$work/small.json"; }
: >"$work/b"; : >"$work/i"
for _ in $(seq "$rounds"); do time_us bashhook >>"$work/b"; time_us idle >>"$work/i"; done
b=$(median <"$work/b"); i=$(median <"$work/i")
echo "idle hook: git-loop $(ms "$i"), bash $(ms "$b"), ratio $(awk -v a="$i" -v b="$b" 'BEGIN{printf "%.2f", a/b}')x (target <= 0.7x)"

# active loop without gates: each stop is one iteration (unlimited, breakers off by limits)
git-loop start bench -p bench --promise NEVER-SAID --unlimited >/dev/null
git config -f .gitloop loop.noProgressLimit 1000000; git config -f .gitloop loop.stuckLimit 1000000
git-loop cancel >/dev/null; git-loop start bench2 -p bench --promise NEVER-SAID --unlimited >/dev/null
big=$work/big.jsonl
for _ in $(seq 30); do cat "$corpus"; done >"$big"
printf '{"session_id":"s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":true}' "$big" "$repo" >"$work/big.json"
active() { git-loop hook claude stop <"$1"; }
: >"$work/s"; : >"$work/l"
for _ in $(seq "$rounds"); do time_us active "$work/small.json" >>"$work/s"; time_us active "$work/big.json" >>"$work/l"; done
s=$(median <"$work/s"); l=$(median <"$work/l")
echo "active, 3.1 MB transcript: $(ms "$s") (target <= 15 ms)"
echo "active, $(du -m "$big" | cut -f1) MB transcript: $(ms "$l"), ratio $(awk -v a="$l" -v b="$s" 'BEGIN{printf "%.2f", a/b}')x of the 3.1 MB case (target <= 1.05x)"
