#!/bin/bash
# analyze_tiny.sh: exact partial-order counts on real tiny programs run at
# --granularity mem (tests/targets/po_writers), counted over the program's
# own events (analyze --events program): two threads each writing one
# shared variable have exactly 2 partial orders, writing two different
# variables exactly 1, three threads writing one variable exactly 6 (POS
# reaches all of them in 400 runs).  The counts over every event
# (libc's futex traffic included) are printed beside them.  A run and its
# replay (replay --record) have the same fingerprint.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

prog=$(sc_target po_writers)

# count LABEL RUNS EXPECTED ARGS...
count() {
	local label=$1 runs=$2 want=$3 out=$SC_TMP/$1
	shift 3
	rm -rf "$out"
	sc launch --json -s pos --granularity mem -n "$runs" --seed 1 \
		--keep-traces all --out "$out" -- "$prog" "$@" \
		>"$SC_TMP/l.json" 2>"$SC_TMP/err" || tap_diag_file "$SC_TMP/err"
	sc analyze "$out" --events program --json --no-files >"$SC_TMP/p.json" 2>"$SC_TMP/err"
	sc analyze "$out" --json --no-files >"$SC_TMP/a.json" 2>/dev/null
	local got all
	got=$(json_get "$SC_TMP/p.json" 'd["distinct_partial_orders"]')
	all=$(json_get "$SC_TMP/a.json" 'd["distinct_partial_orders"]')
	tap_diag "$label: $got partial orders of the program's events over $runs runs ($all counting libc's futex traffic too)"
	tap_is "$got" "$want" "$label: exactly $want partial orders"
}

count two_writers_one_variable 100 2 2 same
count two_writers_two_variables 100 1 2 distinct
count three_writers_one_variable 400 6 3 same

# A run and its replay have the same fingerprint: replay --record writes
# the replayed run's own trace, and the two traces are one partial order.
for name in abba_deadlock check_then_act; do
	rc=0
	sc launch --json -s pos -n 200 --seed 1 --out "$SC_TMP/$name" -- \
		"$(sc_target "$name")" >"$SC_TMP/l.json" 2>/dev/null || rc=$?
	trace=$(json_get "$SC_TMP/l.json" 'd["bugs"][0]["trace"]')
	rc=0
	sc replay "$trace" --record "$SC_TMP/$name.replay.sctrace" \
		>/dev/null 2>&1 || rc=$?
	tap_is "$rc" 1 "$name: the replay reproduces the bug"
	sc analyze "$trace" "$SC_TMP/$name.replay.sctrace" --json --no-files \
		>"$SC_TMP/rp.json" 2>/dev/null
	tap_is "$(json_get "$SC_TMP/rp.json" 'd["runs"]')/$(json_get "$SC_TMP/rp.json" 'd["distinct_partial_orders"]')" \
		"2/1" "$name: a run and its replay have the same fingerprint"
done

sc_check_no_leftovers
tap_done
