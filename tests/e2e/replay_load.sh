#!/bin/bash
# replay_load.sh: a replay reproduces its run every time, with no retry,
# on a busy machine (tests/run-all.sh runs it under tests/lib/under-load,
# a busy loop on every CPU, in `make check-e2e-load`; run by hand it
# measures the quiet machine).  Timing must never be a scheduling step, and a recorded
# preemption must replay at its instruction:
#  - passing runs recorded once (`launch -n 1`) replay 50 times out of 50
#    (exit 0, verdict pass, no divergence): /bin/true, long_compute (one
#    thread computing ~80 ms without a system call), spin_handoff (two
#    threads spinning without a system call: its trace holds preemptions);
#  - spin_handoff's trace holds preemptions, each in a spin loop with
#    its state; preempt_compute (two threads computing while the other is
#    runnable) and long_compute hold none (a computation that ends by
#    itself is not preempted); preempt_compute replays 20 times out of 20;
#  - memory_progress (a computation whose state at an instruction repeats
#    while its progress is in memory) holds no preemption: it is no spin;
#    5 replays of its run print what the run printed;
#  - budget_compute with --slice-us 100 holds preemptions of a
#    computation (its CPU budget used up) and replays 5 times out of 5;
#  - tight_compute with --slice-us 200 (a one-instruction loop) holds
#    preemptions of a computation, taken where its function returns, and
#    replays 20 times out of 20 within the usual replay timeout;
#  - a failing run of each buggy target of TARGETS_BUGGY (sync
#    granularity) and of each TARGETS_MEM target (mem granularity), both
#    read from tests/Makemodule.am, replays 20 times out of 20 (exit 1,
#    reproduced).  A TARGETS_MEM program without a bug (po_writers) has
#    its run 1 replayed instead (exit 0).
# Each target's count and the distinct divergence messages are printed as
# diagnostics.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=1
RUNS=200
PASS_REPLAYS=50
REPLAYS=20
REPLAY_TIMEOUT=10
# Strategies tried in turn to find a failing run: random first; the
# default strategy finds the bugs random almost never hits (deep_order,
# atomicity_far).
STRATEGIES="random surw"
if [ -n "${SC_UNDER_LOAD:-}" ]; then
	load="under load"
else
	load=quiet
fi

# shellcheck source=tests/lib/am_targets.sh
. "$top_srcdir/tests/lib/am_targets.sh"

# run1_trace JSON: the trace of run 1 of the launch summary in JSON (the
# daemon keeps run 1's trace whether it failed or not).
run1_trace() {
	local dir
	dir=$(json_get "$1" 'd["out_dir"]') || return 1
	printf '%s/run-000001.sctrace\n' "$dir"
}

# replay_times LABEL TRACE N WANT: replay TRACE N times; each replay must
# exit 0 with verdict pass and no divergence (WANT=pass), or exit 1 with
# the recorded bug reproduced (WANT=bug).  One TAP line; the count and
# each distinct failure (exit, verdict, message) with how often it came
# as diagnostics.  A replay takes 10-100 ms: --timeout bounds one that
# hangs (it then fails) so that the test still ends in time.  The JSON
# is read once at the end, by one python3.
replay_times() {
	local label=$1 trace=$2 n=$3 want=$4 i rc dir good
	if [ -z "$trace" ] || [ ! -f "$trace" ]; then
		tap_not_ok "$label: replays $n times out of $n (no trace: '$trace')"
		return
	fi
	dir=$(mktemp -d "$SC_TMP/replays.XXXXXX")
	for i in $(seq "$n"); do
		rc=0
		sc replay --timeout "$REPLAY_TIMEOUT" "$trace" --json \
			>"$dir/$i.json" 2>"$dir/$i.err" || rc=$?
		echo "$rc" >"$dir/$i.rc"
	done
	python3 "$top_srcdir/tests/lib/replay_score.py" "$dir" "$n" "$want" \
		>"$dir/summary"
	good=$(head -n 1 "$dir/summary")
	tap_diag "$label: ${good:-?} replays reproduced ($load)"
	tail -n +2 "$dir/summary" >"$dir/failures"
	tap_diag_file "$dir/failures" 50
	tap_is "$good" "$n/$n" "$label: replays $n times out of $n"
}

