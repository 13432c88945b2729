#!/bin/bash
# interrupt.sh: Ctrl-C (SIGINT) in a streaming `schedctl launch` stops the
# session cleanly: the CLI exits 130 once the worker is done, nothing of
# the session is left running, and the session is "stopped" with the runs
# done so far.  A program that signals its parent (the worker) neither
# stops nor kills the session.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

correct=$(sc_target bounded_buffer)

# The CLI itself must get the signal, not a subshell: exec it.
(
	SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
		exec "$SCHEDCTL" launch -n 100000 --keep-going -- "$correct" \
		>"$SC_TMP/out" 2>"$SC_TMP/err"
) &
cli=$!

# Wait (up to 60 s) until a run is committed.
id=
for i in $(seq 600); do
	sc status --json >"$SC_TMP/s.json" 2>/dev/null
	id=$(json_get "$SC_TMP/s.json" 'd["sessions"][0]["session"]')
	runs=$(json_get "$SC_TMP/s.json" 'd["sessions"][0]["runs"]')
	[ -n "$id" ] && [ "${runs:-0}" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
tap_diag "session $id: $runs runs before Ctrl-C"

kill -INT "$cli"
rc=0
wait "$cli" || rc=$?
tap_is "$rc" 130 "the CLI exits 130 after SIGINT"
if grep -q "interrupted: session $id stopped" "$SC_TMP/err"; then
	tap_ok "it says the session was stopped"
else
	tap_not_ok "it says the session was stopped"
	tap_diag_file "$SC_TMP/err"
fi
sc_check_no_targets_left "no target left running right after the CLI returned"

sc status "$id" --json >"$SC_TMP/s.json" 2>&1
tap_is "$(json_get "$SC_TMP/s.json" 'd["state"]')" stopped "the session's state is stopped"
done_runs=$(json_get "$SC_TMP/s.json" 'd["runs"]')
if [ "${done_runs:-0}" -ge 1 ] && [ "${done_runs:-0}" -lt 100000 ] 2>/dev/null; then
	tap_ok "its runs so far are kept ($done_runs)"
else
	tap_not_ok "its runs so far are kept ('$done_runs')"
fi

# A daemon that accepts and never answers (stopped): ping says so after
# its wait instead of waiting for good, and launch, asked to stop by one
# SIGTERM (as CI's timeout sends), leaves after its grace.
sc ping >/dev/null 2>&1
dpid=$(pgrep -f "schedctld --socket $SC_SOCKET" | head -n1)
if [ -n "$dpid" ] && kill -STOP "$dpid"; then
	rc=0
	sc ping >/dev/null 2>"$SC_TMP/ping.err" || rc=$?
	tap_is "$rc/$(cat "$SC_TMP/ping.err")" \
		"3/schedctl: schedctld does not answer (waited 15 s; is it stopped?)" \
		"ping of a stopped daemon: exit 3, it does not answer"
	kill -CONT "$dpid"
	# A session under way whose daemon and worker stop answering.
	# Not through sc(): $! must be the CLI, not a subshell around it.
	stuck_target=$(sc_target abba_deadlock)
	SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
		SCHEDCTL_JOBS=1 "$SCHEDCTL" launch -n 100000 --keep-going -- \
		"$stuck_target" >"$SC_TMP/stuck.out" 2>"$SC_TMP/stuck.err" &
	lpid=$!
	for _ in $(seq 100); do
		grep -q "^schedctl: session" "$SC_TMP/stuck.out" && break
		sleep 0.1
	done
	sleep 0.5
	dpids=$(pgrep -f "schedctld --socket $SC_SOCKET")
	# shellcheck disable=SC2086
	kill -STOP $dpids
	kill -TERM "$lpid"
	rc=0
	wait "$lpid" || rc=$?
	tap_is "$rc/$(grep -c "did not confirm the stop within 10 s" "$SC_TMP/stuck.err")" "130/1" \
		"launch whose daemon stopped answering leaves after one SIGTERM (130), saying why"
	# shellcheck disable=SC2086
	kill -CONT $dpids
else
	tap_skip "ping of a stopped daemon" "no daemon pid"
	tap_skip "launch on a stopped daemon" "no daemon pid"
fi

# replay ends on SIGINT too, also when started in the background of a
# script (SIGINT inherited as ignored: it ran to its end, exit 0), and
# --json says so on stdout.
sc launch -n 1 --keep-traces all --out "$SC_TMP/long" -- \
	awk 'BEGIN { for (i = 0; i < 300000000; i++) s += i; print s }' >/dev/null 2>&1
SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
	"$SCHEDCTL" replay --json "$SC_TMP/long/run-000001.sctrace" \
	>"$SC_TMP/long.json" 2>/dev/null &
rpid=$!
sleep 1
kill -INT "$rpid"
rc=0
wait "$rpid" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/long.json" 'd["error"], d["exit_status"]')" \
	"130/('interrupted', 130)" "replay in a script's background: SIGINT ends it (130, JSON error)"

# minimize too (QA: in a script's background it could not be
# interrupted): SIGINT while its first run (a long awk that fails) is
# under way ends it (130), and the run with it (no leftovers, below).
sc launch -n 1 --out "$SC_TMP/slowfail" -- \
	awk 'BEGIN { for (i = 0; i < 300000007; i++) s += i; exit 1 }' >/dev/null 2>&1
SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
	"$SCHEDCTL" minimize "$SC_TMP/slowfail/run-000001.sctrace" \
	>/dev/null 2>"$SC_TMP/slowfail.err" </dev/null &
mpid=$!
for _ in $(seq 300); do
	pgrep -f 300000007 >/dev/null && break
	sleep 0.1
done
kill -INT "$mpid"
rc=0
wait "$mpid" || rc=$?
tap_is "$rc" 130 "minimize in a script's background: SIGINT ends it (130)"

# A program that signals its parent signals the session's worker: a
# server's kill(getppid(), SIGUSR1) said "stop" to it, and SIGTERM,
# SIGUSR2, SIGALRM, SIGHUP or a real-time signal ended it, with no run
# done.  Now they are ignored, and the program starts with the default
# dispositions of a fresh shell (the worker's ignored SIGHUP was
# inherited).
parent=$(sc_target signal_parent)
rtmin=$(kill -l RTMIN 2>/dev/null || echo 34)
rc=$(sc_launch_json "$SC_TMP/parent.json" -n 5 --seed 1 -- "$parent" \
	10 15 12 14 1 "$rtmin")
tap_is "$rc/$(json_get "$SC_TMP/parent.json" '[d["runs"], d["failing_runs"]]')" \
	"0/[5, 0]" "a program signalling its parent (USR1 TERM USR2 ALRM HUP RTMIN): 5 runs, no bug"
tap_is "$(cat "$(json_get "$SC_TMP/parent.json" 'd["out_dir"]')/run-000001.out" 2>/dev/null)" \
	"SIGHUP default, SIGPIPE default, SIGUSR1 default" \
	"the program starts with default signal dispositions"
rc=$(sc_launch_json "$SC_TMP/parent1.json" -n 3 --seed 1 -- "$parent")
tap_is "$rc/$(json_get "$SC_TMP/parent1.json" '[d["runs"], d["failing_runs"]]')" \
	"0/[3, 0]" "kill(getppid(), SIGUSR1) does not stop the session"

sc_check_no_leftovers
tap_done
