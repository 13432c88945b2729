#!/bin/bash
# strategies_more.sh: noise (white, random, best), speed, urw, surw and
# portfolio each find the seeded bugs of order_violation (depth 1) and
# abba_deadlock (depth 2) within 300 runs of a fixed seed with the right
# verdict; the trace of each bug replays it; a fixed seed gives the same
# session twice (events, first failing run).  Bad parameters of the new
# options are usage errors.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=11
RUNS=300
# The default slice: preemptions depend on the threads' states, never on
# the machine's load, so a loaded machine adds no events.
SLICE_US=2000

for variant in "noise-white:-s noise --noise white" \
	"noise-random:-s noise --noise random" \
	"noise-best:-s noise --noise best" \
	"speed:-s speed" "urw:-s urw" "surw:-s surw" \
	"portfolio:-s portfolio"; do
	label=${variant%%:*}
	# shellcheck disable=SC2206
	opts=(${variant#*:})
	for pair in order_violation:assert abba_deadlock:deadlock; do
		name=${pair%%:*}
		kind=${pair#*:}
		bin=$(sc_target "$name")
		what="$label $name"
		json=$SC_TMP/$label-$name.json

		rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" "${opts[@]}" \
			-n "$RUNS" --seed "$SEED" \
			-- "$bin")
		if [ "$rc" -eq 1 ]; then
			tap_ok "$what: finds a bug within $RUNS runs (exit 1)"
		else
			tap_not_ok "$what: finds a bug within $RUNS runs (exit 1, got $rc)"
			tap_diag_file "$json.err"
		fi
		tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" "$kind" \
			"$what: the bug's kind is $kind"
		first=$(json_get "$json" 'd["first_bug_run"]')
		sc_check_same_session "$what: seed $SEED" "$json" \
			--slice-us "$SLICE_US" "${opts[@]}" -n "$RUNS" --seed "$SEED" -- "$bin"
		sc_check_replay "$what" "$json" "$kind"
		tap_diag "$what: first bug at run $first"
	done
done

# The options of noise are checked before anything runs.
bin=$(sc_target order_violation)
for bad in "-s noise --noise pink" "-s noise --p 2" "-s pos --noise white" \
	"-s noise --noise best --p 0.2" "-s speed --c 1"; do
	rc=0
	# shellcheck disable=SC2086
	sc launch $bad -n 1 -- "$bin" >/dev/null 2>"$SC_TMP/e" || rc=$?
	tap_is "$rc" 2 "'$bad' is a usage error"
done

sc_check_no_leftovers
tap_done
