#!/bin/bash
# liveness.sh: a run always ends, and a crash is never lost.
#  - A consumer that locks a mutex main has already freed (SCTBench's
#    pbzip2 bug) and a strlen() of a pointer another thread cleared: both
#    fault inside libc; the verdict is "crash" with the faulting thread and
#    place, at sync and at mem granularity, well before --timeout (a lost
#    fault used to be stepped again forever).
#  - A thread whose SIGSEGV handler returns (the same fault forever) and a
#    thread spinning on a flag nobody sets: "hang" at --timeout.  A spin
#    nothing can end is that hang at once, also a spin on an atomic
#    flag's load at the default granularity; a loop on the same load that
#    counts in memory is none.
#  - A run slowed past --timeout by other programs on its CPU (its own
#    children): no hang, the time it waited for a CPU extends it.
#  - A detached thread counting (no system call) when main returns: the
#    run ends, no hang, with pos and random.
#  - An int3 of the program's own without a handler: crash, with its
#    thread and line.
#  - A program's own SIGTRAP handler survives our breakpoints inside it.
#  - A thread asleep in sigwait() does not keep another's timed wait from
#    timing out (pbzip2).
#  - `schedctl stop`, Ctrl-C and a CLI killed with -9 end a session whose
#    runs are stuck, and its targets with it, long before the runs'
#    --timeout could.
# No timing decides a result: runs that should end by themselves get a
# --timeout they never need; runs that are stuck get one (600 s) that the
# test would not survive, so only the engine's own cancellation ends them.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# check_crash TARGET GRANULARITY WHERE: a launch finds the crash, names the
# faulting thread and WHERE (an extended regex of the location), and its replay
# reproduces it.
check_crash() {
	local name=$1 gran=$2 where=$3 target json rc msg
	target=$(sc_target "$name")
	json=$SC_TMP/$name-$gran.json
	rc=$(sc_launch_json "$json" -n 50 --seed 3 --timeout 30 \
		--granularity "$gran" -- "$target")
	msg="$(json_get "$json" 'd["bugs"][0]["kind"]'): $(json_get "$json" 'd["bugs"][0]["message"]')"
	tap_diag "$name ($gran): exit $rc, $msg"
	tap_is "$rc $(json_get "$json" 'd["bugs"][0]["kind"]')" "1 crash" \
		"$name at $gran granularity: the fault inside libc is a crash verdict"
	tap_check "$name at $gran granularity: the report names the thread and the calling line" \
		grep -qE "SIGSEGV.* in T[0-9]+ at .*$where" <<<"$msg"
	sc_check_replay "$name at $gran granularity" "$json" crash
}

# The fault is inside libc; the report names the program's frame that
# called it (libc's strlen variant has no dynamic symbol to name).
# The lock itself or its contended path (__lll_lock_wait, named from
# libc6-dbg's symbols), under consume's call.
freed_at='(pthread_mutex_lock|__lll_lock_wait).*, called from consume at freed_mutex\.c:[0-9]+'
strlen_at='called from report at libc_fault\.c:[0-9]+'
check_crash freed_mutex sync "$freed_at"
check_crash freed_mutex mem "$freed_at"
check_crash libc_fault sync "$strlen_at"
check_crash libc_fault mem "$strlen_at"

# check_timeout TARGET GRANULARITY: the stuck run ends with a hang
# verdict, at its --timeout (spin_forever: before it, see below).
check_timeout() {
	local name=$1 gran=$2 target json rc
	target=$(sc_target "$name")
	json=$SC_TMP/$name-$gran-timeout.json
	rc=$(sc_launch_json "$json" -n 1 --seed 5 --timeout 2 \
		--granularity "$gran" -- "$target")
	tap_is "$rc $(json_get "$json" 'd["bugs"][0]["kind"]')" "1 hang" \
		"$name at $gran granularity: ends (at --timeout, or sooner when provably stuck) with a hang verdict"
	[ "$rc" -eq 1 ] || tap_diag_file "$json.err" 5
}

check_timeout fault_forever sync
check_timeout fault_forever mem
check_timeout spin_forever sync
check_timeout spin_forever mem

