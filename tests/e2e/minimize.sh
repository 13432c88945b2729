#!/bin/bash
# minimize.sh: `schedctl minimize TRACE` shrinks a failing run to its
# fewest preemptions and names the racing pair.  For the failing traces of
# check_then_act and order_violation (sync granularity) and of
# racy_counter (a lost update) and torn_pair (SCTBench's reorder pattern:
# two plain stores a checker reads between) and counted_then_order (an
# order violation after lock-ordered conflicts) at mem granularity:
#  - minimize exits 0 and its JSON says the result has no more preemptions
#    than the recorded schedule (and at least one: none of these fails
#    without);
#  - the racing pair is the two statements the target's comment names
#    (file:line, function and variable);
#  - the minimised trace replays, and fails, 10 times out of 10.
# A Rust lost update names the program's closure, not std's code.
# And bad input: a passing trace (exit 2), a missing file (exit 3), no
# trace (exit 2), each with a one-line error.
set -u
SRC=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# first_trace NAME GRAN: the trace of the first bug of NAME found by the
# default strategy at granularity GRAN.
first_trace() {
	local json=$SC_TMP/$1.launch.json
	sc launch --json -n 300 --seed 1 --granularity "$2" \
		-- "$(sc_target "$1")" </dev/null >"$json" 2>/dev/null
	json_get "$json" 'd["bugs"][0]["trace"]'
}

# check NAME GRAN SECOND FIRST OBJECT: minimize NAME's failing trace; the
# pair's later event is at SECOND, the earlier at FIRST (file:line
# regexes), both on OBJECT.
check() {
	local name=$1 gran=$2 second=$3 first=$4 object=$5 trace json out rc=0
	trace=$(first_trace "$name" "$gran")
	if [ -z "$trace" ] || [ ! -f "$trace" ]; then
		tap_not_ok "$name ($gran): a failing run to minimize (none found)"
		return
	fi
	json=$SC_TMP/$name.min.json
	out=$SC_TMP/$name.min.sctrace
	sc minimize --json -o "$out" "$trace" >"$json" 2>"$json.err" || rc=$?
	tap_is "$rc" 0 "$name ($gran): minimize exits 0"
	[ "$rc" -eq 0 ] || tap_diag_file "$json.err" 5
	local before after
	before=$(json_get "$json" 'd["preemptions_before"]')
	after=$(json_get "$json" 'd["preemptions"]')
	tap_diag "$name ($gran): $before preemptions -> $after in $(json_get "$json" 'd["runs"]') runs"
	tap_is "$([ -n "$after" ] && [ "$after" -ge 1 ] &&
		  [ "$after" -le "$before" ] && echo yes)" yes \
		"$name ($gran): the result has 1 to $before preemptions (the recorded schedule's)"
	local pair
	pair="$(json_get "$json" 'd["racing_pair"]["second"]["location"]') $(json_get "$json" 'd["racing_pair"]["first"]["location"]') $(json_get "$json" 'd["racing_pair"]["second"]["object_name"]') $(json_get "$json" 'd["racing_pair"]["first"]["object_name"]')"
	if [[ $pair =~ ^$second\ $first\ $object\ $object$ ]]; then
		tap_ok "$name ($gran): the racing pair is $second after $first on $object"
	else
		tap_not_ok "$name ($gran): the racing pair is $second after $first on $object (got: $pair)"
	fi
	local i good=0 rrc
	for i in $(seq 10); do
		rrc=0
		sc replay --json "$out" >"$SC_TMP/r.json" 2>"$SC_TMP/r.err" || rrc=$?
		if [ "$rrc" -eq 1 ] &&
		   [ "$(json_get "$SC_TMP/r.json" 'd["reproduced"]')" = true ]; then
			good=$((good + 1))
		else
			tap_diag "replay $i: exit $rrc: $(tail -1 "$SC_TMP/r.err")"
		fi
	done
	tap_is "$good" 10 "$name ($gran): the minimised trace replays and fails 10 times out of 10"
}

check check_then_act sync 'check_then_act\.c:27' 'check_then_act\.c:23' account_lock
# --max-runs is every run of the program: naming the pair took up to a
# dozen more (QA: --max-runs 20 made 25 runs).
trace=$(json_get "$SC_TMP/check_then_act.launch.json" 'd["bugs"][0]["trace"]')
rc=0
sc minimize --json --max-runs 5 "$trace" >"$SC_TMP/max.json" 2>/dev/null || rc=$?
tap_is "$rc $(json_get "$SC_TMP/max.json" 'd["runs"] <= 5')" "0 true" \
	"--max-runs 5: at most 5 runs in all ($(json_get "$SC_TMP/max.json" 'd["runs"]'))"

check order_violation sync 'order_violation\.c:62' 'order_violation\.c:46' config_lock
# A deadlock: the pair is the lock taken in the other order, not the
# start of a thread that the last preemption also decided.
check abba_deadlock sync 'abba_deadlock\.c:(22|33)' 'abba_deadlock\.c:(21|32)' 'lock_(a|b)'
check racy_counter mem 'racy_counter\.c:22' 'racy_counter\.c:22' counter
check torn_pair mem 'torn_pair\.c:(24|32)' 'torn_pair\.c:(24|32)' '(first|second)'
# At mem granularity the accesses under count_lock conflict too: the pair
# is the unprotected config, not the lock-ordered counter.
check counted_then_order mem 'counted_then_order\.c:(29|44)' 'counted_then_order\.c:(29|44)' config

