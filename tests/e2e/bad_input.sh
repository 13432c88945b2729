#!/bin/bash
# bad_input.sh: wrong input gets one clear line on stderr and the
# documented exit status, never a crash, a core file or a stray process:
#   launch: missing program, file not executable, executable but not ELF,
#           a program for another machine
#           -> 3; unknown option -> 2
#   replay: random bytes, a valid trace with a flipped magic, /dev/zero -> 3
#   export: too large for dot -> exit 3, an existing -o file untouched;
#   export: a trace cut in the middle -> a warning, exit 0 (a killed
#           supervisor leaves such a prefix and it must stay readable)
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

out=$SC_TMP/stdout
err=$SC_TMP/stderr

# expect WANT_STATUS DESCRIPTION -- SCHEDCTL-ARGS...: run the CLI and
# check its exit status, that stderr is exactly one line, that no core
# file appeared and that no target process is left.
expect() {
	local want=$1 desc=$2 rc=0 lines
	shift 3
	rm -f "$out" "$err" core core.*
	sc "$@" >"$out" 2>"$err" </dev/null || rc=$?
	tap_is "$rc" "$want" "$desc: exit status $want"
	lines=$(count_lines "$err")
	if [ "$lines" -eq 1 ]; then
		tap_ok "$desc: one line on stderr"
		tap_diag "stderr: $(cat "$err")"
	else
		tap_not_ok "$desc: one line on stderr (got $lines)"
		tap_diag_file "$err"
	fi
	if [ "$rc" -lt 128 ] && ! compgen -G 'core*' >/dev/null; then
		tap_ok "$desc: no crash, no core file"
	else
		tap_not_ok "$desc: no crash, no core file (exit $rc, $(echo core*))"
	fi
	sc_check_no_targets_left "$desc: no target process left"
}

# Files to feed it.
missing=$SC_BIN/no-such-program
not_exec=$SC_BIN/not-executable
cp "$(sc_target abba_deadlock)" "$not_exec" && chmod a-x "$not_exec"
not_elf=$SC_BIN/random-bytes
head -c 4096 /dev/urandom >"$not_elf" && chmod +x "$not_elf"
# An x86-64-class ELF for another machine (e_machine patched to aarch64,
# 183): refused up front, not at run 1 with exec's "Exec format error".
other_arch=$SC_BIN/aarch64-program
cp "$(sc_target abba_deadlock)" "$other_arch" &&
	printf '\267\000' | dd of="$other_arch" bs=1 seek=18 conv=notrunc 2>/dev/null
garbage=$SC_TMP/garbage.sctrace
head -c 4096 /dev/urandom >"$garbage"

expect 3 "launch a missing program" -- launch -n 1 -- "$missing"
expect 3 "launch a file that is not executable" -- launch -n 1 -- "$not_exec"
expect 3 "launch an executable that is not ELF" -- launch -n 1 -- "$not_elf"
expect 3 "launch a program for another machine" -- launch -n 1 -- "$other_arch"
expect 2 "launch an empty program name" -- launch -n 1 -- ""
expect 2 "launch with an unknown option" -- launch --no-such-option -n 1 -- "$(sc_target abba_deadlock)"
expect 2 "launch -j 0" -- launch -j 0 -n 1 -- "$(sc_target abba_deadlock)"
expect 2 "launch --slice-us 0" -- launch --slice-us 0 -n 1 -- "$(sc_target abba_deadlock)"
expect 2 "launch --instrument ''" -- launch --granularity mem --instrument "" -n 1 -- "$(sc_target abba_deadlock)"
expect 2 "launch --instrument-source ''" -- launch --granularity mem --instrument-source "" -n 1 -- "$(sc_target abba_deadlock)"
# An unknown short option after another option's argument is named, not
# that argument ("-s random -x" once said "unknown option 'random'").
expect 2 "launch -s random -j1 -x" -- launch -s random -j1 -x -n 1 -- "$(sc_target abba_deadlock)"
tap_check "the unknown short option is named" grep -q "unknown option '-x'" "$err"
expect 2 "launch --timeout below a millisecond" -- launch --timeout 0.0000001 -n 1 -- "$(sc_target abba_deadlock)"
expect 2 "attach to process 1 (init)" -- attach 1
expect 2 "attach -s native" -- attach -s native 1
# A process someone else traces (here its parent, by PTRACE_TRACEME), and
# one that has exited: said before any session is made (a session "done
# 0/1" was recorded for the first, its line printed before the error).
python3 -c '
import ctypes, os, sys, time
pid = os.fork()
if pid == 0:
    ctypes.CDLL(None).ptrace(0, 0, 0, 0)
    time.sleep(60)
    os._exit(0)
