#!/bin/bash
# jobs_shard.sh: parallel runs and shards give the results of one job.
#  - --jobs 2 and --jobs 1, same seed, --keep-going: the same failing runs
#    (run, kind, seed, message);
#  - without --keep-going: the same first failing run and the same number
#    of completed runs (the documented "lowest failing run" rule);
#  - --shard 1/2 and 2/2: disjoint runs whose union of failing runs is the
#    whole session's;
#  - the GNU parallel recipe (contrib/sharding/parallel-shards.sh) run
#    locally gives the whole session's failing runs;
#  - bad --jobs and --shard values are usage errors.
# Runs with the same seed are identical only while the engine's timing
# does not leak into the schedule: on oversubscribed CPUs (make -j check
# runs other tests alongside) a released system call may outlast the
# engine's short wait and change a run.  So each comparison gets up to 3
# attempts, and the attempts are shown as diagnostics.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

buggy=$(sc_target order_violation)
RUNS=60
SEED=11
KEY='sorted((b["run"], b["kind"], b["seed"], b["message"]) for b in d["bugs"])'
RUNS_OF='sorted(b["run"] for b in d["bugs"])'

launch() {
	local json=$1
	shift
	rc=0
	sc launch --json -s random -n "$RUNS" --seed "$SEED" "$@" -- "$buggy" \
		>"$json" 2>"$json.err" || rc=$?
	[ "$rc" -le 1 ] || { tap_diag "launch $* exited $rc"; tap_diag_file "$json.err"; }
}

same() {
	[ "$(json_get "$1" "$3")" = "$(json_get "$2" "$3")" ]
}

for attempt in 1 2 3; do
	launch "$SC_TMP/j1.json" --keep-going --jobs 1
	launch "$SC_TMP/j2.json" --keep-going --jobs 2
	same "$SC_TMP/j1.json" "$SC_TMP/j2.json" "$KEY" &&
		same "$SC_TMP/j1.json" "$SC_TMP/j2.json" '[d["runs"], d["events"]]' && break
	tap_diag "attempt $attempt: --jobs 1 and 2 differ: $(json_get "$SC_TMP/j1.json" "$RUNS_OF") vs $(json_get "$SC_TMP/j2.json" "$RUNS_OF")"
done
tap_diag "--jobs 1: failing runs $(json_get "$SC_TMP/j1.json" "$RUNS_OF")"
if [ "$(json_get "$SC_TMP/j1.json" 'd["failing_runs"]')" -ge 1 ] 2>/dev/null; then
	tap_ok "the whole session finds failing runs (the comparison means something)"
else
	tap_not_ok "the whole session finds failing runs (the comparison means something)"
fi
tap_is "$(json_get "$SC_TMP/j2.json" "$KEY")" "$(json_get "$SC_TMP/j1.json" "$KEY")" \
	"--keep-going: --jobs 2 finds the same failing runs as --jobs 1"
tap_is "$(json_get "$SC_TMP/j2.json" '(d["runs"], d["events"])')" \
	"$(json_get "$SC_TMP/j1.json" '(d["runs"], d["events"])')" \
	"--keep-going: same number of runs and events"

for attempt in 1 2 3; do
	launch "$SC_TMP/f1.json" --jobs 1
	launch "$SC_TMP/f2.json" --jobs 2
	same "$SC_TMP/f1.json" "$SC_TMP/f2.json" '[d["first_bug_run"], d["runs"], d["failing_runs"]]' && break
	tap_diag "attempt $attempt: first bug differs"
done
tap_is "$(json_get "$SC_TMP/f2.json" '(d["first_bug_run"], d["runs"], d["failing_runs"])')" \
	"$(json_get "$SC_TMP/f1.json" '(d["first_bug_run"], d["runs"], d["failing_runs"])')" \
	"first bug: --jobs 2 stops at the same run, with the same runs done"

union() {
	python3 - "$@" <<'PY'
import json, sys
bugs = []
for p in sys.argv[1:]:
    bugs += json.load(open(p))["bugs"]
print(json.dumps(sorted((b["run"], b["kind"], b["seed"], b["message"]) for b in bugs)))
PY
}
for attempt in 1 2 3; do
	launch "$SC_TMP/s1.json" --keep-going --shard 1/2
	launch "$SC_TMP/s2.json" --keep-going --shard 2/2
	[ "$(union "$SC_TMP/s1.json" "$SC_TMP/s2.json")" = "$(json_get "$SC_TMP/j1.json" "$KEY")" ] && break
	tap_diag "attempt $attempt: the shards' union differs"
done
tap_is "$(json_get "$SC_TMP/s1.json" 'd["runs"]')+$(json_get "$SC_TMP/s2.json" 'd["runs"]')" \
	"$((RUNS / 2))+$((RUNS / 2))" "--shard 1/2 and 2/2 each run half of the runs"
tap_is "$(json_get "$SC_TMP/s1.json" 'all(b["run"] % 2 == 1 for b in d["bugs"])')" \
	true "shard 1/2 holds odd runs only"
tap_is "$(json_get "$SC_TMP/s2.json" 'all(b["run"] % 2 == 0 for b in d["bugs"])')" \
	true "shard 2/2 holds even runs only"
tap_is "$(union "$SC_TMP/s1.json" "$SC_TMP/s2.json")" "$(json_get "$SC_TMP/j1.json" "$KEY")" \
	"the union of the two shards' failing runs is the whole session's"

# The GNU parallel recipe, locally: 3 shards.
if command -v parallel >/dev/null 2>&1; then
	for attempt in 1 2 3; do
		rc=0
		rm -rf "$SC_TMP/par"
		SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE \
			SCHEDCTLD=$SCHEDCTLD SCHEDCTL_JOBS=1 \
			SCHEDCTL=$SCHEDCTL SHARDS=3 OUT=$SC_TMP/par \
			sh "$top_srcdir/contrib/sharding/parallel-shards.sh" \
			-s random -n "$RUNS" --seed "$SEED" --keep-going -- "$buggy" \
			>"$SC_TMP/par.out" 2>"$SC_TMP/par.err" || rc=$?
		same "$SC_TMP/par/merged.json" "$SC_TMP/j1.json" "$KEY" && break
		tap_diag "attempt $attempt: the parallel shards differ"
	done
	tap_is "$rc" 1 "parallel-shards.sh with 3 shards exits 1 (bugs found)"
	tap_diag_file "$SC_TMP/par.out"
	[ "$rc" -le 1 ] || tap_diag_file "$SC_TMP/par.err"
	tap_is "$(json_get "$SC_TMP/par/merged.json" "$KEY")" \
		"$(json_get "$SC_TMP/j1.json" "$KEY")" \
		"parallel-shards.sh: the merged failing runs are the whole session's"
	tap_is "$(json_get "$SC_TMP/par/merged.json" 'd["runs"]')" "$RUNS" \
		"parallel-shards.sh: the shards ran $RUNS runs in all"
else
	tap_skip "parallel-shards.sh" "GNU parallel not installed"
	tap_skip "parallel-shards.sh merged failing runs" "GNU parallel not installed"
	tap_skip "parallel-shards.sh run count" "GNU parallel not installed"
fi

for bad in "--shard 3/2" "--shard 0/2" "--shard 1/0" "--shard x" "--jobs 0"; do
	rc=0
	# shellcheck disable=SC2086 # two words on purpose
	sc launch $bad -n 2 -- "$buggy" >/dev/null 2>"$SC_TMP/bad.err" || rc=$?
	tap_is "$rc" 2 "launch $bad is a usage error"
done

sc_check_no_leftovers
tap_done