# A spin nothing can end (the worker waits for a flag no one sets while
# main joins it: no other thread can run, no timeout, no alarm) is that
# hang as soon as the spinner spins twice in a row: the report says so
# instead of waiting out the time budget (QA: a worker compiled to
# "jmp ." took the whole --timeout of every run).  The message is the
# check; the generous --timeout only bounds a failure.
json=$SC_TMP/endless.json
rc=$(sc_launch_json "$json" -n 2 --seed 5 --timeout 60 --keep-going \
	-- "$(sc_target spin_forever)")
msg=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "spin_forever: $msg"
tap_is "$rc/$(json_get "$json" '[d["failing_runs"], d["bugs"][0]["kind"]]')" '1/[2, "hang"]' \
	"spin_forever: both runs are hangs"
tap_check "spin_forever: the hang is the endless spin, named at the worker, with main's join" \
	grep -qE '^hang: T1 spins in worker at spin_forever\.c:[0-9]+ .*and no other thread can run to end it: T0 waits for T1 to exit' <<<"$msg"

# The same at the default (race) granularity, where the flag's load is a
# scheduling point (another thread stores to the flag) and the spin is a
# load that repeats, not a preemption: it ran to the time budget (QA: 60
# to 80 s a run, while sync granularity named the spin at once).  A loop
# on the same load that counts its turns in a global and gives up ends
# by itself: no hang (5 of 10 runs were false hangs when the load's
# repeating alone was taken for an endless spin).
json=$SC_TMP/endless_load.json
flagspin=$(sc_target spin_flag_never)
rc=$(sc_launch_json "$json" -n 3 --seed 5 --timeout 20 --keep-going -- "$flagspin")
msgs=$(json_get "$json" '"\n".join(b["message"] for b in d["bugs"])')
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')/$(grep -cE '^hang: T1 spins in waiter at spin_flag_never\.c:[0-9]+ .*and no other thread can run to end it: T0 waits' <<<"$msgs")" \
	"1/3/3" "spin_flag_never (a spin on an atomic flag's load, default granularity): 3 endless-spin hangs, named at the waiter"
rc=$(sc_launch_json "$SC_TMP/counting.json" -n 10 --seed 5 --timeout 20 \
	--keep-going -- "$flagspin" count)
tap_is "$rc/$(json_get "$SC_TMP/counting.json" 'd["failing_runs"]')" "0/0" \
	"spin_flag_never count (the same load, counting in memory): no hang in 10 runs"

# A detached thread still counting when main returns: once main's next
# event is the exit, the exit goes first when the thread was stopped by
# its time slice (it shows nothing before the process ends), whatever the
# strategy would choose: at most one preemption of it between main's last
# event and its exit.  Strategies kept choosing the counting thread, each
# turn its whole slice budget of CPU (seconds at the default slice): 4 of
# 10 runs were false hangs at --timeout 10 for a QA tester.  --slice-us
# 100 keeps a turn at ~0.1 s.
# exit_turns TRACE: preemptions between main's last event before its
# process_exit and that exit.
exit_turns() {
	sc export "$1" --format json 2>/dev/null | python3 -c '
import json, sys
evs = json.load(sys.stdin)["events"]
ex = [i for i, e in enumerate(evs) if e["kind"] == "process_exit"]
last = max(i for i, e in enumerate(evs[:ex[-1]]) if e["thread"] == evs[ex[-1]]["thread"])
print(sum(e["kind"] == "preempt" for e in evs[last + 1:ex[-1]]))'
}
target=$(sc_target detached_spinner)
for strategy in pos random; do
	json=$SC_TMP/detached-$strategy.json
	rc=$(sc_launch_json "$json" -n 10 --seed 1 --keep-going -s "$strategy" \
		--granularity sync --slice-us 100 --keep-traces all \
		--out "$SC_TMP/detached-$strategy" -- "$target")
	most=0
	for trace in "$SC_TMP/detached-$strategy"/run-*.sctrace; do
		n=$(exit_turns "$trace")
		[ "${n:-9}" -gt "$most" ] && most=${n:-9}
	done
	tap_diag "detached_spinner -s $strategy: at most $most turn(s) before the exit"
	tap_is "$rc $(json_get "$json" 'd["failing_runs"]') $([ "$most" -le 1 ] && echo ok)" "0 0 ok" \
		"detached_spinner -s $strategy: 10 runs pass, main's exit waits for one turn of the counting thread at most"
	[ "$rc" -eq 0 ] || tap_diag_file "$json.err" 5
