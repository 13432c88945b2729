#!/bin/bash
# correct_targets.sh: correct programs never fail under the random
# strategy, every run completes, and what a controlled run prints equals
# what the program prints natively (the supervisor changes the schedule,
# not the program's behaviour).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

RUNS=100

for name in bounded_buffer sync_zoo pipe_reader eventfd_mailbox poll_ticker poll_timeout_reader fork_exec many_threads \
	spin_handoff c11_threads cancel_blocked exec_threaded main_pthread_exit \
	signal_wakes_sleeper robust_owner_dies pshared_sem yield_until_timeouts timed_measure \
	yield_then_write pshared_deadline deadline_order spin_until_poll \
	itimer_measured; do
	bin=$(sc_target "$name")
	native=$SC_TMP/$name.native
	json=$SC_TMP/$name.json
	out=$SC_TMP/out-$name

	rc=0
	"$bin" >"$native" 2>/dev/null </dev/null || rc=$?
	[ "$rc" -eq 0 ] || tap_diag "$name: native run exited $rc"

	rc=0
	sc launch --json -s random -n "$RUNS" --out "$out" -- "$bin" \
		>"$json" 2>"$SC_TMP/$name.err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		tap_ok "$name: $RUNS random runs find no bug (exit 0)"
	else
		tap_not_ok "$name: $RUNS random runs find no bug (exit 0, got $rc)"
		tap_diag "$(json_get "$json" 'd["bugs"][0]["kind"]'): $(json_get "$json" 'd["bugs"][0]["message"]')"
		tap_diag_file "$SC_TMP/$name.err"
	fi
	tap_is "$(json_get "$json" 'd["runs"]')/$(json_get "$json" 'd["failing_runs"]')" \
		"$RUNS/0" "$name: runs/failing_runs is $RUNS/0"

	if run1=$(sc_run_output "$out" 1); then
		if cmp -s "$native" "$run1"; then
			tap_ok "$name: run 1 prints what a native run prints"
		else
			tap_not_ok "$name: run 1 prints what a native run prints"
			tap_diag "native:" "$(head -n 10 "$native")"
			tap_diag "run 1 ($run1):" "$(head -n 10 "$run1")"
		fi
	else
		tap_not_ok "$name: run 1 prints what a native run prints (no run-000001.out)"
	fi
done

# A worker's 20 ms timeout while main busy-waits for its flag, with the
# default configuration: main is seen waiting, so the timeout comes.  (A
# cond_timedwait while main loaded the flag hung 5 of 10 runs; a poll
# while main read the clock between its loads, 3 of 4; each took the
# run's whole --timeout.)
for mode in "cond flag" "cond clock" "poll clock"; do
	json=$SC_TMP/spin_until.json
	# shellcheck disable=SC2086
	rc=$(sc_launch_json "$json" -n 10 --seed 0xb2 --keep-going --timeout 10 \
		-- "$(sc_target spin_until_poll)" $mode)
	tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 0/0 \
		"spin_until_poll $mode: 10 default runs, no false hang"
	[ "$rc" -eq 0 ] || tap_diag "$(json_get "$json" 'd["bugs"][0]["message"]')"
done

# A run is pinned to one CPU with its supervisor; the program must still
# see the CPUs it sees natively (nproc, OpenMP and thread pools size
# themselves by sched_getaffinity), in the run and in its replay.
out=$SC_TMP/nproc
rc=0
sc launch -n 2 --keep-traces all --out "$out" -- nproc >/dev/null 2>&1 || rc=$?
tap_is "$rc/$(cat "$out/run-000001.out" 2>/dev/null)" "0/$(nproc)" \
	"nproc: a controlled run prints $(nproc), as natively"
rc=0
sc replay "$out/run-000001.sctrace" >"$SC_TMP/nproc.replay" 2>/dev/null || rc=$?
tap_is "$rc/$(cat "$SC_TMP/nproc.replay")" "0/$(nproc)" \
	"nproc: its replay passes and prints $(nproc) too"

# A poller that checks a flag under a mutex until a second thread sets
# it: the default strategy (surw) must let the setter run.  It kept the
# poller running for good at events on a mutex no other thread had yet
# touched in the run (2 false hangs in 50 runs with this seed); the step
# budget makes such a starvation a deterministic verdict.
json=$SC_TMP/poll_flag.json
rc=0
sc launch --json -n 50 --seed 1 --keep-going --max-steps 4000 \
	-- "$(sc_target poll_flag)" >"$json" 2>"$SC_TMP/poll_flag.err" || rc=$?
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 0/0 \
	"poll_flag: 50 default (surw) runs, no false hang (the setter runs)"
[ "$rc" -eq 0 ] || tap_diag "$(json_get "$json" 'd["bugs"][0]["message"]')"

# --max-steps counts only the steps where another thread could have run:
# main taking a mutex 3000 times while its worker sleeps on a condition
# variable (6000 lock events, no choice in any) is long, not stuck.  It
# was a false "hang" at its step budget (node's main thread: 1.7 million
# mutex calls while its workers slept; a sqlite3 shell).  A livelock
# still ends at the budget (replay_load.sh).
json=$SC_TMP/lone.json
rc=$(sc_launch_json "$json" -n 10 --seed 1 --keep-going --max-steps 1000 \
	-- "$(sc_target lone_locker)")
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 0/0 \
	"lone_locker: 6000 lock events without a choice pass --max-steps 1000"

sc_check_no_leftovers
tap_done
