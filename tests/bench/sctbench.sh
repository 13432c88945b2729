#!/bin/bash
# sctbench.sh: schedctl on the 32 SCTBench cases of the POS paper's
# Table 3 (not part of `make check` or `make bench`: it needs a clone of
# mc-imperial/sctbench and takes from minutes to hours).
#
# For every case x configuration it runs `schedctl launch --json
# --keep-going --keep-traces none -n RUNS --seed SEED` and prints the hit
# ratio (runs that failed with the case's own bug, by the oracle of
# contrib/sctbench/manifest.tsv: assert, crash, exit, deadlock, or several joined by "|"; a hang
# counts as the deadlock of a deadlock case only), the runs per second,
# and the expected wall time to the first bug (1 / (hit ratio x runs per
# second)), then the geometric mean of each column (a case never hit
# counts as 1/RUNS), the paper's geomeans beside it, and for each
# configuration how much sooner than native stress it finds the bugs
# native stress ever finds.
#
# Environment:
#   SCT_ROOT         the built cases (default $HOME/sct); when
#                    $SCT_ROOT/bin is missing and SCTBENCH_SRC points at a
#                    clone of mc-imperial/sctbench, the cases are built
#                    first with contrib/sctbench/build.sh (~3 minutes)
#   SCTBENCH_RUNS    runs per cell (default 300; the issue's 1000)
#   SCTBENCH_SEED    (default 1)
#   SCTBENCH_TIMEOUT per-run --timeout in seconds (default 10)
#   SCTBENCH_CASES   case names (default: every case of the manifest)
#   SCTBENCH_CONFIGS configurations (default "native default pos pos-mem
#                    pct3-mem"): native = -s native (stress, no control);
#                    default = no option at all; NAME = -s NAME;
#                    NAME-mem / NAME-sync / NAME-race add --granularity;
#                    pct3 = -s pct --depth 3
#   top_builddir     the build directory (default: the current directory)
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$here/lib.sh"
kit=$here/../../contrib/sctbench
RUNS=${SCTBENCH_RUNS:-300}
SEED=${SCTBENCH_SEED:-1}
TIMEOUT=${SCTBENCH_TIMEOUT:-10}
CONFIGS=${SCTBENCH_CONFIGS:-native default pos pos-mem pct3-mem}
SCT_ROOT=${SCT_ROOT:-$HOME/sct}

command -v python3 >/dev/null || { echo "sctbench.sh: python3 not found" >&2; exit 1; }
[ -x "$SCHEDCTL" ] || { echo "sctbench.sh: $SCHEDCTL not built (run make)" >&2; exit 1; }
if [ ! -d "$SCT_ROOT/bin" ]; then
	if [ -z "${SCTBENCH_SRC:-}" ]; then
		echo "sctbench.sh: no built cases in $SCT_ROOT/bin: set SCTBENCH_SRC to a clone of mc-imperial/sctbench (or SCT_ROOT to built cases)" >&2
		exit 1
	fi
	MIRROR=$SCTBENCH_SRC SCT_ROOT=$SCT_ROOT bash "$kit/build.sh" >&2
fi

# The manifest's cases: "name<TAB>command<TAB>oracle".
cases=$tmp/cases
awk -F'\t' 'NR > 1 && $1 != "" { print $1 "\t" $2 "\t" $3 }' \
	"$kit/manifest.tsv" >"$cases"
if [ -n "${SCTBENCH_CASES:-}" ]; then
	for c in $SCTBENCH_CASES; do
		grep -q "^$c	" "$cases" || { echo "sctbench.sh: no case '$c' in the manifest" >&2; exit 1; }
	done
fi

# options CONFIG: the launch options of a configuration, one per line.
options() {
	local c=$1 gran=
	case $c in
	*-mem | *-sync | *-race) gran=${c##*-}; c=${c%-*} ;;
	esac
	case $c in
	default) ;;
	pct[0-9]*) printf '%s\n' -s pct --depth "${c#pct}" ;;
	*) printf '%s\n' -s "$c" ;;
	esac
	[ -z "$gran" ] || printf '%s\n' --granularity "$gran"
}