done

# A recorded hang is reproduced only by a replay that reaches its end:
# count_forever's run holds main's budget preemption after ~1.5 s of
# CPU, which a replay given 0.5 s cannot reach.  It said "reproduced"
# (exit 1) where it had got stuck short of it; now it is the replay's
# slowness (exit 3), with how far it got.
target=$(sc_target count_forever)
json=$SC_TMP/count_forever.json
rc=$(sc_launch_json "$json" -n 1 --seed 5 --timeout 3 --granularity sync \
	-- "$target")
trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
last=$(sc export "$trace" --format json 2>/dev/null | python3 -c '
import json, sys
e = json.load(sys.stdin)["events"][-1]
print(e["kind"], e.get("preempted_in"))')
tap_is "$rc $(json_get "$json" 'd["bugs"][0]["kind"]') $last" \
	"1 hang preempt computation" \
	"count_forever: a hang whose last event is a computation's preemption"
rc=0
sc replay --timeout 0.5 "$trace" >/dev/null 2>"$SC_TMP/cf.err" || rc=$?
tap_is "$rc $(grep -c 'got through' "$SC_TMP/cf.err")" "3 1" \
	"count_forever: a replay out of time short of the hang's end is no reproduction (exit 3, how far it got)"

# A run slowed down by load is not a hang: cpu_hogs computes ~0.1 s of
# CPU while three children of its own spin on its CPU, so the run takes
# several times that; --timeout 0.25 is below its wall time, above its
# CPU time.  The time it waited for the CPU extends its deadline: all 5
# runs pass (before: 5 of 5 'hang').
target=$(sc_target cpu_hogs)
json=$SC_TMP/cpu_hogs.json
rc=$(sc_launch_json "$json" -n 5 --seed 1 --keep-going --granularity sync \
	--timeout 0.25 -- "$target")
tap_is "$rc $(json_get "$json" 'd["failing_runs"]')" "0 0" \
	"cpu_hogs: a run slowed down by load past --timeout passes: waiting for a CPU is no hang"
[ "$rc" -eq 0 ] || tap_diag_file "$json.err" 5

# Every thread waits inside the kernel (a pipe nobody writes): the hang
# report still shows where, each thread's stack at its read.
check_timeout pipe_stuck sync
json=$SC_TMP/pipe_stuck-sync-timeout.json
tap_is "$(json_get "$json" 'sorted(set(f["file"] + ":" + f["function"] for s in d["bugs"][0]["stacks"] for f in s["frames"] if f["file"] == "pipe_stuck.c"))')" \
	'["pipe_stuck.c:main", "pipe_stuck.c:reader"]' \
	"pipe_stuck: the hang shows the stacks of both threads waiting in read"

# A program with a SIGTRAP handler of its own that traps twice: at mem
# granularity the handler's own memory accesses are breakpoints, and one
# hit inside the handler (SIGTRAP blocked there) made the kernel reset the
# handler, so the second trap killed the program.  10 runs pass, and run
# 1 replays.
cat >"$SC_TMP/sigtrap_twice.c" <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
static volatile int traps;
static void on_trap(int sig) { (void)sig; traps++; }
static void *trapper(void *arg)
{
	__asm__ volatile("int3");
	__asm__ volatile("int3");
	return arg;
}
int main(void)
{
	pthread_t t;
	signal(SIGTRAP, on_trap);
	pthread_create(&t, 0, trapper, 0);
	pthread_join(t, 0);
	printf("traps=%d\n", traps);
	return traps == 2 ? 0 : 1;
}
EOF
if gcc -g -O0 -pthread -o "$SC_BIN/sigtrap_twice" "$SC_TMP/sigtrap_twice.c"; then
	json=$SC_TMP/sigtrap_twice.json
	rc=$(sc_launch_json "$json" -n 10 --seed 1 --granularity mem --timeout 60 \
		-- "$SC_BIN/sigtrap_twice")
	tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 0/0 \
		"sigtrap_twice at mem granularity: the program's SIGTRAP handler survives 10 runs"
	[ "$rc" -eq 0 ] || tap_diag "$(json_get "$json" 'd["bugs"][0]["message"]')"
	rc=0
	sc replay --json "$(json_get "$json" 'd["out_dir"]')/run-000001.sctrace" \
		>"$SC_TMP/sigtrap_replay.json" 2>/dev/null || rc=$?
	tap_is "$rc $(json_get "$SC_TMP/sigtrap_replay.json" 'd["verdict"], d["diverged_at"]')" \
		"0 ('pass', None)" "sigtrap_twice: run 1 replays"
else
	tap_not_ok "sigtrap_twice: cannot compile the test program"
fi

# A thread asleep in sigwait() for good and a worker that counts on its
# pthread_cond_timedwait() timing out (pbzip2's shape): with the other
# threads stopped, the sleeper must not keep the timed wait from timing
# out.  Every run passes (it used to hang until --timeout), and run 1
# replays.
json=$SC_TMP/sigwait_poller.json
rc=$(sc_launch_json "$json" -n 20 --seed 5 --timeout 60 \
	-- "$(sc_target sigwait_poller)")
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" 0/0 \
	"sigwait_poller: 20 runs end, none failing, with a thread asleep in sigwait"
[ "$rc" -eq 0 ] || tap_diag_file "$json.err" 5
rc=0
sc replay --json "$(json_get "$json" 'd["out_dir"]')/run-000001.sctrace" \
	>"$SC_TMP/sigwait_replay.json" 2>"$SC_TMP/sigwait_replay.err" || rc=$?
tap_is "$rc $(json_get "$SC_TMP/sigwait_replay.json" 'd["verdict"], d["diverged_at"]')" \
	"0 ('pass', None)" "sigwait_poller: run 1 replays"
[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/sigwait_replay.err" 5

# A thread that executes an int3 of its own with no SIGTRAP handler: a
# crash like any other, with its thread, line and stack (it used to be a
# bare "killed by SIGTRAP").
cat >"$SC_TMP/int3_crash.c" <<'EOF'
#include <pthread.h>
static void *trapper(void *arg)
{
	__asm__ volatile("int3");
	return arg;
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, trapper, 0);
	pthread_join(t, 0);
	return 0;
}
EOF
if gcc -g -O0 -pthread -o "$SC_BIN/int3_crash" "$SC_TMP/int3_crash.c"; then
	json=$SC_TMP/int3_crash.json
	rc=$(sc_launch_json "$json" -n 1 --seed 1 --timeout 60 -- "$SC_BIN/int3_crash")
	msg=$(json_get "$json" 'd["bugs"][0]["message"]')
	tap_diag "int3_crash: exit $rc, $msg"
	tap_is "$rc $(json_get "$json" 'd["bugs"][0]["kind"]')" "1 crash" \
		"int3_crash: an int3 without a handler is a crash verdict"
	# The pc after the int3, as gdb shows a SIGTRAP: the next line.
	tap_check "int3_crash: the report names the thread and the line" \
		grep -qE "SIGTRAP.* in T1 at trapper at int3_crash.c:5" <<<"$msg"
	# doctest and Catch2 --break trap so on a failure when they see a
	# debugger: the message says so, and how to avoid it.
	tap_check "int3_crash: the message says test frameworks trap when they see a debugger" \
		grep -q "doctest: --no-breaks" <<<"$msg"
else
	tap_not_ok "int3_crash: cannot compile the test program"
	tap_not_ok "int3_crash: the message says test frameworks trap when they see a debugger"
fi

# start_stuck TARGET GRANULARITY: a session of stuck runs, started with
# exec so that the CLI gets the signals; sets cli and session once a
# target runs.
start_stuck() {
	local target i
	target=$(sc_target "$1")
	(
		SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE \
			SCHEDCTLD=$SCHEDCTLD SCHEDCTL_JOBS=2 \
			exec "$SCHEDCTL" launch -n 1000 --keep-going --timeout 600 \
			--granularity "$2" -- "$target" \
			>"$SC_TMP/stuck.out" 2>"$SC_TMP/stuck.err"
	) &
	cli=$!
	session=
	for i in $(seq 300); do
		if [ -z "$session" ]; then
			sc status --json >"$SC_TMP/s.json" 2>/dev/null
			session=$(json_get "$SC_TMP/s.json" \
				'[s["session"] for s in d["sessions"] if s["state"] == "running"][0]')
		fi
		[ -n "$session" ] && [ -n "$(sc_leftover_pids "$SC_BIN/$1")" ] && return 0
		sleep 0.1
	done
	tap_diag "no run of $1 started"
	tap_diag_file "$SC_TMP/stuck.err" 5
}

# check_ended HOW: the CLI has returned, the session is no longer running
# and none of its targets is left.
check_ended() {
	local how=$1 rc=0 state
	wait "$cli" || rc=$?
	tap_diag "$how: the CLI returned with exit $rc"
	sc status "$session" --json >"$SC_TMP/st.json" 2>&1
	state=$(json_get "$SC_TMP/st.json" 'd["state"]')
	tap_check "$how: the session ends (state '$state')" \
		test -n "$state" -a "$state" != running
	sc_check_no_targets_left "$how: no target of the session is left"
}

start_stuck count_forever sync
sc stop "$session" >/dev/null 2>"$SC_TMP/stop.err"
check_ended "schedctl stop (count_forever, sync)"

start_stuck fault_forever mem
sc stop "$session" >/dev/null 2>"$SC_TMP/stop.err"
check_ended "schedctl stop (fault_forever, mem)"

start_stuck count_forever mem
kill -INT "$cli"
check_ended "Ctrl-C (count_forever, mem)"

# The client is gone without a word: a session that was not --detach'ed
# ends with it.
start_stuck fault_forever sync
kill -KILL "$cli"
for i in $(seq 100); do
	sc status "$session" --json >"$SC_TMP/st.json" 2>&1
	[ "$(json_get "$SC_TMP/st.json" 'd["state"]')" != running ] && break
	sleep 0.2
done
check_ended "CLI killed with -9 (fault_forever, sync)"

# A job that cannot act on its SIGTERM (here: stopped) must not keep its
# session running: it is killed 10 s after the SIGTERM, and its programs
# die with it.
# job_of PID: the job process above a target, the first schedctld up
# its chain of parents.
job_of() {
	local p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ] &&
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" != schedctld ]; do
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
	done
	echo "$p"
}
start_stuck count_forever sync
target_pid=
for pid in $(sc_leftover_pids "$SC_BIN/count_forever"); do
	# Not the CLI, whose command line names the target too.
	[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = count_forever ] &&
		target_pid=$pid && break
