#!/bin/bash
# deadlock_report.sh: the report of the AB-BA deadlock names both threads
# by logical id and both mutexes by the symbol of their global variable;
# a deadlock in std::latch is located at the program's wait; a cycle of
# mutexes ends the run while another thread still runs; a thread blocked
# in a static object's destructor at exit is located there, not at
# _start; a signal lost before pause() is a deadlock at once (not a hang
# at the time budget), while waits whose signal a timer or a child
# process sends are not.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

bin=$(sc_target abba_deadlock)
json=$SC_TMP/abba.json
rc=0
sc launch --json -s random -n 200 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 1 "abba_deadlock: a bug is found (exit 1)"
[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/err"
tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" deadlock "abba_deadlock: kind is deadlock"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
for word in T1 T2 lock_a lock_b; do
	case $message in
	*"$word"*) tap_ok "the deadlock message names $word" ;;
	*) tap_not_ok "the deadlock message names $word" ;;
	esac
done

# pthread spinlocks taken in opposite orders: a thread about to lock a
# held spinlock waits as if blocked (it cannot make progress while the
# holder does not run), so this is a deadlock too, not a hang.
bin=$(sc_target spin_deadlock)
json=$SC_TMP/spin.json
rc=0
sc launch --json -s random -n 50 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 1 "spin_deadlock: a bug is found (exit 1)"
[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/err"
tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" deadlock "spin_deadlock: kind is deadlock"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
for word in T1 T2 "spinlock lock_a" "spinlock lock_b" spin_deadlock.c; do
	case $message in
	*"$word"*) tap_ok "the spin deadlock message names $word" ;;
	*) tap_not_ok "the spin deadlock message names $word" ;;
	esac
done

# Three philosophers with C11 threads and an array of mtx_t: the forks
# are named as elements of the array, and main's wait by main's own line
# (thrd_join and std::thread::join are library wrappers of pthread_join).
bin=$(sc_target philosophers)
json=$SC_TMP/phil.json
rc=0
sc launch --json -n 300 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc/$(json_get "$json" 'd["bugs"][0]["kind"]')" 1/deadlock \
	"philosophers: a deadlock is found"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
join_line=$(grep -n '/\* JOIN \*/' "$top_srcdir/tests/targets/philosophers.c" | cut -d: -f1)
for word in "T3" "mutex forks+0x28" "mutex forks+0x50" \
	"called from main at philosophers.c:$join_line"; do
	case $message in
	*"$word"*) tap_ok "the philosophers' deadlock message says '$word'" ;;
	*) tap_not_ok "the philosophers' deadlock message says '$word'" ;;
	esac
done
bin=$(sc_target cxx_abba)
json=$SC_TMP/cxx.json
sc launch --json -n 300 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
case $message in
*"T0 waits for T"*" to exit (pthread_join called from main at cxx_abba.cc:"*)
	tap_ok "cxx_abba: std::thread::join is named by main's line" ;;
*) tap_not_ok "cxx_abba: std::thread::join is named by main's line" ;;
esac

# The holder exited without unlocking (an early return): no live thread
# holds the mutex, and the report says which one took it to its end.
bin=$(sc_target abandoned_lock)
json=$SC_TMP/abandoned.json
rc=$(sc_launch_json "$json" -n 50 --seed 1 -- "$bin")
msg=$(json_get "$json" 'd["bugs"][0]["message"]')
case $rc/$msg in
1/*"T0 waits for mutex table_lock"*"held by T"[12]", which exited without unlocking it"*"called from main at abandoned_lock.c:"*)
	tap_ok "abandoned_lock: the mutex is held by a thread that exited without unlocking it" ;;
*)	tap_not_ok "abandoned_lock: the mutex is held by a thread that exited without unlocking it (exit $rc: $msg)" ;;
esac

# After main's pthread_exit its leader thread is a zombie until the
# process ends: a worker's deadlock then is still a deadlock, found at
# once (not a hang at --timeout), and its stack is symbolised (the map
# is read through a live thread).
rc=0
sc launch --json -n 5 --timeout 30 -- "$(sc_target main_pthread_exit)" deadlock \
	>"$SC_TMP/pexit.json" 2>/dev/null || rc=$?
tap_is "$rc $(json_get "$SC_TMP/pexit.json" 'd["bugs"][0]["kind"]')" "1 deadlock" \
	"main_pthread_exit deadlock: a deadlock after main's pthread_exit is one"
tap_check "main_pthread_exit deadlock: the worker's stack names its line" \
	grep -q 'main_pthread_exit.c:[0-9]' <(json_get "$SC_TMP/pexit.json" \
	'"\n".join(f.get("text") or "" for s in d["bugs"][0]["stacks"] for f in s["frames"])')

# C++20 std::latch and std::barrier wait with futex calls inlined into
# the program: the location is main's done.wait(), where it waits (it
# was std::thread's pthread_create in libstdc++, the last library call).
bin=$(sc_target cxx_latch_deadlock)
json=$SC_TMP/latch.json
rc=0
sc launch --json -n 5 --seed 1 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
line=$(grep -n 'done.wait();' "${top_srcdir:-$(dirname "$0")/../..}/tests/targets/cxx_latch_deadlock.cc" | cut -d: -f1)
tap_is "$rc $(json_get "$json" 'd["bugs"][0]["kind"]') $(json_get "$json" 'd["bugs"][0]["location"]')" \
	"1 deadlock main at cxx_latch_deadlock.cc:$line (cxx_latch_deadlock)" \
	"std::latch deadlock: located at main's wait"
# Each thread's wait says where it waits; an unnamed futex is given once
# (it was "futex 0x7ff... (0x7ff...)", nothing about where).
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
t0=${message#*T0 waits on futex }
t0=${t0%%;*}
case $t0 in
0x*" (0x"*) tap_not_ok "std::latch deadlock: the message says where each thread waits, an address once" ;;
0x*", waiting in main at cxx_latch_deadlock.cc:$line (cxx_latch_deadlock)")
	tap_check "std::latch deadlock: the message says where each thread waits, an address once" \
		grep -q "waiting in operator() at cxx_latch_deadlock.cc:" <<<"$message" ;;
*) tap_not_ok "std::latch deadlock: the message says where each thread waits, an address once" ;;
esac

# main waits for the two in a condition variable (a wait group,
# boost::thread::join): the report was located at main's wait, which is
# no part of the cycle (QA: boost::thread).
src=$top_srcdir/tests/targets/waitgroup_deadlock.c
ab=$(grep -n '/\* LOCK-AB \*/' "$src" | cut -d: -f1)
ba=$(grep -n '/\* LOCK-BA \*/' "$src" | cut -d: -f1)
json=$SC_TMP/waitgroup.json
rc=0
sc launch --json -s random -n 200 --seed 7 -- "$(sc_target waitgroup_deadlock)" \
	>"$json" 2>"$SC_TMP/err" || rc=$?
