#!/bin/bash
# stacks.sh: a bug's report carries the symbolised stacks of the threads
# it is about, innermost frame first, as a debugger shows them: for every
# buggy target of TARGETS_BUGGY (tests/Makemodule.am) the first bug found
# has a stack frame in the target's own code with its function, source
# file and line, in launch --json, launch's text report, results --json
# and replay --json.  A crash inside libc (freed_mutex) shows the libc
# frame first and the program's caller under it; a deadlock shows every
# blocked thread; a hang (spin_forever at --timeout) the spinning thread.
# A stack deeper than 64 frames ends with a line saying how many more.
# Calls the compiler inlined (cxx_abba's std::lock_guard -> std::mutex::
# lock -> __gthread_mutex_lock) are frames of their own, and one-line
# locations name the program's line, not gthr-default.h's.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup
# shellcheck source=tests/lib/am_targets.sh
. "$top_srcdir/tests/lib/am_targets.sh"

RUNS=300
SEED=1

# own_frame JSON EXPR NAME: "function file:line" of the first frame of
# stacks EXPR (a JSON array) whose module is NAME and that has a line.
own_frame() {
	python3 - "$1" "$2" "$3" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
stacks = eval(sys.argv[2], {"d": d}) or []
for s in stacks:
    for f in s["frames"]:
        if f["module"] == sys.argv[3] and f["line"] and f["file"] and f["function"]:
            print("%s %s:%d" % (f["function"], f["file"], f["line"]))
            sys.exit(0)
PY
}

while read -r name; do
	bin=$(sc_target "$name")
	json=$SC_TMP/$name.json
	rc=0
	# pos finds every one of them well within RUNS (strategies.sh).
	# </dev/null: the CLI hands its stdin to the program.
	sc launch --json -s pos -n "$RUNS" --seed "$SEED" -- "$bin" \
		</dev/null >"$json" 2>"$SC_TMP/$name.err" || rc=$?
	kind=$(json_get "$json" 'd["bugs"][0]["kind"]')
	frame=$(own_frame "$json" 'd["bugs"][0]["stacks"]' "$name")
	if [ "$rc" -eq 1 ] && [ -n "$frame" ]; then
		tap_ok "$name: the $kind report's stack names $frame"
	else
		tap_not_ok "$name: the report's stack names a function, file and line of $name (exit $rc, $kind)"
		tap_diag_file "$SC_TMP/$name.err" 3
	fi
done < <(am_targets TARGETS_BUGGY)

# deep_template (asserting 80 calls deep, in instantiations whose names
# run to 700 characters): the stack is cut at 64 frames, and its last
# line says how many were left out; a name too long for a frame's line is
# cut with an ellipsis and keeps its file and line (QA: cut at 24 frames
# and 255 bytes, without a word).
got=$(python3 - "$SC_TMP/deep_template.json" <<'PY' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
frames = d["bugs"][0]["stacks"][0]["frames"]
last = frames[-1]
cut = [f for f in frames if (f["function"] or "").endswith("\u2026")
       and f["file"] == "deep_template.cc" and f["line"]]
print(len(frames), last.get("frames_not_shown", 0) > 0,
      last["text"].endswith("more frames not shown)"), len(cut) > 50)
PY
)
tap_is "$got" "64 True True True" \
	"deep_template: 64 frames, the last says how many more; long names cut with an ellipsis, file:line kept"
# freed_mutex: the fault is in libc, the caller is the program's.  At sync
# granularity: at race granularity the pilot runs interleave the memory
# accesses too, and the freed queue may be read (a fault in the program's
# own code) before its lock is taken.
bin=$(sc_target freed_mutex)
rc=0
sc launch -s pos --granularity sync -n "$RUNS" --seed "$SEED" -- "$bin" >"$SC_TMP/fm.txt" \
	2>"$SC_TMP/fm.err" || rc=$?
