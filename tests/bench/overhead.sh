#!/bin/bash
# overhead.sh: what control costs, side by side, in one run (`make bench`):
#  1. a raw seccomp RET_TRACE ptrace stop (tests/bench/ptrace_stop), with
#     tracer and tracee on the same CPU and on different CPUs;
#  2. schedctl's cost per scheduling point: wall time of
#     `launch -s random` (and `-s chess`) on tests/bench/events_loop
#     divided by its events;
#  3. the wall time of controlled runs vs `-s native` vs plain execution.
# Timings are reported, never judged: this is not part of `make check`.
#
# Environment: top_builddir (default: the current directory),
# BENCH_RUNS (default 3), BENCH_ITERATIONS (ptrace_stop, default 20000).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
PTRACE_STOP=$top_builddir/tests/bench/ptrace_stop
LOOP=$top_builddir/tests/bench/events_loop
MEMLOOP=$top_builddir/tests/bench/mem_loop
RUNS=${BENCH_RUNS:-3}
# One job per launch: a cost per event is the wall time of runs one after
# another over their events.  With a job per CPU (the default) the runs
# overlap and every figure below came out up to twice too low.
export SCHEDCTL_JOBS=1
ITERATIONS=${BENCH_ITERATIONS:-20000}

for f in "$PTRACE_STOP" "$LOOP" "$MEMLOOP"; do
	if [ ! -x "$f" ]; then
		echo "overhead.sh: $f not built (run: make bench)" >&2
		exit 1
	fi
done
command -v python3 >/dev/null || { echo "overhead.sh: python3 not found" >&2; exit 1; }


# get FILE KEY: a top-level field of a JSON object.
get() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$1" "$2" 2>/dev/null || echo n/a
}
# calc EXPR [FORMAT]: awk arithmetic, "n/a" when an operand is not a number.
calc() {
	case "$1" in *n/a*) echo n/a; return ;; esac
	awk "BEGIN { printf \"${2:-%.2f}\", $1 }"
}
row() { printf '%-44s %12s  %s\n' "$1" "$2" "${3:-}"; }

# 1. Raw ptrace stop.
raw=$("$PTRACE_STOP" "$ITERATIONS")
same=$(awk '$1 == "same_cpu_stop_us" { print $2 }' <<<"$raw")
other=$(awk '$1 == "other_cpu_stop_us" { print $2 }' <<<"$raw")
int3=$(awk '$1 == "same_cpu_int3_stop_us" { print $2 }' <<<"$raw")
int3=${int3:-n/a}
syscall_us=$(awk '$1 == "syscall_us" { print $2 }' <<<"$raw")

# 3a. Plain execution, no tracer.
start=$(date +%s%N)
for _ in $(seq "$RUNS"); do
	"$LOOP" >/dev/null
done
plain_s=$(calc "($(date +%s%N) - $start) / 1e9" %.4f)

# 2 and 3b. Under schedctl (the first launch also starts the daemon).
# launch_cost NAME ARGS...: "wall_seconds events" of RUNS runs of
# events_loop launched with ARGS.
launch_cost() {
	local name=$1
	shift
	if sc launch "$@" -n "$RUNS" --json -- "$LOOP" >"$tmp/$name.json" \
		2>"$tmp/err"; then
		echo "$(get "$tmp/$name.json" wall_seconds) $(get "$tmp/$name.json" events)"
	else
		echo "overhead.sh: schedctl launch $*: $(head -n 1 "$tmp/err")" >&2
		echo "n/a n/a"
	fi
}
random_s=n/a events=n/a native_s=n/a chess_s=n/a chess_events=n/a
still_s=n/a still_events=n/a
if [ -x "$SCHEDCTL" ]; then
	sc launch -s native -n 1 --json -- "$LOOP" >/dev/null 2>&1 || :
	read -r random_s events <<<"$(launch_cost random -s random)"
	# chess's runs here are non-preemptive (each thread runs until it
	# blocks), so fewer events than random's, all of them breakpoints.
	# The same schedule without a search (noise with p = 0: the running
	# thread keeps running) isolates the search's own bookkeeping.
	read -r chess_s chess_events <<<"$(launch_cost chess -s chess)"
	read -r still_s still_events <<<"$(launch_cost still -s noise \
		--noise white --p 0)"
	if sc launch -s native -n "$RUNS" --json -- "$LOOP" >"$tmp/native.json" 2>"$tmp/err"; then
		native_s=$(get "$tmp/native.json" wall_seconds)
	else
		echo "overhead.sh: schedctl launch -s native failed: $(head -n 1 "$tmp/err")" >&2
	fi
