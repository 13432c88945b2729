#!/bin/bash
# stdin.sh: the program reads the launch's standard input (a file, a
# pipe, or --stdin FILE); every run, in any job, reads all of it from
# the start, and a replay feeds it the same bytes again, even once the
# user's file has changed.  /dev/null stays /dev/null.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# Small inputs: 3000 shuffled numbers (the same every time) and a gzip.
awk 'BEGIN { x = 7; for (i = 0; i < 3000; i++) { x = (x * 1103515245 + 12345) % 2147483648; print x } }' \
	>"$SC_TMP/in.txt"
LC_ALL=C sort "$SC_TMP/in.txt" >"$SC_TMP/sorted.txt"
gzip -c "$SC_TMP/in.txt" >"$SC_TMP/in.gz"
command -v pigz >/dev/null || tap_bail "pigz is needed (tests/lib/debian-packages)"

# same_outputs DIR N WANT: runs 1..N of the session in DIR all wrote WANT.
same_outputs() {
	local r n=0
	for r in $(seq 1 "$2"); do
		cmp -s "$(sc_run_output "$1" "$r")" "$3" && n=$((n + 1))
	done
	echo "$n/$2"
}

rc=0
LC_ALL=C sc launch --json -n 3 --seed 1 --keep-traces all --out "$SC_TMP/sort" \
	-- sort <"$SC_TMP/in.txt" >"$SC_TMP/sort.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(same_outputs "$SC_TMP/sort" 3 "$SC_TMP/sorted.txt")" "0 3/3" \
	"sort < file: every run's output is byte-identical to native sort"
[ "$rc" -eq 0 ] || tap_diag_file "$SC_TMP/err" 3

rc=0
sc launch --json -n 2 --seed 1 --out "$SC_TMP/pigz" -- pigz -d -c \
	<"$SC_TMP/in.gz" >"$SC_TMP/pigz.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(same_outputs "$SC_TMP/pigz" 1 "$SC_TMP/in.txt")" "0 1/1" \
	"pigz -d -c < file.gz decompresses it"

rc=0
cat "$SC_TMP/in.txt" | LC_ALL=C sc launch --json -n 2 --seed 1 \
	--keep-traces all --out "$SC_TMP/pipe" -- sort \
	>"$SC_TMP/pipe.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(same_outputs "$SC_TMP/pipe" 2 "$SC_TMP/sorted.txt")" "0 2/2" \
	"input from a pipe reaches every run"

rc=0
sc launch --json -n 2 --seed 1 --keep-traces all --out "$SC_TMP/opt" \
	--stdin "$SC_TMP/in.gz" -- pigz -d -c >"$SC_TMP/opt.json" \
	2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(same_outputs "$SC_TMP/opt" 2 "$SC_TMP/in.txt")" "0 2/2" \
	"--stdin FILE is the program's input"

rc=0
LC_ALL=C sc launch --json -n 4 --jobs 2 --seed 1 --keep-traces all \
	--out "$SC_TMP/jobs" -- sort <"$SC_TMP/in.txt" >"$SC_TMP/jobs.json" \
	2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(same_outputs "$SC_TMP/jobs" 4 "$SC_TMP/sorted.txt")" "0 4/4" \
	"--jobs 2: every run reads the whole input"

# A bug that needs the input: the shell execs check_then_act only when
# it reads "go".  Its replay, once the user's file says something else,
# must still read "go" and reproduce the assertion.
cta=$(sc_target check_then_act)
echo go >"$SC_TMP/go.txt"
rc=0
sc launch --json -n 200 --seed 1 --out "$SC_TMP/go" -- /bin/sh -c \
	"read x && [ \"\$x\" = go ] && exec $cta" <"$SC_TMP/go.txt" \
	>"$SC_TMP/go.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(json_get "$SC_TMP/go.json" 'd["bugs"][0]["kind"]')" "1 assert" \
	"a bug behind the input is found"
echo stop >"$SC_TMP/go.txt"
sc_check_replay "input-dependent bug" "$SC_TMP/go.json" assert