loc=$(json_get "$json" 'd["bugs"][0]["kind"] + " " + d["bugs"][0]["location"]')
tap_diag "waitgroup_deadlock: $loc"
case $loc in
"deadlock a_then_b at waitgroup_deadlock.c:$ab "* | \
"deadlock b_then_a at waitgroup_deadlock.c:$ba "*)
	tap_ok "waitgroup_deadlock: located at a lock of the cycle, not main's wait" ;;
*)	tap_not_ok "waitgroup_deadlock: located at a lock of the cycle, not main's wait (exit $rc)" ;;
esac

# AB-BA beside a heartbeat thread that never blocks: "every thread is
# blocked" never comes, and each deadlock was a hang at the time budget
# (QA).  A cycle of threads each waiting for a mutex the next one holds
# ends the run as that deadlock.  42 of 100 runs with seed 1.
bin=$(sc_target abba_heartbeat)
json=$SC_TMP/heartbeat.json
rc=0
sc launch --json --keep-going -s pos -n 100 --seed 1 --timeout 20 -- "$bin" \
	>"$json" 2>"$SC_TMP/err" || rc=$?
counts=$(json_get "$json" '"%d %d %d" % (d["failing_runs"], sum(b["kind"] == "deadlock" for b in d["bugs"]), sum(b["kind"] == "hang" for b in d["bugs"]))')
read -r failing deadlocks hangs <<<"$counts"
tap_diag "abba_heartbeat: $failing failing runs of 100: $deadlocks deadlocks, $hangs hangs"
if [ "$rc" -eq 1 ] && [ "${failing:-0}" -ge 20 ] && [ "$deadlocks" = "$failing" ]; then
	tap_ok "abba_heartbeat: every failing run is a deadlock, not a hang ($failing of 100, at least 20)"
else
	tap_not_ok "abba_heartbeat: every failing run is a deadlock, not a hang (exit $rc: $counts)"
fi
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
case $message in
*"T2 waits for mutex"*"held by T3"*"T3 waits for mutex"*"held by T2"*"a cycle of mutexes: "*"still run"*)
	tap_ok "abba_heartbeat: the report names the cycle and says the others still run" ;;
*) tap_not_ok "abba_heartbeat: the report names the cycle and says the others still run" ;;
esac
trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
rc=0
sc replay --json "$trace" >"$SC_TMP/hr.json" 2>/dev/null || rc=$?
tap_is "$rc $(json_get "$SC_TMP/hr.json" 'd["verdict"]') $(json_get "$SC_TMP/hr.json" 'd["reproduced"]')" \
	"1 deadlock true" "abba_heartbeat: the replay ends at the same cycle"
rc=0
sc launch --json -s pos -n 100 --seed 1 --timeout 20 -- "$bin" ordered \
	>"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc/$(json_get "$json" 'd["failing_runs"]')" "0/0" \
	"abba_heartbeat ordered: no deadlock in 100 runs"

