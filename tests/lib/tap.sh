# shellcheck shell=bash
# tests/lib/tap.sh: helpers for the end-to-end tests (tests/e2e/*.sh).
#
#  - TAP output: tap_ok, tap_not_ok, tap_check, tap_is, tap_skip, tap_diag,
#    tap_bail, tap_plan, tap_done.  Without tap_plan the plan is printed
#    at the end by tap_done, so a script that dies early has no plan and
#    automake's tap-driver reports an ERROR.
#  - A sandbox: sc_setup makes a temporary directory holding the daemon's
#    socket and state directory, so a test never touches a real daemon and
#    tests may run in parallel; `sc ARGS...` runs the CLI inside it; an
#    EXIT trap shuts the daemon down, kills what is left and removes the
#    directory.
#  - sc_target copies a target program into the sandbox, so that "is any
#    of my targets still running" is a question about paths nobody else
#    uses, even when other tests run the same targets at the same time.
#
# Expects top_builddir and top_srcdir (absolute) in the environment, as
# `make check` sets them; when run by hand they default to the current
# directory (build tree) and to this file's source tree.

: "${top_srcdir:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${top_builddir:=$PWD}"
SCHEDCTL=${SCHEDCTL:-$top_builddir/cli/schedctl}
SCHEDCTLD=${SCHEDCTLD:-$top_builddir/daemon/schedctld}
SC_TARGET_DIR=${SC_TARGET_DIR:-$top_builddir/tests/targets}

# Debian's python3 (a test dependency) rather than whatever shim comes
# first in PATH: a pyenv shim costs a third of a second per call, a second
# on a loaded machine, and the JSON checks call it hundreds of times.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

tap_count=0
tap_failures=0
tap_planned=

# --- TAP ------------------------------------------------------------------

tap_plan() {
	tap_planned=$1
	echo "1..$1"
}

tap_ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $*"
}

tap_not_ok() {
	tap_count=$((tap_count + 1))
	tap_failures=$((tap_failures + 1))
	echo "not ok $tap_count - $*"
}

# tap_check DESCRIPTION COMMAND [ARGS...]: ok when the command succeeds.
tap_check() {
	local desc=$1
	shift
	if "$@"; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
	fi
}

# tap_is GOT WANT DESCRIPTION: ok when the two strings are equal.
tap_is() {
	if [ "$1" = "$2" ]; then
		tap_ok "$3"
	else
		tap_not_ok "$3"
		tap_diag "  got:  '$1'"
		tap_diag "  want: '$2'"
	fi
}

tap_skip() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $1 # SKIP ${2:-}"
}

tap_diag() {
	local line
	printf '%s\n' "$*" | while IFS= read -r line; do
		echo "# $line"
	done
}

# tap_diag_file FILE [MAX_LINES]: show (the start of) a file as diagnostics.
tap_diag_file() {
	[ -s "$1" ] || return 0
	tap_diag "$(head -n "${2:-20}" "$1")"
}

tap_bail() {
	echo "Bail out! $*"
	exit 1
}

# tap_done: the trailing plan.  The exit status stays 0: failures are in
# the "not ok" lines, and tap-driver.sh would count a non-zero exit as one
# more ERROR.
tap_done() {
	[ -n "$tap_planned" ] || echo "1..$tap_count"
	if [ "$tap_failures" -ne 0 ]; then
		tap_diag "$tap_failures of $tap_count failed"
	fi
	return 0
}

# --- JSON -------------------------------------------------------------------

# json_get FILE EXPR: print EXPR evaluated with d = the JSON object in FILE
# (e.g. 'd["bugs"][0]["kind"]'); null prints "null", booleans
# "true"/"false", lists and objects as JSON.  Prints nothing and fails
# when the file is not JSON or the path does not exist.
json_get() {
	python3 - "$1" "$2" <<'PY' 2>/dev/null
import collections, json, re, sys
try:
    with open(sys.argv[1]) as f:
        d = json.load(f)
    v = eval(sys.argv[2], {"d": d, "collections": collections, "re": re})
except Exception:
    sys.exit(1)
if v is None:
    print("null")
elif isinstance(v, bool):
    print("true" if v else "false")
elif isinstance(v, (dict, list)):
    print(json.dumps(v))
else:
    print(v)
PY
}

# is_json FILE: the file holds one valid JSON document.
is_json() {
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
}

