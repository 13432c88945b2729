#!/bin/bash
# real_suite.sh: the acceptance suite of real multi-threaded programs.
# pigz, pbzip2, xz -T2, zstd -T2 and sort --parallel=2 from Debian, a
# C++17 thread pool (tests/targets/cxx_pool), a GoogleTest binary with
# threaded tests (built here when libgtest-dev is installed) and a Rust
# std::thread/Mutex/mpsc program (built here with /usr/bin/rustc): each
# runs 5 times under schedctl (--keep-going, fixed seed) and
#   - exits 0 with 5 runs and no failing run (no false bug),
#   - writes, in every run, exactly the bytes the native run writes,
#   - reads its standard input when given one (< FILE on the launch), and
#     sees that file's times (pigz -c < FILE writes its mtime),
#   - runs more than one thread under schedctl (its run 1 trace), so the
#     runs did interleave threads,
#   - leaves no process behind.
# The programs are copied into the sandbox so that a leftover process is
# recognised by its path.  A missing program is a TAP skip.
set -u
SRC=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

RUNS=5
SEED=7
RUSTC=/usr/bin/rustc
export LC_ALL=C

# About 900 kB of text: several blocks for every compressor's threads,
# yet well under a second per controlled run.  sort sorts a buffer on
# several threads only from 2 x 128 Ki lines: it gets 300000 lines.
input=$SC_WORK/input.txt
seq 1 60000 | awk '{ printf "%08d %s\n", ($1 * 7919) % 100003, $1 }' >"$input"
# pigz writes its input's mtime into the gzip header: an old one, so that
# a copy of the input with other times cannot give the same bytes.
touch -d '2020-01-02 03:04:05' "$input"
lines=$SC_WORK/lines.txt
seq 1 300000 | awk '{ printf "%08d %s\n", ($1 * 7919) % 1000003, $1 }' >"$lines"

# sandboxed NAME: copy the installed program NAME into the sandbox and
# print its path; print nothing when it is not installed.
sandboxed() {
	local path
	path=$(command -v "$1" 2>/dev/null) || return 0
	[ -x "$SC_BIN/$1" ] || cp "$path" "$SC_BIN/$1" || return 0
	printf '%s\n' "$SC_BIN/$1"
}

# same_outputs DIR WANT: how many of the RUNS runs of the session kept in
# DIR wrote exactly WANT, as "n/RUNS".
same_outputs() {
	local r n=0 out
	for r in $(seq 1 "$RUNS"); do
		out=$(sc_run_output "$1" "$r") && cmp -s "$out" "$2" && n=$((n + 1))
	done
	echo "$n/$RUNS"
}

