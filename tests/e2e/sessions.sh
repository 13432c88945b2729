#!/bin/bash
# sessions.sh: sessions in the index and the queries on them.
#  - list, status and results in human and --json form, for a finished
#    session with bugs (results' bug objects are launch --json's);
#  - two detached sessions at once: both get an id at once, both finish,
#    both are listed "done";
#  - stop: a detached long session stops cleanly (state "stopped", no
#    target left);
#  - the socket is mode 0600 in a 0700 directory; unknown sessions are
#    usage errors.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

buggy=$(sc_target order_violation)
correct=$(sc_target bounded_buffer)

# wait_state ID STATE: poll the index (up to 60 s) until the session has
# that state.  A grace period, not a measurement.
wait_state() {
	local i
	for i in $(seq 300); do
		sc status "$1" --json >"$SC_TMP/ws.json" 2>/dev/null
		[ "$(json_get "$SC_TMP/ws.json" 'd["state"]')" = "$2" ] && return 0
		sleep 0.2
	done
	return 1
}

# --- a finished session with bugs ------------------------------------------
rc=0
sc launch --json -s random -n 40 --seed 7 --keep-going -- "$buggy" \
	>"$SC_TMP/launch.json" 2>"$SC_TMP/launch.err" || rc=$?
tap_is "$rc" 1 "launch --keep-going on a buggy target exits 1"
id=$(json_get "$SC_TMP/launch.json" 'd["session"]')
failing=$(json_get "$SC_TMP/launch.json" 'd["failing_runs"]')
tap_diag "session $id: $failing failing runs of 40"

rc=0
sc list >"$SC_TMP/list.txt" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^$id  *done  *40/40  *$failing " "$SC_TMP/list.txt"; then
	tap_ok "list: one line with id, state done, runs 40/40, failing count"
else
	tap_not_ok "list: one line with id, state done, runs 40/40, failing count"
	tap_diag_file "$SC_TMP/list.txt"
fi

sc list --json >"$SC_TMP/list.json" 2>&1
tap_check "list --json is valid JSON" is_json "$SC_TMP/list.json"
tap_is "$(json_get "$SC_TMP/list.json" '[s["state"] for s in d["sessions"] if s["session"] == "'"$id"'"][0]')" \
	done "list --json: the session is done"
tap_is "$(json_get "$SC_TMP/list.json" '[(s["runs"], s["failing_runs"], s["seed"]) for s in d["sessions"] if s["session"] == "'"$id"'"][0]')" \
	"(40, $failing, '0x7')" "list --json: runs, failing runs and seed"

sc status "$id" >"$SC_TMP/status.txt" 2>&1
if grep -q "runs *40/40 (100%), $failing failing" "$SC_TMP/status.txt" &&
	grep -qE "runs/s|a run every" "$SC_TMP/status.txt"; then
	tap_ok "status SESSION: runs done/planned, failing runs, rate"
else
	tap_not_ok "status SESSION: runs done/planned, failing runs, rate"
	tap_diag_file "$SC_TMP/status.txt"
fi
sc status "$id" --json >"$SC_TMP/status.json" 2>&1
tap_is "$(json_get "$SC_TMP/status.json" '(d["session"], d["state"], d["runs"], d["runs_planned"], d["eta_seconds"], d["runs_per_second"] > 0)')" \
	"('$id', 'done', 40, 40, None, True)" \
	"status SESSION --json: id, state, runs, planned, no ETA once done, a rate"
# A unique prefix names the session too (here: all but the last char).
sc status "${id%?}" --json >"$SC_TMP/status2.json" 2>&1
tap_is "$(json_get "$SC_TMP/status2.json" 'd["session"]')" "$id" \
	"status accepts a unique prefix of the id"

sc results "$id" >"$SC_TMP/results.txt" 2>&1
nblocks=$(grep -c "^  replay schedctl replay " "$SC_TMP/results.txt")
tap_is "$nblocks" "$failing" "results SESSION: one bug block with a replay command per failing run"
sc results "$id" --json >"$SC_TMP/results.json" 2>&1
tap_check "results --json is valid JSON" is_json "$SC_TMP/results.json"
tap_is "$(json_get "$SC_TMP/results.json" 'd["bugs"]')" \
	"$(json_get "$SC_TMP/launch.json" 'd["bugs"]')" \
	"results --json lists the same bug objects as launch --json"
trace=$(json_get "$SC_TMP/results.json" 'd["bugs"][0]["trace"]')
rc=0
sc replay "$trace" --json >"$SC_TMP/replay.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/replay.json" 'd["reproduced"]')" "1/true" \
	"the first bug's trace from results replays the bug"

rc=0
sc status nosuchsession >/dev/null 2>"$SC_TMP/nosuch.err" || rc=$?
tap_is "$rc" 2 "status of an unknown session is a usage error (exit 2)"
grep -q "no session 'nosuchsession'" "$SC_TMP/nosuch.err" &&
	tap_ok "... saying which session" || tap_not_ok "... saying which session"
rc=0
sc results >/dev/null 2>&1 || rc=$?
tap_is "$rc" 2 "results without SESSION is a usage error"

