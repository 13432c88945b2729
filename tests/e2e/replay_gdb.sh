#!/bin/bash
# replay_gdb.sh: `schedctl replay --gdb TRACE -- GDB-ARGS` replays to the
# failure and hands the stopped process to gdb: under gdb's batch mode
# (`-batch -ex 'thread apply all bt'`) the failing thread of an assert is
# shown at the failing line, and every blocked thread of a deadlock at
# its lock, and the faulting thread of a crash at mem granularity at its
# line; --stop-at STEP stops before that step; the process is killed
# once gdb (or the user) is done, and a run that does not fail has
# nothing to hand over.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

if ! command -v gdb >/dev/null; then
	tap_skip "replay --gdb" "gdb not installed (tests/lib/debian-packages lists it)"
	tap_done
	exit 0
fi

# left NAME: how many NAME processes are left.  The daemon kills the
# stopped process once the CLI has closed its connection, just after the
# CLI exits: give it up to 10 s.
left() {
	local i
	for i in $(seq 100); do
		pgrep -f "$SC_BIN/$1" >/dev/null || break
		sleep 0.1
	done
	pgrep -f "$SC_BIN/$1" | wc -l
}

# first_trace NAME STRATEGY: the trace of the first bug of NAME.
first_trace() {
	local json=$SC_TMP/$1.json
	sc launch --json -s "$2" -n 300 --seed 1 -- "$(sc_target "$1")" \
		</dev/null >"$json" 2>/dev/null
	json_get "$json" 'd["bugs"][0]["trace"]'
}

# gdb_all_bt LABEL NAME TRACE VERDICT REGEX SHOWS: replay --gdb TRACE of
# target NAME with 'thread apply all bt' reproduces VERDICT (exit 1), its
# output matches REGEX (SHOWS says what that is), and the process is gone
# once gdb has exited.
gdb_all_bt() {
	local label=$1 name=$2 out=$SC_TMP/$2.gdb.out rc=0
	sc replay --gdb "$3" -- -batch -ex 'thread apply all bt' </dev/null \
		>"$out" 2>&1 || rc=$?
	tap_is "$rc" 1 "$label: replay --gdb reproduces the $4 (exit 1)"
	if grep -Eq "$5" "$out"; then
		tap_ok "$label: $6"
	else
		tap_not_ok "$label: $6"
		tap_diag_file "$out" 20
	fi
	tap_is "$(left "$name")" 0 \
		"$label: the process is gone once gdb has exited"
}

# An assert: the thread that failed it, at its line.
gdb_all_bt check_then_act check_then_act \
	"$(first_trace check_then_act random)" assert \
	'in main \(\) at .*check_then_act\.c:46' \
	"gdb's backtrace shows main at check_then_act.c:46"

# An exit with a failing status: kept at its exit_group, main at the
# line that called exit().
exit_line=$(grep -n 'exit(3);' "${top_srcdir:-$(dirname "$0")/../..}/tests/targets/exit_status.c" | cut -d: -f1)
gdb_all_bt exit_status exit_status "$(first_trace exit_status random)" exit \
	"in main \\(.*\\) at .*exit_status\\.c:$exit_line" \
	"gdb's backtrace shows main at exit_status.c:$exit_line, calling exit"

# An assert in a program a shell script started: gdb gets that program,
# on its failing thread, not the shell waiting for it.
script=$SC_BIN/run_check_then_act.sh
printf '#!/bin/sh\n%s\necho "rc=$?"\n' "$(sc_target check_then_act)" >"$script"
chmod +x "$script"
sc launch --json -s random -n 300 --seed 1 -- "$script" </dev/null \
	>"$SC_TMP/script.json" 2>/dev/null
gdb_all_bt "check_then_act (started by a script)" check_then_act \
	"$(json_get "$SC_TMP/script.json" 'd["bugs"][0]["trace"]')" assert \
	'in main \(\) at .*check_then_act\.c:46' \
	"gdb gets the script's child: main at check_then_act.c:46"

# A deadlock: both threads at their locks.
trace=$(first_trace abba_deadlock pos)
dl_trace=$trace
rc=0
sc replay --gdb "$trace" -- -batch -ex 'thread apply all bt' </dev/null \
	>"$SC_TMP/dl.out" 2>&1 || rc=$?
tap_is "$rc" 1 "abba_deadlock: replay --gdb reproduces the deadlock (exit 1)"
got=$(grep -Eo 'in (a_then_b|b_then_a) \(arg=[^)]*\) at [^ ]*abba_deadlock\.c:[0-9]+' \
	"$SC_TMP/dl.out" | sed -E 's/ \(arg=[^)]*\)//; s| at .*/| at |' | sort | tr '\n' ';')