# check LABEL STDIN PROGRAM ARGS...: the native run (stdin from STDIN,
# /dev/null for none) must exit 0; then RUNS controlled runs with the
# same input must all pass and write the native output.  Four TAP lines.
check() {
	local label=$1 in=$2 rc=0 id json dir got threads
	shift 2
	id=${label//[^A-Za-z0-9]/_}
	json=$SC_TMP/$id.json
	dir=$SC_TMP/$id
	"$@" <"$in" >"$SC_TMP/$id.native" 2>"$SC_TMP/$id.native.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tap_not_ok "$label: the native run exits 0 (exit $rc)"
		tap_diag_file "$SC_TMP/$id.native.err" 5
		return
	fi
	sc launch --json -n "$RUNS" --seed "$SEED" --keep-going \
		--keep-traces all --out "$dir" -- "$@" <"$in" \
		>"$json" 2>"$SC_TMP/$id.err" || rc=$?
	tap_diag "$label: $(json_get "$json" '"%s runs, %s events, %.1f s" % (d["runs"], d["events"], d["wall_seconds"])')"
	got="$rc $(json_get "$json" 'd["runs"]') $(json_get "$json" 'd["failing_runs"]')"
	tap_is "$got" "0 $RUNS 0" "$label: $RUNS runs, exit 0, no bug reported"
	if [ "$got" != "0 $RUNS 0" ]; then
		tap_diag_file "$SC_TMP/$id.err" 5
		tap_diag "$(json_get "$json" '"; ".join("run %s: %s %s" % (b["run"], b["kind"], b["message"]) for b in d["bugs"])')"
	fi
	tap_is "$(same_outputs "$dir" "$SC_TMP/$id.native")" "$RUNS/$RUNS" \
		"$label: every run's output is byte-identical to the native run's"
	threads=
	sc export "$dir/run-000001.sctrace" --format json -o "$SC_TMP/$id.trace.json" \
		2>/dev/null && threads=$(json_get "$SC_TMP/$id.trace.json" 'd["footer"]["threads"]')
	tap_check "$label: run 1 ran ${threads:-no} threads (more than one)" \
		[ "${threads:-0}" -gt 1 ]
	sc_check_no_targets_left "$label: no process left"
}

# A program that is not installed: its four lines are skips.
skip4() {
	tap_skip "$1: runs" "$2"
	tap_skip "$1: output" "$2"
	tap_skip "$1: threads" "$2"
	tap_skip "$1: no process left" "$2"
}

# Compressed inputs, made natively, for the decompressions.
gzip -c "$input" >"$SC_WORK/input.gz"

bin=$(sandboxed pigz)
if [ -n "$bin" ]; then
	check "pigz -p 2 -c < file" "$input" "$bin" -p 2 -c
	check "pigz -d -c < file.gz" "$SC_WORK/input.gz" "$bin" -d -c
else
	skip4 pigz "pigz is not installed"
fi

bin=$(sandboxed pbzip2)
if [ -n "$bin" ]; then
	check "pbzip2 -p2 -c < file" "$input" "$bin" -p2 -b1 -c
else
	skip4 pbzip2 "pbzip2 is not installed"
fi

bin=$(sandboxed xz)
if [ -n "$bin" ]; then
	# Blocks of 128 KiB: xz -T2 compresses them, and decompresses
	# them, on two threads.
	check "xz -T2 -c file" /dev/null "$bin" -T2 -1 --block-size=128KiB -c "$input"
	xz -T2 -1 --block-size=128KiB -c "$input" >"$SC_WORK/input.xz"
	check "xz -d -T2 < file.xz" "$SC_WORK/input.xz" "$bin" -d -T2
else
	skip4 xz "xz is not installed (xz-utils)"
fi

bin=$(sandboxed zstd)
if [ -n "$bin" ]; then
	check "zstd -T2 -c < file" "$input" "$bin" -q -T2 -B512KiB -c
	zstd -q -c "$input" >"$SC_WORK/input.zst"
	check "zstd -d -T2 -c < file.zst" "$SC_WORK/input.zst" "$bin" -q -d -T2 -c
else
	skip4 zstd "zstd is not installed"
fi

bin=$(sandboxed sort)
check "sort --parallel=2 < file" "$lines" "$bin" --parallel=2

check cxx_pool /dev/null "$(sc_target cxx_pool)"

if [ -f /usr/include/gtest/gtest.h ]; then
	if g++ -std=c++17 -O1 -g -o "$SC_BIN/gtest_threads" \
		"$SRC/tests/targets/gtest_threads.cc" -lgtest -lgtest_main -pthread \
		2>"$SC_TMP/gtest.err"; then
		check gtest_threads /dev/null "$SC_BIN/gtest_threads" --gtest_print_time=0
	else
		tap_not_ok "gtest_threads builds against libgtest-dev"
		tap_diag_file "$SC_TMP/gtest.err" 5
	fi
	# A failing test is reported by its failure, which GoogleTest prints
	# on stdout: the test, the expectation and its line.
	race_line=$(grep -n 'EXPECT_GE(balance' "$SRC/tests/targets/gtest_race.cc" | cut -d: -f1)
	if g++ -std=c++17 -O1 -g -o "$SC_BIN/gtest_race" \
		"$SRC/tests/targets/gtest_race.cc" -lgtest -lgtest_main -pthread \
		2>"$SC_TMP/gtest_race.err"; then
		rc=0
		sc launch --json -n 200 --seed 1 -- "$SC_BIN/gtest_race" \
			>"$SC_TMP/gtest_race.json" 2>/dev/null || rc=$?
		tap_is "$rc/$(json_get "$SC_TMP/gtest_race.json" 'd["bugs"][0]["message"]')/$(json_get "$SC_TMP/gtest_race.json" 'd["bugs"][0]["location"]')" \
			"1/Bank.Withdraw failed: Expected: (balance) >= (0), actual: -60 vs 0; overdrawn/$SRC/tests/targets/gtest_race.cc:$race_line" \
			"gtest_race: the failing test is reported by its expectation and line"
		# Its replay says the same as the launch did.
		rc=0
		sc replay "$(json_get "$SC_TMP/gtest_race.json" 'd["bugs"][0]["trace"]')" \
			--json >"$SC_TMP/gtest_replay.json" 2>/dev/null || rc=$?
		tap_is "$rc/$(json_get "$SC_TMP/gtest_replay.json" 'd["reproduced"]')/$(json_get "$SC_TMP/gtest_replay.json" 'd["message"]')" \
			"1/true/$(json_get "$SC_TMP/gtest_race.json" 'd["bugs"][0]["message"]')" \
			"gtest_race: the replay reports the same failed expectation"
	else
		tap_not_ok "gtest_race builds against libgtest-dev"
		tap_diag_file "$SC_TMP/gtest_race.err" 5
	fi
else
	skip4 gtest_threads "no /usr/include/gtest/gtest.h (Debian package libgtest-dev)"
	tap_skip "gtest_race: the failing test is reported" "no libgtest-dev"
	tap_skip "gtest_race: the replay reports the same" "no libgtest-dev"
fi

if [ -x "$RUSTC" ]; then
	if (cd "$SC_TMP" && "$RUSTC" -O -g -o "$SC_BIN/rust_pool" \
		"$SRC/tests/targets/rust_pool.rs") 2>"$SC_TMP/rustc.err"; then
		check rust_pool /dev/null "$SC_BIN/rust_pool"
	else
		tap_not_ok "rust_pool builds with $RUSTC"
		tap_diag_file "$SC_TMP/rustc.err" 5
	fi
else
	skip4 rust_pool "$RUSTC not installed (Debian package rustc)"
fi

sc_check_no_leftovers
tap_done
