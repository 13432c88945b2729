#!/bin/bash
# replay_determinism.sh: a session is a function of its seed: the same
# --seed twice finds the first bug at the same run after the same number
# of events, and a correct program whose threads wake each other in the
# kernel runs the same events; every failing run of two threads that both
# fail an assert replays; a program that calls perror() replays (its
# standard error is write-only in the replay too).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=4242

for name in abba_deadlock check_then_act; do
	bin=$(sc_target "$name")
	for i in 1 2; do
		rc=0
		sc launch --json -s random -n 200 --seed "$SEED" -- "$bin" \
			>"$SC_TMP/$name.$i.json" 2>"$SC_TMP/$name.$i.err" || rc=$?
		[ "$rc" -eq 1 ] || tap_diag "$name: session $i exited $rc"
		tap_diag_file "$SC_TMP/$name.$i.err" 5
	done
	first1=$(json_get "$SC_TMP/$name.1.json" 'd["first_bug_run"]')
	first2=$(json_get "$SC_TMP/$name.2.json" 'd["first_bug_run"]')
	events1=$(json_get "$SC_TMP/$name.1.json" 'd["events"]')
	events2=$(json_get "$SC_TMP/$name.2.json" 'd["events"]')
	tap_diag "$name: first_bug_run $first1 / $first2, events $events1 / $events2"
	case $first1 in
	'' | null) tap_not_ok "$name: seed $SEED finds a bug" ;;
	*) tap_ok "$name: seed $SEED finds a bug" ;;
	esac
	tap_is "$first2" "$first1" "$name: same seed, same first_bug_run"
	tap_is "$events2" "$events1" "$name: same seed, same number of events"
done

# Threads in the kernel whose return timing could decide: asleep in
# poll(2) on eventfds, woken by each other's write(2) (ZeroMQ's
# mailboxes); a poll(2) whose 1 ms timeout is a ticker's clock.  Where
# each return falls among the other thread's events is the strategy's
# choice, not the machine's, so three sessions of one seed run the same
# events (under load too: check-e2e-load).  poll_timeout_reader is left
# out here: 1 session in about 24 ran one event more (open bug, see the
# closing note of 2026-11-27); its replays are checked below.
for name in eventfd_mailbox poll_ticker; do
	bin=$(sc_target "$name")
	counts=
	for i in 1 2 3; do
		rc=0
		sc launch --json -n 20 --seed "$SEED" -- "$bin" \
			>"$SC_TMP/$name.$i.json" 2>"$SC_TMP/$name.$i.err" || rc=$?
		[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/$name.$i.err" 5
		counts="$counts $rc/$(json_get "$SC_TMP/$name.$i.json" 'd["events"]')"
	done
	first=${counts# }
	first=${first%% *}
	tap_is "$counts" " $first $first $first" \
		"$name: the same seed three times runs the same events (exit/events)"
done

# A poll whose 5 ms timeout races with the writer: the timeout is an
# event of the trace, so every run replays, under load too.
bin=$(sc_target poll_timeout_reader)
sc launch --json -n 5 --seed "$SEED" --keep-traces all --out "$SC_TMP/ptr" \
	-- "$bin" >"$SC_TMP/ptr.json" 2>"$SC_TMP/ptr.err" || :
tap_is "$(sc_count_replays "$SC_TMP"/ptr/run-00000[1-5].sctrace)" 5 "poll_timeout_reader: the 5 runs of a session replay"

# A thread that dies holding a robust mutex wakes its waiter from the
# kernel (the robust list), not by a futex call: the wake is recorded
# with its thread_exit and a replay makes it there too.
sc launch --json -n 10 --seed "$SEED" --keep-traces all --out "$SC_TMP/rob" \
	-- "$(sc_target robust_owner_dies)" >"$SC_TMP/rob.json" \
	2>"$SC_TMP/rob.err" || :
tap_is "$(sc_count_replays "$SC_TMP"/rob/run-*.sctrace)" 10 "robust_owner_dies: the 10 runs of a session replay"

# A poll's timeout lasts its time in the run's virtual time (10 us a
# step), not a fixed number of the other threads' steps: main's 2 s wait
# for a worker that takes 3000 steps does not time out.
rc=0
sc launch --json -n 20 --seed "$SEED" -- "$(sc_target poll_wait_worker)" \
	>"$SC_TMP/pww.json" 2>"$SC_TMP/pww.err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/pww.json" 'd["failing_runs"]')" 0/0 \
	"poll_wait_worker: a 2 s poll for a busy worker never times out in 20 runs"
[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/pww.err" 5

# The environment shapes the initial stack (addresses of stack objects
# such as a pthread_t): replay uses the recorded one, so replaying from
# another directory with other variables set still reproduces.
trace=$(json_get "$SC_TMP/abba_deadlock.1.json" 'd["bugs"][0]["trace"]')
rc=0
(cd / && export SCHEDCTL_TEST_EXTRA="$(printf 'x%.0s' $(seq 300))" &&
	sc replay "$trace" --json) >"$SC_TMP/env.json" 2>"$SC_TMP/env.err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/env.json" 'd["reproduced"]')" "1/true" \
	"replay from / with a different environment reproduces the bug"

# A replay of a program rebuilt since the recording diverges, and says
# that the program changed (its build-id), not only where it diverged.
cp "$(sc_target abba_deadlock)" "$SC_BIN/rebuilt"
rc=$(sc_launch_json "$SC_TMP/rebuilt.json" -n 200 --seed "$SEED" -- "$SC_BIN/rebuilt")
trace=$(json_get "$SC_TMP/rebuilt.json" 'd["bugs"][0]["trace"]')
cp "$(sc_target check_then_act)" "$SC_BIN/rebuilt"
rc=0
sc replay "$trace" --json >"$SC_TMP/rebuilt.r.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/rebuilt.r.json" '"rebuilt since the recording: its build-id differs" in (d["message"] or "")')" \
	"3/true" "a replay of a rebuilt program diverges and says its build-id differs"

