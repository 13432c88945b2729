#!/bin/bash
# output_hygiene.sh: what the CLI prints where.
#   - `schedctl replay TRACE > out`: out holds exactly the program's own
#     output; the result line goes to stderr;
#   - with --json an error prints {"error", "exit_status"} on stdout and
#     its one line on stderr;
#   - export --format json writes the 64-bit seeds as decimal strings;
#   - counts agree with their nouns ("1 run", "2 runs");
#   - C++ names are demangled (mu, worker(), not _ZL2mu, _ZL6workerv) in
#     the deadlock report, in analyze's races and in every export;
#   - an "exit" bug shows the last lines of the program's stderr (human
#     report and --json), and replay passes the program's stderr through.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

bb=$(sc_target bounded_buffer)

# --- one run: singular nouns --------------------------------------------
rc=0
sc launch -s random -n 1 --seed 0xfedcba9876543210 --keep-traces all \
	--out "$SC_TMP/one" -- "$bb" >"$SC_TMP/one.out" 2>"$SC_TMP/one.err" || rc=$?
tap_is "$rc" 0 "launch -n 1 of a correct program: exit 0"
tap_check "the first line says '1 run of', not '1 runs'" \
	grep -q ": 1 run of " "$SC_TMP/one.out"
tap_check "the summary says '1 run, 0 failing'" \
	grep -q "^1 run, 0 failing" "$SC_TMP/one.out"
tap_check "no '1 runs' anywhere" bash -c "! grep -q '\\b1 runs\\b' '$SC_TMP/one.out' '$SC_TMP/one.err'"
sc analyze "$SC_TMP/one" >"$SC_TMP/an.out" 2>&1
tap_check "analyze of one run says '1 run,'" grep -q "^1 run, " "$SC_TMP/an.out"
trace=$(find "$SC_TMP/one" -name 'run-000001.sctrace' | head -n1)

# --- replay: stdout is the program's output only ------------------------
native=$SC_TMP/native.out
"$bb" >"$native" 2>/dev/null
rc=0
sc replay "$trace" >"$SC_TMP/replay.out" 2>"$SC_TMP/replay.err" || rc=$?
tap_is "$rc" 0 "replay of a passing run: exit 0"
tap_check "replay's stdout is exactly the program's output" \
	cmp -s "$native" "$SC_TMP/replay.out"
tap_check "replay's result line is on stderr" \
	grep -q "^replay: pass" "$SC_TMP/replay.err"

# --- --json errors ---------------------------------------------------------
rc=0
sc replay --json "$SC_TMP/no-such.sctrace" >"$SC_TMP/je.json" 2>"$SC_TMP/je.err" || rc=$?
tap_is "$rc" 3 "replay --json of a missing trace: exit 3"
tap_is "$(json_get "$SC_TMP/je.json" 'd["exit_status"]')" 3 \
	"it prints a JSON error object with exit_status 3"
tap_check "whose error names the file" \
	grep -q "no-such.sctrace" "$SC_TMP/je.json"
tap_is "$(count_lines "$SC_TMP/je.err")" 1 "and one error line on stderr"
rc=0
sc launch --json --no-such-option -- "$bb" >"$SC_TMP/ue.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/ue.json" 'd["exit_status"]')" "2/2" \
	"launch --json with a bad option: exit 2 and a JSON error object"
rc=0
sc analyze --json "$SC_TMP/no-such-dir" >"$SC_TMP/ae.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/ae.json" 'd["exit_status"]')" "3/3" \
	"analyze --json of a missing directory: exit 3 and a JSON error object"

# --- export: seeds as strings ------------------------------------------------
sc export "$trace" --format json -o "$SC_TMP/e.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/e.json" 'type(d["header"]["base_seed"]).__name__ + " " + d["header"]["base_seed"]')" \
	"str $(python3 -c 'print(0xfedcba9876543210)')" \
	"export --format json: base_seed is a string with all 64 bits"
