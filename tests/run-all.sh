#!/bin/bash
# tests/run-all.sh: build schedctl and run the whole test suite, exactly as
# CI does (.ci/run installs the Debian packages first, then runs this):
#   1. build/       configure --enable-werror; make; make check
#                   (unit tests and end-to-end tests)
#   2. build-asan/  configure --enable-sanitizers --enable-werror;
#                   make check-unit (the unit tests under ASan+UBSan)
#   3. tests/fuzz/run.sh build 60 (the trace reader under libFuzzer), if
#      the script exists.
# The logs of failed tests are printed, then, as the LAST line,
# "N passed, N failed": test cases summed over the test-suite.log files
# (passed = PASS + XFAIL, failed = FAIL + XPASS + ERROR), plus one failure
# per step that broke without a test log (autogen, configure, make, fuzz)
# and one pass for a clean fuzz run.  Exit status 0 only if nothing failed.
#
# Environment: JOBS (make -j, default: number of CPUs), FUZZ_SECONDS
# (default 60; 0 skips fuzzing).
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc)}
fuzz_seconds=${FUZZ_SECONDS:-60}
passed=0
failed=0
check_dirs=()

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

# run_check DIR TARGET: make TARGET in DIR (which runs tests); a failure
# that left no failed test in test-suite.log (a build error) counts as one.
run_check() {
	local dir=$src/$1 log=$src/$1/test-suite.log
	rm -f "$log"
	check_dirs+=("$dir")
	if step make -C "$dir" -j"$jobs" "$2"; then
		return 0
	fi
	if [ ! -f "$log" ] || [ "$(( $(field "$log" FAIL) + $(field "$log" XPASS) + $(field "$log" ERROR) ))" -eq 0 ]; then
		failed=$((failed + 1))
	fi
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

# Totals, and the logs of what failed.
for dir in "${check_dirs[@]}"; do
	log=$dir/test-suite.log
	[ -f "$log" ] || continue
	passed=$((passed + $(field "$log" PASS) + $(field "$log" XFAIL)))
	failed=$((failed + $(field "$log" FAIL) + $(field "$log" XPASS) + $(field "$log" ERROR)))
	while IFS= read -r trs; do
		echo "=== ${trs%.trs}.log"
		cat "${trs%.trs}.log"
	done < <(grep -lE '^:global-test-result: (FAIL|XPASS|ERROR)' -r "$dir" --include='*.trs' || :)
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