# count_lines FILE: lines in FILE, counting an unterminated last line.
count_lines() {
	awk 'END { print NR }' "$1"
}

# --- launches and replays ---------------------------------------------------

# sc_launch_json OUT ARGS...: `sc launch --json ARGS`, JSON to OUT, stderr
# to OUT.err; prints the exit status.
sc_launch_json() {
	local out=$1 rc=0
	shift
	sc launch --json "$@" >"$out" 2>"$out.err" || rc=$?
	echo "$rc"
}

# sc_check_same_session WHAT JSON ARGS...: launching ARGS again (as
# sc_launch_json) gives the first_bug_run and events of the session in
# JSON.  One launch, one comparison: a session is a function of its seed,
# never of the machine's load, so a difference is a bug, not noise to
# retry away.  One TAP line.
sc_check_same_session() {
	local what=$1 json=$2 before again
	shift 2
	before="$(json_get "$json" 'd["first_bug_run"]') $(json_get "$json" 'd["events"]')"
	sc_launch_json "$json.again" "$@" >/dev/null
	again="$(json_get "$json.again" 'd["first_bug_run"]') $(json_get "$json.again" 'd["events"]')"
	tap_is "$again" "$before" \
		"$what: the same seed again gives the same first_bug_run and events"
}

# sc_check_replay WHAT JSON KIND: replaying the trace of the first bug of
# the launch summary in JSON reproduces it (exit 1, verdict KIND,
# reproduced).  One TAP line.
sc_check_replay() {
	local what=$1 kind=$3 trace rc=0
	trace=$(json_get "$2" 'd["bugs"][0]["trace"]')
	if [ -z "$trace" ] || [ ! -f "$trace" ]; then
		tap_not_ok "$what: replaying the bug's trace reproduces it (no trace: '$trace')"
		return
	fi
	sc replay "$trace" --json >"$SC_TMP/replay.json" \
		2>"$SC_TMP/replay.err" || rc=$?
	tap_is "$rc $(json_get "$SC_TMP/replay.json" 'd["verdict"]') $(json_get "$SC_TMP/replay.json" 'd["reproduced"]')" \
		"1 $kind true" "$what: replaying the bug's trace reproduces it"
	[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/replay.err" 5
}

# sc_count_replays TRACE...: replay each passing run's trace; print how
# many replayed (exit 0), with a diagnostic for each that did not.
sc_count_replays() {
	local f rc replayed=0
	for f in "$@"; do
		rc=0
		sc replay "$f" >/dev/null 2>"$SC_TMP/count_replays.err" || rc=$?
		if [ "$rc" -eq 0 ]; then
			replayed=$((replayed + 1))
		else
			tap_diag "$(basename "$f"): replay exited $rc" >&2
			tap_diag_file "$SC_TMP/count_replays.err" 3 >&2
		fi
	done
	echo "$replayed"
}

# --- sandbox ----------------------------------------------------------------

sc_setup() {
	SC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/schedctl-e2e.XXXXXX") ||
		tap_bail "cannot create a temporary directory"
	SC_SOCKET=$SC_TMP/schedctld.sock
	SC_STATE=$SC_TMP/state
	SC_BIN=$SC_TMP/bin
	SC_WORK=$SC_TMP/work
	mkdir -p "$SC_STATE" "$SC_BIN" "$SC_WORK" ||
		tap_bail "cannot populate $SC_TMP"
	trap sc_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	[ -x "$SCHEDCTL" ] || tap_bail "schedctl not built: $SCHEDCTL"
	command -v python3 >/dev/null || tap_bail "python3 is needed to read JSON"
	# A launch reads the program's input from its own stdin: the tests
	# must not depend on (or wait for) whatever stdin the harness gave
	# them.  A test that feeds a launch says so on that command.
	exec </dev/null
	# Core files, if any, land here, where the tests look for them.
	cd "$SC_WORK" || tap_bail "cannot enter $SC_WORK"
}

# sc ARGS...: the CLI, talking to this test's own daemon.  The variables
# are given to the CLI only (not exported to the script), so that the
# daemon and targets are the only processes that carry them.
#
# SCHEDCTL_JOBS=1: one job per launch unless a test says --jobs.  `make
# check` runs two tests at once on two CPUs; more busy tracers than CPUs
# makes some runs' scheduling points depend on timing (a released system
# call that takes more than the engine's short wait), and the tests that
# compare two sessions with the same seed would then flake.
sc() {
	SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE \
		SCHEDCTLD=$SCHEDCTLD SCHEDCTL_JOBS=${SCHEDCTL_JOBS:-1} \
		"$SCHEDCTL" "$@"
}

# sc_target NAME: copy tests/targets/NAME into the sandbox, print its path.
sc_target() {
	local src=$SC_TARGET_DIR/$1 dst=$SC_BIN/$1
	if [ ! -e "$dst" ]; then
		[ -x "$src" ] || tap_bail "target not built: $src (make check builds it)"
		cp "$src" "$dst" || tap_bail "cannot copy $src"
	fi
	printf '%s\n' "$dst"
}

# sc_run_output DIR RUN: the stdout file of run RUN (1-based) of a session,
# looked for in --out DIR first, then in the state directory.
sc_run_output() {
	local name f
	name=$(printf 'run-%06d.out' "$2")
	for f in "$1/$name" "$SC_STATE"/sessions/*/"$name"; do
		if [ -f "$f" ]; then
			printf '%s\n' "$f"
			return 0
		fi
	done
	return 1
}

# sc_leftover_pids [PATTERN]: pids of processes whose command line contains
# PATTERN (default: the sandbox path) or whose environment holds this
# sandbox's SCHEDCTL_STATE_DIR (the daemon and whatever it started).
sc_leftover_pids() {
	local pattern=${1:-$SC_TMP} dir pid
	for dir in /proc/[0-9]*; do
		pid=${dir#/proc/}
		[ "$pid" = "$$" ] && continue
		if grep -qaF -- "$pattern" "$dir/cmdline" 2>/dev/null; then
			echo "$pid"
		elif [ -z "${1:-}" ] &&
			grep -qaF -- "SCHEDCTL_STATE_DIR=$SC_STATE" "$dir/environ" 2>/dev/null; then
			echo "$pid"
		fi
	done
}

# sc_describe_pids PIDS...: one diagnostic line per process.
sc_describe_pids() {
	local pid
	for pid in "$@"; do
		tap_diag "  left: pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
	done
}

# sc_shutdown: stop this test's daemon, if its socket exists (asking
# without one could auto-start a daemon just to stop it).
sc_shutdown() {
	[ -S "$SC_SOCKET" ] || return 0
	SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
		timeout -k 2 20 "$SCHEDCTL" shutdown >/dev/null 2>&1
}

# sc_wait_gone [PATTERN]: wait (up to 10 s) until sc_leftover_pids is empty;
# print what is still there.  The wait is a grace period for processes
# that are exiting, not a measurement.
sc_wait_gone() {
	local i left
	for i in $(seq 50); do
		left=$(sc_leftover_pids "${1:-}")
		[ -z "$left" ] && return 0
		[ "$i" -lt 50 ] && sleep 0.2
	done
	printf '%s\n' "$left"
	return 1
}

# sc_check_no_targets_left DESC: no target program of this sandbox runs.
sc_check_no_targets_left() {
	local left
	if left=$(sc_wait_gone "$SC_BIN/"); then
		tap_ok "$1"
	else
		tap_not_ok "$1"
		# shellcheck disable=SC2086 # one pid per word
		sc_describe_pids $left
	fi
}

# sc_check_no_leftovers: the last test case of every file: shut the daemon
# down, then neither it nor any target may be left.
sc_check_no_leftovers() {
	local left
	sc_shutdown
	if left=$(sc_wait_gone); then
		tap_ok "no target or daemon process left after shutdown"
	else
		tap_not_ok "no target or daemon process left after shutdown"
		# shellcheck disable=SC2086 # one pid per word
		sc_describe_pids $left
	fi
}

sc_cleanup() {
	local rc=$? left
	trap - EXIT
	cd / || :
	if [ -n "${SC_TMP:-}" ] && [ -d "$SC_TMP" ]; then
		sc_shutdown
		left=$(sc_leftover_pids)
		# shellcheck disable=SC2086 # one pid per word
		[ -n "$left" ] && kill -9 $left 2>/dev/null
		if [ -n "${SC_KEEP_TMP:-}" ]; then
			echo "# kept $SC_TMP"
		else
			rm -rf "$SC_TMP"
		fi
	fi
	exit "$rc"
}