# preempts LABEL TRACE WANT: the trace holds spin preemptions (WANT
# spin: each with its recorded state) or none at all (WANT none: a
# computation that ends by itself is never preempted, whatever the time
# it takes); prints the count.
preempts() {
	local all spins
	all=$(sc export "$2" --format json 2>/dev/null |
		grep -c '"kind":"preempt"')
	spins=$(sc export "$2" --format json 2>/dev/null |
		grep '"kind":"preempt"' | grep -c '"preempted_in":"spin"')
	tap_diag "$1: $all preempt events in the recorded run, $spins in a spin ($load)"
	if [ "$3" = spin ]; then
		tap_is "$([ "$all" -gt 0 ] && [ "$spins" -eq "$all" ] && echo yes)" yes \
			"$1: the trace holds preemptions, all in a spin loop with their state"
	else
		tap_is "$all" 0 "$1: a computation that ends by itself is not preempted"
	fi
}

# same_output TRACE N: how many of N replays of TRACE print what its run
# printed (the run's .out file beside it).
same_output() {
	local same=0 i
	for i in $(seq "$2"); do
		sc replay --timeout "$REPLAY_TIMEOUT" "$1" >"$SC_TMP/same.$i.out" \
			2>/dev/null && cmp -s "$SC_TMP/same.$i.out" "${1%.sctrace}.out" &&
			same=$((same + 1))
	done
	echo "$same"
}

# The clock is part of the schedule (vclock.c): a program that measures
# its threads' work and branches on it prints, in every replay of its run
# 1 (a pilot run at mem granularity), what the run printed.
bin=$(sc_target clock_reader)
rc=$(sc_launch_json "$SC_TMP/clock.json" -n 2 --seed 1 --keep-going \
	--keep-traces all -- "$bin")
trace=$(run1_trace "$SC_TMP/clock.json")
tap_diag "clock_reader run 1: $(head -n 1 "${trace%.sctrace}.out" 2>/dev/null)"
tap_is "$(same_output "$trace" 10)" 10 "clock_reader: 10 replays of run 1 print the clock readings the run printed ($load)"
# Another session of the seed prints the same, but for the wall clock's
# seconds: the clocks start at a whole second, not at the fraction the
# session started at, which changed the reads until the next millisecond.
rc=$(sc_launch_json "$SC_TMP/clock2.json" -n 2 --seed 1 --keep-going \
	--keep-traces all -- "$bin")
trace2=$(run1_trace "$SC_TMP/clock2.json")
tap_diag "clock_reader: $(tail -n 1 "${trace%.sctrace}.out" 2>/dev/null), then $(tail -n 1 "${trace2%.sctrace}.out" 2>/dev/null)"
tap_check "clock_reader: a second session of seed 1 prints the same but for the wall clock's seconds ($load)" \
	cmp -s <(grep -v '^wall' "${trace%.sctrace}.out") <(grep -v '^wall' "${trace2%.sctrace}.out")

# A GoogleTest binary prints each test's duration: its pilot runs (mem
# granularity) diverged in replay before the clock was virtual.
if [ -f /usr/include/gtest/gtest.h ] &&
   g++ -std=c++17 -O1 -g -o "$SC_BIN/gtest_timed" \
	"$top_srcdir/tests/targets/gtest_threads.cc" -lgtest -lgtest_main \
	-pthread 2>"$SC_TMP/gtest.err"; then
	rc=$(sc_launch_json "$SC_TMP/gtest.json" -n 2 --seed 1 --keep-going \
		--keep-traces all -- "$SC_BIN/gtest_timed")
	replay_times "gtest_threads (durations printed) run 1, a pilot run" \
		"$(run1_trace "$SC_TMP/gtest.json")" 10 pass