tap_is "$(json_get "$SC_TMP/e.json" 'type(d["header"]["seed"]).__name__')" str \
	"export --format json: seed is a string"

# --- C++ names, demangled -----------------------------------------------------
# cxx_abba: file-static std::mutex mu, other_mu and functions worker(),
# other(); seed 1 deadlocks in some of its 10 runs at mem granularity.
cxx=$(sc_target cxx_abba)
rc=0
sc launch -n 10 --seed 1 --granularity mem --keep-going --keep-traces all \
	--out "$SC_TMP/cxx" -- "$cxx" >"$SC_TMP/cxx.out" 2>"$SC_TMP/cxx.err" || rc=$?
tap_is "$rc" 1 "cxx_abba: launch finds the deadlock (exit 1)"
tap_check "the deadlock report names the mutexes mu and other_mu" \
	grep -q "waits for mutex other_mu (0x.*waits for mutex mu (0x" "$SC_TMP/cxx.out"
tap_check "and locates them in worker() and other()" \
	grep -q "called from worker() .*called from other() " "$SC_TMP/cxx.out"
tap_check "no mangled name in launch's output" \
	bash -c "! grep -q '_Z' '$SC_TMP/cxx.out' '$SC_TMP/cxx.err'"
sc analyze --json "$SC_TMP/cxx" >"$SC_TMP/cxx.an.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/cxx.an.json" 'sorted({r["first_function"] for r in d["races"]} | {r["second_function"] for r in d["races"]})')" \
	'["other()", "worker()"]' "analyze --json: the racing functions are worker() and other()"
sc analyze "$SC_TMP/cxx" >"$SC_TMP/cxx.an.out" 2>&1
tap_check "analyze's report shows (worker())" grep -q "(worker())" "$SC_TMP/cxx.an.out"
dl=$(grep -o '/[^ ]*run-[0-9]*\.sctrace' "$SC_TMP/cxx.out" | head -n1)
for f in json chrome dot; do
	sc export "$dl" --format $f -o "$SC_TMP/cxx.$f" 2>/dev/null
	tap_check "export --format $f of the deadlock: 'mu' and no mangled name" \
		bash -c "grep -qw mu '$SC_TMP/cxx.$f' && ! grep -q '_Z' '$SC_TMP/cxx.$f'"
done

# --- exit verdicts: the program's last words ---------------------------------
# exit_status prints "exit_status: lost update, counter=1" on stderr and
# exits 3 when the lost update happens (run 4 of seed 1).
ex=$(sc_target exit_status)
rc=0
sc launch -n 10 --seed 1 --out "$SC_TMP/ex" -- "$ex" >"$SC_TMP/ex.out" 2>/dev/null || rc=$?
tap_is "$rc" 1 "exit_status: launch finds the exit bug (exit 1)"
tap_check "the bug block has the stderr heading with the .err file" \
	grep -q "^  stderr (last lines of .*/run-[0-9]*\.err):\$" "$SC_TMP/ex.out"
