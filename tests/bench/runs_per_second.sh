#!/bin/bash
# runs_per_second.sh: throughput of sessions, side by side in one run
# (`make bench`), for each program of BENCH_PROGRAMS:
#   native        the program run N times in a plain loop (no schedctl)
#   -s native     schedctl launch, uncontrolled runs (session overhead)
#   exec sync     schedctl launch -s random --granularity sync --jobs 1,
#                 every run started by exec (SCHEDCTL_FORK_SERVER=0)
#   random sync   the same, runs started from the job's fork server
#   default       schedctl launch --jobs 1 (pos, race granularity: pilot
#                 runs at mem, then the racing instructions)
#   random -j2    schedctl launch -s random --granularity sync --jobs 2
# and, as the yardstick for --jobs 2, the native loop split over two
# loops at once: how far this machine itself scales two runs at a time
# (a VM's two vCPUs may share a core, or the kernel's process creation
# may serialise), which no --jobs can beat.
# Runs per second = N / wall seconds measured around the whole command;
# each ratio is against the native loop measured in the same run.
# Timings are reported, never judged: not part of `make check`.
#
# Environment: top_builddir (default: the current directory), BENCH_RUNS
# (runs per measurement of a small target, default 400; pigz gets a
# quarter), BENCH_PROGRAMS (default "check_then_act c11_threads bounded_buffer pigz";
# pigz is skipped when not installed).
set -euo pipefail

top_builddir=${top_builddir:-$PWD}
# shellcheck source=tests/bench/lib.sh
. "$(dirname "$0")/lib.sh"
N=${BENCH_RUNS:-400}
PROGRAMS=${BENCH_PROGRAMS:-check_then_act c11_threads bounded_buffer pigz}

[ -x "$SCHEDCTL" ] || { echo "runs_per_second.sh: $SCHEDCTL not built" >&2; exit 1; }

now() { date +%s.%N; }
rate() { python3 -c "import sys; print('%.1f' % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" "$@"; }
ratio() { python3 -c "import sys; print('%.2fx' % (float(sys.argv[1]) / float(sys.argv[2])))" "$@"; }

# A 256 kB text input for pigz, the same in every run.
head -c 196608 /dev/zero | tr '\0' 'a' | fold -w 63 >"$tmp/pigz.in"

# command NAME: the words of program NAME's command line, one per line.
command_of() {
	case $1 in
	pigz) printf '%s\n' "$(command -v pigz)" -c -p2 "$tmp/pigz.in" ;;
	*) printf '%s\n' "$top_builddir/tests/targets/$1" ;;
	esac
}

sc ping >/dev/null 2>&1 || sc launch -n 1 -s native -- /bin/true >/dev/null
# A second daemon whose runs all start by exec.
sc_exec() {
	SCHEDCTL_FORK_SERVER=0 SCHEDCTL_SOCKET=$tmp/exec.sock \
		SCHEDCTL_STATE_DIR=$tmp/exec-state SCHEDCTLD=$SCHEDCTLD \
		"$SCHEDCTL" "$@"
}
trap 'sc_exec shutdown >/dev/null 2>&1; bench_cleanup' EXIT

printf 'runs per second on %s CPUs (ratio: against the native loop)\n' "$(nproc)"
printf '  %-16s %6s %9s %15s %15s %15s %15s %15s\n' program runs native \
	"-s native" "exec sync" "random sync" "default" "random -j2"
for prog in $PROGRAMS; do
	if [ "$prog" = pigz ] && ! command -v pigz >/dev/null; then
		echo "  $prog: not installed, skipped"
		continue
	fi
	mapfile -t cmd < <(command_of "$prog")
	[ -x "${cmd[0]}" ] || { echo "runs_per_second.sh: ${cmd[0]} not built (run: make bench)" >&2; exit 1; }
	n=$N
	[ "$prog" = pigz ] && n=$((N / 4))
	[ "$n" -ge 1 ] || n=1

	t0=$(now)
	# A buggy target may fail natively too: its runs still count.
	for _ in $(seq "$n"); do "${cmd[@]}" >/dev/null 2>&1 || :; done
	t1=$(now)
	native=$(rate "$n" "$t0" "$t1")
	t0=$(now)
	for half in $((n / 2)) $((n - n / 2)); do
		for _ in $(seq "$half"); do "${cmd[@]}" >/dev/null 2>&1 || :; done &
	done
	wait
	t1=$(now)
	native2=$(rate "$n" "$t0" "$t1")

	measure() {
		local t0 t1 how=sc
		[ "$1" = exec ] && { how=sc_exec; shift; }
		t0=$(now)
		$how launch -n "$n" --seed 1 --keep-going --keep-traces none \
			"$@" -- "${cmd[@]}" >/dev/null 2>&1 || [ $? -eq 1 ] ||
			{ echo "runs_per_second.sh: launch $* on $prog failed" >&2; exit 1; }
		t1=$(now)
		rate "$n" "$t0" "$t1"
	}
	snative=$(measure -s native --jobs 1)
	exec1=$(measure exec -s random --granularity sync --jobs 1)
	sync1=$(measure -s random --granularity sync --jobs 1)
	default1=$(measure --jobs 1)
	sync2=$(measure -s random --granularity sync --jobs 2)
	printf '  %-16s %6s %9s %7s (%5s) %7s (%5s) %7s (%5s) %7s (%5s) %7s (%5s)\n' \
		"$prog" "$n" "$native" \
		"$snative" "$(ratio "$snative" "$native")" \
		"$exec1" "$(ratio "$exec1" "$native")" \
		"$sync1" "$(ratio "$sync1" "$native")" \
		"$default1" "$(ratio "$default1" "$native")" \
		"$sync2" "$(ratio "$sync2" "$native")"
	echo "  $prog: fork server / exec (random sync): $(ratio "$sync1" "$exec1")"
	echo "  $prog: --jobs 2 / --jobs 1 (random sync): $(ratio "$sync2" "$sync1");" \
		"native, two loops / one: $(ratio "$native2" "$native")"
done
