#!/bin/bash
# strategies.sh: pct, pos and pos-rw each find the seeded bugs of
# order_violation (depth 1), abba_deadlock (depth 2) and check_then_act
# within 200 runs of a fixed seed, with the right verdict; the trace of
# each bug replays it; a fixed seed gives the same session twice (events,
# first failing run).  pct reports its probability bound (pct_bound) and
# at depth 1 hits order_violation in about half of the runs.
# Hit counts are printed as diagnostics.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=7
RUNS=200
# The default slice: preemptions depend on the threads' states, never on
# the machine's load, so a loaded machine adds no events.
SLICE_US=2000

for strategy in pct pos pos-rw; do
	for pair in order_violation:assert abba_deadlock:deadlock \
		check_then_act:assert; do
		name=${pair%%:*}
		kind=${pair#*:}
		bin=$(sc_target "$name")
		what="$strategy $name"
		json=$SC_TMP/$strategy-$name.json

		rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" -s "$strategy" \
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
			--slice-us "$SLICE_US" -s "$strategy" -n "$RUNS" --seed "$SEED" -- "$bin"
		sc_check_replay "$what" "$json" "$kind"

		rc=$(sc_launch_json "$json.all" --slice-us "$SLICE_US" \
			-s "$strategy" -n "$RUNS" \
			--seed "$SEED" --keep-going -- "$bin")
		tap_diag "$what: --keep-going: $(json_get "$json.all" 'd["failing_runs"]') of $(json_get "$json.all" 'd["runs"]') runs hit the bug (first at run $first)"
	done
done

# pct's bound: in the JSON with pct only, and consistent.
bin=$(sc_target abba_deadlock)
json=$SC_TMP/bound.json
rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" -s pct --depth 2 -n 20 \
	--seed "$SEED" --keep-going \
	-- "$bin")
bound=$(json_get "$json" 'd["pct_bound"]')
tap_diag "pct --depth 2 on abba_deadlock, 20 runs: pct_bound $bound"
check=$(python3 - "$json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
b = d["pct_bound"]
p = 1.0 / (b["threads"] * b["points"] ** (b["depth"] - 1))
free = d["runs"] - d["failing_runs"]
assert b["depth"] == 2, b
assert b["threads"] == 3, b
assert b["points"] >= 1, b
assert abs(b["per_run"] - p) <= 1e-5 * p, (b, p)
assert b["bug_free_runs"] == free, (b, free)
assert abs(b["miss"] - (1 - p) ** free) <= 1e-5, b
print("ok")
PY
)
tap_is "$check" ok "pct_bound: depth 2, n = 3 threads, per_run = 1/(n k), miss = (1 - per_run)^bug_free_runs"
rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" -s pos -n 2 --seed "$SEED" \
	-- "$(sc_target order_violation)")
tap_is "$(json_get "$json" '"pct_bound" in d')" false "no pct_bound with -s pos"
rc=0
sc launch -s pct -n 12 --seed "$SEED" --keep-going -- "$(sc_target check_then_act)" \
	>"$SC_TMP/human.out" 2>&1 || rc=$?
if grep -q '^pct: depth 3, n=3 threads, k=[0-9]* points: a run hits a given depth-3 bug with probability >= ' \
	"$SC_TMP/human.out"; then
	tap_ok "the human report states pct's bound"
else
	tap_not_ok "the human report states pct's bound"
	tap_diag_file "$SC_TMP/human.out"
fi
# Stopped at its first run's bug, before anything was learnt of the
# program's threads and points: no bound made up (it said n=1, k=100).
sc launch -s pct -n 5 --seed "$SEED" -- "$(sc_target check_then_act)" \
	>"$SC_TMP/human1.out" 2>&1 || :
tap_is "$(grep -c '^pct: depth' "$SC_TMP/human1.out")" 0 \
	"no pct bound when the session stopped before learning n and k"

# --depth is for pct only, and from 1 to 64.
rc=0
sc launch -s pos --depth 2 -n 1 -- "$bin" >/dev/null 2>"$SC_TMP/e" || rc=$?
tap_is "$rc" 2 "--depth with -s pos is a usage error"
rc=0
sc launch -s pct --depth 0 -n 1 -- "$bin" >/dev/null 2>"$SC_TMP/e" || rc=$?
tap_is "$rc" 2 "--depth 0 is a usage error"

# PCT at depth 1: the worker outranks main in half of the runs, and then
# it reads the configuration first.  The bound says >= 1/2 per run.
bin=$(sc_target order_violation)
json=$SC_TMP/ratio.json
rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" -s pct --depth 1 -n 400 \
	--seed "$SEED" --keep-going \
	-- "$bin")
hits=$(json_get "$json" 'd["failing_runs"]')
runs=$(json_get "$json" 'd["runs"]')
tap_diag "pct --depth 1 on order_violation: $hits of $runs runs hit the bug"
if [ "$runs" = 400 ] && [ "${hits:-0}" -ge 160 ] 2>/dev/null; then
	tap_ok "pct --depth 1 hits order_violation in at least 40% of 400 runs"
else
	tap_not_ok "pct --depth 1 hits order_violation in at least 40% of 400 runs ($hits of $runs)"
	tap_diag_file "$json.err"
fi

sc_check_no_leftovers
tap_done
