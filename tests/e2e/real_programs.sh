#!/bin/bash
# real_programs.sh: multithreaded programs from Debian, not our targets,
# replay exactly: run 1 of pigz, xz -T2 and sort --parallel, replayed
# ten times each, follows the run every time (exit 0, verdict pass, as many
# steps as recorded, no divergence); pbzip2 and pigz launched twice with
# the same seed give the same events; two cc1 compiling at once replay;
# a python3 outside /usr is not instrumented; a Python timer beats a
# longer wait; java without -XX:-UsePerfData gets a notice.
# In CI this runs a second time with a busy loop on every CPU, where
# timing-based schedules used to diverge.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

REPLAYS=10
# A few hundred kB of text: several compression blocks for pigz and xz,
# several chunks for sort's threads, and seconds, not minutes, per run.
input=$SC_WORK/input.txt
mkdir -p "$SC_WORK"
seq 1 60000 | awk '{ printf "%08d %s\n", ($1 * 7919) % 100003, $1 }' >"$input"

check_program() {
	local name=$1 rc ok=0 i trace events got
	shift
	if ! command -v "$1" >/dev/null 2>&1; then
		tap_skip "$name: $1 is not installed"
		return
	fi
	rc=$(sc_launch_json "$SC_TMP/$name.json" -n 1 --seed 11 -- "$@")
	trace="$(json_get "$SC_TMP/$name.json" 'd["out_dir"]')/run-000001.sctrace"
	if [ "$rc" -ne 0 ] || [ ! -f "$trace" ]; then
		tap_not_ok "$name: run 1 passes and leaves a trace (exit $rc)"
		tap_diag_file "$SC_TMP/$name.json.err" 5
		return
	fi
	events=$(json_get "$SC_TMP/$name.json" 'd["events"]')
	for i in $(seq "$REPLAYS"); do
		rc=0
		sc replay "$trace" --json >"$SC_TMP/$name.r.json" \
			2>"$SC_TMP/$name.r.err" || rc=$?
		got="$(json_get "$SC_TMP/$name.r.json" '[d["verdict"], d["steps"], d["diverged_at"], d["matches_recording"]]')"
		if [ "$rc" -eq 0 ] && [ "$got" = "[\"pass\", $events, null, true]" ]; then
			ok=$((ok + 1))
		else
			tap_diag "$name: replay $i: exit $rc, verdict, steps, divergence: $got (recorded: $events steps)"
			tap_diag_file "$SC_TMP/$name.r.err" 3
		fi
	done
	tap_diag "$name: $events events, replayed $ok/$REPLAYS"
	tap_is "$ok" "$REPLAYS" "$name: run 1 replays $REPLAYS/$REPLAYS"
}

check_program pigz pigz -p 2 -c "$input"
check_program xz xz -T2 -1 -c "$input"
check_program sort sort --parallel=2 -S 64K "$input"

# same_seed NAME ARGS...: two launches of 5 runs with the same seed give
# the same events: pbzip2's compressing threads spend their slices in
# libbz2 and memset, where a probe used to take a memset called again with
# the same arguments for a spin, when timing let the slice expire there.
same_seed() {
	local name=$1 a b
	shift
	if ! command -v "$1" >/dev/null 2>&1; then
		tap_skip "$name: $1 is not installed"
		return
	fi
	sc_launch_json "$SC_TMP/$name.s1.json" -n 5 --seed 3 -- "$@" >/dev/null
	sc_launch_json "$SC_TMP/$name.s2.json" -n 5 --seed 3 -- "$@" >/dev/null
	a=$(json_get "$SC_TMP/$name.s1.json" 'd["events"]')
	b=$(json_get "$SC_TMP/$name.s2.json" 'd["events"]')
	tap_diag "$name: $a and $b events"
	tap_is "$([ -n "$a" ] && [ "$a" = "$b" ] && echo same)" same \
		"$name: the same seed twice gives the same events"
}

same_seed pbzip2 pbzip2 -p2 -1 -b1 -c "$input"
same_seed pigz-seed pigz -p 2 -c "$input"

