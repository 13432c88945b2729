#!/bin/bash
# find_bugs.sh: the random strategy finds each seeded bug of tests/targets
# with the right verdict; the recorded trace reproduces it 10 times out of
# 10; with --keep-going the bug is hit at least once in 200 runs.
# Hit counts and run numbers are printed as diagnostics, never asserted
# beyond ">= 1", so the test does not depend on strategy tuning.
# chdir() is a scheduling point: a thread's open() of a relative path can
# come before main's chdir(), and chess does not call its search done
# without that schedule.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=1
RUNS=200
REPLAYS=10

for pair in order_violation:assert check_then_act:assert \
	abba_deadlock:deadlock lost_wakeup:deadlock \
	crash_null:crash exit_status:exit; do
	name=${pair%%:*}
	kind=${pair#*:}
	bin=$(sc_target "$name")
	json=$SC_TMP/$name.json
	err=$SC_TMP/$name.err

	rc=0
	sc launch --json -s random -n "$RUNS" --seed "$SEED" -- "$bin" \
		>"$json" 2>"$err" || rc=$?
	if [ "$rc" -eq 1 ]; then
		tap_ok "$name: launch -s random -n $RUNS --seed $SEED finds a bug (exit 1)"
	else
		tap_not_ok "$name: launch -s random -n $RUNS --seed $SEED finds a bug (exit 1, got $rc)"
		tap_diag_file "$err"
	fi
	tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" "$kind" \
		"$name: the bug's kind is $kind"
	# An exit's location is the program's line that called exit()
	# (it was none): exit_status.c's exit(3) after the check.
	if [ "$kind" = exit ]; then
		want=$(grep -n 'exit(3);' "${top_srcdir:-$(dirname "$0")/../..}/tests/targets/$name.c" | cut -d: -f1)
		tap_is "$(json_get "$json" 'd["bugs"][0]["location"]')" \
			"main at $name.c:$want ($name)" \
			"$name: the exit's location is the line that called exit()"
	fi
	tap_diag "$name: first bug at run $(json_get "$json" 'd["first_bug_run"]') of $RUNS (seed $SEED):" \
		"$(json_get "$json" 'd["bugs"][0]["message"]')"

	trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
	replay=$(json_get "$json" 'd["bugs"][0]["replay"]')
	if [ -n "$trace" ] && [ -f "$trace" ]; then
		case $replay in
		*"replay "*"$trace"*) tap_ok "$name: the replay command names the trace" ;;
		*) tap_not_ok "$name: the replay command names the trace"
		   tap_diag "replay: '$replay', trace: '$trace'" ;;
		esac
		good=0
		for i in $(seq "$REPLAYS"); do
			rc=0
			sc replay "$trace" --json >"$SC_TMP/replay.json" \
				2>"$SC_TMP/replay.err" || rc=$?
			verdict=$(json_get "$SC_TMP/replay.json" 'd["verdict"]')
			reproduced=$(json_get "$SC_TMP/replay.json" 'd["reproduced"]')
			if [ "$rc" -eq 1 ] && [ "$verdict" = "$kind" ] &&
				[ "$reproduced" = true ]; then
				good=$((good + 1))
			else
				tap_diag "$name: replay $i: exit $rc, verdict '$verdict', reproduced '$reproduced'"
				tap_diag_file "$SC_TMP/replay.err" 5
			fi
		done
		tap_is "$good/$REPLAYS" "$REPLAYS/$REPLAYS" \
			"$name: replay reproduces the $kind every time"
		# Text: its result line says what the run did, as launch's
		# report does (it said only "crash reproduced at step N");
		# the program's own stderr comes before it.
		sc replay "$trace" >/dev/null 2>"$SC_TMP/replay.txt" || :
		msg=$(json_get "$json" 'd["bugs"][0]["message"]')
		first=$(grep '^replay: ' "$SC_TMP/replay.txt" | head -n 1)
		case $first in
		*"reproduced at step"*": $msg") tap_ok "$name: a text replay's result line gives the $kind's message" ;;
		*) tap_not_ok "$name: a text replay's result line gives the $kind's message"
		   tap_diag "got: '$first'; want it to end with ': $msg'" ;;
		esac
	else
		tap_not_ok "$name: the replay command names the trace (no trace file: '$trace')"
		tap_not_ok "$name: replay reproduces the $kind every time (no trace)"
		tap_not_ok "$name: a text replay's result line gives the $kind's message (no trace)"
	fi

	rc=0
	sc launch --json -s random -n "$RUNS" --seed "$SEED" --keep-going -- "$bin" \
		>"$json" 2>"$err" || rc=$?
	hits=$(json_get "$json" 'd["failing_runs"]')
	runs=$(json_get "$json" 'd["runs"]')
	tap_diag "$name: --keep-going: $hits of $runs runs hit a bug (exit $rc)"
	if [ "$rc" -eq 1 ] && [ "${hits:-0}" -ge 1 ] 2>/dev/null; then
		tap_ok "$name: --keep-going -n $RUNS hits the bug at least once"
	else
		tap_not_ok "$name: --keep-going -n $RUNS hits the bug at least once"
		tap_diag_file "$err"
	fi
	tap_is "$runs" "$RUNS" "$name: --keep-going completes all $RUNS runs"
done

# chdir_order: the reader's relative open() before main's chdir().
mkdir -p "$SC_TMP/cwd/sub" && : >"$SC_TMP/cwd/sub/marker"
bin=$(sc_target chdir_order)
json=$SC_TMP/chdir.json
rc=$(cd "$SC_TMP/cwd" && sc_launch_json "$json" -s random -n 100 --seed "$SEED" --keep-going -- "$bin" sub)
hits=$(json_get "$json" 'd["failing_runs"]')
tap_diag "chdir_order: $hits of 100 random runs open before the chdir"
tap_is "$rc/$([ "${hits:-0}" -ge 10 ] && echo many)/$(json_get "$json" 'sorted(set(b["message"] for b in d["bugs"]))')" \
	'1/many/["exited with status 3"]' \
	"chdir_order: at least 10 of 100 random runs have the reader open before main's chdir (exit 3)"
rc=$(cd "$SC_TMP/cwd" && sc_launch_json "$json" -s chess -- "$bin" sub)
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 1/1 \
	"chdir_order: chess finds the failing schedule (it had said every schedule passed)"

sc_check_no_leftovers
tap_done