# cell CASE COMMAND ORACLE CONFIG: "hits runs seconds" of one session.
cell() {
	local json=$tmp/$1.$4.json cmd
	local -a opts words
	mapfile -t opts < <(options "$4")
	cmd=${2//\$SCT/$SCT_ROOT}
	read -r -a words <<<"$cmd"
	# ctrace-test and aget-bug2 are bash wrappers: follow their children.
	case $(head -c 2 "${words[0]}" 2>/dev/null) in
	'#!') opts+=(--follow-forks) ;;
	esac
	sc launch --json --keep-going --keep-traces none -n "$RUNS" \
		--seed "$SEED" --timeout "$TIMEOUT" "${opts[@]}" -- "${words[@]}" \
		</dev/null >"$json" 2>"$json.err" || :
	python3 - "$json" "$3" <<'PY' 2>/dev/null || echo "err 0 0"
import json, sys
d = json.load(open(sys.argv[1]))
# ORACLE is a kind or several joined by "|" (ctrace-test: crash|exit).
want = set()
for k in sys.argv[2].split("|"):
    want.update({"deadlock": ("deadlock", "hang")}.get(k, (k,)))
hits = sum(1 for b in d.get("bugs") or [] if b["kind"] in want)
print(hits, d["runs"], d["wall_seconds"])
PY
}

results=$tmp/results
: >"$results"
echo "SCTBench: hit ratio (failing runs with the case's bug / runs), $RUNS runs per cell, seed $SEED, --timeout $TIMEOUT"
printf '%-22s' case
for c in $CONFIGS; do printf ' %10s' "$c"; done
echo
while IFS=$'\t' read -r name cmd oracle; do
	if [ -n "${SCTBENCH_CASES:-}" ] && ! [[ " $SCTBENCH_CASES " == *" $name "* ]]; then
		continue
	fi
	printf '%-22s' "$name"
	for c in $CONFIGS; do
		r=$(cell "$name" "$cmd" "$oracle" "$c")
		echo "$name $c $r" >>"$results"
		read -r hits runs _ <<<"$r"
		if [ "$hits" = err ] || [ "$runs" = 0 ]; then
			printf ' %10s' err
		else
			printf ' %10.4f' "$(awk -v h="$hits" -v n="$runs" 'BEGIN { print h / n }')"
		fi
	done
	echo
done <"$cases"

python3 - "$results" "$RUNS" $CONFIGS <<'PY'
import math, sys
path, runs, configs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cells = {}
for line in open(path):
    case, config, hits, n, secs = line.split()
    if hits == "err" or int(n) == 0:
        continue
    cells[(case, config)] = (int(hits), int(n), float(secs))
cases = sorted({k[0] for k in cells})

def geomean(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")

print("%-22s" % "geomean" + "".join(
    " %10.4f" % geomean([max(cells[(k, c)][0] / cells[(k, c)][1], 1 / runs)
                         for k in cases if (k, c) in cells])
    for c in configs))
print("%-22s" % "cases hit" + "".join(
    " %10s" % ("%d/%d" % (sum(1 for k in cases if cells.get((k, c), (0,))[0] > 0),
                          sum(1 for k in cases if (k, c) in cells)))
    for c in configs))
print("paper (10^4 runs per case): POS 32/32 hit, geomean 0.1795; PCT-3 0.0459; random walk 0.0380")
print()
print("expected seconds to the first bug (1 / (hit ratio x runs per second)); - never hit")
print("%-22s" % "case" + "".join(" %10s" % c for c in configs))
ttb = {}
for k in cases:
    row = "%-22s" % k
    for c in configs:
        if (k, c) not in cells:
            row += " %10s" % "err"
            continue
        hits, n, secs = cells[(k, c)]
        if hits == 0 or secs <= 0:
            row += " %10s" % "-"
            continue
        t = secs / hits
        ttb[(k, c)] = t
        row += " %10.3f" % t
    print(row)
if "native" in configs:
    native_hit = [k for k in cases if (k, "native") in ttb]
    print()
    print("on the %d case(s) native stress hits: geomean speed-up of the expected time to the first bug over native" % len(native_hit))
    for c in configs:
        if c == "native":
            continue
        r = [ttb[(k, "native")] / ttb[(k, c)] for k in native_hit if (k, c) in ttb]
        print("  %-12s %s" % (c, "%.1fx over %d case(s)" % (geomean(r), len(r)) if r else "n/a"))
PY