print(os.getpid(), pid, flush=True)
time.sleep(60)' >"$SC_TMP/traced.pid" &
for _ in $(seq 50); do [ -s "$SC_TMP/traced.pid" ] && break; sleep 0.1; done
read -r tracer_pid traced <"$SC_TMP/traced.pid"
sessions_before=$(sc list 2>/dev/null | wc -l)
expect 3 "attach to a process another tracer traces" -- attach "$traced"
tap_check "attach to a traced process: the error names its tracer" \
	grep -q "already traced by process $tracer_pid" "$err"
kill "$traced" "$tracer_pid" 2>/dev/null
gone=$(sh -c 'echo $$')
expect 3 "attach to a process that has exited" -- attach "$gone"
tap_is "$(sc list 2>/dev/null | wc -l)" "$sessions_before" \
	"failed attaches make no session"
rc=0
sc launch --json -s random -j1 -n 3 --seed 1 -- "$(sc_target c11_threads)" \
	>"$SC_TMP/j1.json" 2>/dev/null || rc=$?
sc status --json "$(json_get "$SC_TMP/j1.json" 'd["session"]')" \
	>"$SC_TMP/j1.status.json" 2>/dev/null
tap_is "$rc/$(json_get "$SC_TMP/j1.status.json" 'd["jobs"]')" 0/1 \
	"launch -j1 (short for --jobs 1) runs in one job"
expect 3 "replay random bytes" -- replay "$garbage"
# Files that never end: read up to the magic only (they grew without
# bound until the OOM killer came).
expect 3 "replay /dev/zero" -- replay /dev/zero
expect 3 "export /dev/zero" -- export /dev/zero
expect 3 "analyze /dev/urandom" -- analyze /dev/urandom

# A real trace to damage: the bug trace of a short session.
rc=0
sc launch --json -s random -n 200 --seed 1 -- "$(sc_target abba_deadlock)" \
	>"$SC_TMP/abba.json" 2>/dev/null || rc=$?
trace=$(json_get "$SC_TMP/abba.json" 'd["bugs"][0]["trace"]')
if [ -n "$trace" ] && [ -s "$trace" ]; then
	bad_magic=$SC_TMP/bad-magic.sctrace
	cp "$trace" "$bad_magic"
	# Flip every bit of the first byte of the magic ("S" of "SCTRACE").
	first=$(od -An -tu1 -N1 "$bad_magic" | tr -d ' ')
	printf '%b' "\\0$(printf '%03o' $((first ^ 255)))" |
		dd of="$bad_magic" bs=1 count=1 conv=notrunc 2>/dev/null
	expect 3 "replay a trace with a flipped magic" -- replay "$bad_magic"

	# Cut inside the last records, as a killed supervisor would: halfway
	# between the end of the header (it holds the environment, so it can
	# be half the file) and the end of the file.
	truncated=$SC_TMP/truncated.sctrace
	size=$(stat -c %s "$trace")
	header=$(python3 - "$trace" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
pos, n, shift = 9, 0, 0
while True:                      # the first record's varint length
    c = b[pos]; pos += 1
    n |= (c & 0x7f) << shift; shift += 7
    if not c & 0x80:
        break
print(pos + n)
PY
)
	head -c $(( (header + size) / 2 )) "$trace" >"$truncated"
	expect 0 "export a trace cut in the middle" -- export "$truncated" --format json
	if is_json "$out"; then
		tap_ok "export of a truncated trace prints valid JSON"
	else
		tap_not_ok "export of a truncated trace prints valid JSON"
	fi
