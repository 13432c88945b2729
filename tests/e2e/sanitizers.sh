#!/bin/bash
# sanitizers.sh: programs built with AddressSanitizer and ThreadSanitizer
# (gcc -fsanitize=..., Debian's gcc) run under schedctl as they do
# natively: LeakSanitizer, which cannot run under ptrace, is turned off
# (and the launch says so) instead of failing every run; the schedule
# that makes the sanitizer report a bug is found and replays, and the
# report reads "AddressSanitizer: heap-use-after-free ... at FILE:LINE",
# not the shadow-byte legend at the end of stderr.  A correct build runs
# clean.  An UndefinedBehaviorSanitizer report ends its run.
set -u
SRC=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

prog=$SRC/tests/targets/sanitized_uaf.c
write_line=$(grep -n 'the worker may have freed it' "$prog" | cut -d: -f1)

build() {   # NAME FLAGS...
	local name=$1
	shift
	gcc -g -O1 -pthread "$@" -o "$SC_BIN/$name" "$prog" 2>"$SC_TMP/$name.cc.err"
}

if ! build asan_uaf -fsanitize=address; then
	tap_diag_file "$SC_TMP/asan_uaf.cc.err" 3
	for what in notice found message location replay clean tsan; do
		tap_skip "asan: $what" "gcc -fsanitize=address does not build here"
	done
	sc_check_no_leftovers
	tap_done
	exit 0
fi
build asan_fixed -fsanitize=address -DFIXED ||
	tap_bail "the fixed build failed where the buggy one built"

rc=0
sc launch --json -n 300 --seed 2 --keep-going -- "$SC_BIN/asan_uaf" \
	>"$SC_TMP/asan.json" 2>"$SC_TMP/asan.err" || rc=$?
tap_check "the launch says leak checks are off, and why" \
	grep -q "built with LeakSanitizer, which cannot run under ptrace: leak checks off (ASAN_OPTIONS=detect_leaks=0)" "$SC_TMP/asan.err"
failing=$(json_get "$SC_TMP/asan.json" 'd["failing_runs"]')
uaf=$(json_get "$SC_TMP/asan.json" 'sum(1 for b in d["bugs"] if b["message"].startswith("AddressSanitizer: heap-use-after-free on address "))')
tap_diag "asan_uaf: $failing failing runs of 300, $uaf reported as the use after free"
tap_check "asan_uaf: the use after free is found (exit 1, $failing of 300 runs)" \
	test "$rc" -eq 1 -a "${failing:-0}" -ge 1
tap_is "$uaf" "$failing" "every failing run is the use after free (none is LeakSanitizer's ptrace error)"
tap_is "$(json_get "$SC_TMP/asan.json" 'd["bugs"][0]["location"]')" \
	"$prog:$write_line (main)" "its location is main's write after the unlock"
trace=$(json_get "$SC_TMP/asan.json" 'd["bugs"][0]["trace"]')
rc=0
sc replay --json "$trace" >"$SC_TMP/asan.replay.json" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || tap_diag "replay: $(json_get "$SC_TMP/asan.replay.json" 'd["message"]')"
tap_is "$rc/$(json_get "$SC_TMP/asan.replay.json" 'd["reproduced"]')" 1/true \
	"the failing run replays"

rc=0
sc launch --json -n 50 --seed 2 --keep-going -- "$SC_BIN/asan_fixed" \
	>"$SC_TMP/fixed.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/fixed.json" 'd["failing_runs"]')" 0/0 \
	"asan_fixed (a leak, no race): 50 runs, no bug"