tap_is "$(grep -A1 "^  stderr (last lines" "$SC_TMP/ex.out" | sed -n 2p)" \
	"    exit_status: lost update, counter=1" "followed by the program's last stderr line, indented"
# `results` of the session: the same block, stderr included.
ex_session=$(sed -n "s/^schedctl: session \([^:]*\):.*/\1/p" "$SC_TMP/ex.out" | head -n1)
sc results "$ex_session" >"$SC_TMP/exres.out" 2>/dev/null
tap_is "$(grep -A1 "^  stderr (last lines of .*/run-[0-9]*\.err):\$" "$SC_TMP/exres.out" | sed -n 2p)" \
	"    exit_status: lost update, counter=1" "results: the exit block shows the program's last stderr line too"
rc=0
sc launch --json -n 10 --seed 1 --out "$SC_TMP/exj" -- "$ex" >"$SC_TMP/ex.json" 2>/dev/null || rc=$?
tap_is "$(json_get "$SC_TMP/ex.json" 'd["bugs"][0]["kind"] + "|" + d["bugs"][0]["stderr_tail"].strip()')" \
	"exit|exit_status: lost update, counter=1" "launch --json: bugs[].stderr_tail"
tap_check "launch --json: bugs[].stderr_path is the kept .err file" \
	test -f "$(json_get "$SC_TMP/ex.json" 'd["bugs"][0]["stderr_path"]')"
extrace=$(json_get "$SC_TMP/ex.json" 'd["bugs"][0]["trace"]')
rc=0
sc replay "$extrace" >"$SC_TMP/exr.out" 2>"$SC_TMP/exr.err" || rc=$?
tap_check "replay: the program's stderr reaches the user's stderr" \
	grep -qx "exit_status: lost update, counter=1" "$SC_TMP/exr.err"
# (the result line may be followed by its stack: compare line numbers)
prog_line=$(grep -nx "exit_status: lost update, counter=1" "$SC_TMP/exr.err" | head -n1 | cut -d: -f1)
result_line=$(grep -n "^replay: exit reproduced" "$SC_TMP/exr.err" | head -n1 | cut -d: -f1)
tap_check "before the result line (lines ${prog_line:-?} and ${result_line:-?})" \
	test "${prog_line:-0}" -gt 0 -a "${result_line:-0}" -gt "${prog_line:-0}"

# Where the exit was decided: the line that called exit(3); when main
# returns the status instead, libc's start code calls exit and the only
# frame of the program left is its entry point ("_start+0x20" before):
# main is named, and the message says main returned it.
# (find_bugs.sh checks exit(3)'s line.)  main's line is its opening
# brace's, where its code starts.
main_line=$(($(grep -n '^int main(' "${top_srcdir:-$(dirname "$0")/../..}/tests/targets/exit_status.c" | cut -d: -f1) + 1))
rc=0
sc launch --json -n 10 --seed 1 -- "$ex" return >"$SC_TMP/exret.json" 2>/dev/null || rc=$?
tap_is "$rc|$(json_get "$SC_TMP/exret.json" 'd["bugs"][0]["message"] + "|" + d["bugs"][0]["location"]')" \
	"1|exited with status 3 (returned by main)|main at exit_status.c:$main_line (exit_status)" \
	"main's return 3: the message says so, the location is main"

# A program that said why on stdout only (GoogleTest prints its failures
# there): the exit report shows stdout's last lines.
sc launch -n 1 -- /bin/sh -c 'echo "gt.cpp:7: Failure"; exit 1' \
	>"$SC_TMP/gt.out" 2>/dev/null
tap_is "$(grep -A1 "^  stdout (last lines of .*/run-[0-9]*\.out):\$" "$SC_TMP/gt.out" | sed -n 2p)" \
	"    gt.cpp:7: Failure" "an exit with nothing on stderr shows stdout's last lines"
# An abort that is no assert() (std::terminate): its reason is on stderr.
sc launch -n 1 -- /bin/sh -c 'echo "terminate called after throwing" >&2; kill -ABRT $$' \
	>"$SC_TMP/term.out" 2>/dev/null
tap_is "$(grep -A1 "^  stderr (last lines" "$SC_TMP/term.out" | sed -n 2p)" \
	"    terminate called after throwing" "an abort without an assertion message shows stderr's last lines"

# An argument holding a newline: one row in `schedctl list`, the
# newline written as \n.
sc launch -n 1 -- /bin/echo "two words" $'new\nline' >/dev/null 2>&1
tap_is "$(sc list 2>/dev/null | grep -c 'new\\nline')/$(sc list 2>/dev/null | grep -c "^line")" \
	"1/0" "a newline in an argument stays in one row of schedctl list, as \\n"

sc_check_no_leftovers
tap_done