tap_is "$rc" 1 "freed_mutex: the crash is found"
# The lock on freed memory faults in the lock (SIGSEGV) or makes glibc
# abort ("The futex facility returned an unexpected error code"), which
# adds abort's frames on top: either way frame #0 is in libc, and the
# frame under the program's caller is libc's lock (its internal
# functions named from libc6-dbg's symbols).
tap_is "$(python3 - "$SC_TMP/fm.txt" <<'PY'
import re, sys
frames, on = [], False
for line in open(sys.argv[1]):
    if line.startswith("  stack of T"):
        on = not frames
        continue
    if on and re.match(r"\s+#\d+", line):
        frames.append(re.sub(r"^\s+#\d+\s+0x[0-9a-f]+ in ", "", line.rstrip()))
    elif on and frames:
        on = False
caller = [i for i, f in enumerate(frames)
          if f == "consume at freed_mutex.c:26 (freed_mutex)"]
print("libc" if frames and "(libc.so.6)" in frames[0] else frames[:1],
      "lock" if caller and caller[0] > 0 and
      re.match(r"(__pthread_mutex_lock|__lll_lock_wait)\b", frames[caller[0] - 1])
      else frames)
PY
)" "libc lock" \
	"freed_mutex: frame #0 in libc, the frame under the program's caller (consume at freed_mutex.c:26) libc's lock"

# A deadlock: every blocked thread's stack, each in the program.
bin=$(sc_target abba_deadlock)
rc=0
sc launch --json -s pos -n "$RUNS" --seed "$SEED" -- "$bin" \
	>"$SC_TMP/dl.json" 2>/dev/null || rc=$?
tap_is "$(python3 - "$SC_TMP/dl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["bugs"][0]
fns = sorted({f["function"] for s in b["stacks"] for f in s["frames"]
              if f["module"] == "abba_deadlock" and f["line"]})
print(b["kind"], len(b["stacks"]), " ".join(fns))
PY
)" "deadlock 3 a_then_b b_then_a main" \
	"abba_deadlock: the stacks of the 3 blocked threads (main, a_then_b, b_then_a)"

# The same stacks from results, and from a replay of the trace.
session=$(json_get "$SC_TMP/dl.json" 'd["session"]')
sc results --json "$session" >"$SC_TMP/res.json" 2>/dev/null
tap_is "$(own_frame "$SC_TMP/res.json" 'd["bugs"][0]["stacks"]' abba_deadlock)" \
	"$(own_frame "$SC_TMP/dl.json" 'd["bugs"][0]["stacks"]' abba_deadlock)" \
	"results --json: the bug's stacks (from its trace)"
trace=$(json_get "$SC_TMP/dl.json" 'd["bugs"][0]["trace"]')
sc replay --json "$trace" >"$SC_TMP/rp.json" 2>/dev/null
tap_is "$(own_frame "$SC_TMP/rp.json" 'd["stacks"]' abba_deadlock)" \
	"$(own_frame "$SC_TMP/dl.json" 'd["bugs"][0]["stacks"]' abba_deadlock)" \
	"replay --json: the replayed failure's stacks"

# Inlined calls: cxx_abba is built at -O2, std::mutex::lock() and
# libstdc++'s __gthread_mutex_lock are inlined into worker() and other().
bin=$(sc_target cxx_abba)
rc=0
sc launch --json -s pos -n "$RUNS" --seed "$SEED" -- "$bin" \
	>"$SC_TMP/cxx.json" 2>/dev/null || rc=$?
tap_is "$(python3 - "$SC_TMP/cxx.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
b = d["bugs"][0]
print(b["kind"], re.sub(r"cxx_abba\.cc:\d+", "cxx_abba.cc:N", b["location"]))
for s in b["stacks"]:
    fr = s["frames"]
    for i, f in enumerate(fr):
        if f["function"] == "std::mutex::lock()" and f["inlined"]:
            outer = next((g for g in fr[i + 1:] if not g["inlined"]), None)
            print("T%d: std::mutex::lock() inlined into %s at %s" % (
                s["thread"], outer and outer["function"],
                outer and outer["file"]))