if build tsan_uaf -fsanitize=thread; then
	rc=0
	sc launch --json -n 300 --seed 2 -- "$SC_BIN/tsan_uaf" \
		>"$SC_TMP/tsan.json" 2>"$SC_TMP/tsan.err" || rc=$?
	msg=$(json_get "$SC_TMP/tsan.json" 'd["bugs"][0]["message"]')
	loc=$(json_get "$SC_TMP/tsan.json" 'd["bugs"][0]["location"]')
	tap_diag "tsan_uaf: $msg at $loc"
	case $rc/$msg/$loc in
	"1/ThreadSanitizer: data race ("*"/$prog:"*) tap_ok "tsan_uaf: the data race is found, at a line of the program" ;;
	*) tap_not_ok "tsan_uaf: the data race is found, at a line of the program" ;;
	esac
else
	tap_skip "tsan_uaf: the data race is found" "gcc -fsanitize=thread does not build here"
fi

# UndefinedBehaviorSanitizer as gcc builds it by default prints its
# report and goes on: the run exited 0 and passed (QA).  The launch makes
# the first report end the run (halt_on_error), and says so.
ovf=$SRC/tests/targets/sanitized_overflow.c
add_line=$(grep -n 'overflows when the other added first' "$ovf" | cut -d: -f1)
if gcc -g -O1 -pthread -fsanitize=undefined -o "$SC_BIN/ubsan_overflow" "$ovf" \
	2>"$SC_TMP/ubsan.cc.err" &&
   gcc -g -O1 -pthread -fsanitize=undefined -DFIXED -o "$SC_BIN/ubsan_fixed" "$ovf" \
	2>>"$SC_TMP/ubsan.cc.err"; then
	rc=0
	sc launch --json -n 100 --seed 1 --keep-going -- "$SC_BIN/ubsan_overflow" \
		>"$SC_TMP/ubsan.json" 2>"$SC_TMP/ubsan.err" || rc=$?
	tap_check "ubsan: the launch says the first report ends the run" \
		grep -q "built with UndefinedBehaviorSanitizer: its first report ends the run (UBSAN_OPTIONS=halt_on_error=1)" "$SC_TMP/ubsan.err"
	counts=$(json_get "$SC_TMP/ubsan.json" '"%d %d" % (d["failing_runs"], sum(1 for b in d["bugs"] if b["message"].startswith("UndefinedBehaviorSanitizer: signed integer overflow")))')
	read -r failing overflows <<<"$counts"
	tap_diag "ubsan_overflow: $failing failing runs of 100, $overflows reported as the overflow"
	tap_check "ubsan_overflow: the overflow is found, and every failing run is it (exit $rc: $counts)" \
		test "$rc" -eq 1 -a "${failing:-0}" -ge 1 -a "$failing" = "$overflows"
	loc=$(json_get "$SC_TMP/ubsan.json" 'd["bugs"][0]["location"]')
	case $loc in
	*"sanitized_overflow.c:$add_line"*) tap_ok "ubsan_overflow: located at the addition" ;;
	*) tap_not_ok "ubsan_overflow: located at the addition (got $loc)" ;;
	esac
	trace=$(json_get "$SC_TMP/ubsan.json" 'd["bugs"][0]["trace"]')
	rc=0
	sc replay --json "$trace" >"$SC_TMP/ubsan.replay.json" 2>/dev/null || rc=$?
	tap_is "$rc/$(json_get "$SC_TMP/ubsan.replay.json" 'd["reproduced"]')" 1/true \
		"ubsan_overflow: the failing run replays"
	rc=0
	sc launch --json -n 50 --seed 1 -- "$SC_BIN/ubsan_fixed" \
		>"$SC_TMP/ubsan_fixed.json" 2>/dev/null || rc=$?
	tap_is "$rc/$(json_get "$SC_TMP/ubsan_fixed.json" 'd["failing_runs"]')" 0/0 \
		"ubsan_fixed: 50 runs, no bug"
else
	tap_diag_file "$SC_TMP/ubsan.cc.err" 3
	for what in notice found location replay clean; do
		tap_skip "ubsan: $what" "gcc -fsanitize=undefined does not build here"
	done
fi

sc_check_no_leftovers
tap_done
