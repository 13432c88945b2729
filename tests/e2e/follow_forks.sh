#!/bin/bash
# follow_forks.sh: with --follow-forks the threads of forked children are
# scheduled too, so a test started by a shell script is explored (and a
# deadlock inside it reported even though the shell only waits in
# wait4); replay follows the child as well; a correct program run through
# a shell passes.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

abba=$(sc_target abba_deadlock)
rc=0
sc launch --json -s pos -n 200 --seed 1 --follow-forks -- /bin/sh -c "$abba" \
	>"$SC_TMP/f.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 1 "--follow-forks: a deadlock in a child of /bin/sh is found"
tap_is "$(json_get "$SC_TMP/f.json" 'd["bugs"][0]["kind"]')" deadlock \
	"with a deadlock verdict"
msg=$(json_get "$SC_TMP/f.json" 'd["bugs"][0]["message"]')
tap_diag "first bug at run $(json_get "$SC_TMP/f.json" 'd["first_bug_run"]'): $msg"
case $msg in
*lock_a*lock_b*|*lock_b*lock_a*) tap_ok "the report names the child's mutexes" ;;
*) tap_not_ok "the report names the child's mutexes" ;;
esac
trace=$(json_get "$SC_TMP/f.json" 'd["bugs"][0]["trace"]')
good=0
for _ in 1 2 3; do
	r=0
	# --timeout: a replay stuck waiting for the shell's wait4 (which
	# never returned in the recording) must fail fast, not pass as a hang.
	sc replay "$trace" --json --timeout 20 >"$SC_TMP/r.json" 2>/dev/null || r=$?
	got="$r $(json_get "$SC_TMP/r.json" 'd["verdict"]') $(json_get "$SC_TMP/r.json" 'd["reproduced"]')"
	[ "$got" = "1 deadlock true" ] && good=$((good + 1))
done
tap_is "$good/3" "3/3" "the replay follows the child and reproduces the deadlock (last: $got)"

rc=0
sc launch --json -s pos -n 30 --seed 1 --follow-forks -- /bin/sh -c \
	"$(sc_target bounded_buffer)" >"$SC_TMP/c.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/c.json" 'd["failing_runs"]')" "0/0" \
	"--follow-forks: a correct program under a shell passes 30 runs"
rc=0
sc launch --json -s pos -n 30 --seed 1 --follow-forks -- \
	"$(sc_target fork_exec)" >"$SC_TMP/c.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 0 "--follow-forks: fork_exec (child execs /bin/true) passes 30 runs"
tap_is "$(grep -c "ran uncontrolled" "$SC_TMP/err")" 0 \
	"--follow-forks: no notice of an uncontrolled child"
rc=0
sc launch -n 3 --seed 1 -- "$(sc_target fork_exec)" >/dev/null \
	2>"$SC_TMP/free.err" || rc=$?
tap_check "without --follow-forks: launch notices the child ran uncontrolled (exit $rc)" \
	grep -q "started a child process, which ran uncontrolled" "$SC_TMP/free.err"

# fork while another thread holds a mutex: the child's lock never
# returns and main waits for it.  Without --follow-forks the run is a
# hang whose report said nothing of the child; it now says where the
# child is stuck.  With --follow-forks it is the child's deadlock.
held=$(sc_target fork_held_lock)
rc=0
sc launch --json -n 1 --seed 1 --timeout 2 -- "$held" >"$SC_TMP/h.json" 2>/dev/null || rc=$?
msg=$(json_get "$SC_TMP/h.json" 'd["bugs"][0]["message"]')
tap_diag "fork_held_lock: $msg"
case "$rc $(json_get "$SC_TMP/h.json" 'd["bugs"][0]["kind"]') $msg" in
"1 hang "*"child process "*" (not followed) is still running, stopped in "*"called from child_reads_table at fork_held_lock.c:"*"--follow-forks"*)
	tap_ok "fork_held_lock: the hang names where the unfollowed child is stuck" ;;
*) tap_not_ok "fork_held_lock: the hang names where the unfollowed child is stuck (exit $rc)" ;;
esac
rc=0
sc launch --json -n 1 --seed 1 --timeout 20 --follow-forks -- "$held" >"$SC_TMP/h.json" 2>/dev/null || rc=$?
msg=$(json_get "$SC_TMP/h.json" 'd["bugs"][0]["message"]')
case "$rc $(json_get "$SC_TMP/h.json" 'd["bugs"][0]["kind"]') $msg" in
"1 deadlock "*"table_lock"*"fork did not copy"*) tap_ok "fork_held_lock --follow-forks: the child's deadlock on table_lock" ;;
*) tap_not_ok "fork_held_lock --follow-forks: the child's deadlock on table_lock (exit $rc: $msg)" ;;
esac
# Every thread the message names has its stack, main waiting in waitpid
# for the child included (QA: only the child's was shown).
got=$(python3 - "$SC_TMP/h.json" <<'PY' 2>/dev/null
import json, re, sys
d = json.load(open(sys.argv[1]))
b = d["bugs"][0]
named = sorted(int(t) for t in re.findall(r"\bT(\d+)\b(?= \(process| waits)", b["message"]))
shown = sorted(s["thread"] for s in b["stacks"])
waitpid = any(any(f["function"] in ("wait4", "waitpid", "__GI___wait4")
                  for f in s["frames"]) for s in b["stacks"])
print(named == shown and len(shown) >= 2, waitpid)
PY
)
tap_is "$got" "True True" \
	"fork_held_lock --follow-forks: the report has the stack of every thread it names, main's in waitpid too"