# Rust: the pair is the program's lines, not the standard library's
# (AtomicUsize's load and store are inlined from it), nor the Arc
# reference counts that the schedule also reordered: one thread's store
# (line 18) after the other's load (line 17), as for C++ below.  (Before
# mem_sites 6 the load was no event, and the pair was the two stores.)
# Debian's /usr/bin/rustc.
RUSTC=/usr/bin/rustc
if [ -x "$RUSTC" ]; then
	bin=$SC_BIN/rust_lost_update
	if "$RUSTC" -O -g -o "$bin" "$SRC/tests/targets/rust_lost_update.rs" \
		2>"$SC_TMP/rustc.err"; then
		json=$SC_TMP/rust.launch.json
		sc launch --json -n 300 --seed 1 -- "$bin" </dev/null >"$json" 2>/dev/null
		# assert_eq!'s message spans three lines of stderr.
		tap_is "$(json_get "$json" 'd["bugs"][0]["message"] + " at " + d["bugs"][0]["location"]')" \
			"panicked: assertion failed: \`(left == right)\` left: \`1\`, right: \`2\`: lost update (thread 'main') at $SRC/tests/targets/rust_lost_update.rs:24:5" \
			"rust_lost_update: the bug is assert_eq!'s panic, its message over three lines"
		trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
		rc=0
		sc minimize --json "$trace" >"$SC_TMP/rust.min.json" \
			2>"$SC_TMP/rust.min.err" || rc=$?
		tap_is "$rc $(json_get "$SC_TMP/rust.min.json" '" / ".join(d["racing_pair"][s]["location"] + " in " + d["racing_pair"][s]["function"] for s in ("second", "first"))')" \
			"0 rust_lost_update.rs:18 in rust_lost_update::main::{{closure}} / rust_lost_update.rs:17 in rust_lost_update::main::{{closure}}" \
			"rust_lost_update: the racing pair is a store after the other thread's load, in the program's closure"
	else
		tap_not_ok "rust_lost_update.rs builds with $RUSTC"
		tap_not_ok "rust_lost_update: the racing pair (not built)"
		tap_diag_file "$SC_TMP/rustc.err" 5
	fi
else
	tap_skip "rust_lost_update: the panic's message" "$RUSTC not installed (Debian package rustc)"
	tap_skip "rust_lost_update: the racing pair" "$RUSTC not installed (Debian package rustc)"
fi

# std::atomic's load and store, inlined from <bits/atomic_base.h> into a
# lambda that GCC describes inside its enclosing function's DWARF entry
# (-O0, as tests are built): the pair was named "atomic_base.h:464 in
# racy_count(int)::{lambda()#1}", the header's line, as the lambda's code
# was never found among the enclosing function's children.
bin=$SC_BIN/cxx_atomic_lost_update
if g++ -std=c++17 -O0 -g -pthread -o "$bin" \
	"$SRC/tests/targets/cxx_atomic_lost_update.cc" 2>"$SC_TMP/gxx.err"; then
	json=$SC_TMP/calu.launch.json
	sc launch --json -n 300 --seed 1 -- "$bin" </dev/null >"$json" 2>/dev/null
	trace=$(json_get "$json" 'd["bugs"][0]["trace"]')
	rc=0
	sc minimize --json "$trace" >"$SC_TMP/calu.min.json" \
		2>"$SC_TMP/calu.min.err" || rc=$?
	tap_is "$rc $(json_get "$SC_TMP/calu.min.json" '" / ".join(sorted(d["racing_pair"][s]["location"] for s in ("first", "second")))')" \
		"0 cxx_atomic_lost_update.cc:16 / cxx_atomic_lost_update.cc:17" \
		"cxx_atomic_lost_update: the racing pair is the lambda's load and store lines, not <atomic>'s"
else
	tap_not_ok "cxx_atomic_lost_update: the racing pair (g++ failed)"
	tap_diag_file "$SC_TMP/gxx.err" 5
fi

# Bad input.
json=$SC_TMP/pass.json
sc launch --json -n 1 --seed 1 -- "$(sc_target racy_counter)" 1 \
	</dev/null >"$json" 2>/dev/null
pass_trace=$(ls "$(json_get "$json" 'd["out_dir"]')"/run-*.sctrace 2>/dev/null | head -1)
rc=0
sc minimize "$pass_trace" >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err")" "2 1" \
	"a passing trace: exit 2 and one line of error"
grep -q "did not fail" "$SC_TMP/err" || tap_diag_file "$SC_TMP/err" 3
rc=0
sc minimize "$SC_TMP/no-such.sctrace" >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err")" "3 1" \
	"a missing trace: exit 3 and one line of error"
rc=0
sc minimize >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 2 "no trace: exit 2"
# A failing trace cut inside its last record, the footer (a supervisor
# killed at the end of the run): no verdict to reproduce, said in one
# line; and a few bytes of one: the header is cut, said once (the file's
# name not twice).
full=$(json_get "$SC_TMP/check_then_act.launch.json" 'd["bugs"][0]["trace"]')
head -c "$(($(stat -c %s "$full") - 10))" "$full" >"$SC_TMP/cut.sctrace"
rc=0
sc minimize "$SC_TMP/cut.sctrace" >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err") $(grep -c "has no verdict (truncated" "$SC_TMP/err")" \
	"2 1 1" "a failing trace cut in its footer: exit 2 and one line saying it is truncated"
tap_diag_file "$SC_TMP/err" 1
head -c 100 "$full" >"$SC_TMP/head.sctrace"
rc=0
sc minimize "$SC_TMP/head.sctrace" >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err") $(grep -o "head.sctrace" "$SC_TMP/err" | wc -l) $(grep -c "a truncated trace" "$SC_TMP/err")" \
	"3 1 1 1" "100 bytes of a trace: exit 3, one line naming the file once, truncated"

sc_check_no_leftovers
tap_done