PY
)" "$(printf 'deadlock %s() at cxx_abba.cc:N (cxx_abba)\nT1: std::mutex::lock() inlined into worker() at cxx_abba.cc\nT2: std::mutex::lock() inlined into other() at cxx_abba.cc' \
	"$(json_get "$SC_TMP/cxx.json" 'd["bugs"][0]["location"]' | sed -E 's/\(\).*//')")" \
	"cxx_abba: the location is the program's line; std::mutex::lock() is an inlined frame of worker() and other()"

# The same program at -O0: libstdc++'s __gthread_mutex_lock is a function
# of the program's own, in a line sequence of its own that keeps the
# default file (1, gthr-default.h; libdwarf called it file 0, the
# program's own file: "cxx_abba.cc:749").  Each frame names its real
# file, and the deadlock's clauses name the program's line, past the
# library template frames.
if g++ -std=c++17 -O0 -g -pthread -o "$SC_BIN/cxx_abba_O0" \
	"$top_srcdir/tests/targets/cxx_abba.cc" 2>"$SC_TMP/o0.err"; then
	rc=0
	sc launch --json -s pos -n "$RUNS" --seed "$SEED" -- "$SC_BIN/cxx_abba_O0" \
		>"$SC_TMP/cxx0.json" 2>/dev/null || rc=$?
	tap_is "$(python3 - "$SC_TMP/cxx0.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
b = d["bugs"][0]
gthr = [f for s in b["stacks"] for f in s["frames"]
        if (f["function"] or "").startswith("__gthread_mutex_lock")]
print(b["kind"],
      sorted({f["file"] for f in gthr}),
      sorted(set(re.findall(r"called from (\w+\(\)) at (cxx_abba\.cc):\d+", b["message"]))))
PY
)" "deadlock ['gthr-default.h'] [('other()', 'cxx_abba.cc'), ('worker()', 'cxx_abba.cc')]" \
		"cxx_abba at -O0: __gthread_mutex_lock at gthr-default.h, the clauses name worker() and other() in cxx_abba.cc"
else
	tap_skip "cxx_abba at -O0" "g++ failed"
fi