else
	tap_diag "no bug trace from abba_deadlock (launch exit $rc): cannot damage one"
	for desc in "replay a trace with a flipped magic" "export a trace cut in the middle"; do
		for what in "exit status" "one line on stderr" "no crash, no core file" \
			"no target process left"; do
			tap_not_ok "$desc: $what (no trace)"
		done
	done
	tap_not_ok "export of a truncated trace prints valid JSON (no trace)"
fi

# A graph too large to draw: export refuses (exit 3, one line) and an
# existing output file is left as it was (it was emptied).  At mem
# granularity memory_progress makes two events per call: 1200 calls,
# over 1500 events.
rc=0
sc launch -n 1 -s random --granularity mem --keep-traces all \
	--out "$SC_TMP/big" -- "$(sc_target memory_progress)" 1200 \
	>/dev/null 2>"$SC_TMP/big.err" || rc=$?
echo "an earlier drawing" >"$SC_TMP/keep.dot"
rc=0
sc export "$SC_TMP/big/run-000001.sctrace" --format dot -o "$SC_TMP/keep.dot" \
	2>"$SC_TMP/dot.err" || rc=$?
tap_is "$rc $(count_lines "$SC_TMP/dot.err") $(cat "$SC_TMP/keep.dot") $(ls "$SC_TMP" | grep -c '^keep\.dot\.')" \
	"3 1 an earlier drawing 0" \
	"export --format dot of too large a trace: exit 3, one line, the existing -o file untouched, no temporary left"
sc export "$SC_TMP/big/run-000001.sctrace" --format json -o "$SC_TMP/keep.dot" \
	2>/dev/null
tap_is "$(is_json "$SC_TMP/keep.dot" && echo json)" json \
	"export -o over an existing file replaces it once complete"

# A --out directory holds one session: a second launch into it is
# refused, and the first session's traces stay (QA: the second replaced
# run-000001 of the first, and its results named a trace of another
# program).
reuse=$SC_TMP/reuse
sc launch -n 3 --seed 1 --keep-traces all --out "$reuse" -- "$(sc_target abba_deadlock)" >/dev/null 2>&1
before=$(cksum "$reuse"/run-000001.sctrace)
rc=0
sc launch -n 3 --seed 2 --keep-traces all --out "$reuse" -- "$(sc_target check_then_act)" \
	>/dev/null 2>"$SC_TMP/reuse.err" || rc=$?
tap_is "$rc/$(wc -l <"$SC_TMP/reuse.err")" 3/1 "a second launch into a used --out directory: exit 3, one line"
tap_check "it says the directory holds another session's runs" \
	grep -q "holds the runs of session .* already" "$SC_TMP/reuse.err"
tap_is "$(cksum "$reuse"/run-000001.sctrace)" "$before" "the first session's run 1 is untouched"

# stdout that cannot be written: the report is lost, and said to be
# (launch --json > /dev/full exited 1 with nothing said).
if [ -w /dev/full ]; then
	rc=0
	sc list --json >/dev/full 2>"$SC_TMP/full.err" || rc=$?
	tap_is "$rc/$(cat "$SC_TMP/full.err")" "3/schedctl: stdout: No space left on device" \
		"list --json > /dev/full: exit 3 and why"
	# Said once, also by a command that reports it itself (QA: export
	# said it twice; --help > /dev/full exited 0).
	rc=0
	sc export "$(ls "$reuse"/run-*.sctrace | head -n1)" >/dev/full \
		2>"$SC_TMP/full2.err" || rc=$?
	tap_is "$rc/$(cat "$SC_TMP/full2.err")" "3/schedctl: stdout: No space left on device" \
		"export > /dev/full: exit 3, said once"
	rc=0
	sc --help >/dev/full 2>"$SC_TMP/full3.err" || rc=$?
	tap_is "$rc/$(cat "$SC_TMP/full3.err")" "3/schedctl: stdout: No space left on device" \
		"--help > /dev/full: exit 3 and why"
	# replay writes the program's output: to a full disk that is said
	# too (QA: exit 0, 3 MB lost without a word).
	sc launch -n 1 --out "$SC_TMP/seq" -- seq 100000 >/dev/null 2>&1
	rc=0
	sc replay "$SC_TMP/seq/run-000001.sctrace" >/dev/full \
		2>"$SC_TMP/full4.err" || rc=$?
	tap_is "$rc/$(grep -c "stdout: the program's output: No space left on device" "$SC_TMP/full4.err")" 3/1 \
		"replay > /dev/full: exit 3 and why"
