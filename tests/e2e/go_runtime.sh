#!/bin/bash
# go_runtime.sh: a static Go binary is limited to its own code.  At
# --granularity mem only the functions of package main are instrumented,
# not the Go runtime, so 20 runs of a 2 ms program all end (no "hang" on
# the 60 s budget, which 7 of 20 hit when the whole runtime had
# breakpoints) and a notice says so once; a stripped Go binary, where
# main cannot be told from the runtime, gets no breakpoints and a notice
# saying why.  The correct variant passes at both granularities.  Built
# with Debian's /usr/bin/go (package golang-go, not in the CI package
# list); skipped when it is not installed.
set -u
SRC=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

GO=/usr/bin/go
RUNS=20

if [ ! -x "$GO" ]; then
	for what in "mem runs end" "mem notice" "sync runs end" "replay" \
		"panic message" "panic location" "stripped notice"; do
		tap_skip "go: $what" "$GO not installed (Debian package golang-go)"
	done
	sc_check_no_leftovers
	tap_done
	exit 0
fi

bin=$SC_BIN/go_check_then_act
GOCACHE=$SC_TMP/gocache GOPATH=$SC_TMP/gopath GO111MODULE=off \
	"$GO" build -o "$bin" "$SRC/tests/targets/go_check_then_act.go" \
	2>"$SC_TMP/go.err" || { tap_diag_file "$SC_TMP/go.err"; tap_bail "go build failed"; }

# go_session LABEL ARGS...: RUNS runs of the fixed variant, none failing.
go_session() {
	local label=$1 json=$SC_TMP/$1.json rc=0
	shift
	sc launch --json -n "$RUNS" --seed 1 "$@" -- "$bin" fixed \
		>"$json" 2>"$SC_TMP/$label.err" || rc=$?
	tap_is "$rc $(json_get "$json" 'd["runs"]')/$(json_get "$json" 'd["failing_runs"]')" \
		"0 $RUNS/0" "go: $label: $RUNS runs all end, none fails"
	[ "$rc" -eq 0 ] || tap_diag "$(json_get "$json" 'd["bugs"][0]["message"]')"
}

go_session mem --granularity mem
tap_is "$(grep -c 'only the functions of package main are instrumented' "$SC_TMP/mem.err")" 1 \
	"go: mem: one notice that only package main is instrumented"
go_session sync

# A passing run replays: Go's runtime seeds its random choices from the
# AT_RANDOM bytes and the time-stamp counter, both given by the seed.
same=0
sc launch -n 1 --seed 3 --keep-traces all --out "$SC_TMP/gorun" -- "$bin" fixed \
	>/dev/null 2>&1
for _ in 1 2 3 4 5; do
	sc replay "$SC_TMP/gorun/run-000001.sctrace" >/dev/null 2>&1 && same=$((same + 1))
done
tap_is "$same" 5 "go: a passing run replays 5/5"

# A panic is the bug's message, with its goroutine and line.
sc launch --json -n 1 -- "$bin" panic >"$SC_TMP/panic.json" 2>/dev/null
tap_is "$(json_get "$SC_TMP/panic.json" 'd["bugs"][0]["message"]')" \
	"panic: asked to panic (goroutine 1)" "go: a panic's message names it and its goroutine"
tap_check "go: its location is the panic's line" \
	grep -q 'go_check_then_act.go:[0-9]' <(json_get "$SC_TMP/panic.json" 'd["bugs"][0]["location"]')

strip -o "$SC_BIN/go_stripped" "$bin"
sc launch -n 2 --seed 1 --granularity mem -- "$SC_BIN/go_stripped" fixed \
	>/dev/null 2>"$SC_TMP/stripped.err"
tap_is "$(grep -c 'Go binary without symbols' "$SC_TMP/stripped.err")" 1 \
	"go: stripped: one notice that nothing is instrumented, and why"

sc_check_no_leftovers
tap_done
