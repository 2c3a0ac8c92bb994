#!/usr/bin/env bash
# git-loop at monorepo scale against git itself, in one run (issue 13). Prints the median
# ratio of wall time and each side's peak memory for:
#   checkpoint, clean tree         vs  GIT_INDEX_FILE=<persistent scratch> git add -A && git write-tree
#   checkpoint, 50 files changed   vs  the same, after 50 files changed
#   checkpoint, 5,000 files changed vs the same, after 5,000 files changed
#   the active Claude Code stop hook, one gate (`true`)
#                                  vs  a #!/bin/bash stop hook doing the same with git: that
#                                      snapshot, the gate, git commit-tree, git update-ref
# The tree is COPIES copies of the Go distribution's sources ($(go env GOROOT)/src; 8 copies
# make ~92k files, 1.3 GB), a fifth of the files untracked, then 1/97 of the tracked files
# changed and 1/101 deleted. The baseline is compare.sh's: a scratch index kept between runs,
# as a snapshotting tool built on git would keep it. gc.auto=0 on both sides (no background
# repack in the timings). Peak memory is the maximum resident set (`/usr/bin/time -f %M`,
# GNU time: `apt-get install time` if missing), median of 3 runs, of the process tree's
# largest process.
#
# PACK_OBJECTS=N adds N small unreachable blobs to the repository's packs first (git
# fast-import), as a monorepo's long history fills them: look-ups then search a large pack
# index (1,000,000 objects: 28 MB).
#
# Usage: COPIES=8 ROUNDS=7 testdata/bench/scale.sh      (COPIES=1 ROUNDS=3 for a quick run)
set -euo pipefail
copies=${COPIES:-8}
rounds=${ROUNDS:-7}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${KEEP:-}" ]; then trap - EXIT; echo "keeping $work"; fi # to profile in its repository
(cd "$root" && go build -tags urfave_cli_no_docs -o "$work/bin/git-loop" .) # as README installs it
export PATH=$work/bin:$PATH
goroot=$(go env GOROOT)
export HOME=$work/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$work/home/.gitconfig
export CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=1000000 # every stop here is a new turn anyway
mkdir -p "$HOME"
printf '[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n[gc]\n\tauto = 0\n[loop]\n\tshape = tool\n\tnoProgressLimit = 1000000\n\tstuckLimit = 1000000\n' >"$GIT_CONFIG_GLOBAL"

gnutime=/usr/bin/time
if ! "$gnutime" -f %M true >/dev/null 2>&1; then
	echo "note: no GNU time at $gnutime: peak memory is not measured (Debian/Ubuntu: apt-get install time)" >&2
	gnutime=
fi

. "$root/testdata/bench/lib.sh"
# time_us CMD... : wall time of one run in microseconds, read straight from EPOCHREALTIME
time_us() { local t0=${EPOCHREALTIME/./} t1; "$@" >/dev/null; t1=${EPOCHREALTIME/./}; echo $((t1 - t0)); }
# rss_kb CMD... : peak resident set of CMD's largest process, in kB, median of 3; its stdin
# is the file $RSS_STDIN (default /dev/null). With POOL set, the files it lists are changed
# (touch_files, tagged $TAG) before each of the 3 runs, so that each measures a change.
rss_kb() {
	[ -n "$gnutime" ] || { echo 0; return; }
	for i in 1 2 3; do
		[ -z "${POOL:-}" ] || touch_files "$TAG$i" "$POOL"
		"$gnutime" -f %M -o "$work/rss" "$@" <"${RSS_STDIN:-/dev/null}" >/dev/null; cat "$work/rss"
	done | median
}
report() { # name, git times, git-loop times, git kB, git-loop kB
	local g l; g=$(median <"$2"); l=$(median <"$3")
	awk -v n="$1" -v g="$g" -v l="$l" -v gm="$4" -v lm="$5" 'BEGIN {
		printf "%-26s git %8.1f ms  git-loop %8.1f ms  ratio %.2fx", n, g/1000, l/1000, l/g
		if (gm > 0) printf "   peak RSS git %4.0f MB  git-loop %4.0f MB  ratio %.2fx", gm/1024, lm/1024, lm/gm
		printf "\n" }'
}