# Two threads that both fail an assert: in about a quarter of the runs
# both write their message, the first then waits in abort() while the
# second writes.  Every failing run replays as recorded (9 of 100 with
# seed 1 diverged: replay let the others run while the first thread's
# write was still in the kernel, holding stderr's lock).
rm -rf "$SC_TMP/double"
rc=$(sc_launch_json "$SC_TMP/double.json" -n 100 --seed 1 --keep-going \
	--keep-traces failing --out "$SC_TMP/double" -- "$(sc_target double_assert)")
ok=0 n=0
for trace in "$SC_TMP/double"/run-*.sctrace; do
	[ -f "$trace" ] || continue
	n=$((n + 1))
	sc replay --json "$trace" >"$SC_TMP/double.r.json" 2>/dev/null || :
	if [ "$(json_get "$SC_TMP/double.r.json" 'd["matches_recording"]')" = true ]; then
		ok=$((ok + 1))
	else
		tap_diag "double_assert: $trace: $(json_get "$SC_TMP/double.r.json" 'd["message"]')"
	fi
done
two=$(grep -l "the count went up" "$SC_TMP/double"/run-*.err 2>/dev/null | xargs -r grep -c "the count went up" | awk -F: '$2 > 1' | wc -l)
tap_diag "double_assert: $n failing runs, $two with both messages"
tap_is "$rc/$n/$ok/$([ "$two" -gt 0 ] && echo both)" "1/$(json_get "$SC_TMP/double.json" 'd["failing_runs"]')/$n/both" \
	"double_assert: every failing run replays as recorded, also those where both threads wrote"

# perror_exit: perror() takes another path on a read-write stderr than on
# launch's write-only one; each of its runs replays, with the message.
json=$SC_TMP/perror.json
rc=$(sc_launch_json "$json" -n 3 --seed 1 --keep-going -- "$(sc_target perror_exit)")
good=0
for i in 0 1 2; do
	trace=$(json_get "$json" "d['bugs'][$i]['trace']")
	sc replay --json "$trace" >"$SC_TMP/perror.r.json" 2>"$SC_TMP/perror.r.err" || :
	if [ "$(json_get "$SC_TMP/perror.r.json" 'd["matches_recording"]')" = true ] &&
	   grep -q "open config: No such file" "$SC_TMP/perror.r.err"; then
		good=$((good + 1))
	else
		tap_diag "perror_exit: $trace: $(json_get "$SC_TMP/perror.r.json" 'd["message"]')"
	fi
done
tap_is "$rc/$good" 1/3 "perror_exit: its 3 failing runs replay as recorded, perror's message included"

sc_check_no_leftovers
tap_done
