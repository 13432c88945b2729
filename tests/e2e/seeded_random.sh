#!/bin/bash
# seeded_random.sh: a program that draws random numbers (getrandom(2),
# /dev/urandom) runs as a function of the seed: controlled runs get bytes
# drawn from the run's seed, so that
#  - different runs still get different draws (random_locks prints them);
#  - the same seed twice gives the same runs (draws, first bug, events);
#  - the failing run replays 20 times out of 20: each replay gives the
#    threads the recorded run's draws, so it takes the same branches;
#  - the trace says so (seeded_random in the JSON export).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=77
bin=$(sc_target random_locks)

rc=$(sc_launch_json "$SC_TMP/a.json" -s random -n 200 --seed "$SEED" \
	--keep-going --keep-traces all -- "$bin")
tap_is "$rc" 1 "random_locks: -s random finds the lost update within 200 runs"
tap_diag_file "$SC_TMP/a.json.err" 5
dir=$(json_get "$SC_TMP/a.json" 'd["out_dir"]')
# Draws of every run (the runs that got to print them).
cat "$dir"/run-*.out 2>/dev/null | awk '{ print $2, $3 }' | sort -u \
	>"$SC_TMP/draws"
tap_diag "distinct draws over the session: $(count_lines "$SC_TMP/draws")"
tap_check "runs get different random draws" \
	[ "$(count_lines "$SC_TMP/draws")" -ge 4 ]

# The same seed again: the same draws in every run, the same session.
rc=$(sc_launch_json "$SC_TMP/b.json" -s random -n 200 --seed "$SEED" \
	--keep-going --keep-traces all -- "$bin")
dir_b=$(json_get "$SC_TMP/b.json" 'd["out_dir"]')
same=yes
for out in "$dir"/run-*.out; do
	cmp -s "$out" "$dir_b/${out##*/}" || { same="no: ${out##*/}"; break; }
done
tap_is "$same" yes "the same seed again: every run prints the same draws"
tap_is "$(json_get "$SC_TMP/b.json" 'd["events"]') $(json_get "$SC_TMP/b.json" 'd["failing_runs"]')" \
	"$(json_get "$SC_TMP/a.json" 'd["events"]') $(json_get "$SC_TMP/a.json" 'd["failing_runs"]')" \
	"the same seed again: the same events and failing runs"

trace=$(json_get "$SC_TMP/a.json" 'd["bugs"][0]["trace"]')
good=0
for i in $(seq 20); do
	rc=0
	sc replay "$trace" --json >"$SC_TMP/r.json" 2>"$SC_TMP/r.err" || rc=$?
	if [ "$rc/$(json_get "$SC_TMP/r.json" 'd["reproduced"]')" = 1/true ]; then
		good=$((good + 1))
	else
		tap_diag "replay $i: exit $rc"
		tap_diag_file "$SC_TMP/r.err" 3
	fi
done
tap_is "$good" 20 "the failing run replays 20 times out of 20"

sc export "$trace" --format json >"$SC_TMP/export.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/export.json" 'd["header"]["seeded_random"]')" \
	true "the trace records that its random bytes were seeded"

sc_check_no_leftovers
tap_done
