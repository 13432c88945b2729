#!/bin/bash
# tests/run-all.sh: build schedctl and run the whole test suite, exactly as
# CI does (.ci/run installs the Debian packages first, then runs this):
#   1. build/       configure --enable-werror; make; make check
#                   (unit tests and end-to-end tests)
#   2. build/       make check-e2e-load: every end-to-end test again, and
#                   replay_load.sh, under tests/lib/under-load (a busy loop
#                   on every CPU), with their own test-suite-load.log:
#                   verdicts, schedules, same-seed sessions and replays
#                   must not depend on the load
#   3. tests/fuzz/run.sh build 60 (the trace reader under libFuzzer), if
#      the script exists.
#   4. build-asan/  configure --enable-sanitizers --enable-werror;
#                   make check-unit (the unit tests under ASan+UBSan)
# The logs of failed tests are printed, then, as the LAST line,
# "N passed, N failed": test cases summed over the test-suite logs of
# every pass (passed = PASS + XFAIL, failed = FAIL + XPASS + ERROR), plus
# one failure per step that broke without a test log (autogen, configure,
# make, fuzz) and one pass for a clean fuzz run.  Exit status 0 only if
# nothing failed.
#
# Environment: JOBS (make -j, default: number of CPUs), FUZZ_SECONDS
# (default 60; 0 skips fuzzing), UNDER_LOAD (default 1; 0 skips step 2).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-60}
under_load=${UNDER_LOAD:-1}
passed=0
failed=0
# The logs of the failed tests of every pass, printed at the end: saved
# right after each pass, since the load pass rewrites tests/e2e/*.log.
failed_logs=$(mktemp "${TMPDIR:-/tmp}/run-all.XXXXXX")
trap 'rm -f "$failed_logs" "$failed_logs.stamp"' EXIT

step() {
	echo "=== $*"
	if "$@"; then
		return 0
	fi
	echo "=== FAILED: $*"
	return 1
}

# configure_in DIR ARGS...: configure an out-of-tree build in $src/DIR.
configure_in() {
	local dir=$src/$1
	shift
	mkdir -p "$dir" && (cd "$dir" && "$src/configure" "$@")
}

# field LOG KEY: the number on the "# KEY: N" line of a test-suite.log.
field() {
	awk -v key="$2:" '$1 == "#" && $2 == key { print $3; found = 1; exit }
		END { if (!found) print 0 }' "$1"
}

# run_check DIR TARGET [LOG] [LABEL]: make TARGET in DIR (which runs
# tests and writes the test-suite log LOG, default test-suite.log), then
# count its results and save the logs of its failed tests (headed by
# LABEL).  A failure that left no failed test in LOG (a build error)
# counts as one.
run_check() {
	local dir=$src/$1 log=$src/$1/${3:-test-suite.log} label=${4:-}
	rm -f "$log"
	touch "$failed_logs.stamp"   # this pass's .trs files are newer
	if ! step make -C "$dir" -j"$jobs" "$2"; then
		if [ ! -f "$log" ] || [ "$(( $(field "$log" FAIL) + $(field "$log" XPASS) + $(field "$log" ERROR) ))" -eq 0 ]; then
			failed=$((failed + 1))
		fi
	fi
	[ -f "$log" ] || return 0
	passed=$((passed + $(field "$log" PASS) + $(field "$log" XFAIL)))
	failed=$((failed + $(field "$log" FAIL) + $(field "$log" XPASS) + $(field "$log" ERROR)))
	while IFS= read -r trs; do
		echo "=== ${label:+$label: }${trs%.trs}.log"
		cat "${trs%.trs}.log"
	done < <(find "$dir" -name '*.trs' -newer "$failed_logs.stamp" \
		-exec grep -lE '^:global-test-result: (FAIL|XPASS|ERROR)' {} + || :) \
		>>"$failed_logs"
}

# build DIR CONFIGURE-ARGS...: configure and make; counts a failure.
build() {
	local dir=$1
	shift
	if step configure_in "$dir" "$@" && step make -C "$src/$dir" -j"$jobs"; then
		return 0
	fi
	failed=$((failed + 1))
	return 1
}

cd "$src"
if step ./autogen.sh; then
	if build build --enable-werror; then
		run_check build check
		if [ "$under_load" != 0 ]; then
			run_check build check-e2e-load test-suite-load.log "under load"
		fi
		if [ "$fuzz_seconds" -gt 0 ] && [ -f tests/fuzz/run.sh ]; then
			if step sh tests/fuzz/run.sh "$src/build" "$fuzz_seconds"; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
			fi
		fi
	fi
	if build build-asan --enable-sanitizers --enable-werror; then
		run_check build-asan check-unit
	fi
else
	failed=$((failed + 1))
fi

# The logs of what failed, then the totals.
cat "$failed_logs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
