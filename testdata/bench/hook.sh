#!/usr/bin/env bash
# Times the Claude Code stop hook in one run and prints medians and ratios (issues 3 and 13):
#   idle (no active loop)  vs  the official ralph-loop plugin's stop hook up to its idle exit:
#                              a #!/bin/bash file that reads stdin and tests for its state file
#                          and vs an empty Go program (the floor of any Go hook: process start)
#   active, no gates, last message read from the real 3.1 MB transcript
#   the same with that transcript repeated to ~95 MB
# Usage: testdata/bench/hook.sh [rounds]   (default 21)
set -euo pipefail
rounds=${1:-21}
root=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$root/testdata/transcripts/4d5611e5-241a-462a-8d15-5122611a9569.jsonl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# built as README's install builds it: without urfave/cli's Markdown docs (blackfriday's init)
(cd "$root" && go build -tags urfave_cli_no_docs -o "$work/bin/git-loop" .)
mkdir -p "$work/empty"
printf 'package main\n\nfunc main() {}\n' >"$work/empty/main.go"
(cd "$work/empty" && GO111MODULE=off go build -o "$work/bin/empty-go" main.go)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig PATH=$work/bin:$PATH
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[loop]\n\tshape = tool\n' >"$GIT_CONFIG_GLOBAL"

. "$root/testdata/bench/lib.sh"
# time_us CMD... : wall time in microseconds (no $(...) around the clock: it would fork)
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null 2>&1 || true; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
ms() { awk -v u="$1" 'BEGIN { printf "%.2f ms", u/1000 }'; }

# the official ralph-loop plugin's stop hook (plugins/ralph-loop/hooks/stop-hook.sh) up to its
# idle exit, as it starts: #!/bin/bash, not through env (one exec less)
cat >"$work/bash-hook" <<'SH'
#!/bin/bash

# Ralph Loop Stop Hook
# Prevents session exit when a ralph-loop is active
# Feeds Claude's output back as input to continue the loop

set -euo pipefail

# Read hook input from stdin (advanced stop hook API)
HOOK_INPUT=$(cat)

# Check if ralph-loop is active
RALPH_STATE_FILE=".claude/ralph-loop.local.md"

if [[ ! -f "$RALPH_STATE_FILE" ]]; then
  # No active loop - allow exit
  exit 0
fi
SH
chmod +x "$work/bash-hook"

repo=$work/repo
mkdir -p "$repo" && cd "$repo" && git init -q && echo a >a.txt && git add -A && git commit -qm init
printf '{"session_id":"s","transcript_path":"%s","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false}' "$corpus" "$repo" >"$work/small.json"
idle() { git-loop hook claude stop <"$work/small.json"; }
bashhook() { "$work/bash-hook" <"$work/small.json"; }
: >"$work/b"; : >"$work/i"; : >"$work/e"
emptygo() { "$work/bin/empty-go" <"$work/small.json"; }
for _ in $(seq "$rounds"); do time_us bashhook >>"$work/b"; time_us idle >>"$work/i"; time_us emptygo >>"$work/e"; done
b=$(median <"$work/b"); i=$(median <"$work/i"); e=$(median <"$work/e")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
echo "idle hook: git-loop $(ms "$i"), #!/bin/bash hook $(ms "$b"), empty Go program $(ms "$e")"
echo "idle hook: git-loop/bash $(ratio "$i" "$b")x (target <= 1.0x), git-loop/empty Go $(ratio "$i" "$e")x (the floor), bash/empty Go $(ratio "$b" "$e")x"
# what is left between git-loop and the floor: package initialisation, largest first
for _ in 1 2 3 4 5; do GODEBUG=inittrace=1 git-loop hook claude stop <"$work/small.json" 2>&1 >/dev/null; done |
	awk '$1 == "init" { t[$2] += $5; n[$2]++ } END { for (p in t) { s += t[p]/n[p]; printf "%.3f %s\n", t[p]/n[p], p } ; printf "%.3f total\n", s }' |
	sort -rn | head -9 | awk '{ printf "   init %-40s %s ms (mean of 5)\n", $2, $1 }'

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