else
	tap_skip "list --json > /dev/full" "no /dev/full"
	tap_skip "export > /dev/full" "no /dev/full"
	tap_skip "--help > /dev/full" "no /dev/full"
	tap_skip "replay > /dev/full" "no /dev/full"
	sc launch -n 1 --out "$SC_TMP/seq" -- seq 100000 >/dev/null 2>&1
fi
# ... and to a reader that went away (600 kB, more than a pipe holds):
# SIGPIPE, as for a tool that writes there itself (it exited 0).
sc replay "$SC_TMP/seq/run-000001.sctrace" 2>"$SC_TMP/pipe.err" | true
rc=${PIPESTATUS[0]}
tap_is "$rc" 141 "replay | true: ended by SIGPIPE (141)"
# A daemon that cannot be started: --json carries the reason.
rc=0
SCHEDCTL_SOCKET=$SC_TMP/none.sock SCHEDCTLD=$SC_TMP/no-such-daemon \
	"$SCHEDCTL" launch --json -n 1 -- /bin/true >"$SC_TMP/nd.json" 2>/dev/null || rc=$?
tap_is "$rc/$(json_get "$SC_TMP/nd.json" 'd["error"]')" \
	"3/cannot run schedctld $SC_TMP/no-such-daemon: No such file or directory (set SCHEDCTLD to its path)" \
	"a daemon that cannot run: exit 3, the reason in the JSON error"
# A state directory that cannot be made: the daemon refuses to start,
# and the CLI says why in its one line (QA: the daemon served on,
# failing every launch).
rc=0
SCHEDCTL_SOCKET=$SC_TMP/nostate.sock SCHEDCTL_STATE_DIR=/proc/no-such-dir \
	"$SCHEDCTL" launch -n 1 -- /bin/true </dev/null >/dev/null \
	2>"$SC_TMP/nostate.err" || rc=$?
tap_is "$rc/$(count_lines "$SC_TMP/nostate.err")/$(grep -c 'no-such-dir: No such file or directory (the state directory)' "$SC_TMP/nostate.err")" \
	"3/1/1" "an unusable state directory: exit 3, one line saying why"
# export -o over its own input replaced the trace with its export.
first=$(ls "$reuse"/run-*.sctrace | head -n1)
cp "$first" "$SC_TMP/self.sctrace"
rc=0
sc export "$SC_TMP/self.sctrace" --format json -o "$SC_TMP/self.sctrace" 2>/dev/null || rc=$?
tap_is "$rc/$(cksum <"$SC_TMP/self.sctrace")" "2/$(cksum <"$first")" \
	"export -o TRACE over TRACE: refused (exit 2), the trace intact"
# So did replay --record and minimize -o, through a symlink too (QA).
ln -s "$SC_TMP/self.sctrace" "$SC_TMP/self-link.sctrace"
rc=0
sc replay "$SC_TMP/self.sctrace" --record "$SC_TMP/self-link.sctrace" \
	>/dev/null 2>&1 </dev/null || rc=$?
tap_is "$rc/$(cksum <"$SC_TMP/self.sctrace")" "2/$(cksum <"$first")" \
	"replay --record over the trace (a symlink to it): refused (exit 2), the trace intact"
rc=0
sc minimize -o "$SC_TMP/self.sctrace" "$SC_TMP/self.sctrace" \
	>/dev/null 2>&1 </dev/null || rc=$?
tap_is "$rc/$(cksum <"$SC_TMP/self.sctrace")" "2/$(cksum <"$first")" \
	"minimize -o TRACE over TRACE: refused (exit 2), the trace intact"

sc_check_no_leftovers
tap_done
