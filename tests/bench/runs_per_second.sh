#!/bin/bash
# runs_per_second.sh: throughput of a session on a small two-thread test
# (tests/targets/c11_threads: main hands 10 numbers to a worker), side by
# side in one run (`make bench`):
#   native       the program run N times in a plain loop (no schedctl)
#   -s native    schedctl launch, uncontrolled runs (session overhead)
#   random -j1   schedctl launch -s random --jobs 1
#   random -j2   schedctl launch -s random --jobs 2
# Runs per second = N / wall seconds measured around the whole command.
# Timings are reported, never judged: not part of `make check`.
#
# Environment: top_builddir (default: the current directory), BENCH_RUNS
# (runs per measurement, default 400), BENCH_TARGET (default c11_threads).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
TARGET=$top_builddir/tests/targets/${BENCH_TARGET:-c11_threads}
N=${BENCH_RUNS:-400}

[ -x "$TARGET" ] || { echo "runs_per_second.sh: $TARGET not built (run: make bench)" >&2; exit 1; }
[ -x "$SCHEDCTL" ] || { echo "runs_per_second.sh: $SCHEDCTL not built" >&2; exit 1; }


now() { date +%s.%N; }
rate() { python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" "$@"; }

sc ping >/dev/null 2>&1 || sc launch -n 1 -s native -- "$TARGET" >/dev/null

t0=$(now)
for _ in $(seq "$N"); do "$TARGET" >/dev/null; done
t1=$(now)
native=$(rate "$N" "$t0" "$t1")

measure() {
	local t0 t1
	t0=$(now)
	# sync granularity, as the table says (the default, race, would add
	# its pilot runs at mem).
	sc launch -n "$N" --seed 1 --keep-going --keep-traces none \
		--granularity sync "$@" -- \
		"$TARGET" >/dev/null || { echo "runs_per_second.sh: launch $* failed" >&2; exit 1; }
	t1=$(now)
	rate "$N" "$t0" "$t1"
}
snative=$(measure -s native --jobs 1)
j1=$(measure -s random --jobs 1)
j2=$(measure -s random --jobs 2)

echo "runs per second, $N runs of $(basename "$TARGET") on $(nproc) CPUs:"
printf '  %-22s %10s\n' "native (plain loop)" "$native" \
	"schedctl -s native -j1" "$snative" \
	"schedctl random -j1" "$j1" \
	"schedctl random -j2" "$j2"
python3 -c "import sys; j1, j2, n = map(float, sys.argv[1:]); print('  --jobs 2 / --jobs 1: %.2fx; random -j2 / native: %.2f' % (j2 / j1, j2 / n))" "$j1" "$j2" "$native"
