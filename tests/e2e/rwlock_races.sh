#!/bin/bash
# rwlock_races.sh: no false data races on data that a read-write lock (or
# any other pthread/C11 primitive) orders, and the real race beside it
# still reported.  40 runs at --granularity mem of each target, then
# `schedctl analyze --json`:
#   - rwlock_counter (pthread_rwlock_wrlock/rdlock/trywrlock/tryrdlock):
#     the only racing pair is the marked UNLOCKED line with itself;
#   - shared_mutex_counter (C++17 std::shared_mutex, std::mutex): same;
#   - heap_atomic_flag (a std::atomic<bool> member of a heap object, its
#     load and store plain movs, publishing a payload): same;
#   - atomic_handoff (C11 release stores and acquire loads, plain movs on
#     x86: a global flag, a structure's member, an array of flags): same;
#   - sync_handoff (mutex lock/trylock/timedlock, cond, rwlock, sem, spin,
#     barrier, once, call_once, create, join, mtx_*, cnd_*, thrd_join):
#     no race at all.
#   - a shell script that runs rwlock_counter twice (--follow-forks): the
#     same, though the two processes use the same addresses (no ASLR), and
#     each process's events are named by its own program; the exports
#     show the three processes apart.
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

# races NAME [PROGRAM...]: launch (the target NAME, or PROGRAM with
# --follow-forks) and analyze; sets json to the analysis.
races() {
	local name=$1 rc=0
	shift
	local cmd=("$(sc_target "$name")") forks=()
	if [ $# -gt 0 ]; then
		cmd=("$@")
		forks=(--follow-forks)
	fi
	sc launch --json --granularity mem -n "$RUNS" --seed "$SEED" \
		--keep-going --keep-traces all --out "$SC_TMP/$name" \
		"${forks[@]}" -- "${cmd[@]}" >"$SC_TMP/$name.launch.json" \
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

# only_race NAME SRC [PROGRAM...]: the one racing pair is the UNLOCKED
# line with itself.
only_race() {
	local name=$1 src=$2 line
	shift 2
	line=$(line_of "$src" "UNLOCKED")
	races "$name" "$@"
	tap_is "$(json_get "$json" 'sorted(set("%s <-> %s" % (r["first"], r["second"]) for r in d["races"]))')" \
		'["'"$src:$line <-> $src:$line"'"]' \
		"$name: the unprotected counter ($src:$line) is the only race; nothing on the locked data"
}

only_race rwlock_counter rwlock_counter.c
only_race atomic_handoff atomic_handoff.c
if [ -x "$top_builddir/tests/targets/shared_mutex_counter" ]; then
	only_race shared_mutex_counter shared_mutex_counter.cc
	only_race heap_atomic_flag heap_atomic_flag.cc
else
	tap_skip "shared_mutex_counter: no C++ compiler at build time"
	tap_skip "heap_atomic_flag: no C++ compiler at build time"
fi
races sync_handoff
tap_is "$(json_get "$json" 'd["distinct_race_pairs"]')" 0 \
	"sync_handoff: no race through any pthread or C11 primitive"

# Before traces named each thread's process, the second process's
# accesses raced with the first's at the same addresses, and the shell's
# events were named with rwlock_counter's symbols.
twice=$SC_TMP/twice.sh
printf '#!/bin/sh\n%s || exit 1\n%s || exit 1\n' \
	"$(sc_target rwlock_counter)" "$(sc_target rwlock_counter)" >"$twice"
chmod +x "$twice"
only_race twice rwlock_counter.c "$twice"
trace=$(ls "$SC_TMP/twice"/run-*.sctrace | head -n1)
sc export "$trace" --format chrome -o "$SC_TMP/twice.chrome.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/twice.chrome.json" 'sorted(e["args"]["name"].split("/")[-1] for e in d["traceEvents"] if e["name"] == "process_name")')" \
	'["rwlock_counter", "rwlock_counter", "twice.sh"]' \
	"chrome export: the script's process and the two it started, named"
sc export "$trace" --format json -o "$SC_TMP/twice.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/twice.json" 'len(set(e.get("process", 0) for e in d["events"])), [m["executable"].split("/")[-1] for m in d["maps"]][1:]')" \
	"(3, ['rwlock_counter', 'rwlock_counter'])" \
	"json export: events of three processes, a module map for each program the shell started"

sc_check_no_leftovers
tap_done
