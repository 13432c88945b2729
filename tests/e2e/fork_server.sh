#!/bin/bash
# fork_server.sh: runs started from a job's fork server (a copy of the
# program stopped at its entry point) are the runs an exec would start:
# the same failing runs and events for the same seed with every strategy,
# their own output and input, traces that replay either way, nothing left
# behind.  The daemon of sc_exec() has SCHEDCTL_FORK_SERVER=0 in its
# environment (only it: the programs get the same environment).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# As long as the first daemon's socket and state paths: the CLI passes
# them to the programs in their environment, whose length shifts the
# stack (compared below).
EXEC_SOCKET=$SC_TMP/execdaemo.sock
EXEC_STATE=$SC_TMP/exect
SCHEDCTL_FORK_SERVER=0 "$SCHEDCTLD" --socket "$EXEC_SOCKET" \
	--state-dir "$EXEC_STATE" --idle-exit 600 ||
	tap_bail "cannot start a daemon on $EXEC_SOCKET"
sc_exec() {
	# Locals, not a prefix: that would export them to the programs.
	local SC_SOCKET=$EXEC_SOCKET SC_STATE=$EXEC_STATE
	sc "$@"
}

# The failing runs of a session's JSON, then its event count.
outcome() {
	json_get "$1" '",".join(str(b["run"]) for b in d["bugs"]) + " " + str(d["failing_runs"]) + " " + str(d["events"])'
}

cta=$(sc_target check_then_act)
for strategy in surw random pct pos urw mix; do
	sc launch --json -s "$strategy" -n 30 --seed 77 --keep-going -- "$cta" \
		>"$SC_TMP/$strategy.fs.json" 2>"$SC_TMP/$strategy.fs.err"
	sc_exec launch --json -s "$strategy" -n 30 --seed 77 --keep-going -- "$cta" \
		>"$SC_TMP/$strategy.ex.json" 2>"$SC_TMP/$strategy.ex.err"
	fs=$(outcome "$SC_TMP/$strategy.fs.json")
	ex=$(outcome "$SC_TMP/$strategy.ex.json")
	tap_diag "$strategy: fork server: $fs; exec: $ex"
	failing=${fs#* }
	failing=${failing%% *}
	tap_check "$strategy: the fork server's session finds the bug" \
		test "${failing:-0}" -gt 0
	tap_is "$fs" "$ex" "$strategy: same failing runs and events with and without the fork server"
done

# A C++ program: libstdc++'s constructors malloc before the entry point,
# and glibc's malloc draws its tcache key from getrandom.  Those bytes
# are the same in every run, so it gets a fork server too (the log check
# below), with the runs an exec gives.
cxx=$(sc_target cxx_vector_race)
sc launch --json -n 30 --seed 77 --keep-going -- "$cxx" \
	>"$SC_TMP/cxx.fs.json" 2>"$SC_TMP/cxx.fs.err"
sc_exec launch --json -n 30 --seed 77 --keep-going -- "$cxx" \
	>"$SC_TMP/cxx.ex.json" 2>"$SC_TMP/cxx.ex.err"
fs=$(outcome "$SC_TMP/cxx.fs.json")
ex=$(outcome "$SC_TMP/cxx.ex.json")
tap_diag "cxx_vector_race: fork server: $fs; exec: $ex"
tap_is "$fs" "$ex" "C++ (cxx_vector_race): same failing runs and events with and without the fork server"

# The servers are gone with their jobs, reaped (a server killed in its
# ptrace stop first reports its exit stop: it was left a zombie of
# init's, one per job, for seconds after every session).
cp "$cta" "$SC_BIN/fsrv_probe"
sc launch -n 20 --seed 77 --keep-going --jobs 2 -- "$SC_BIN/fsrv_probe" \
	>/dev/null 2>&1
left=$(ps -eo stat=,comm= | awk '$2 == "fsrv_probe"' | head -3)
tap_is "$left" "" "no copy or server of the program is left, zombies included, once the launch has returned"

log=$SC_STATE/schedctld.log
tap_check "the daemon's log says a job started a fork server" \
	grep -q "fork server ready" "$log"
tap_check "and never that one could not serve" \
	bash -c "! grep -E 'no fork server|fork server failed' '$log'"
tap_check "the daemon without one says runs start by exec" \
	bash -c "! grep -q 'fork server ready' '$EXEC_STATE/schedctld.log'"

# The copy is the process an exec makes: the same stack, heap and
# library addresses (the program prints them), the same pid-independent
# view of itself.
cat >"$SC_TMP/layout.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>
extern char **environ;
int main(int argc, char **argv)
{
	int local = 0;
	void *heap = malloc(100);
	printf("stack %p argv %p env %p heap %p libc %p random %p cwd %s\n",
	       (void *)&local, (void *)argv, (void *)environ[0], heap,
	       (void *)&printf, (void *)getauxval(AT_RANDOM),
	       getcwd(NULL, 0));
	return argc > 1;
}
C
if gcc -O0 -o "$SC_BIN/layout" "$SC_TMP/layout.c" 2>/dev/null; then
	sc launch --json -n 2 --keep-traces all -- "$SC_BIN/layout" \
		>"$SC_TMP/layout.fs.json" 2>/dev/null
	sc_exec launch --json -n 2 --keep-traces all -- "$SC_BIN/layout" \
		>"$SC_TMP/layout.ex.json" 2>/dev/null
	fs_out=$(cat "$(json_get "$SC_TMP/layout.fs.json" 'd["out_dir"]')/run-000002.out")
	ex_out=$(cat "$(json_get "$SC_TMP/layout.ex.json" 'd["out_dir"]')/run-000002.out")
	tap_diag "layout: $fs_out"
	tap_check "the program prints its addresses" test -n "$fs_out"
	tap_is "$fs_out" "$ex_out" "a copy's addresses are an exec'd run's"
else
	tap_skip "the program prints its addresses" "gcc cannot build here"
	tap_skip "a copy's addresses are an exec'd run's" "gcc cannot build here"
fi

# A trace recorded from the fork server replays (started by exec), and so
# does one recorded by exec.
for kind in fs ex; do
	trace=$(json_get "$SC_TMP/surw.$kind.json" 'd["bugs"][0]["trace"]')
	ok=0
	for _ in 1 2 3 4 5; do
		rc=0
		sc replay --json "$trace" >"$SC_TMP/replay.json" 2>/dev/null || rc=$?
		[ "$rc/$(json_get "$SC_TMP/replay.json" 'd["reproduced"]')" = 1/true ] &&
			ok=$((ok + 1))
	done
	tap_is "$ok" 5 "a trace recorded $([ $kind = fs ] && echo from the fork server || echo by exec) replays 5/5"
done

# Every run has its own output and reads its input from the start: sort
# with threads, its input on stdin, each run's stdout the sorted input.
seq 1 40000 | sed 's/$/ line/' | shuf --random-source=<(yes) >"$SC_TMP/in.txt"
LC_ALL=C sort "$SC_TMP/in.txt" >"$SC_TMP/want.txt"
rc=0
LC_ALL=C sc launch --json -n 4 --seed 5 --keep-traces all -- \
	/usr/bin/sort --parallel=2 -S 1M \
	<"$SC_TMP/in.txt" >"$SC_TMP/sortin.json" 2>"$SC_TMP/sortin.err" || rc=$?
tap_diag_file "$SC_TMP/sortin.err" 3
tap_is "$rc" 0 "sort --parallel=2 < file: 4 runs, no bug"
dir=$(json_get "$SC_TMP/sortin.json" 'd["out_dir"]')
same=0
for r in 1 2 3 4; do
	out=$dir/run-00000$r.out
	cmp -s "$out" "$SC_TMP/want.txt" && same=$((same + 1))
done
tap_is "$same" 4 "each run's stdout is the sorted input (4/4)"
tap_is "$(cat "$dir"/run-000001.err)" "" "and its stderr is its own (empty)"
tap_check "no job file is left in the session directory" \
	bash -c "! ls -A '$dir' | grep -q '^\.job-'"

# A deadlock ends the copy's whole process group, and a hang its
# --timeout: the session ends, nothing is left (checked below).
rc=0
sc launch --json -n 50 --seed 3 -- "$(sc_target abba_deadlock)" \
	>"$SC_TMP/abba.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/abba.json" 'd["bugs"][0]["kind"]')" \
	"1/deadlock" "abba_deadlock: a deadlock found from the fork server"