echo "== preparing $copies copies of the Go source tree ($goroot/src)"
repo=$work/repo
mkdir -p "$repo"
for i in $(seq "$copies"); do cp -r "$goroot/src" "$repo/c$i"; done
cd "$repo"
perturbed_repo
if [ "${PACK_OBJECTS:-0}" -gt 0 ]; then
	awk -v n="$PACK_OBJECTS" 'BEGIN { for (i = 0; i < n; i++) { d = "history blob " i; printf "blob\ndata %d\n%s\n\n", length(d) + 1, d } }' |
		git fast-import --quiet
	echo "   $PACK_OBJECTS more objects packed: $(git count-objects -v | awk '/in-pack/ {print $2}') in packs"
fi

scratch=$work/scratch-index
cp .git/index "$scratch"
cat >"$work/bin/gitsnap" <<SH
#!/bin/bash
GIT_INDEX_FILE=$scratch git add -A && GIT_INDEX_FILE=$scratch git write-tree
SH
chmod +x "$work/bin/gitsnap"
git-loop start bench -p bench --promise NEVER-SAID --unlimited --gate "pass=true" >/dev/null
gitsnap >/dev/null; git-loop checkpoint >/dev/null # warm both caches

# touch_files TAG FILE-OF-PATHS: append a line to each file named in FILE-OF-PATHS
touch_files() { xargs -d '\n' sh -c 'for f; do echo "// $0" >>"$f"; done' "$1" <"$2"; }
git ls-files '*.go' | awk 'NR % 37 == 0 && ++n <= 50' >"$work/pool50"
git ls-files '*.go' | awk 'NR % 3 == 1 && ++n <= 5000' >"$work/pool5000"

checkpoints() { # name, pool file or "" for a clean tree
	: >"$work/g"; : >"$work/l"
	for i in $(seq "$rounds"); do
		[ -z "$2" ] || touch_files "g$i" "$2"
		time_us gitsnap >>"$work/g"
		[ -z "$2" ] || touch_files "l$i" "$2"
		time_us git-loop checkpoint >>"$work/l"
	done
	local gm lm
	gm=$(POOL=$2 TAG=gm rss_kb gitsnap)
	lm=$(POOL=$2 TAG=lm rss_kb git-loop checkpoint)
	report "$1" "$work/g" "$work/l" "$gm" "$lm"
}
echo "== checkpoints ($rounds rounds each, alternating)"
checkpoints "checkpoint, clean" ""
checkpoints "checkpoint, 50 changed" "$work/pool50"
checkpoints "checkpoint, 5000 changed" "$work/pool5000"

echo "== active stop hook, one gate (true), clean tree ($rounds rounds, alternating)"
# the shell hook: what git-loop's hook does, done with git (its decision is fixed: block)
cat >"$work/bin/shell-hook" <<SH
#!/bin/bash
set -euo pipefail
HOOK_INPUT=\$(cat)
export GIT_INDEX_FILE=$scratch
git add -A
tree=\$(git write-tree)
true # the gate
parent=\$(git rev-parse -q --verify refs/bench/shell-hook || true)
commit=\$(git commit-tree "\$tree" \${parent:+-p "\$parent"} -m "iteration")
git update-ref refs/bench/shell-hook "\$commit"
echo '{"decision":"block","reason":"the gate passed; go on"}'
SH
chmod +x "$work/bin/shell-hook"
payload() { # a new turn each time, with its own last message
	printf '{"session_id":"s","transcript_path":"","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"working, %s"}' "$repo" "$1" >"$work/payload.json"
}
loophook() { git-loop hook claude stop <"$work/payload.json"; }
shellhook() { shell-hook <"$work/payload.json"; }
payload warm; loophook | grep -q '"decision":"block"' || { echo "git-loop's hook did not block: $(loophook)" >&2; exit 1; }
: >"$work/g"; : >"$work/l"
for i in $(seq "$rounds"); do
	payload "g$i"; time_us shellhook >>"$work/g"
	payload "l$i"; time_us loophook >>"$work/l"
done
payload gm; gm=$(RSS_STDIN=$work/payload.json rss_kb shell-hook)
payload lm; lm=$(RSS_STDIN=$work/payload.json rss_kb git-loop hook claude stop)
report "active hook, gate true" "$work/g" "$work/l" "$gm" "$lm"
git-loop status bench | grep -q 'active' || echo "warning: the loop is no longer active: $(git-loop status bench | head -3)" >&2
