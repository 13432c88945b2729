#!/bin/bash
# exit_defer.sh: a main that returns without joining its threads
# (unjoined_checker, SCTBench's account_bad).  In one run of two (by its
# seed) and in every pilot run of race granularity, the process's exit
# waits while another thread has progress to make, so the threads get to
# run.  The default finds the checker's bug at least MIN times in RUNS
# runs (2 of 200 before); the same seed gives the same session; a failing
# run replays; the fixed program never fails; the pilot learns the races
# of all three threads (racy mode); a thread that sleeps in a loop
# forever does not hold the exit back (watchdog mode: every run ends, no
# hang).  Counts only, no timing.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=1
RUNS=200
# Measured with seed 1: 23 of 200 fail (surw; 2 without the wait).  A
# third of that still tells the two apart.
MIN=8
checker=$(sc_target unjoined_checker)

rc=$(sc_launch_json "$SC_TMP/bug.json" -n "$RUNS" --seed "$SEED" \
	--keep-going -- "$checker")
hits=$(json_get "$SC_TMP/bug.json" \
	"len([b for b in d['bugs'] if b['kind'] == 'assert'])")
if [ "$rc" -eq 1 ] && [ "${hits:-0}" -ge "$MIN" ] 2>/dev/null; then
	tap_ok "unjoined_checker: the checker's bug in $hits of $RUNS runs (at least $MIN)"
else
	tap_not_ok "unjoined_checker: the checker's bug in ${hits:-?} of $RUNS runs (at least $MIN; exit $rc)"
	tap_diag_file "$SC_TMP/bug.json.err" 5
fi
sc_check_same_session "unjoined_checker" "$SC_TMP/bug.json" -n "$RUNS" \
	--seed "$SEED" --keep-going -- "$checker"
sc_check_replay "unjoined_checker" "$SC_TMP/bug.json" assert

rc=$(sc_launch_json "$SC_TMP/fixed.json" -n "$RUNS" --seed "$SEED" \
	-- "$checker" fixed)
tap_is "$rc/$(json_get "$SC_TMP/fixed.json" 'd["failing_runs"]')" "0/0" \
	"unjoined_checker fixed: no failing run in $RUNS"

# The pilot (runs 1-5) sees the updaters' and the checker's racing
# accesses: run 7 schedules instructions of all three functions.
rc=$(sc_launch_json "$SC_TMP/racy.json" -n 7 --seed "$SEED" --keep-going \
	--keep-traces all -- "$checker" racy)
dir=$(json_get "$SC_TMP/racy.json" 'd["out_dir"]')
sc export "$dir/run-000007.sctrace" --format json -o "$SC_TMP/r7.json" 2>/dev/null
nm -n "$checker" >"$SC_TMP/nm.txt" 2>/dev/null
funcs=$(python3 - "$SC_TMP/r7.json" "$SC_TMP/nm.txt" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
mod = [m for m in t["modules"] if m["path"].endswith("/unjoined_checker")][0]
base = int(mod["load_address"], 16)
syms = []
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 3 and f[1] in "tT":
        syms.append((int(f[0], 16), f[2]))
names = set()
for p in t["header"]["race_pcs"]:
    off = int(p, 16) - base
    best = None
    for a, n in syms:
        if a <= off:
            best = n
    if best:
        names.add(best)
print(" ".join(sorted(names & {"check", "deposit", "withdraw"})))
PY
)
tap_is "$funcs" "check deposit withdraw" \
	"unjoined_checker racy: the pilot learns racing instructions in check, deposit and withdraw"

# A watchdog that sleeps forever: the exit does not wait for it.
rc=$(sc_launch_json "$SC_TMP/dog.json" -n 50 --seed "$SEED" --keep-going \
	-- "$checker" watchdog)
kinds=$(json_get "$SC_TMP/dog.json" \
	"sorted(set(b['kind'] for b in d['bugs']))")
tap_is "$(json_get "$SC_TMP/dog.json" 'd["runs"]') $kinds" '50 ["assert"]' \
	"unjoined_checker watchdog: 50 runs end, failing by the assert only (no hang)"

sc_check_no_leftovers
tap_done