# A load through a non-canonical pointer (freed memory's mangled link
# does that) is a general-protection fault: the kernel gives no address,
# and the report says so instead of "fault address 0x0".
cat >"$SC_TMP/gp.c" <<'C'
#include <pthread.h>
#include <stdint.h>
static void *t(void *a)
{
	(void)a;
	return (void *)(uintptr_t)*(volatile int *)(uintptr_t)0x8000000000000000ull;
}
int main(void)
{
	pthread_t th;
	pthread_create(&th, 0, t, 0);
	pthread_join(th, 0);
	return 0;
}
C
if gcc -g -O0 -pthread -o "$SC_BIN/gp" "$SC_TMP/gp.c" 2>"$SC_TMP/gp.err"; then
	rc=0
	sc launch --json -n 1 -- "$SC_BIN/gp" >"$SC_TMP/gp.json" 2>/dev/null || rc=$?
	msg=$(json_get "$SC_TMP/gp.json" 'd["bugs"][0]["message"]')
	case $rc/$msg in
	1/*"in T1 at t at gp.c:"*"general-protection fault"*"gives no address"*)
		tap_ok "a non-canonical pointer: the crash says general-protection fault, no address" ;;
	*)	tap_not_ok "a non-canonical pointer: the crash says general-protection fault, no address (exit $rc: $msg)" ;;
	esac
else
	tap_skip "a non-canonical pointer" "gcc failed"
fi

# A SIGSEGV sent with kill is no memory fault: its siginfo holds the
# sender's pid where a fault's holds the address ("fault address
# 0x5630" was the pid).
rc=0
sc launch --json -n 1 -- sh -c 'kill -SEGV $$' >"$SC_TMP/killed.json" \
	2>/dev/null || rc=$?
msg=$(json_get "$SC_TMP/killed.json" 'd["bugs"][0]["message"]')
case $rc/$msg in
1/SIGSEGV*"sent by process "*"(kill), not a memory fault")
	tap_ok "a SIGSEGV sent by kill: the report names the sender, no fault address" ;;
*)	tap_not_ok "a SIGSEGV sent by kill: the report names the sender, no fault address (exit $rc: $msg)" ;;
esac

# A hang: the spinning thread's stack, at the line of its loop.
bin=$(sc_target spin_forever)
rc=0
sc launch --json -n 1 --timeout 2 -- "$bin" >"$SC_TMP/hang.json" \
	2>/dev/null || rc=$?
frame=$(own_frame "$SC_TMP/hang.json" 'd["bugs"][0]["stacks"]' spin_forever)
case $frame in
"worker spin_forever.c:"[0-9]*) tap_ok "spin_forever: the hang's stacks show the spinning worker ($frame)" ;;
*) tap_not_ok "spin_forever: the hang's stacks show the spinning worker (got '$frame')" ;;
esac
# At mem granularity the spinner is stopped at its next load, not running:
# it still comes first, before the blocked main thread.
rc=0
sc launch --json -n 1 --timeout 2 --granularity mem -- "$bin" \
	>"$SC_TMP/hang-mem.json" 2>/dev/null || rc=$?
frame=$(own_frame "$SC_TMP/hang-mem.json" 'd["bugs"][0]["stacks"]' spin_forever)
case $frame in
"worker spin_forever.c:"[0-9]*) tap_ok "spin_forever at mem: the hang's stacks show the spinning worker first ($frame)" ;;
*) tap_not_ok "spin_forever at mem: the hang's stacks show the spinning worker first (got '$frame')" ;;
esac

# A signal with its default action, sent by the program to itself and
# delivered to the worker that did not block it: the report names that
# thread and the sender (it said only "killed by SIGUSR1").
rc=0
sc launch --json -n 5 --seed 1 -- "$(sc_target signal_unblocked)" \
	>"$SC_TMP/sig.json" 2>/dev/null || rc=$?
msg=$(json_get "$SC_TMP/sig.json" 'd["bugs"][0]["message"]')
case "$rc $msg" in
"1 killed by SIGUSR1 (User defined signal 1), delivered to T1 at "*", sent by the program's own process "*)
	tap_ok "signal_unblocked: the report names the thread the signal came to and its sender" ;;
*) tap_not_ok "signal_unblocked: the report names the thread the signal came to and its sender (exit $rc: $msg)" ;;
esac
tap_is "$(json_get "$SC_TMP/sig.json" 'd["bugs"][0]["stacks"][0]["thread"]' 2>/dev/null || echo none)" \
	1 "signal_unblocked: the stack shown is T1's"

# The same when the signal comes while the supervisor steps the thread
# over a memory access (mem granularity): the signal was kept for later
# without a note of where it came (10 of 18 failing runs said only
# "killed by SIGUSR1").
rc=$(sc_launch_json "$SC_TMP/sigmem.json" -n 20 --seed 1 --keep-going \
	--granularity mem -- "$(sc_target signal_before_handler)")
tap_is "$rc/$(json_get "$SC_TMP/sigmem.json" 'd["failing_runs"] > 0 and all(re.match(r"killed by SIGUSR1 .*, delivered to T1 at worker at signal_before_handler\.c:[0-9]+ .*, sent by the program.s own process", b["message"]) for b in d["bugs"])')" \
	"1/true" "signal_before_handler at mem: every failing run names T1, its line and the sender"

# A call through a null function pointer stops at pc 0, where nothing
# unwinds: the stack goes on from the return address the call pushed,
# and the report names the calling line.
call_line=$(grep -n '/\* CALL \*/' "$top_srcdir/tests/targets/null_callback.c" | cut -d: -f1)
rc=0
sc launch --json -n 1 --seed 1 -- "$(sc_target null_callback)" \
	>"$SC_TMP/null.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/null.json" '[d["bugs"][0]["kind"], "notify at null_callback.c:'"$call_line"'" in d["bugs"][0]["message"], ["%s:%s" % (f["function"], f["line"]) for f in d["bugs"][0]["stacks"][0]["frames"][:3]]]')" \
	"1/[\"crash\", true, [\"None:None\", \"notify:$call_line\", \"worker:$((call_line + 5))\"]]" \
	"null_callback: a call through a null pointer is reported from its caller, with the stack below"

sc_check_no_leftovers
tap_done