# Two gcc compilers at once under a shell (what make -j2 does): cc1's
# hash table lookups repeat their registers while its tables change, so
# they were taken for spins, and every replay diverged ("should have
# been preempted at pc ... (a spin loop)").  Run 1 replays 3 times of 3.
cc1=$(gcc -print-prog-name=cc1 2>/dev/null)
if [ -x "$cc1" ]; then
	for f in a b; do
		awk -v f=$f 'BEGIN { for (i = 0; i < 300; i++)
			printf "int %s%d(int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i] * %d; return s; }\n", f, i, i }' \
			>"$SC_WORK/$f.c"
	done
	rc=$(sc_launch_json "$SC_TMP/cc1.json" -n 1 --seed 11 --granularity sync \
		--follow-forks -- /bin/sh -c "cd '$SC_WORK' && '$cc1' -quiet -O2 a.c -o a.s & cd '$SC_WORK' && '$cc1' -quiet -O2 b.c -o b.s; wait")
	trace="$(json_get "$SC_TMP/cc1.json" 'd["out_dir"]')/run-000001.sctrace"
	ok=0
	for i in 1 2 3; do
		r=0
		sc replay "$trace" --json >"$SC_TMP/cc1.r.json" 2>/dev/null || r=$?
		[ "$r" -eq 0 ] && ok=$((ok + 1))
	done
	tap_is "$rc $ok" "0 3" "two cc1 at once (make -j2's compiles): run 1 replays 3 times of 3"
else
	tap_skip "two cc1 at once" "gcc's cc1 not found"
fi

# A Python installed outside /usr (a venv with copies, pyenv): the
# interpreter is the runtime, not the program, wherever it lives; its
# memory accesses were instrumented (a correct script 31 s, not 0.4 s).
if python3 -m venv --copies --without-pip "$SC_WORK/venv" 2>/dev/null &&
   [ -x "$SC_WORK/venv/bin/python3" ]; then
	cat >"$SC_WORK/q.py" <<'PY'
import threading, queue
q = queue.Queue()
def work():
    while q.get() is not None:
        pass
ts = [threading.Thread(target=work) for _ in range(2)]
for t in ts: t.start()
for i in range(50): q.put(i)
for t in ts: q.put(None)
for t in ts: t.join()
PY
	rc=$(sc_launch_json "$SC_TMP/venv.json" -n 1 --seed 11 --keep-traces all \
		--out "$SC_TMP/venv" -- "$SC_WORK/venv/bin/python3" "$SC_WORK/q.py")
	mem=$(sc export "$SC_TMP/venv/run-000001.sctrace" --format json 2>/dev/null |
		grep -c '"kind":"\(read\|write\|rmw\)"')
	tap_is "$rc $mem" "0 0" "a venv's copied python3: its memory accesses are not instrumented (run 1, a pilot run)"
else
	tap_skip "a venv's copied python3" "python3 -m venv --copies failed"
fi

# Python's threading.Timer sets an event after 10 ms while the main
# thread waits up to 30 s for it: two timed waits, and the 30 s one must
# not time out first (QA: 8-17 of 20 runs failed their assert).
cat >"$SC_WORK/timer_wait.py" <<'PY'
import threading
ev = threading.Event()
threading.Timer(0.01, ev.set).start()
assert ev.wait(30), "Event.wait(30) timed out before the 10 ms Timer fired"
PY
rc=$(sc_launch_json "$SC_TMP/timer.json" -n 10 --seed 1 --keep-going -- \
	python3 "$SC_WORK/timer_wait.py")
tap_is "$rc/$(json_get "$SC_TMP/timer.json" 'd["failing_runs"]')" 0/0 \
	"python3 threading.Timer(0.01) against Event.wait(30): no false failure in 10 runs"

# A JVM reads the perf data files other JVMs left in /tmp/hsperfdata_$USER
# at its start, so runs of one seed and replays differ: launch says so
# once, unless -XX:-UsePerfData is given.  Told by the executable's name
# (no JVM in CI: a copy of a target named java stands in for it).
mkdir -p "$SC_WORK/jvm"
cp "$(sc_target check_then_act)" "$SC_WORK/jvm/java"
sc launch -n 2 --seed 1 -- "$SC_WORK/jvm/java" >/dev/null 2>"$SC_TMP/jvm.err"
sc launch -n 2 --seed 1 -- "$SC_WORK/jvm/java" -XX:-UsePerfData \
	>/dev/null 2>"$SC_TMP/jvm_off.err"
tap_is "$(grep -c 'run java with -XX:-UsePerfData' "$SC_TMP/jvm.err")/$(grep -c 'hsperfdata' "$SC_TMP/jvm_off.err")" \
	"1/0" "java: one notice about /tmp/hsperfdata, none with -XX:-UsePerfData"

sc_check_no_leftovers
tap_done