done
job_pid=$(job_of "$target_pid")
tap_diag "stopping job $job_pid (target $target_pid)"
kill -STOP "$job_pid"
sc stop "$session" >/dev/null 2>"$SC_TMP/stop.err"
# Up to 30 s (the grace is 10 s); then the job may go on, so that a
# failing check does not leave the CLI waiting for ever.
for i in $(seq 150); do
	sc status "$session" --json >"$SC_TMP/st.json" 2>&1
	state=$(json_get "$SC_TMP/st.json" 'd["state"]')
	[ "$state" != running ] && break
	sleep 0.2
done
kill -CONT "$job_pid" 2>/dev/null
tap_check "a stopped job: the session ends within 30 s of schedctl stop (state '$state')" \
	test -n "$state" -a "$state" != running
check_ended "schedctl stop with a job stopped (count_forever, sync)"
tap_check "the daemon log says the stopped job was killed" \
	grep -q "job [0-9]* (pid $job_pid) still running 10 s after SIGTERM: killed" \
	"$SC_STATE/schedctld.log"

# A correct barrier whose waiters spin on atomics, reading two words a
# turn: at --granularity mem pos let the spinners starve the last
# arriver, and runs were "hangs" (QA; without the fix most of these runs
# hang at the 5 s budget).  40 runs end without a failure.
rc=0
sc launch --json -n 40 --seed 1 --keep-going --granularity mem --timeout 5 \
	-- "$(sc_target spin_barrier)" </dev/null >"$SC_TMP/sb.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/sb.json" 'd["failing_runs"]')" "0/0" \
	"spin_barrier (correct) at --granularity mem: no failing run in 40 (pos does not starve the last arriver)"

sc_check_no_leftovers
tap_done
