#!/bin/bash
# rust_panic.sh: a Rust program whose worker panics (and main with it, on
# unwrapping the join) under RUST_BACKTRACE=1, which makes the runtime
# walk and symbolise two backtraces before it exits with status 101: the
# verdict of every run is that exit, with the first panic's message and
# location, not a budget exhausted on the way, and a run replays.  A
# libtest binary's failed test (rustc --test: the panic captured, printed
# on stdout) gets its message and location too.  Built
# here with Debian's /usr/bin/rustc; skipped when it is not installed.
set -u
SRC=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

RUSTC=/usr/bin/rustc
RUNS=5

if [ ! -x "$RUSTC" ]; then
	for what in "all runs exit 101" "message" "location" "replay" "std" \
		"libtest message" "libtest location" "libtest replay"; do
		tap_skip "rust_panic: $what" "$RUSTC not installed (Debian package rustc)"
	done
	sc_check_no_leftovers
	tap_done
	exit 0
fi

bin=$SC_BIN/rust_panic
"$RUSTC" -O -C debuginfo=1 -o "$bin" "$SRC/tests/targets/rust_panic.rs" \
	2>"$SC_TMP/rustc.err" || { tap_diag_file "$SC_TMP/rustc.err"; tap_bail "rustc failed"; }

json=$SC_TMP/panic.json
rc=0
RUST_BACKTRACE=1 sc launch --json -n "$RUNS" --seed 1 --keep-going -- "$bin" \
	>"$json" 2>"$SC_TMP/panic.err" || rc=$?
tap_is "$rc $(json_get "$json" 'd["failing_runs"]') $(json_get "$json" '",".join(sorted(set(b["kind"] for b in d["bugs"])))')" \
	"1 $RUNS exit" "rust_panic: all $RUNS runs end with the exit verdict"
tap_is "$(json_get "$json" 'd["bugs"][0]["message"]')" \
	"panicked: index out of bounds: the len is 4 but the index is 5 (thread '<unnamed>')" \
	"rust_panic: the message is the worker's panic"
tap_is "$(json_get "$json" 'd["bugs"][0]["location"]')" \
	"$SRC/tests/targets/rust_panic.rs:12:9" \
	"rust_panic: the location is the panic's"
sc_check_replay rust_panic "$json" exit
# The standard library linked into the executable (the panic's
# formatting, the backtraces' symbolisation) is the runtime, not the
# program: no memory scheduling points there.  The race pilot runs
# stopped at 456525 accesses of it in these 5 runs (22.8 s; now 2550
# events, 0.7 s).
events=$(json_get "$json" 'd["events"]')
if [ "${events:-0}" -gt 0 ] 2>/dev/null && [ "$events" -lt 20000 ]; then
	tap_ok "rust_panic: the standard library's code is no scheduling point ($events events in $RUNS runs)"
else
	tap_not_ok "rust_panic: the standard library's code is no scheduling point ($events events in $RUNS runs, want < 20000)"
fi

# A test binary of libtest (cargo test): the failed test's panic is on
# stdout, at the end, under "---- NAME stdout ----"; stderr is empty.
# The report was "exited with status 101", no location.
bin=$SC_BIN/rust_libtest
"$RUSTC" --test -C debuginfo=1 -o "$bin" "$SRC/tests/targets/rust_libtest.rs" \
	2>"$SC_TMP/rustc.err" || { tap_diag_file "$SC_TMP/rustc.err"; tap_bail "rustc --test failed"; }
json=$SC_TMP/libtest.json
rc=0
sc launch --json -n 300 --seed 1 -- "$bin" >"$json" 2>"$SC_TMP/libtest.err" || rc=$?
msg=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "rust_libtest: $msg"
tap_is "$rc $(case $msg in "panicked: assertion"*"lost update (thread 'tests::lost_update')") echo named ;; esac)" \
	"1 named" "rust_libtest: the failed test's panic message, from its captured output"
tap_is "$(json_get "$json" 'd["bugs"][0]["location"]')" \
	"$SRC/tests/targets/rust_libtest.rs:29:9" \
	"rust_libtest: the location is the test's assert_eq!"
sc_check_replay rust_libtest "$json" exit

# analyze at --granularity mem: libtest's own threads and std's
# thread-locals are no data race.  Each test thread's thread-locals sit
# where the previous one's were (glibc gives an exited thread's stack and
# TLS block to the next), and std's atomics on the heap are plain movs:
# 9 false pairs inside std before.  lost_update's load and store are
# atomic accesses (a lost update, not a data race).
rc=0
sc launch --json --granularity mem -n 20 --seed 1 --keep-going \
	--keep-traces all --out "$SC_TMP/libtest_mem" -- "$bin" \
	>"$SC_TMP/libtest_mem.json" 2>"$SC_TMP/libtest_mem.err" || rc=$?
sc analyze --json "$SC_TMP/libtest_mem" >"$SC_TMP/libtest_an.json" \
	2>"$SC_TMP/libtest_an.err"
tap_diag "rust_libtest races: $(json_get "$SC_TMP/libtest_an.json" '"; ".join("%s <-> %s" % (r["first"], r["second"]) for r in d["races"]) or "none"')"
tap_is "$rc $(json_get "$SC_TMP/libtest_an.json" 'd["runs"], d["distinct_race_pairs"]')" \
	"1 (20, 0)" "rust_libtest: 20 runs at mem granularity, no race in libtest or std"

sc_check_no_leftovers
tap_done