else
	tap_skip "gtest_threads with durations" "no libgtest-dev"
fi

# One recorded passing run, replayed N times.
for spec in "/bin/true:$PASS_REPLAYS" "long_compute:$PASS_REPLAYS" \
	"spin_handoff:$PASS_REPLAYS" "preempt_compute:$REPLAYS"; do
	name=${spec%%:*}
	n=${spec#*:}
	case $name in
	/*) bin=$name ;;
	*) bin=$(sc_target "$name") ;;
	esac
	label=${name##*/}
	json=$SC_TMP/$label.json
	# sync: at race granularity run 1 is a pilot at mem, where a
	# spin's loads are events and no time slice ever expires.
	rc=$(sc_launch_json "$json" -n 1 --seed "$SEED" --granularity sync -- "$bin")
	tap_is "$rc" 0 "$label: launch -n 1 passes"
	[ "$rc" -eq 0 ] || tap_diag_file "$json.err"
	trace=$(run1_trace "$json")
	case $name in
	spin_handoff) preempts "$label" "$trace" spin ;;
	preempt_compute | long_compute) preempts "$label" "$trace" none ;;
	esac
	replay_times "$label" "$trace" "$n" pass
done

# memory_progress's state at a hot instruction repeats, its progress is
# in memory: taken for a spin, it was preempted at the state's second
# occurrence, and a replay (which stops a spin at any occurrence) stopped
# it early: same events, other output.  -s random: preemptions by the
# time slice.
bin=$(sc_target memory_progress)
json=$SC_TMP/memory_progress.json
rc=$(sc_launch_json "$json" -n 1 --seed "$SEED" -s random --granularity sync -- "$bin")
tap_is "$rc" 0 "memory_progress: launch -n 1 passes"
trace=$(run1_trace "$json")
preempts memory_progress "$trace" none
tap_is "$(same_output "$trace" 5)" 5 "memory_progress: 5 replays print what the run printed ($load)"

# budget_run NAME SLICE_US: record run 1 of NAME with --slice-us SLICE_US
# and check that its trace holds preemptions of a computation (its CPU
# budget used up); sets trace.
budget_run() {
	local json=$SC_TMP/$1.json budget rc
	rc=$(sc_launch_json "$json" -n 1 --seed "$SEED" --slice-us "$2" \
		--granularity sync -- "$(sc_target "$1")")
	tap_is "$rc" 0 "$1: launch -n 1 --slice-us $2 passes"
	trace=$(run1_trace "$json")
	budget=$(sc export "$trace" --format json 2>/dev/null |
		grep '"kind":"preempt"' | grep -c '"preempted_in":"computation"')
	tap_diag "$1: $budget preemptions of a computation ($load)"
	tap_is "$([ "$budget" -gt 0 ] && echo yes)" yes \
		"$1: the trace holds preemptions of a computation"
}

# A computation preempted when it has used its CPU budget (250 slices;
# --slice-us 100 makes that 25 ms): the instruction was chosen by timing,
# and replay must stop the thread there, in the same register state.  A
# few replays only: each closes in on its points (seconds).
budget_run budget_compute 100
saved_timeout=$REPLAY_TIMEOUT
REPLAY_TIMEOUT=300
replay_times budget_compute "$trace" 5 pass
REPLAY_TIMEOUT=$saved_timeout

# A tight loop (a million turns a millisecond) used up its budget: the
# preemption waits where its function returns, an instruction that runs
# once, and the replay finds it at once (in the loop it would scan for
# minutes, far past REPLAY_TIMEOUT).
budget_run tight_compute 200
replay_times tight_compute "$trace" "$REPLAYS" pass
# Out of time where the recorded run was not: the replay's slowness,
# never a hang bug of the program (exit 3, not 1).
rc=0
sc replay --timeout 0.01 --json "$trace" >"$SC_TMP/tight_short.json" \
	2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/tight_short.json" '[d["verdict"], "did not finish within" in (d["message"] or ""), bool(re.search(r"got through \d+ of its \d+ events", d["message"] or ""))]')" \
	'3/["diverged", true, true]' \
	"tight_compute: a replay out of its --timeout is no hang bug (exit 3, says so and how far it got)"

