#!/bin/bash
# jobs_shard.sh: a session is a function of its seed, whatever --jobs or
# --shard (strategies learn only from the pilot, runs 1..10, which every
# job and shard runs itself: daemon/strategy/pilot.h).
#  - every strategy (random, pct, pos, pos-rw, urw, surw, noise white and
#    best, speed, portfolio), one --seed, --keep-going: --jobs 1, --jobs 2
#    and --shard 1/2 + 2/2 give the same failing runs (run, kind, seed,
#    message) and the same number of events (the shards' union and sum);
#    pct also the same bound (its k is learnt);
#  - without --keep-going: the same first failing run, runs done, events
#    and pct bound with --jobs 1 and 2 (the documented "lowest failing
#    run" rule; the bound is that of the pilot runs up to the first bug);
#  - --shard 1/2 and 2/2 run disjoint halves;
#  - the GNU parallel recipe (contrib/sharding/parallel-shards.sh) run
#    locally gives the whole session's failing runs;
#  - bad --jobs and --shard values are usage errors.
# Each comparison is made once: a difference is a bug.  The default time
# slice: preemptions depend on the threads' states, not on the load (in CI
# this also runs with a busy loop on every CPU).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

bin=$(sc_target check_then_act)
RUNS=20
SEED=5
SLICE_US=2000   # the default: load adds no preemptions
KEY='sorted((b["run"], b["kind"], b["seed"], b["message"]) for b in d["bugs"])'
RUNS_OF='sorted(b["run"] for b in d["bugs"])'
BOUND='d.get("pct_bound")'

# launch JSON ARGS...: sc launch --json with the common options.
launch() {
	local json=$1 rc
	shift
	rc=$(sc_launch_json "$json" --slice-us "$SLICE_US" --seed "$SEED" \
		-n "$RUNS" "$@" -- "$bin")
	[ "$rc" -le 1 ] || { tap_diag "launch $* exited $rc"; tap_diag_file "$json.err"; }
}

# merge EXPR JSON...: EXPR over the shards' summaries merged: the bugs of
# all, events and runs summed.
merge() {
	python3 - "$@" <<'PY'
import json, sys
d = {"bugs": [], "events": 0, "runs": 0}
for p in sys.argv[2:]:
    s = json.load(open(p))
    d["bugs"] += s["bugs"]
    d["events"] += s["events"]
    d["runs"] += s["runs"]
v = eval(sys.argv[1], {"d": d})
print(json.dumps(v) if isinstance(v, (list, dict)) else v)
PY
}

# same GOT WANT DESCRIPTION COMMAND...: tap_is, and when they differ the
# output of COMMAND as a diagnostic.
same() {
	tap_is "$1" "$2" "$3"
	[ "$1" = "$2" ] || tap_diag "  $("${@:4}")"
}

# steps_diff REF OTHER...: the runs whose steps (events) differ between
# the session of summary REF and those of OTHER (read from the index), to
# tell a run that learnt differently (its schedule differs: often several
# runs, by many events) from the engine's timing (a run gains or loses a
# preemption or a syscall return: one run, an event or two).
steps_diff() {
	python3 - "$(find "$SC_STATE" -name sessions.db | head -n 1)" "$@" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def steps(paths):
    out = {}
    for p in paths:
        sid = json.load(open(p))["session"]
        out.update(db.execute("select run, steps from runs where session = ?",
                              (sid,)).fetchall())
    return out
a, b = steps(sys.argv[2:3]), steps(sys.argv[3:])
print(", ".join("run %d: %s vs %s" % (r, a.get(r), b.get(r))
                for r in sorted(set(a) | set(b)) if a.get(r) != b.get(r)))
PY
}

# Per-run part of the bound (what was learnt), without the run counts.
PER_RUN='{k: d["pct_bound"][k] for k in ("depth", "threads", "points", "per_run")} if d.get("pct_bound") else None'

