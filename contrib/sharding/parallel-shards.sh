#!/bin/sh
# parallel-shards.sh - one schedctl session split into N shards run by GNU
# parallel, on this machine or over ssh, then merged.
#
#   SHARDS=N OUT=DIR [SSH_LOGINS=host1,host2] [SCHEDCTL=schedctl] \
#       parallel-shards.sh LAUNCH-OPTIONS... -- PROGRAM [ARGS...]
#
# Shard i runs `schedctl launch --shard i/N --json --out DIR/shard-i
# LAUNCH-OPTIONS -- PROGRAM ARGS` (give --seed so that every shard uses
# the same base seed, and -n for the whole session: shard i gets the runs
# r with (r - 1) % N == i - 1).  Each shard's JSON summary goes to
# DIR/shard-i.json; DIR/merged.json then holds the whole session: runs,
# failing_runs, first_bug_run and the bugs of all shards in run order.
#
# Over ssh (SSH_LOGINS), every host needs schedctl, PROGRAM and this
# script at the same paths, and DIR on a shared file system (or fetch it
# back with parallel's --return).  Exit status: 0 no bug, 1 bug found,
# 3 a shard could not run.
set -eu

SCHEDCTL=${SCHEDCTL:-schedctl}
export SCHEDCTL

# One shard (what parallel runs): keep launch's 0/1 apart from failures.
if [ "${1:-}" = --one-shard ]; then
	i=$2
	shift 2
	rc=0
	"$SCHEDCTL" launch --shard "$i/$SHARDS" --json --out "$OUT/shard-$i" \
		"$@" >"$OUT/shard-$i.json" || rc=$?
	[ "$rc" -le 1 ] || echo "shard $i/$SHARDS: schedctl exited $rc" >&2
	exit "$rc"
fi

: "${SHARDS:?set SHARDS to the number of shards}"
: "${OUT:?set OUT to the output directory}"
command -v parallel >/dev/null 2>&1 || {
	echo "$0: GNU parallel not found (Debian: apt-get install parallel)" >&2
	exit 3
}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export SHARDS OUT
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# -q: quote the arguments so that spaces survive; --halt never: a shard
# that finds a bug (exit 1) must not cancel the others.
rc=0
seq "$SHARDS" | parallel --will-cite -q --halt never \
	${SSH_LOGINS:+--sshlogin "$SSH_LOGINS" --env SHARDS --env OUT --env SCHEDCTL} \
	-j "${PARALLEL_JOBS:-$SHARDS}" "$self" --one-shard {} "$@" || rc=$?

python3 - "$OUT" "$SHARDS" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
merged = {"shards": n, "runs": 0, "failing_runs": 0, "bugs": [], "sessions": []}
for i in range(1, n + 1):
    try:
        with open(f"{out}/shard-{i}.json") as f:
            s = json.load(f)
    except (OSError, ValueError):
        print(f"shard {i}/{n}: no summary", file=sys.stderr)
        continue
    merged["sessions"].append(s["session"])
    merged["runs"] += s["runs"]
    merged["failing_runs"] += s["failing_runs"]
    merged["bugs"] += s["bugs"]
merged["bugs"].sort(key=lambda b: b["run"])
merged["first_bug_run"] = merged["bugs"][0]["run"] if merged["bugs"] else None
with open(f"{out}/merged.json", "w") as f:
    json.dump(merged, f, indent=2)
print(f"{merged['runs']} runs in {n} shards, {merged['failing_runs']} failing"
      + (f" (first at run {merged['first_bug_run']})" if merged["bugs"] else ""))
PY
# parallel's status is the number of shards that did not exit 0.
[ "$rc" -eq 0 ] && exit 0
grep -l '"failing_runs": [1-9]' "$OUT"/shard-*.json >/dev/null 2>&1 &&
	[ "$(ls "$OUT"/shard-*.json | wc -l)" -eq "$SHARDS" ] && exit 1
exit 3