tap_is "$got" "in a_then_b at abba_deadlock.c:22;in b_then_a at abba_deadlock.c:33;" \
	"abba_deadlock: gdb shows each blocked thread at its lock"

# A crash at mem granularity: the faulting load is a scheduling point,
# stepped (or emulated) by the engine; the thread is handed over before
# it, at its line.
sc launch --json -n 300 --seed 1 --granularity mem \
	-- "$(sc_target crash_null)" </dev/null >"$SC_TMP/cn.json" 2>/dev/null
trace=$(json_get "$SC_TMP/cn.json" 'd["bugs"][0]["trace"]')
gdb_all_bt "crash_null (mem)" crash_null "$trace" crash \
	'in logger \(arg=[^)]*\) at .*crash_null\.c:32' \
	"gdb shows the faulting thread at crash_null.c:32"
# With --json, standard output is the one JSON object (with stopped_pid);
# gdb's own output goes to standard error.
rc=0
sc replay --json --gdb "$trace" -- -batch -ex 'thread apply all bt' </dev/null \
	>"$SC_TMP/cnj.out" 2>"$SC_TMP/cnj.err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/cnj.out" '[d["verdict"], d["stopped_pid"] > 0, d["stopped_tid"] > d["stopped_pid"]]')" \
	'1/["crash", true, true]' \
	"crash_null (mem): replay --json --gdb prints one JSON object on stdout"
tap_check "crash_null (mem): with --json, gdb's backtrace is on stderr" \
	grep -Eq 'crash_null\.c:32' "$SC_TMP/cnj.err"
# gdb starts on the failing thread: a plain bt shows the fault, not main
# waiting in pthread_join.
rc=0
sc replay --gdb "$trace" -- -batch -ex bt </dev/null >"$SC_TMP/cnbt.out" 2>&1 || rc=$?
if grep -Eq '^#0 .* in logger \(arg=[^)]*\) at .*crash_null\.c:32' "$SC_TMP/cnbt.out"; then
	tap_ok "crash_null (mem): gdb starts on the faulting thread (bt: logger at crash_null.c:32)"
else
	tap_not_ok "crash_null (mem): gdb starts on the faulting thread (bt: logger at crash_null.c:32)"
	tap_diag_file "$SC_TMP/cnbt.out" 20
fi
trace=$dl_trace

# --stop-at: before a chosen step, without gdb (stdin at EOF ends it).
rc=0
sc replay --stop-at 5 "$trace" </dev/null >"$SC_TMP/stop.out" \
	2>"$SC_TMP/stop.err" || rc=$?
tap_is "$rc" 0 "--stop-at 5: exit 0"
if grep -q "stopped before step 5" "$SC_TMP/stop.err" &&
	grep -q "attach with: gdb -p [0-9]" "$SC_TMP/stop.err"; then
	tap_ok "--stop-at 5: says where it stopped and how to attach"
else
	tap_not_ok "--stop-at 5: says where it stopped and how to attach"
	tap_diag_file "$SC_TMP/stop.err" 5
fi
tap_is "$(left abba_deadlock)" 0 \
	"--stop-at: the process is killed when the replay ends"
# A step past the trace's last one is never reached: a usage error, not
# a replay that ends and says it passed (QA).
rc=0
sc replay --stop-at 99999 "$trace" </dev/null >/dev/null \
	2>"$SC_TMP/stop_far.err" || rc=$?
tap_is "$rc/$(grep -c . "$SC_TMP/stop_far.err")" "2/1" \
	"--stop-at past the last step: exit 2, one line"
grep -q "the trace's steps go from 1 to [0-9]" "$SC_TMP/stop_far.err" ||
	tap_diag_file "$SC_TMP/stop_far.err" 3

# A run without a failure has nothing to hand over.
sc launch --json -n 1 -- "$(sc_target bounded_buffer)" </dev/null \
	>"$SC_TMP/bb.json" 2>/dev/null
trace=$(json_get "$SC_TMP/bb.json" 'd["out_dir"]')/run-000001.sctrace
rc=0
sc replay --gdb "$trace" </dev/null >/dev/null 2>"$SC_TMP/bb.err" || rc=$?
if [ "$rc" -eq 0 ] && grep -q "nothing to debug" "$SC_TMP/bb.err"; then
	tap_ok "a passing replay with --gdb says there is nothing to debug (exit 0)"
else
	tap_not_ok "a passing replay with --gdb says there is nothing to debug (exit $rc)"
	tap_diag_file "$SC_TMP/bb.err" 5
fi

sc_check_no_leftovers
tap_done