# find_bug LABEL BIN ARGS...: a failing run, trying each of STRATEGIES
# (ARGS are launch options); sets json to the summary of the session that
# found it, or of the last one.  Fails when none found a bug.
find_bug() {
	local label=$1 bin=$2 strategy rc
	shift 2
	for strategy in $STRATEGIES; do
		json=$SC_TMP/$label.$strategy.json
		rc=$(sc_launch_json "$json" -s "$strategy" -n "$RUNS" --seed "$SEED" \
			"$@" -- "$bin")
		if [ "$rc" -eq 1 ]; then
			tap_diag "$label: -s $strategy finds a bug ($(json_get "$json" 'd["bugs"][0]["kind"]')) at run $(json_get "$json" 'd["first_bug_run"]')"
			return 0
		fi
		tap_diag "$label: -s $strategy: no bug in $RUNS runs (exit $rc)"
		[ "$rc" -eq 0 ] || tap_diag_file "$json.err" 5
	done
	return 1
}

# A livelock cut by its step budget and one cut by its time budget: both
# threads are preempted in their spins again and again, and the last one
# let go has no recorded event left.  Each replay ends where the
# recording did, with the hang and the recorded count of events (it used
# to spin on until the replay's own --timeout, events short).
for budget in "--max-steps 25" "--timeout 1"; do
	json=$SC_TMP/livelock.json
	# shellcheck disable=SC2086
	rc=$(sc_launch_json "$json" -n 1 --seed "$SEED" --granularity sync \
		$budget -- "$(sc_target livelock)")
	trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
	steps=$(json_get "$json" 'd["events"]')
	good=0
	for i in $(seq 10); do
		rc=0
		sc replay --timeout 60 --json "$trace" >"$SC_TMP/ll_replay.json" \
			2>/dev/null || rc=$?
		got="$rc $(json_get "$SC_TMP/ll_replay.json" 'd["verdict"], d["steps"], "ran out of its budget here" in (d["message"] or "")')"
		if [ "$got" = "1 ('hang', $steps, True)" ]; then
			good=$((good + 1))
		else
			tap_diag "livelock ($budget): replay $i: $got"
		fi
	done
	tap_is "$good" 10 "livelock ($budget, $steps events): 10 replays end with the recorded hang, at its last event ($load)"
done

# Failing runs at sync granularity: each must be found and replayed.
for name in $(am_targets TARGETS_BUGGY); do
	if find_bug "$name" "$(sc_target "$name")" --granularity sync; then
		tap_ok "$name: a failing run within $RUNS runs"
		replay_times "$name" "$(json_get "$json" 'd["bugs"][0]["trace"]')" \
			"$REPLAYS" bug
	else
		tap_not_ok "$name: a failing run within $RUNS runs"
		tap_not_ok "$name: replays $REPLAYS times out of $REPLAYS (no failing run)"
	fi
done

# At mem granularity: the racy targets' failing runs; a correct one
# (no bug found) replays its passing run 1 instead.
for name in $(am_targets TARGETS_MEM); do
	if find_bug "$name@mem" "$(sc_target "$name")" --granularity mem; then
		replay_times "$name@mem" "$(json_get "$json" 'd["bugs"][0]["trace"]')" \
			"$REPLAYS" bug
	else
		tap_diag "$name@mem: no failing run: replaying its passing run 1"
		replay_times "$name@mem (passing run)" "$(run1_trace "$json")" \
			"$REPLAYS" pass
	fi
done

sc_check_no_leftovers
tap_done