# A read lock held while the same thread asks for the write lock: the
# report says who holds the rwlock (glibc counts its readers only).
json=$SC_TMP/rwup.json
rc=0
sc launch --json -n 50 --seed 7 -- "$(sc_target rwlock_upgrade)" >"$json" 2>"$SC_TMP/err" || rc=$?
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
case $message in
*"waits for rwlock cache_lock"*"held for reading by T"*" itself in rwlock_wrlock called from lookup at rwlock_upgrade.c:"*)
	tap_ok "rwlock_upgrade: the deadlock names the reader that wants to write" ;;
*)
	tap_not_ok "rwlock_upgrade: the deadlock names the reader that wants to write (rc $rc)" ;;
esac
case $message in
*"waits for rwlock cache_lock"*"held for reading by T"*" in rwlock_wrlock called from warm at rwlock_upgrade.c:"*)
	tap_ok "rwlock_upgrade: and the read holder the warmer waits for" ;;
*)
	tap_not_ok "rwlock_upgrade: and the read holder the warmer waits for" ;;
esac

# A detached thread waits on a static condition variable when main
# returns: the variable's destructor, among exit's handlers, waits for it
# in pthread_cond_destroy.  The program's only frame on main's stack is
# its entry stub; the report used to say T0 waited "in _start+0x20".
json=$SC_TMP/static_cv.json
rc=$(sc_launch_json "$json" -n 3 --seed 1 --keep-going -- "$(sc_target static_cv_exit)")
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "static_cv_exit: $message"
tap_is "$rc/$(json_get "$json" '[d["failing_runs"], d["bugs"][0]["kind"], d["bugs"][0]["location"].startswith("pthread_cond_destroy") and "during exit" in d["bugs"][0]["location"]]')" \
	'1/[3, "deadlock", true]' \
	"static_cv_exit: 3 deadlocks, located in pthread_cond_destroy during exit"
case $message in
*_start*) tap_not_ok "static_cv_exit: the message does not name _start" ;;
*"T0 waits on futex cv+"*"pthread_cond_destroy"*"during exit"*"T1 waits for condition variable cv"*"static_cv_exit.cc:"*)
	tap_ok "static_cv_exit: T0 in pthread_cond_destroy during exit, T1 at its wait's line" ;;
*) tap_not_ok "static_cv_exit: T0 in pthread_cond_destroy during exit, T1 at its wait's line" ;;
esac

# lost_pause: main's pthread_kill before the worker's pause() is lost.
# Every failing run is a deadlock naming the worker in pause() at the
# marked line, never a hang at the time budget (it was, after the whole
# --timeout of each such run); replays reproduce it.  pause_race's lost
# signal (main's `while (!told) pause();`) likewise.
line=$(grep -n 'LOST-SIGNAL' "$top_srcdir/tests/targets/lost_pause.c" | cut -d: -f1)
json=$SC_TMP/lost_pause.json
rc=$(sc_launch_json "$json" -s pos -n 300 --seed 1 --keep-going --timeout 20 -- "$(sc_target lost_pause)")
tap_is "$rc/$(json_get "$json" 'sorted(set(b["kind"] for b in d["bugs"]))')/$(json_get "$json" 'd["failing_runs"] >= 30')" \
	'1/["deadlock"]/true' \
	"lost_pause: at least 30 of 300 pos runs fail, all as deadlocks ($(json_get "$json" 'd["failing_runs"]') failed)"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
case $message in
*"T1 waits in pause called from worker at lost_pause.c:$line "*"for a signal that no thread, timer or child process"*)
	tap_ok "lost_pause: the message names T1 in pause() at lost_pause.c:$line" ;;
*) tap_not_ok "lost_pause: the message names T1 in pause() at lost_pause.c:$line"
   tap_diag "$message" ;;
esac
sc_check_replay "lost_pause" "$json" deadlock
json=$SC_TMP/pause_race.json
rc=$(sc_launch_json "$json" -s pos -n 300 --seed 1 --keep-going --timeout 20 -- "$(sc_target pause_race)")
tap_is "$rc/$(json_get "$json" 'sorted(set(b["kind"] for b in d["bugs"]))')" '1/["assert", "deadlock"]' \
	"pause_race: its runs fail by the lost update (assert) or the lost signal (deadlock), never a hang"

# signal_handshake: the fixed handshake (sigsuspend), a timer_create
# timer's signal awaited in sigwait(), and a child's kill() of its parent
# awaited in sigsuspend, unfollowed and followed: no run is a deadlock.
for args in "" timer child "child --follow-forks"; do
	set -- $args
	json=$SC_TMP/handshake.json
	extra=${2:-}
	rc=$(sc_launch_json "$json" -n 100 --seed 1 $extra -- "$(sc_target signal_handshake)" ${1:+"$1"})
	tap_is "$rc/$(json_get "$json" 'd["runs"]')/$(json_get "$json" 'd["failing_runs"]')" 0/100/0 \
		"signal_handshake ${args:-(handshake)}: 100 runs, none failing"
	[ "$rc" -eq 0 ] && continue
	tap_diag "$(json_get "$json" 'd["bugs"][0]["message"]')"
done

sc_check_no_leftovers
tap_done