else
	echo "overhead.sh: $SCHEDCTL not built: schedctl rows are n/a" >&2
fi
per_event=n/a chess_per_event=n/a
[ "$events" != n/a ] && [ "$events" != 0 ] && per_event=$(calc "$random_s * 1e6 / $events")
still_per_event=n/a
[ "$chess_events" != n/a ] && [ "$chess_events" != 0 ] &&
	chess_per_event=$(calc "$chess_s * 1e6 / $chess_events")
[ "$still_events" != n/a ] && [ "$still_events" != 0 ] &&
	still_per_event=$(calc "$still_s * 1e6 / $still_events")

# 4. --granularity mem: cost per memory event, with the supervisor
# executing plain loads/stores itself (default) and with the classic
# single-step over the breakpoint (SCHEDCTL_NO_EMULATION, read by a daemon
# of its own).
mem_cost() {
	local out=$tmp/mem$1.json s e
	if ! "${@:2}" launch -s random --granularity mem -n "$RUNS" --json -- \
		"$MEMLOOP" >"$out" 2>"$tmp/err"; then
		echo "n/a n/a"
		return
	fi
	s=$(get "$out" wall_seconds)
	e=$(get "$out" events)
	echo "$(calc "$s * 1e6 / $e") $e"
}
sc_nostep() {
	SCHEDCTL_NO_EMULATION=1 SCHEDCTL_SOCKET=$tmp/nostep.sock \
		SCHEDCTL_STATE_DIR=$tmp/state SCHEDCTLD=$SCHEDCTLD "$SCHEDCTL" "$@"
}
read -r mem_us mem_events <<<"$(mem_cost 1 sc)"
read -r step_us step_events <<<"$(mem_cost 2 sc_nostep)"
sc_nostep shutdown >/dev/null 2>&1 || :

echo "schedctl overhead ($(nproc) CPUs, $(uname -r), events_loop: 2 threads x 20000 lock/unlock, $RUNS runs)"
row "measurement" "value" "note"
row "getppid syscall, no tracer" "$syscall_us us"
row "seccomp ptrace stop, tracer on same CPU" "$same us" "$ITERATIONS stops"
row "seccomp ptrace stop, tracer on other CPU" "$other us"
row "breakpoint (int3) ptrace stop, same CPU" "$int3 us" \
	"the floor under the libc sync points"

row "schedctl -s random, per scheduling point" "$per_event us" \
	"$events events; $(calc "$per_event / $same") x a same-CPU stop, $(calc "$per_event / $int3") x an int3 stop"
row "the same schedule without a search, per point" "$still_per_event us" \
	"$still_events events (noise, p = 0)"
row "schedctl -s chess, per scheduling point" "$chess_per_event us" \
	"$chess_events events; $(calc "$chess_per_event / $still_per_event") x the same schedule without a search"
row "schedctl --granularity mem, per memory event" "$mem_us us" \
	"$mem_events events; $(calc "$mem_us / $same") x a same-CPU stop"
row "  the same, single-stepping every access" "$step_us us" \
	"$step_events events; $(calc "$step_us / $same") x a same-CPU stop"
row "plain execution, $RUNS runs" "$plain_s s" "1.00 x"
row "schedctl -s native, $RUNS runs" "$native_s s" "$(calc "$native_s / $plain_s") x plain"
row "schedctl -s random, $RUNS runs" "$random_s s" "$(calc "$random_s / $plain_s") x plain"
