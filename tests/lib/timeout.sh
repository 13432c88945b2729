#!/bin/sh
# Log compiler for every test (TAP unit binaries and e2e scripts): run the
# test under a hard limit so that a hung test fails instead of hanging
# `make check` or CI.  SC_TEST_TIMEOUT overrides the limit (seconds).
if ! command -v timeout >/dev/null 2>&1; then
	echo "timeout.sh: timeout(1) not found (coreutils)" >&2
	exit 99
fi
exec timeout -k 10 "${SC_TEST_TIMEOUT:-600}" "$@"
