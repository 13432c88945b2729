#!/bin/bash
# analyze_tiny.sh: exact partial-order counts on real tiny programs run at
# --granularity mem (tests/targets/po_writers), counted over the program's
# own events (analyze --events program): two threads each writing one
# shared variable have exactly 2 partial orders, writing two different
# variables exactly 1, three threads writing one variable exactly 6 (POS
# reaches all of them in 400 runs).  The counts over every event
# (libc's futex traffic included) are printed beside them.
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

sc_check_no_leftovers
tap_done