# --- the socket -------------------------------------------------------------
tap_is "$(stat -c %a "$SC_SOCKET")" 600 "the socket is mode 0600"
# SO_PEERCRED: open the socket to everyone for a moment; another uid that
# connects is still refused by the daemon itself.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$SC_TMP"
	chmod 666 "$SC_SOCKET"
	rc=0
	SCHEDCTL_SOCKET=$SC_SOCKET setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$SCHEDCTL" ping >/dev/null 2>"$SC_TMP/peer.err" || rc=$?
	chmod 600 "$SC_SOCKET"
	chmod 700 "$SC_TMP"
	if [ "$rc" -ne 0 ] && grep -q "permission denied: schedctld serves uid 0 only" \
		"$SC_TMP/peer.err"; then
		tap_ok "a client of another uid is refused (SO_PEERCRED)"
	else
		tap_not_ok "a client of another uid is refused (SO_PEERCRED) (exit $rc)"
		tap_diag_file "$SC_TMP/peer.err"
	fi
else
	tap_skip "a client of another uid is refused (SO_PEERCRED)" "needs root and setpriv"
fi

# --- two detached sessions at once ------------------------------------------
id1=$(sc launch --detach -n 30 --seed 1 --keep-going -- "$correct" 2>"$SC_TMP/d1.err")
id2=$(sc launch --detach --json -n 30 --seed 2 -- "$correct" 2>"$SC_TMP/d2.err")
id2=$(printf '%s' "$id2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"])' 2>/dev/null)
if [ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ]; then
	tap_ok "launch --detach (twice) prints two session ids"
else
	tap_not_ok "launch --detach (twice) prints two session ids ('$id1', '$id2')"
	tap_diag_file "$SC_TMP/d1.err"
	tap_diag_file "$SC_TMP/d2.err"
fi
sc status --json >"$SC_TMP/running.json" 2>&1
tap_diag "status while both run: $(json_get "$SC_TMP/running.json" '[(s["session"], s["state"], s["runs"]) for s in d["sessions"]]')"
wait_state "$id1" done; ok1=$?
wait_state "$id2" done; ok2=$?
tap_is "$ok1$ok2" 00 "both detached sessions finish (state done)"
sc list --json >"$SC_TMP/list2.json" 2>&1
tap_is "$(json_get "$SC_TMP/list2.json" 'sorted((s["runs"], s["failing_runs"]) for s in d["sessions"] if s["session"] in ("'"$id1"'", "'"$id2"'"))')" \
	"[[30, 0], [30, 0]]" "both are listed with 30 runs and no failure"

# --- stop -------------------------------------------------------------------
id3=$(sc launch --detach -n 100000 --keep-going -- "$correct" 2>"$SC_TMP/d3.err")
# Let it run a little (its first run committed), then stop it.
for i in $(seq 300); do
	sc status "$id3" --json >"$SC_TMP/s3.json" 2>/dev/null
	[ "$(json_get "$SC_TMP/s3.json" 'd["runs"]')" != 0 ] && break
	sleep 0.1
done
rc=0
sc stop "$id3" >"$SC_TMP/stop.txt" 2>&1 || rc=$?
tap_is "$rc" 0 "stop SESSION exits 0"
if grep -q "^session $id3 stopped after [0-9]* of 100000 runs" "$SC_TMP/stop.txt"; then
	tap_ok "stop says the session stopped and after how many runs"
else
	tap_not_ok "stop says the session stopped and after how many runs"
	tap_diag_file "$SC_TMP/stop.txt"
fi
sc status "$id3" --json >"$SC_TMP/s3.json" 2>&1
tap_is "$(json_get "$SC_TMP/s3.json" 'd["state"]')" stopped "the stopped session's state is stopped"
sc_check_no_targets_left "no target left running after stop"
id4=$(sc launch --detach -n 100000 --keep-going -- "$correct" 2>/dev/null)
rc=0
sc stop "$id4" --json >"$SC_TMP/stop4.json" 2>&1 || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/stop4.json" '[d["session"], d["state"]]')" \
	"0/[\"$id4\", \"stopped\"]" "stop --json: the session and its state"
rc=0
sc stop "$id3" --json >/dev/null 2>"$SC_TMP/stop2.err" || rc=$?
tap_is "$rc" 2 "stopping a session that is not running is a usage error"
tap_diag_file "$SC_TMP/stop2.err"

# A launch (not detached) that found bugs and is then stopped exits 1: a
# CI script must still learn that the program has a bug.
buggy=$(sc_target check_then_act)
sc launch -s random --seed 3 -n 100000 --keep-going -- "$buggy" \
	>"$SC_TMP/l5.out" 2>"$SC_TMP/l5.err" &
launch_pid=$!
id5=
for i in $(seq 300); do
	sc status --json >"$SC_TMP/s5.json" 2>/dev/null
	id5=$(json_get "$SC_TMP/s5.json" \
		'[s["session"] for s in d["sessions"] if s["state"] == "running" and s["failing_runs"] >= 1][0]')
	[ -n "$id5" ] && break
	sleep 0.1
done
rc=0
if [ -n "$id5" ] && sc stop "$id5" >/dev/null 2>&1; then
	wait "$launch_pid" || rc=$?
else
	# Never wait for good for a launch of 100000 runs.
	tap_diag "no running session with a failing run to stop ('$id5')"
	kill -INT "$launch_pid" 2>/dev/null
	wait "$launch_pid"
	rc=none
fi
tap_is "$rc" 1 "a launch stopped after it found bugs exits 1"
[ "$rc" = 1 ] || tap_diag_file "$SC_TMP/l5.err" 5

sc_check_no_leftovers
tap_done
