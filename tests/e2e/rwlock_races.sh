#!/bin/bash
# rwlock_races.sh: no false data races on data that a read-write lock (or
# any other pthread/C11 primitive) orders, and the real race beside it
# still reported.  40 runs at --granularity mem of each target, then
# `schedctl analyze --json`:
#   - rwlock_counter (pthread_rwlock_wrlock/rdlock/trywrlock/tryrdlock):
#     the only racing pair is the marked UNLOCKED line with itself;
#   - shared_mutex_counter (C++17 std::shared_mutex, std::mutex): same;
#   - atomic_handoff (C11 release stores and acquire loads, plain movs on
#     x86: a global flag, a structure's member, an array of flags): same;
#   - sync_handoff (mutex lock/trylock/timedlock, cond, rwlock, sem, spin,
#     barrier, once, call_once, create, join, mtx_*, cnd_*, thrd_join):
#     no race at all.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

RUNS=40
SEED=1

# line_of FILE MARKER: the line number of the statement that ends with
# the marker comment (/* MARKER */ or // MARKER) in FILE.
line_of() {
	grep -n -E "(/\* $2 \*/|// $2)\$" "$top_srcdir/tests/targets/$1" |
		head -n1 | cut -d: -f1
}

# races NAME SRC: launch and analyze; sets json to the analysis.
races() {
	local name=$1 rc=0
	sc launch --json --granularity mem -n "$RUNS" --seed "$SEED" \
		--keep-going --keep-traces all --out "$SC_TMP/$name" \
		-- "$(sc_target "$name")" >"$SC_TMP/$name.launch.json" \
		2>"$SC_TMP/$name.launch.err" || rc=$?
	tap_is "$rc/$(json_get "$SC_TMP/$name.launch.json" 'd["failing_runs"]')" \
		"0/0" "$name: $RUNS runs at --granularity mem, none failing"
	[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/$name.launch.err"
	json=$SC_TMP/$name.analyze.json
	rc=0
	sc analyze --json "$SC_TMP/$name" >"$json" 2>"$SC_TMP/$name.analyze.err" || rc=$?
	tap_is "$rc" 0 "$name: analyze exits 0"
	tap_is "$(json_get "$json" 'd["runs"]')" "$RUNS" "$name: analyze read $RUNS runs"
	tap_diag "$name: $(json_get "$json" '"; ".join("%s <-> %s: %d" % (r["first"], r["second"], r["count"]) for r in d["races"]) or "no race"')"
}

# only_race NAME SRC: the one racing pair is the UNLOCKED line with itself.
only_race() {
	local name=$1 src=$2 line
	line=$(line_of "$src" "UNLOCKED")
	races "$name"
	tap_is "$(json_get "$json" 'sorted(set("%s <-> %s" % (r["first"], r["second"]) for r in d["races"]))')" \
		'["'"$src:$line <-> $src:$line"'"]' \
		"$name: the unprotected counter ($src:$line) is the only race; nothing on the locked data"
}

only_race rwlock_counter rwlock_counter.c
only_race atomic_handoff atomic_handoff.c
if [ -x "$top_builddir/tests/targets/shared_mutex_counter" ]; then
	only_race shared_mutex_counter shared_mutex_counter.cc
else
	tap_skip "shared_mutex_counter: no C++ compiler at build time"
fi
races sync_handoff
tap_is "$(json_get "$json" 'd["distinct_race_pairs"]')" 0 \
	"sync_handoff: no race through any pthread or C11 primitive"

sc_check_no_leftovers
tap_done
