# shellcheck shell=bash
# tests/bench/lib.sh: what every benchmark script needs, sourced after it
# has set top_builddir.  Gives SCHEDCTL and SCHEDCTLD (overridable), a
# private temporary directory $tmp, and sc(): schedctl with its own daemon
# socket and state directory in $tmp, shut down and removed on exit.

SCHEDCTL=${SCHEDCTL:-$top_builddir/cli/schedctl}
SCHEDCTLD=${SCHEDCTLD:-$top_builddir/daemon/schedctld}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/schedctl-bench.XXXXXX")
sc() {
	SCHEDCTL_SOCKET=$tmp/schedctld.sock SCHEDCTL_STATE_DIR=$tmp/state \
		SCHEDCTLD=$SCHEDCTLD "$SCHEDCTL" "$@"
}
bench_cleanup() {
	[ -S "$tmp/schedctld.sock" ] && sc shutdown >/dev/null 2>&1
	rm -rf "$tmp"
}
trap bench_cleanup EXIT