# The replay of a passing sort run prints the same sorted output.
trace=$(ls "$SC_TMP"/sort/run-000002.sctrace)
rc=0
sc replay "$trace" >"$SC_TMP/replayed.txt" 2>"$SC_TMP/err" || rc=$?
# (the replay's own verdict line follows the program's output)
grep -v '^replay: ' "$SC_TMP/replayed.txt" >"$SC_TMP/replayed.out"
tap_is "$rc $(cmp -s "$SC_TMP/replayed.out" "$SC_TMP/sorted.txt" && echo same)" \
	"0 same" "replay of a sort run reads the same input, prints the same output"
tap_check "the trace names the input" grep -qa stdin "$trace"
# Copied out of its session, the trace finds the input only beside it:
# without it, one line says so and what to copy; with it, it replays.
mkdir -p "$SC_TMP/copied"
cp "$trace" "$SC_TMP/copied/"
rc=0
sc replay "$SC_TMP/copied/$(basename "$trace")" >/dev/null 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err") $(grep -c "needs the session's 'stdin' file beside it" "$SC_TMP/err")" \
	"3 1 1" "a copied trace without its session's input: exit 3, one line saying what to copy"
cp "$(dirname "$trace")/stdin" "$SC_TMP/copied/"
rc=0
sc replay "$SC_TMP/copied/$(basename "$trace")" >"$SC_TMP/replayed2.txt" 2>/dev/null || rc=$?
grep -v '^replay: ' "$SC_TMP/replayed2.txt" >"$SC_TMP/replayed2.out"
tap_is "$rc $(cmp -s "$SC_TMP/replayed2.out" "$SC_TMP/sorted.txt" && echo same)" \
	"0 same" "with the input beside it, the copied trace replays the same output"

rc=0
sc launch --json -n 1 --seed 1 --out "$SC_TMP/null" -- sort </dev/null \
	>"$SC_TMP/null.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(wc -c <"$(sc_run_output "$SC_TMP/null" 1)") $([ -e "$SC_TMP/null/stdin" ] && echo copied)" \
	"0 0 " "< /dev/null: the program reads nothing, no input kept"

rc=0
sc launch -n 1 --stdin "$SC_TMP/no-such-file" -- sort >"$SC_TMP/out" \
	2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err")" "3 1" \
	"--stdin with a missing file: exit 3 and one line"

rc=0
sc launch -n 1 --stdin "$SC_TMP" -- sort >"$SC_TMP/out" \
	2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/err") $(grep -c 'is a directory' "$SC_TMP/err")" \
	"3 1 1" "--stdin with a directory: exit 3 and one line, as a missing file"

# A pipe whose writer keeps it open: the input is read whole first, and
# after two seconds the launch says that it waits for its end.
rc=0
{ sleep 4; echo late; } | sc launch --json -n 1 --seed 1 -- sort \
	>"$SC_TMP/late.json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(grep -c 'waiting for the end of standard input' "$SC_TMP/err")" \
	"0 1" "an open pipe as input: one line says its end is awaited"
rc=0
echo quick | sc launch --json -n 1 --seed 1 -- sort >"$SC_TMP/quick.json" \
	2>"$SC_TMP/err" || rc=$?
tap_is "$rc $(grep -c 'waiting for the end' "$SC_TMP/err")" "0 0" \
	"a pipe that ends at once: no such line"

# Ctrl-C while the input is still being read: the launch stops there,
# with no session started (it went on reading until the pipe's end, then
# started the session only to stop it).
fifo=$SC_TMP/slow.fifo
mkfifo "$fifo"
sleep 30 >"$fifo" &
writer=$!
SCHEDCTL_SOCKET=$SC_SOCKET SCHEDCTL_STATE_DIR=$SC_STATE SCHEDCTLD=$SCHEDCTLD \
	"$SCHEDCTL" launch -n 1 --seed 1 -- sort <"$fifo" >"$SC_TMP/slow.out" \
	2>"$SC_TMP/slow.err" &
cli=$!
for _ in $(seq 50); do
	grep -q "waiting for the end" "$SC_TMP/slow.err" && break
	sleep 0.1
done
kill -INT "$cli"
rc=0
wait "$cli" || rc=$?
kill "$writer" 2>/dev/null
tap_is "$rc/$(grep -c "^schedctl: session" "$SC_TMP/slow.out")/$(tail -n1 "$SC_TMP/slow.err")" \
	"130/0/schedctl: interrupted" "Ctrl-C while the input is read: 130, no session started"

sc_check_no_leftovers
tap_done