hits=0
nstrategies=0
for spec in random pct pos pos-rw urw surw noise "noise --noise best" speed \
	portfolio mix; do
	# shellcheck disable=SC2206 # the options of the spec, on purpose
	opts=(-s $spec)
	name=${spec// --noise /=}
	d=$SC_TMP/${name//=/-}
	nstrategies=$((nstrategies + 1))
	launch "$d.j1.json" "${opts[@]}" --keep-going --jobs 1
	launch "$d.j2.json" "${opts[@]}" --keep-going --jobs 2
	launch "$d.s1.json" "${opts[@]}" --keep-going --shard 1/2
	launch "$d.s2.json" "${opts[@]}" --keep-going --shard 2/2
	j1=$(json_get "$d.j1.json" "$KEY")
	tap_diag "$name: --jobs 1: failing runs $(json_get "$d.j1.json" "$RUNS_OF"), $(json_get "$d.j1.json" 'd["events"]') events"
	[ "$(json_get "$d.j1.json" 'd["failing_runs"]')" -ge 1 ] 2>/dev/null &&
		hits=$((hits + 1))
	same "$(json_get "$d.j2.json" "$KEY")" "$j1" \
		"$name: --jobs 2 finds the same failing runs as --jobs 1" \
		json_get "$d.j2.json" "$RUNS_OF"
	same "$(json_get "$d.j2.json" '[d["runs"], d["events"]]')" \
		"$(json_get "$d.j1.json" '[d["runs"], d["events"]]')" \
		"$name: --jobs 2: same runs and events as --jobs 1" \
		steps_diff "$d.j1.json" "$d.j2.json"
	same "$(merge "$KEY" "$d.s1.json" "$d.s2.json")" "$j1" \
		"$name: shards 1/2 + 2/2 find the failing runs of --jobs 1" \
		merge "$RUNS_OF" "$d.s1.json" "$d.s2.json"
	same "$(merge '[d["runs"], d["events"]]' "$d.s1.json" "$d.s2.json")" \
		"$(json_get "$d.j1.json" '[d["runs"], d["events"]]')" \
		"$name: shards 1/2 + 2/2: same runs and events as --jobs 1" \
		steps_diff "$d.j1.json" "$d.s1.json" "$d.s2.json"
	if [ "$name" = pct ]; then
		tap_is "$(json_get "$d.j2.json" "$BOUND")" \
			"$(json_get "$d.j1.json" "$BOUND")" \
			"pct: --jobs 2 reports the bound of --jobs 1"
		tap_is "$(json_get "$d.s1.json" "$PER_RUN") $(json_get "$d.s2.json" "$PER_RUN")" \
			"$(json_get "$d.j1.json" "$PER_RUN") $(json_get "$d.j1.json" "$PER_RUN")" \
			"pct: each shard reports the per-run bound of --jobs 1"
	fi
done
# Most strategies hit check_then_act's bug in $RUNS runs; if none did, the
# comparisons would compare nothing.
if [ "$hits" -ge $((nstrategies / 2)) ]; then
	tap_ok "$hits of $nstrategies strategies find failing runs (the comparisons mean something)"
else
	tap_not_ok "$hits of $nstrategies strategies find failing runs (the comparisons mean something)"
fi

tap_is "$(json_get "$SC_TMP/random.s1.json" '[d["runs"], all(b["run"] % 2 == 1 for b in d["bugs"])]') $(json_get "$SC_TMP/random.s2.json" '[d["runs"], all(b["run"] % 2 == 0 for b in d["bugs"])]')" \
	"[$((RUNS / 2)), true] [$((RUNS / 2)), true]" \
	"--shard 1/2 and 2/2 each run half of the runs, odd and even ones"

# The first bug without --keep-going.  pct with seed 11 fails first at
# run 4, inside the pilot: job 2 may have run later pilot runs by then,
# which must not change the reported bound.
for spec in "surw 5" "pct 11"; do
	# shellcheck disable=SC2086 # name and seed, on purpose
	set -- $spec
	name=$1
	SEED=$2 launch "$SC_TMP/f1.json" -s "$name" --jobs 1
	SEED=$2 launch "$SC_TMP/f2.json" -s "$name" --jobs 2
	FIRST='[d["first_bug_run"], d["runs"], d["failing_runs"], d["events"], d.get("pct_bound")]'
	tap_is "$(json_get "$SC_TMP/f2.json" "$FIRST")" \
		"$(json_get "$SC_TMP/f1.json" "$FIRST")" \
		"$name seed $2, first bug: --jobs 2 stops at the same run, with the same runs, events and bound"
done

# Spinning threads: spin_handoff's threads spin without a system call, so
# its runs hold preemptions, whose instruction within the loop depends on
# timing.  A strategy that keys a choice on that instruction (noise
# best's locations; portfolio runs noise best) would give the same seed
# other schedules: two --jobs 1 sessions and a --jobs 2 one must agree.
spin_bin=$(sc_target spin_handoff)
for spec in "noise --noise best" portfolio; do
	# shellcheck disable=SC2206 # the options of the spec, on purpose
	opts=(-s $spec)
	name=${spec// --noise /=}
	d=$SC_TMP/spin-${name//=/-}
	for j in 1 1b 2; do
		rc=$(sc_launch_json "$d.$j.json" "${opts[@]}" --seed "$SEED" 			-n "$RUNS" --keep-going --jobs "${j%b}" -- "$spin_bin")
		[ "$rc" -eq 0 ] || tap_diag "spin_handoff $name --jobs $j exited $rc"
	done
	for j in 1b 2; do
		same "$(json_get "$d.$j.json" '[d["runs"], d["events"]]')" \
			"$(json_get "$d.1.json" '[d["runs"], d["events"]]')" \
			"spin_handoff $name: --jobs ${j%b} again: same runs and events" \
			steps_diff "$d.1.json" "$d.$j.json"
	done
done

# The GNU parallel recipe, locally: 3 shards.
if command -v parallel >/dev/null 2>&1; then
	rc=0
	SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE \
		SCHEDCTLD=$SCHEDCTLD SCHEDCTL_JOBS=1 \
		SCHEDCTL=$SCHEDCTL SHARDS=3 OUT=$SC_TMP/par \
		sh "$top_srcdir/contrib/sharding/parallel-shards.sh" \
		--slice-us "$SLICE_US" -s surw -n "$RUNS" --seed "$SEED" \
		--keep-going -- "$bin" \
		>"$SC_TMP/par.out" 2>"$SC_TMP/par.err" || rc=$?
	tap_is "$rc" 1 "parallel-shards.sh with 3 shards exits 1 (bugs found)"
	tap_diag_file "$SC_TMP/par.out"
	[ "$rc" -le 1 ] || tap_diag_file "$SC_TMP/par.err"
	tap_is "$(json_get "$SC_TMP/par/merged.json" "$KEY")" \
		"$(json_get "$SC_TMP/surw.j1.json" "$KEY")" \
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
	sc launch $bad -n 2 -- "$bin" >/dev/null 2>"$SC_TMP/bad.err" || rc=$?
	tap_is "$rc" 2 "launch $bad is a usage error"
done

sc_check_no_leftovers
tap_done
