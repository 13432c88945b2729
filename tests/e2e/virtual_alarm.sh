#!/bin/bash
# virtual_alarm.sh: alarm(2) and setitimer(ITIMER_REAL) run on the run's
# virtual clock.  A watchdog that never fires natively does not fire
# because the tool is slow (it killed correct programs: "crash: killed by
# SIGALRM"), and one that does fire fires at the same step in every run
# of the schedule, so its run replays.  A lone computation that a timer
# ends (alarm_compute) gets its virtual time from its CPU budget
# preemptions, which are steps: no false hang, and its runs replay.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# A 1 ms setitimer beside a worker's 2 ms poll, epoll_wait or select
# loop: the alarms fire in virtual time, before the poll's own (virtual)
# timeout when due first, and never by the machine's clock while the
# worker's wait or main's printf is under way.  Two sessions of a seed
# have the same events and output, and every run replays (QA: 10 of 10
# same-seed runs differed, 1 of 10 replays matched).
itp=$(sc_target itimer_poll)
for how in poll epoll select; do
	for s in 1 2; do
		sc launch --json -n 6 --seed 5 --keep-going --keep-traces all \
			--out "$SC_TMP/itp-$how-$s" -- "$itp" "$how" </dev/null \
			>"$SC_TMP/itp-$how-$s.json" 2>/dev/null
	done
	same=0 replayed=0
	for f in "$SC_TMP/itp-$how-1"/run-*.sctrace; do
		g="$SC_TMP/itp-$how-2/$(basename "$f")"
		cmp -s <(sc export "$f" | python3 -c 'import json,sys; [print(e["thread"], e["kind"], e["object"], e["pc"]) for e in json.load(sys.stdin)["events"]]') \
		       <(sc export "$g" | python3 -c 'import json,sys; [print(e["thread"], e["kind"], e["object"], e["pc"]) for e in json.load(sys.stdin)["events"]]') &&
			cmp -s "${f%.sctrace}.out" "${g%.sctrace}.out" &&
			same=$((same + 1))
		sc replay --json "$f" </dev/null >"$SC_TMP/itp.r.json" 2>/dev/null
		if [ "$(json_get "$SC_TMP/itp.r.json" 'd["matches_recording"]')" = true ]; then
			replayed=$((replayed + 1))
		else
			tap_diag "$how $(basename "$f"): $(json_get "$SC_TMP/itp.r.json" 'd["message"]')"
		fi
	done
	tap_diag "itimer_poll $how: $(head -n 1 "$SC_TMP/itp-$how-1/run-000001.out" 2>/dev/null)"
	tap_is "$same/$replayed" "6/6" \
		"itimer_poll $how: a second session of the seed has the same events and output in 6 of 6 runs, and each replays"
done

bin=$(sc_target alarm_watchdog)

# 16000 lock operations under alarm(1): seconds of real time under
# control, a sixth of a second of virtual time.
rc=0
sc launch --json -n 3 --seed 3 -- "$bin" >"$SC_TMP/ok.json" \
	2>"$SC_TMP/ok.err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/ok.json" 'd["failing_runs"]')" 0/0 \
	"alarm_watchdog: an alarm(1) watchdog does not fire in 3 runs of 16000 lock operations"
[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/ok.err" 5

# A worker that never sees its flag: the watchdog fires after 1 s of
# virtual time (100000 steps) and kills the program.
rc=0
sc launch --json -n 2 --seed 3 --keep-going --keep-traces all \
	--out "$SC_TMP/stuck" -- "$bin" stuck >"$SC_TMP/stuck.json" \
	2>"$SC_TMP/stuck.err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/stuck.json" 'd["failing_runs"]')" 1/2 \
	"alarm_watchdog stuck: the watchdog fires in both runs"
msg=$(json_get "$SC_TMP/stuck.json" 'd["bugs"][0]["message"]')
case $msg in
*SIGALRM*) tap_ok "the verdict names SIGALRM" ;;
*) tap_not_ok "the verdict names SIGALRM (got: $msg)" ;;
esac
rc=0
sc replay --json "$SC_TMP/stuck/run-000001.sctrace" >"$SC_TMP/r.json" \
	2>"$SC_TMP/r.err" || rc=$?
tap_is "$rc $(json_get "$SC_TMP/r.json" 'd["reproduced"]')" "1 true" \
	"alarm_watchdog stuck: the replay reproduces the alarm's crash"
[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/r.err" 5
steps=$(json_get "$SC_TMP/r.json" 'd["steps"]')
case $steps in
1000[0-9][0-9]) tap_ok "it fires after 1 s of virtual time (step $steps)" ;;
*) tap_not_ok "it fires after 1 s of virtual time (step $steps, want 100000-100099)" ;;
esac

# alarm_compute: setitimer(20 ms), then compute alone until the handler
# says stop.  Every run used to be a hang at the time budget (virtual
# time stood still); now each of 4 runs passes (--slice-us 100: a 25 ms
# budget) and replays as recorded, twice.
rc=$(sc_launch_json "$SC_TMP/ac.json" -n 4 --seed 3 --slice-us 100 --timeout 30 \
	--keep-traces all --out "$SC_TMP/ac" -- "$(sc_target alarm_compute)")
tap_is "$rc/$(json_get "$SC_TMP/ac.json" 'd["runs"]')/$(json_get "$SC_TMP/ac.json" 'd["failing_runs"]')" 0/4/0 \
	"alarm_compute: 4 runs stopped by their timer, none a hang"
[ "$rc" -eq 0 ] && grep -q "stopped by the timer" "$SC_TMP/ac/run-000004.out" ||
	tap_diag "$(json_get "$SC_TMP/ac.json" 'd["bugs"][0]["message"]')"
good=0
for f in "$SC_TMP"/ac/run-*.sctrace "$SC_TMP"/ac/run-*.sctrace; do
	sc replay --json "$f" >"$SC_TMP/acr.json" 2>/dev/null || :
	if [ "$(json_get "$SC_TMP/acr.json" 'd["matches_recording"]')" = true ]; then
		good=$((good + 1))
	else
		tap_diag "$(basename "$f"): $(json_get "$SC_TMP/acr.json" 'd["message"]')"
	fi
done
tap_is "$good" 8 "alarm_compute: its 4 runs replay as recorded, twice each"

sc_check_no_leftovers
tap_done
