#!/bin/bash
# hitrate.sh: how often each strategy hits the seeded bug of each buggy
# target (`make bench`; not part of `make check`).  For every target x
# strategy it runs `schedctl launch --json --keep-going -n N --seed S` and
# prints the fraction of runs that failed, then a geometric-mean row (a
# zero counts as 1/N, so that one miss does not zero a column), then a
# second table: the mean number of runs to the first bug, estimated as the
# mean gap between consecutive failing runs of the session (the first gap
# counted from run 0); "-" when no run failed.  For chess, a systematic
# search that does not depend on the seed, the second table gives the run
# of the first bug itself, or "ex@N" when the bounded space was exhausted
# after N schedules without a bug.
#
# Environment: top_builddir (default: the current directory),
# HITRATE_RUNS (N, default 200), HITRATE_SEED (default 1),
# HITRATE_STRATEGIES (default "native random pct-2 pct-3 pct-5 pos pos-rw
# urw surw noise-white noise-random noise-best speed portfolio chess";
# pct-D is pct with --depth D, noise-K is noise with --noise K, chess-C is
# chess with --preemptions C, chess alone C = 2; STRATEGY@G runs it at
# --granularity G, e.g. pos@race or surw@mem), HITRATE_TARGETS
# (default: the buggy targets of tests/targets; NAME@ARG runs NAME with
# the argument ARG, e.g. deep_order@3 for three threads).  A third table
# gives the runs per second of each cell (runs / the session's wall time,
# the jobs of --jobs included).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
RUNS=${HITRATE_RUNS:-200}
SEED=${HITRATE_SEED:-1}
STRATEGIES=${HITRATE_STRATEGIES:-native random pct-2 pct-3 pct-5 pos pos-rw urw surw noise-white noise-random noise-best speed portfolio chess}
TARGETS=${HITRATE_TARGETS:-order_violation check_then_act abba_deadlock lost_wakeup crash_null exit_status deep_order@2 deep_order@3 deep_order@4 atomicity_far lost_signal_n@2 lost_signal_n@4}

command -v python3 >/dev/null || { echo "hitrate.sh: python3 not found" >&2; exit 1; }
for t in $TARGETS; do
	if [ ! -x "$top_builddir/tests/targets/${t%%@*}" ]; then
		echo "hitrate.sh: tests/targets/${t%%@*} not built (run: make targets)" >&2
		exit 1
	fi
done


# ratio TARGET STRATEGY: failing_runs/runs of one session, or "err".
ratio() {
	local s=${2%@*} json=$tmp/$1-$2.json gran=()
	local args=(-s "$s")
	case $2 in
	*@*) gran=(--granularity "${2#*@}") ;;
	esac
	case $s in
	pct-*) args=(-s pct --depth "${s#pct-}") ;;
	noise-*) args=(-s noise --noise "${s#noise-}") ;;
	chess-*) args=(-s chess --preemptions "${s#chess-}") ;;
	esac
	args+=("${gran[@]}")
	local prog=("$top_builddir/tests/targets/${1%%@*}")
	case $1 in
	*@*) prog+=("${1#*@}") ;;
	esac
	sc launch --json --keep-going --keep-traces none -n "$RUNS" \
		--seed "$SEED" "${args[@]}" -- "${prog[@]}" \
		>"$json" 2>"$json.err" || :
	python3 - "$json" <<'PY' 2>/dev/null || echo err
import json, sys
d = json.load(open(sys.argv[1]))
runs = sorted(b["run"] for b in d.get("bugs") or [])
gaps = [b - a for a, b in zip([0] + runs[:-1], runs)]
gap = "%.1f" % (sum(gaps) / len(gaps)) if gaps else "-"
search = d.get("search")
if search:
    # A search's first bug is a fact of the search, not a sample.
    gap = str(runs[0]) if runs else \
        ("ex@%d" % search["schedules"] if search["exhausted"] else "-")
rps = d["runs"] / d["wall_seconds"] if d.get("wall_seconds") else 0.0
print("%d/%d:%s:%.1f" % (d["failing_runs"], d["runs"], gap, rps))
PY
}

echo "hit ratio: failing runs / runs, $RUNS runs per cell, seed $SEED"
printf '%-18s' target
for s in $STRATEGIES; do printf ' %12s' "$s"; done
echo
results=$tmp/results
: >"$results"
for t in $TARGETS; do
	printf '%-18s' "$t"
	for s in $STRATEGIES; do
		r=$(ratio "$t" "$s")
		echo "$t $s $r" >>"$results"
		if [ "$r" = err ]; then
			printf ' %12s' err
		else
			printf ' %12.3f' "$(awk -v r="${r%%:*}" 'BEGIN { split(r, a, "/"); print a[2] ? a[1] / a[2] : 0 }')"
		fi
	done
	echo
done
python3 - "$results" "$RUNS" $STRATEGIES <<'PY'
import math, sys
path, runs, strategies = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
ratios = {s: [] for s in strategies}
for line in open(path):
    t, s, r = line.split()
    if r == "err":
        continue
    hits, n = (int(x) for x in r.split(":")[0].split("/"))
    ratios[s].append(max(hits / n if n else 0.0, 1.0 / runs))
out = "%-18s" % "geomean"
for s in strategies:
    v = ratios[s]
    out += " %12.3f" % math.exp(sum(map(math.log, v)) / len(v)) if v else " %12s" % "n/a"
print(out)
print()
# table TITLE FIELD: per target x strategy, field FIELD of the
# "hits/runs:gap:rps" cells ("err" when the cell has none).
def table(title, field):
    print(title)
    print("%-18s" % "target" + "".join(" %12s" % s for s in strategies))
    rows = {}
    for line in open(path):
        t, s, r = line.split()
        rows.setdefault(t, {})[s] = r.split(":")[field] if r.count(":") >= field else "err"
    for t, cells in rows.items():
        print("%-18s" % t + "".join(" %12s" % cells.get(s, "n/a") for s in strategies))

table("mean runs to the first bug (mean gap between failing runs)", 1)
print()
table("runs per second", 2)
PY
