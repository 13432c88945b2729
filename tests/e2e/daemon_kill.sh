#!/bin/bash
# daemon_kill.sh: a session's worker killed with SIGKILL takes down that
# session only (marked interrupted, its jobs and targets gone), not the
# daemon nor another session.  A daemon killed with SIGKILL in the middle
# of a detached session loses nothing that was committed: the next CLI command (which
# restarts the daemon) still lists the session, now "interrupted", with
# the bugs found so far and their replay commands; no target is left.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

buggy=$(sc_target order_violation)
correct=$(sc_target bounded_buffer)

# --- one session's crash does not affect another ----------------------------
victim=$(sc launch --detach -n 100000 --keep-going -- "$correct" 2>/dev/null)
other=$(sc launch --detach -n 40 --keep-going -- "$correct" 2>/dev/null)
wpid=
for i in $(seq 300); do
	sc status "$victim" --json >"$SC_TMP/v.json" 2>/dev/null
	wpid=$(json_get "$SC_TMP/v.json" 'd["worker_pid"]')
	[ -n "$wpid" ] && [ "$wpid" != null ] && break
	sleep 0.1
done
if [ -n "$wpid" ] && [ "$wpid" != null ] && kill -9 "$wpid" 2>/dev/null; then
	tap_ok "one session's worker (pid $wpid) is killed with SIGKILL"
else
	tap_not_ok "one session's worker is killed with SIGKILL (worker_pid '$wpid')"
fi
for i in $(seq 600); do
	sc status "$other" --json >"$SC_TMP/o.json" 2>/dev/null
	[ "$(json_get "$SC_TMP/o.json" 'd["state"]')" = running ] || break
	sleep 0.1
done
tap_is "$(json_get "$SC_TMP/o.json" '[d["state"], d["runs"]]')" '["done", 40]' \
	"the other session runs to its end"
for i in $(seq 100); do
	sc status "$victim" --json >"$SC_TMP/v.json" 2>/dev/null
	[ "$(json_get "$SC_TMP/v.json" 'd["state"]')" = running ] || break
	sleep 0.1
done
tap_is "$(json_get "$SC_TMP/v.json" 'd["state"]')" interrupted \
	"the killed session is marked interrupted"
sc_check_no_targets_left "the killed session's jobs and targets are gone"
rc=0
sc ping >/dev/null 2>&1 || rc=$?
tap_is "$rc" 0 "the daemon is unaffected"

# --- the daemon killed in the middle of a session ---------------------------

id=$(sc launch --detach -n 100000 --seed 3 --keep-going -- "$buggy" 2>"$SC_TMP/d.err")
if [ -n "$id" ]; then
	tap_ok "launch --detach prints the session id"
else
	tap_not_ok "launch --detach prints the session id"
	tap_diag_file "$SC_TMP/d.err"
fi

# Wait (up to 60 s) until the session has committed a failing run.
failing=0
for i in $(seq 600); do
	sc status "$id" --json >"$SC_TMP/s.json" 2>/dev/null
	failing=$(json_get "$SC_TMP/s.json" 'd["failing_runs"]')
	[ "${failing:-0}" -ge 1 ] 2>/dev/null && break
	sleep 0.1
done
tap_diag "before the kill: $(json_get "$SC_TMP/s.json" 'd["runs"]') runs, $failing failing"

pid=$(cat "$SC_SOCKET.pid" 2>/dev/null)
if [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; then
	tap_ok "the daemon (pid $pid) is killed with SIGKILL"
else
	tap_not_ok "the daemon is killed with SIGKILL (pid file: '$pid')"
fi
sc_check_no_targets_left "no target left running after the daemon's death"

# The next command that needs a daemon starts a new one.
rc=0
sc launch -n 1 -- "$(sc_target bounded_buffer)" >/dev/null 2>"$SC_TMP/l.err" || rc=$?
tap_is "$rc" 0 "the next launch restarts the daemon and works"
tap_diag_file "$SC_TMP/l.err"

sc list --json >"$SC_TMP/list.json" 2>&1
tap_is "$(json_get "$SC_TMP/list.json" '[s["state"] for s in d["sessions"] if s["session"] == "'"$id"'"][0]')" \
	interrupted "list: the killed session is listed, state interrupted"
after=$(json_get "$SC_TMP/list.json" '[s["failing_runs"] for s in d["sessions"] if s["session"] == "'"$id"'"][0]')
if [ "${after:-0}" -ge "${failing:-1}" ] 2>/dev/null && [ "${after:-0}" -ge 1 ]; then
	tap_ok "list: its failing runs found before the kill are still there ($after)"
else
	tap_not_ok "list: its failing runs found before the kill are still there (before $failing, after '$after')"
fi

sc results "$id" --json >"$SC_TMP/r.json" 2>&1
nbugs=$(json_get "$SC_TMP/r.json" 'len(d["bugs"])')
tap_is "$nbugs" "$after" "results: one bug per failing run"
trace=$(json_get "$SC_TMP/r.json" 'd["bugs"][0]["trace"]')
rc=0
sc replay "$trace" --json >"$SC_TMP/replay.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/replay.json" 'd["reproduced"]')" "1/true" \
	"a bug recorded before the kill replays"

# --- an attach session when the daemon is killed ----------------------------

# The worker detaches, the process lives on, and the CLI says the session
# was cut short (it printed a plain summary and exited 0).
"$(sc_target count_forever)" & forever=$!
sc attach "$forever" >"$SC_TMP/att.out" 2>"$SC_TMP/att.err" &
attach_cli=$!
for _ in $(seq 300); do
	grep -q "session" "$SC_TMP/att.err" 2>/dev/null && break
	sleep 0.1
done
kill -9 "$(cat "$SC_SOCKET.pid" 2>/dev/null)" 2>/dev/null
rc=0
wait "$attach_cli" || rc=$?
tap_is "$rc" 3 "attach: the daemon's death ends it with exit status 3"
tap_check "attach: the CLI says the session was interrupted by the daemon's end" \
	grep -q "interrupted (schedctld ended)" "$SC_TMP/att.err"
tap_check "attach: the process lives on after the detach" kill -0 "$forever"
kill -9 "$forever" 2>/dev/null
wait "$forever" 2>/dev/null

sc_check_no_leftovers
tap_done
