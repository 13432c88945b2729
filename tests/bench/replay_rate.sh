#!/bin/bash
# replay_rate.sh: how often a recorded run replays exactly, on a quiet
# machine and on a busy one (`make bench`; not part of `make check`).
# For each program it records one run, replays its trace K times quietly
# and K times under tests/lib/under-load (a busy loop on every CPU), and
# prints a table: target, granularity, what the recorded run was (a bug
# kind or pass), reproduced quiet k/K, reproduced under load k/K; then
# each distinct failure (exit status, verdict, divergence message) with
# its count.  A replay of a failing run counts when it exits 1 with the
# bug reproduced, of a passing run when it exits 0 with verdict pass and
# no divergence.
#
# Programs: a failing run of each buggy target (TARGETS_BUGGY of
# tests/Makemodule.am, sync granularity) and of each TARGETS_MEM target
# (mem granularity; one with no bug found replays its passing run 1),
# found with -s random -n 200 (then the default strategy, surw, which
# finds deep_order and atomicity_far); one passing run of /bin/true,
# spin_handoff, long_compute and preempt_compute (time-slice preemptions);
# and, when installed, pigz -c, xz -T2 -c, sort --parallel=2 and
# pbzip2 -c -p2 on a generated text file of a few MB.
#
# Environment: top_builddir (default: the current directory), top_srcdir
# (default: this script's source tree), REPLAY_RUNS (K, default 20),
# REPLAY_SEED (the seed of the recording sessions, default 1),
# REPLAY_TARGETS (default: all of the above; names of tests/targets,
# NAME@mem for mem granularity, or true, pigz, xz, sort, pbzip2),
# REPLAY_INPUT_LINES (lines of the generated input, default 60000:
# about 2.7 MB).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
K=${REPLAY_RUNS:-20}
SEED=${REPLAY_SEED:-1}
RUNS=200
LINES=${REPLAY_INPUT_LINES:-60000}
UNDER_LOAD=$top_srcdir/tests/lib/under-load
targets_dir=$top_builddir/tests/targets

command -v python3 >/dev/null || { echo "replay_rate.sh: python3 not found" >&2; exit 1; }

# shellcheck source=tests/lib/am_targets.sh
. "$top_srcdir/tests/lib/am_targets.sh"

if [ -n "${REPLAY_TARGETS:-}" ]; then
	TARGETS=$REPLAY_TARGETS
else
	TARGETS="$(am_targets TARGETS_BUGGY) $(am_targets TARGETS_MEM | sed 's/$/@mem/')"
	TARGETS="$TARGETS true spin_handoff long_compute preempt_compute pigz xz sort pbzip2"
fi
for t in $TARGETS; do
	case ${t%@mem} in
	true | pigz | xz | sort | pbzip2) ;;
	*)
		if [ ! -x "$targets_dir/${t%@mem}" ]; then
			echo "replay_rate.sh: tests/targets/${t%@mem} not built (run: make targets)" >&2
			exit 1
		fi ;;
	esac
done

input=$tmp/input.txt
awk -v n="$LINES" 'BEGIN { for (i = 0; i < n; i++)
	printf "%08d %06d lorem ipsum dolor sit amet %d\n", (i * 7919) % n, i, i % 97 }' >"$input"

# json FILE EXPR: like tests/lib/tap.sh's json_get.
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2], {"d": d})
print("null" if v is None else v)' "$1" "$2" 2>/dev/null
}

# record NAME: sets cmd (the program and its arguments), gran, trace and
# want (bug or pass) for one recorded run; fails when the program is not
# installed or nothing could be recorded.
record() {
	local name=${1%@mem} json strategy rc
	gran=sync
	[ "$1" = "${1%@mem}" ] || gran=mem
	case $name in
	true) cmd=(/bin/true) ;;
	pigz) cmd=(pigz -c "$input") ;;
	xz) cmd=(xz -T2 -c "$input") ;;
	sort) cmd=(sort --parallel=2 "$input") ;;
	pbzip2) cmd=(pbzip2 -c -p2 "$input") ;;
	*) cmd=("$targets_dir/$name") ;;
	esac
	command -v "${cmd[0]}" >/dev/null || return 1
	json=$tmp/$1.json
	case $name in
	true | pigz | xz | sort | pbzip2 | spin_handoff | long_compute | preempt_compute)
		sc launch --json -n 1 --seed "$SEED" --granularity sync -- "${cmd[@]}" \
			>"$json" 2>"$json.err" || :
		want=pass
		;;
	*)
		want=
		for strategy in random surw; do
			rc=0
			sc launch --json -s "$strategy" -n "$RUNS" --seed "$SEED" \
				--granularity "$gran" -- "${cmd[@]}" \
				>"$json" 2>"$json.err" || rc=$?
			if [ "$rc" -eq 1 ]; then
				want=$(json "$json" 'd["bugs"][0]["kind"]')
				trace=$(json "$json" 'd["bugs"][0]["trace"]')
				return 0
			fi
		done
		want=pass   # no bug found: a correct program (po_writers)
		;;
	esac
	trace=$(json "$json" 'd["out_dir"]')/run-000001.sctrace
	[ -f "$trace" ]
}

# replays DIR TRACE K: replay TRACE K times; DIR/i.rc, DIR/i.json, DIR/i.err.
replays() {
	local dir=$1 i rc
	mkdir -p "$dir"
	for ((i = 1; i <= $3; i++)); do
		rc=0
		sc replay "$2" --json >"$dir/$i.json" 2>"$dir/$i.err" || rc=$?
		echo "$rc" >"$dir/$i.rc"
	done
}
export -f sc replays
export SCHEDCTL SCHEDCTLD tmp

# score DIR K WANT: "k/K" on the first line, then "COUNTx FAILURE" lines.
score() {
	python3 "$top_srcdir/tests/lib/replay_score.py" "$@"
}

echo "replays that reproduce the recorded run: $K quiet, $K under load ($(nproc) busy loops); seed $SEED"
printf '%-18s %-5s %-9s %10s %10s\n' target gran recorded quiet "under load"
failures=$tmp/failures
: >"$failures"
for t in $TARGETS; do
	if ! record "$t"; then
		printf '%-18s %-5s %s\n' "${t%@mem}" "${gran:-?}" \
			"skipped: ${cmd[0]} not installed, or no run recorded"
		continue
	fi
	replays "$tmp/$t/quiet" "$trace" "$K"
	bash "$UNDER_LOAD" -- bash -c 'replays "$@"' _ "$tmp/$t/load" "$trace" "$K"
	score "$tmp/$t/quiet" "$K" "$want" >"$tmp/$t/quiet.score"
	score "$tmp/$t/load" "$K" "$want" >"$tmp/$t/load.score"
	printf '%-18s %-5s %-9s %10s %10s\n' "${t%@mem}" "$gran" "$want" \
		"$(head -n 1 "$tmp/$t/quiet.score")" "$(head -n 1 "$tmp/$t/load.score")"
	for cond in quiet load; do
		tail -n +2 "$tmp/$t/$cond.score" | sed "s|^|${t%@mem} ($gran, $cond): |" >>"$failures"
	done
done
if [ -s "$failures" ]; then
	echo
	echo "failed replays (count, exit status, verdict, message):"
	cat "$failures"
fi