# Two processes of one program: the same addresses.  A join in one was
# said to wait for a thread of the other whose exit clears the same
# address (QA: "T3 waits for T4", T4 in another process).  Every join a
# deadlock message names is of a thread of the joiner's own process:
# two joiners never name the same thread.
cat >"$SC_BIN/two_abba.sh" <<SCRIPT
#!/bin/sh
$(sc_target abba_deadlock) >/dev/null 2>&1 &
$(sc_target abba_deadlock) >/dev/null 2>&1 &
wait
SCRIPT
chmod +x "$SC_BIN/two_abba.sh"
sc launch --json -n 30 --seed 1 --keep-going --keep-traces none \
	-- "$SC_BIN/two_abba.sh" </dev/null >"$SC_TMP/two.json" 2>/dev/null
got=$(python3 - "$SC_TMP/two.json" <<'PY' 2>/dev/null
import json, re, sys
d = json.load(open(sys.argv[1]))
two = bad = 0
for b in d.get("bugs") or []:
    joined = re.findall(r"T\d+ waits for (T\d+) to exit", b["message"])
    if len(joined) >= 2:
        two += 1
        bad += len(set(joined)) < len(joined)
print("%s %d" % ("some" if two else "none", bad))
PY
)
tap_is "$got" "some 0" \
	"two processes of one program: each join a deadlock names is of the joiner's own process"

# A process-shared semaphore the child posts: the kernel's futex, not the
# model's, and a followed child's posts replay.
rc=0
sc launch --json -n 30 --seed 1 --follow-forks --keep-traces all \
	--out "$SC_TMP/psem" -- "$(sc_target pshared_sem)" \
	>"$SC_TMP/c.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/c.json" 'd["failing_runs"]')" "0/0" \
	"--follow-forks: pshared_sem (the child posts main's semaphore) passes 30 runs"
same=0
for r in 1 2 3 4 5; do
	sc replay "$SC_TMP/psem/run-00000$r.sctrace" >/dev/null 2>&1 && same=$((same + 1))
done
tap_is "$same" 5 "--follow-forks: pshared_sem runs 1-5 replay"

# xargs -P 2 forks while its earlier children end: a SIGCHLD that comes
# first makes the kernel restart the fork, whose second seccomp stop was
# recorded as a second fork event, which a replay (the signal at another
# time) did not see: 2 of 5 runs after the pilot diverged (QA).
mkdir -p "$SC_TMP/xargs"
for i in $(seq 60); do
	echo "line $i" >"$SC_TMP/xargs/f$i.txt"
	echo "f$i.txt"
done >"$SC_TMP/xargs.list"
rc=0
(cd "$SC_TMP/xargs" && sc launch --json -n 10 --seed 1 --follow-forks \
	--stdin "$SC_TMP/xargs.list" --keep-traces all --out "$SC_TMP/xargs.out" \
	-- xargs -P 2 -n 3 cat) >"$SC_TMP/x.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/x.json" 'd["failing_runs"]')" "0/0" \
	"--follow-forks: xargs -P 2 passes 10 runs"
same=0
for r in $(seq 10); do
	t=$(printf '%s/run-%06d' "$SC_TMP/xargs.out" "$r")
	(cd "$SC_TMP/xargs" && sc replay "$t.sctrace") >"$SC_TMP/x.out" \
		2>"$SC_TMP/x.err" && cmp -s "$SC_TMP/x.out" "$t.out" &&
		same=$((same + 1))
done
tap_is "$same" 10 "--follow-forks: xargs -P 2: each of the 10 runs replays, with its output"

# posix_spawn's vfork: the parent sleeps uninterruptibly until its child
# (ours to schedule) execs.  Taken for a thread on its way back, it was
# waited for 2 s per spawn, and then no more when it did come back: the
# same seed ran 1304 or 1305 events.
counts=
for i in 1 2 3; do
	rc=0
	sc launch --json -n 10 --seed 5 --follow-forks -- \
		"$(sc_target spawn_counter)" >"$SC_TMP/sp$i.json" \
		2>"$SC_TMP/sp$i.err" || rc=$?
	counts="$counts $rc/$(json_get "$SC_TMP/sp$i.json" 'd["events"]')"
done
first=${counts# }
first=${first%% *}
tap_is "$counts" " $first $first $first" \
	"--follow-forks: spawn_counter (posix_spawn) runs the same events for one seed three times (exit/events)"
case $first in
0/*) tap_ok "--follow-forks: spawn_counter passes" ;;
*) tap_not_ok "--follow-forks: spawn_counter passes (got $first)" ;;
esac

sc_check_no_leftovers
tap_done
