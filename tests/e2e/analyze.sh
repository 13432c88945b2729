#!/bin/bash
# analyze.sh: schedctl analyze and export on real sync-granularity traces.
#   - two sessions with the same seed give the same fingerprints (run 1 of
#     each: one partial order), analyze --json is one JSON object with the
#     documented keys, and the coverage CSV/SVG are written beside it;
#   - the session split in two directories (shards) analyses to exactly
#     the same JSON as the whole session;
#   - a truncated trace is analysed with a warning; a corrupt or foreign
#     file gets one error line and exit 3; no argument is a usage error;
#   - export --format chrome of a real failing run passes the trace-event
#     format checker (tests/check_chrome_trace.py) and marks the bug;
#     export --format dot is a digraph whose edges name declared nodes.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

SEED=777
# bounded_buffer: no spinning, so no time-slice preemptions that could
# make two sessions with one seed differ.
bb=$(sc_target bounded_buffer)
for s in 1 2; do
	rc=0
	sc launch --json -s random -n 12 --seed "$SEED" --keep-traces all \
		--out "$SC_TMP/s$s" -- "$bb" >"$SC_TMP/launch$s.json" \
		2>"$SC_TMP/launch$s.err" || rc=$?
	[ "$rc" -eq 0 ] || { tap_diag "launch $s exited $rc"; tap_diag_file "$SC_TMP/launch$s.err"; }
done
ntraces=$(find "$SC_TMP/s1" -name '*.sctrace' | wc -l)
tap_is "$ntraces" 12 "launch --keep-traces all kept 12 traces"

# --- analyze --json over one session ------------------------------------
rc=0
sc analyze --json "$SC_TMP/s1" >"$SC_TMP/a1.json" 2>"$SC_TMP/a1.err" || rc=$?
tap_is "$rc" 0 "analyze SESSION-DIR --json: exit 0"
tap_check "analyze --json prints one JSON object" is_json "$SC_TMP/a1.json"
tap_diag_file "$SC_TMP/a1.err" 5
keys=$(json_get "$SC_TMP/a1.json" 'sorted(k for k in ["runs","events","distinct_partial_orders","estimated_unseen_partial_orders","verdicts","races","distinct_race_pairs"] if k in d)')
tap_is "$keys" '["distinct_partial_orders", "distinct_race_pairs", "estimated_unseen_partial_orders", "events", "races", "runs", "verdicts"]' \
	"analyze --json has the documented keys"
tap_is "$(json_get "$SC_TMP/a1.json" 'd["runs"]')" 12 "runs: 12"
tap_is "$(json_get "$SC_TMP/a1.json" 'd["verdicts"]["pass"]')" 12 "verdicts: 12 pass"
launch_events=$(json_get "$SC_TMP/launch1.json" 'd["events"]')
tap_is "$(json_get "$SC_TMP/a1.json" 'd["events"]')" "$launch_events" \
	"events: as many as launch reported"
tap_is "$(json_get "$SC_TMP/a1.json" '1 <= d["distinct_partial_orders"] <= 12')" true \
	"distinct partial orders between 1 and the number of runs"
tap_diag "bounded_buffer, 12 random runs: $(json_get "$SC_TMP/a1.json" 'd["distinct_partial_orders"]') distinct partial orders, estimated unseen $(json_get "$SC_TMP/a1.json" 'd["estimated_unseen_partial_orders"]')"
tap_is "$(json_get "$SC_TMP/a1.json" 'd["races"] == [] and d["distinct_race_pairs"] == 0')" true \
	"no races from sync traces (no memory events)"

# --- coverage files -------------------------------------------------------
csv=$SC_TMP/s1/coverage.csv
tap_is "$(head -n1 "$csv" 2>/dev/null)" "run,distinct_partial_orders,distinct_race_pairs" \
	"coverage.csv written beside the session, with its header"
tap_is "$(count_lines "$csv")" 13 "coverage.csv: one line per run"
tap_is "$(tail -n1 "$csv" | cut -d, -f2)" "$(json_get "$SC_TMP/a1.json" 'd["distinct_partial_orders"]')" \
	"coverage.csv ends at the distinct partial orders"
