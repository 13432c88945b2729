#!/bin/bash
# analyze_speed.sh: how fast `schedctl analyze` goes, and how big traces
# are (`make bench`):
#  1. events per second of `analyze --json --no-files` over a large
#     synthetic mem-granularity session (tests/bench/gen_session: BENCH_RUNS
#     runs of BENCH_EVENTS events, 4 threads, loads/stores/locks), pinned
#     to one CPU when taskset exists; wall and CPU time (goal: >= 5
#     million events per second);
#  2. bytes per event of those trace files, and of real sync-granularity
#     traces of tests/targets/bounded_buffer (goal: < 8).
# Timings are reported, never judged: this is not part of `make check`.
#
# Environment: top_builddir (default: the current directory), BENCH_RUNS
# (default 8), BENCH_EVENTS (default 1000000), BENCH_REPEAT (default 3:
# the best of that many analyses is reported).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
GEN=$top_builddir/tests/bench/gen_session
TARGET=$top_builddir/tests/targets/bounded_buffer
RUNS=${BENCH_RUNS:-8}
EVENTS=${BENCH_EVENTS:-1000000}
REPEAT=${BENCH_REPEAT:-3}

for f in "$SCHEDCTL" "$GEN" "$TARGET"; do
	if [ ! -x "$f" ]; then
		echo "analyze_speed.sh: $f not built (run: make bench)" >&2
		exit 1
	fi
done
command -v python3 >/dev/null || { echo "analyze_speed.sh: python3 not found" >&2; exit 1; }


pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

json() {
	python3 -c 'import json,sys; print(eval(sys.argv[1], {"d": json.load(sys.stdin)}))' "$1"
}
dir_bytes() {
	find "$1" -name '*.sctrace' -printf '%s\n' | awk '{ s += $1 } END { print s }'
}

echo "== analyze speed: $RUNS synthetic runs x $EVENTS events (mem granularity)"
"$GEN" "$tmp/synthetic" "$RUNS" "$EVENTS"
best_wall=
best_cpu=
for _ in $(seq "$REPEAT"); do
	# bash's time: real, user + sys of the analysis alone.
	TIMEFORMAT='%R %U %S'
	t=$( { time "${pin[@]}" "$SCHEDCTL" analyze --json --no-files \
		"$tmp/synthetic" >"$tmp/synthetic.json"; } 2>&1 )
	read -r real user sys <<<"$t"
	cpu=$(python3 -c "print($user + $sys)")
	if [ -z "$best_wall" ] || python3 -c "import sys; sys.exit(0 if $real < $best_wall else 1)"; then
		best_wall=$real
	fi
	if [ -z "$best_cpu" ] || python3 -c "import sys; sys.exit(0 if $cpu < $best_cpu else 1)"; then
		best_cpu=$cpu
	fi
done
events=$(json 'd["events"]' <"$tmp/synthetic.json")
pairs=$(json 'd["distinct_race_pairs"]' <"$tmp/synthetic.json")
bytes=$(dir_bytes "$tmp/synthetic")
python3 - "$events" "$best_wall" "$best_cpu" "$bytes" "$pairs" <<'PY'
import sys
ev, wall, cpu, size, pairs = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
print("events analysed:        %d (%s distinct race pairs found)" % (ev, pairs))
print("best wall time:         %.2f s  -> %.2f million events/s" % (wall, ev / wall / 1e6))
print("best CPU time:          %.2f s  -> %.2f million events/s (goal >= 5)" % (cpu, ev / cpu / 1e6))
print("trace size:             %d bytes -> %.2f bytes/event (goal < 8)" % (size, size / ev))
PY

echo "== bytes per event of real sync traces (bounded_buffer, 20 runs)"
sc launch -s random -n 20 --seed 1 --keep-traces all --out "$tmp/real" \
	-- "$TARGET" >/dev/null
sc analyze --json --no-files "$tmp/real" >"$tmp/real.json"
events=$(json 'd["events"]' <"$tmp/real.json")
bytes=$(dir_bytes "$tmp/real")
python3 -c "import sys; e, b = int(sys.argv[1]), int(sys.argv[2]); print('events: %d, trace bytes: %d -> %.2f bytes/event (header included)' % (e, b, b / e))" "$events" "$bytes"