rc=0
sc launch --json -n 2 --timeout 1 -- "$(sc_target spin_forever)" \
	>"$SC_TMP/spin.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/spin.json" 'd["bugs"][0]["kind"]')" \
	"1/hang" "spin_forever: the run ends at --timeout"

# Someone kills the program by name (`pkill PROG`): the fork servers,
# named like it, die or stop with it.  Each killed run is reported, and
# the session ends with nothing left, whatever the signal.
for sig in TERM KILL; do
	victim=$SC_TMP/fsvictim$sig
	cp "$(sc_target pipe_stuck)" "$victim"
	rc=0
	timeout 120 env SCHEDCTL_SOCKET="$SC_SOCKET" SCHEDCTL_STATE_DIR="$SC_STATE" \
		SCHEDCTLD="$SCHEDCTLD" SCHEDCTL_JOBS=1 \
		"$SCHEDCTL" launch -n 4 --timeout 10 --keep-going \
		--out "$SC_TMP/victim$sig.out" -- "$victim" \
		>/dev/null 2>"$SC_TMP/victim.err" &
	cli=$!
	for _ in $(seq 100); do
		[ "$(pgrep -c -x "fsvictim$sig")" -ge 2 ] && break
		sleep 0.1
	done
	pkill -"$sig" -x "fsvictim$sig"
	wait "$cli" || rc=$?
	tap_check "pkill -$sig of the program and its fork servers: the session ends (rc $rc)" \
		test "$rc" -ne 124
	tap_is "$(pgrep -x "fsvictim$sig")" "" \
		"pkill -$sig: no copy or server of the program is left"
	tap_diag_file "$SC_TMP/victim.err" 5
done
# Its replay says why it cannot end the same way.
sc replay --timeout 2 "$SC_TMP/victimKILL.out/run-000001.sctrace" \
	>/dev/null 2>"$SC_TMP/victim.replay" || true
tap_check "the replay of a run killed from outside says so" \
	grep -q "killed by SIGKILL, which no thread of the program sent" \
	"$SC_TMP/victim.replay"
tap_diag_file "$SC_TMP/victim.replay" 3

SC_SOCKET=$EXEC_SOCKET SC_STATE=$EXEC_STATE sc_shutdown
sc_check_no_leftovers
tap_done