svg_ok() {
	python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
lines = root.findall(".//" + ns + "polyline")
sys.exit(0 if root.tag == ns + "svg" and len(lines) == 2 else 1)
PY
}
tap_check "coverage.svg is SVG with two polylines" svg_ok "$SC_TMP/s1/coverage.svg"
rm -f "$SC_TMP/s2/coverage.csv"
sc analyze --no-files "$SC_TMP/s2" >/dev/null 2>&1
tap_check "--no-files writes no coverage file" test ! -e "$SC_TMP/s2/coverage.csv"

# --- same seed, same fingerprints ---------------------------------------
# A session is a function of its seed, except where the engine depends on
# timing (a slow released syscall, a heavily loaded machine): compare the
# fingerprints of the runs whose events are the same in both sessions
# (preemptions and syscall returns aside, as in the fingerprint), which
# must be equal, and require that most runs are such pairs.
same_events() {
	python3 - "$1" "$2" <<'PY'
import json, sys
def evs(p):
    d = json.load(open(p))
    return [(e["thread"], e["kind"], e["access"], e["object"], e.get("woken"))
            for e in d["events"] if e["kind"] not in ("preempt", "syscall_return")]
sys.exit(0 if evs(sys.argv[1]) == evs(sys.argv[2]) else 1)
PY
}
pairs=0
bad=0
for f in "$SC_TMP"/s1/run-*.sctrace; do
	g=$SC_TMP/s2/${f##*/}
	sc export "$f" -o "$SC_TMP/e1.json" 2>/dev/null
	sc export "$g" -o "$SC_TMP/e2.json" 2>/dev/null
	same_events "$SC_TMP/e1.json" "$SC_TMP/e2.json" || continue
	pairs=$((pairs + 1))
	sc analyze --json --no-files "$f" "$g" >"$SC_TMP/same.json" 2>/dev/null
	[ "$(json_get "$SC_TMP/same.json" 'd["distinct_partial_orders"]')" = 1 ] ||
		{ bad=$((bad + 1)); tap_diag "${f##*/}: same events, different fingerprints"; }
done
tap_diag "same seed: $pairs of 12 runs have the same events in both sessions"
tap_is "$bad" 0 "the same seed twice: runs with the same events have the same fingerprint"
tap_is "$([ "$pairs" -ge 6 ] && echo yes)" yes "the same seed twice: most runs ($pairs of 12) have the same events"

# --- shards ----------------------------------------------------------------
mkdir -p "$SC_TMP/shard1" "$SC_TMP/shard2"
i=0
for f in "$SC_TMP"/s1/*.sctrace; do
	i=$((i + 1))
	cp "$f" "$SC_TMP/shard$((i % 2 + 1))/"
done
sc analyze --json --no-files "$SC_TMP/s1" >"$SC_TMP/whole.json" 2>/dev/null
sc analyze --json --no-files "$SC_TMP/shard2" "$SC_TMP/shard1" >"$SC_TMP/merged.json" 2>/dev/null
if cmp -s "$SC_TMP/whole.json" "$SC_TMP/merged.json"; then
	tap_ok "two shard directories analyse to the same JSON as the whole session"
else
	tap_not_ok "two shard directories analyse to the same JSON as the whole session"
	tap_diag "$(diff "$SC_TMP/whole.json" "$SC_TMP/merged.json" | head -5)"
fi

# minimize writes run-N.min.sctrace beside run N: a replay of that run,
# not another run of the session.
cp "$SC_TMP/shard1/$(ls "$SC_TMP/shard1" | head -n 1)" "$SC_TMP/shard1/run-000001.min.sctrace"
sc analyze --json --no-files "$SC_TMP/shard2" "$SC_TMP/shard1" >"$SC_TMP/merged2.json" 2>/dev/null
tap_check "a minimised trace in a session directory is not counted as a run" \
	cmp -s "$SC_TMP/merged.json" "$SC_TMP/merged2.json"

# --- damaged input -------------------------------------------------------
mkdir -p "$SC_TMP/cut"
src=$SC_TMP/s1/run-000003.sctrace
head -c $(( $(stat -c %s "$src") - 20 )) "$src" >"$SC_TMP/cut/run-000003.sctrace"
rc=0
sc analyze --json --no-files "$SC_TMP/cut" >"$SC_TMP/cut.json" 2>"$SC_TMP/cut.err" || rc=$?
tap_is "$rc" 0 "truncated trace: exit 0"
tap_check "truncated trace: a warning names it" grep -q 'warning: .*run-000003.sctrace is truncated' "$SC_TMP/cut.err"
tap_is "$(json_get "$SC_TMP/cut.json" 'd["runs"] == 1 and d["truncated_runs"] == 1 and d["verdicts"] == {"unknown": 1}')" true \
	"truncated trace: analysed up to its last whole record (verdict unknown)"

bad_one() {
	local desc=$1 rc=0
	shift
	sc analyze "$@" >"$SC_TMP/bad.out" 2>"$SC_TMP/bad.err" || rc=$?
	tap_is "$rc" 3 "$desc: exit 3"
	tap_is "$(count_lines "$SC_TMP/bad.err")" 1 "$desc: one line on stderr"
	tap_diag "stderr: $(cat "$SC_TMP/bad.err")"
}
mkdir -p "$SC_TMP/corrupt"
cp "$SC_TMP/s1/run-000001.sctrace" "$SC_TMP/corrupt/run-000001.sctrace"
# Flip bytes in the middle of the event records (after the header, which
# holds the environment and may be most of the file): a record that no
# longer unpacks.
python3 - "$SC_TMP/corrupt/run-000001.sctrace" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
pos, n, shift = 9, 0, 0
while True:
    c = b[pos]; pos += 1
    n |= (c & 0x7f) << shift; shift += 7
    if not c & 0x80:
        break
mid = (pos + n + len(b)) // 2
for i in range(mid, min(mid + 16, len(b))):
    b[i] = 0xff
open(p, "wb").write(bytes(b))
PY
bad_one "corrupt trace in a session" "$SC_TMP/corrupt"
bad_one "foreign file" /bin/true
printf 'hello' >"$SC_TMP/hello.sctrace"
bad_one "short text file" "$SC_TMP/hello.sctrace"
mkdir -p "$SC_TMP/empty"
bad_one "directory without traces" "$SC_TMP/empty"
rc=0
sc analyze >/dev/null 2>&1 || rc=$?
tap_is "$rc" 2 "analyze without arguments: usage error (2)"

# --- data races from real mem-granularity traces ---------------------------
# race_sites: RACE-A and RACE-B update counter without a lock (always
# unordered), LOCKED-A and LOCKED-B update total under a mutex.
sites=$(sc_target race_sites)
src=$top_srcdir/tests/targets/race_sites.c
line_of() { grep -n "/\* $1 \*/" "$src" | cut -d: -f1; }
rc=0
sc launch --json -s random --granularity mem -n 20 --seed 3 --keep-traces all \
	--out "$SC_TMP/mem" -- "$sites" >"$SC_TMP/mem.launch.json" 2>"$SC_TMP/mem.err" || rc=$?
tap_is "$rc" 0 "race_sites at mem granularity: 20 runs, no failing run"
sc analyze --json --no-files "$SC_TMP/mem" >"$SC_TMP/mem.json" 2>>"$SC_TMP/mem.err"
tap_diag_file "$SC_TMP/mem.err" 5
tap_is "$(json_get "$SC_TMP/mem.json" '[(r["first"], r["second"]) for r in d["races"]]')" \
	"[[\"race_sites.c:$(line_of RACE-A)\", \"race_sites.c:$(line_of RACE-B)\"]]" \
	"racy statements reported with the right file:line on both sides, and nothing else (the locked ones do not race)"
tap_is "$(json_get "$SC_TMP/mem.json" '(d["races"][0]["first_function"], d["races"][0]["second_function"], d["races"][0]["runs"], d["distinct_race_pairs"])')" \
	"('adder_a', 'adder_b', 20, 1)" "the pair names its functions and raced in all 20 runs"
sc analyze "$SC_TMP/mem" >"$SC_TMP/mem.txt" 2>/dev/null
tap_is "$(tail -n1 "$SC_TMP/mem/coverage.csv" | cut -d, -f1,3)" "20,1" \
	"coverage.csv counts the distinct race pairs"
tap_check "the text report names the racing pair" \
	grep -q "race_sites.c:$(line_of RACE-A) (adder_a) <-> race_sites.c:$(line_of RACE-B) (adder_b): .* in 20 runs" "$SC_TMP/mem.txt"

# A race inside libstdc++'s push_back, inlined into the program's function
# at -O2: named at the program's line, not at vector.tcc's.
vr=$(sc_target cxx_vector_race)
vr_line=$(grep -n "/\* PUSH \*/" "$top_srcdir/tests/targets/cxx_vector_race.cc" | cut -d: -f1)
rc=0
sc launch --json -s random --granularity mem -n 20 --seed 3 --keep-traces all \
	--out "$SC_TMP/vr" -- "$vr" >/dev/null 2>"$SC_TMP/vr.err" || rc=$?
sc analyze --json --no-files "$SC_TMP/vr" >"$SC_TMP/vr.json" 2>>"$SC_TMP/vr.err"
tap_diag_file "$SC_TMP/vr.err" 5
tap_is "$(json_get "$SC_TMP/vr.json" 'sorted(set("%s (%s) <-> %s (%s)" % (r["first"], r["first_function"], r["second"], r["second_function"]) for r in d["races"]))')" \
	"[\"cxx_vector_race.cc:$vr_line (producer(int)) <-> cxx_vector_race.cc:$vr_line (producer(int))\"]" \
	"cxx_vector_race: the race inside the inlined push_back is named at the program's line ($vr_line), not in a libstdc++ header"

# --- exports ---------------------------------------------------------------
abba=$(sc_target abba_deadlock)
rc=0
sc launch --json -s random -n 200 --seed 4242 -- "$abba" >"$SC_TMP/abba.json" 2>/dev/null || rc=$?
trace=$(json_get "$SC_TMP/abba.json" 'd["bugs"][0]["trace"]')
if [ "$rc" -eq 1 ] && [ -f "$trace" ]; then
	sc export --format chrome -o "$SC_TMP/bug.chrome.json" "$trace" 2>"$SC_TMP/exp.err"
	if python3 "$top_srcdir/tests/check_chrome_trace.py" "$SC_TMP/bug.chrome.json" >"$SC_TMP/check.out"; then
		tap_ok "chrome export of a deadlocking run follows the trace-event format"
		tap_diag "$(cat "$SC_TMP/check.out")"
	else
		tap_not_ok "chrome export of a deadlocking run follows the trace-event format"
		tap_diag_file "$SC_TMP/check.out"
	fi
	tap_is "$(json_get "$SC_TMP/bug.chrome.json" 'sum(1 for e in d["traceEvents"] if e.get("cat") == "bug" and e["ph"] == "X" and e["name"].startswith("BUG: "))')" 1 \
		"chrome export: the failing event is marked"
	sc export --format dot -o "$SC_TMP/bug.dot" "$trace" 2>>"$SC_TMP/exp.err"
	dot_ok() {
		python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
nodes = set(re.findall(r"^\s*(e\d+) \[label=", text, re.M))
edges = re.findall(r"^\s*(e\d+) -> (e\d+)", text, re.M)
ok = (text.startswith("digraph run {") and text.rstrip().endswith("}")
      and nodes and edges and all(a in nodes and b in nodes for a, b in edges)
      and text.count("{") == text.count("}"))
sys.exit(0 if ok else 1)
PY
	}
	tap_check "dot export: a digraph whose edges join declared events" dot_ok "$SC_TMP/bug.dot"
	if command -v dot >/dev/null; then
		tap_check "dot export: graphviz accepts it" dot -Tsvg -o /dev/null "$SC_TMP/bug.dot"
	fi
else
	tap_not_ok "abba_deadlock: a failing run to export (launch exited $rc)"
fi
sc export --format chrome -o "$SC_TMP/bb.chrome.json" "$SC_TMP/s1/run-000002.sctrace"
check_quiet() { python3 "$top_srcdir/tests/check_chrome_trace.py" "$1" >"$SC_TMP/check2.out"; }
tap_check "chrome export of a passing bounded_buffer run follows the trace-event format" \
	check_quiet "$SC_TMP/bb.chrome.json"
tap_diag_file "$SC_TMP/check2.out"

sc_check_no_leftovers
tap_done
