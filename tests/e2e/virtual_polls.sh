#!/bin/bash
# virtual_polls.sh: when no thread can go on but threads sleep in polls
# whose timeouts schedctl made virtual, the poll due first in virtual
# time returns first, as on a clock.  Two 5 ms tickers take turns in
# every run and under every strategy; when the policy could choose any
# poll whose real time had passed, one ticker's polls ran one after
# another while the other's waited (a run took the sum of both threads'
# sleeps), and which returns were offered depended on the machine's
# load.  Same seed, same events; every run replays.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

bin=$(sc_target poll_pair)

# Prints how many kept runs' timeouts do not take turns, and the first
# such run's sequence of threads.
turns_broken() {
	local f broken=0 first=
	for f in "$1"/run-*.sctrace; do
		sc export "$f" -o "$SC_TMP/t.json" 2>/dev/null || {
			broken=$((broken + 1)); continue; }
		seq=$(json_get "$SC_TMP/t.json" \
			'"".join(str(e["thread"]) for e in d["events"] if e["kind"] == "timeout")')
		# How far one ticker got ahead of the other at any point: a
		# clock gives at most 2 (the one that works less between its
		# polls may come first twice in a row).
		ahead=$(python3 -c '
import sys
lead = most = 0
for c in sys.argv[1]:
    lead += 1 if c == "1" else -1
    most = max(most, abs(lead))
print(most)' "$seq")
		if [ -z "$seq" ] || [ "$ahead" -gt 2 ]; then
			broken=$((broken + 1))
			first=${first:-$seq}
		fi
	done
	echo "$broken $first"
}

for strategy in random surw pos pct; do
	out=$SC_TMP/$strategy
	rc=0
	sc launch --json -s "$strategy" -n 10 --seed 5 --keep-traces all \
		--out "$out" -- "$bin" >"$out.json" 2>"$out.err" || rc=$?
	tap_is "$rc/$(json_get "$out.json" 'd["runs"]')/$(json_get "$out.json" 'd["failing_runs"]')" \
		"0/10/0" "poll_pair -s $strategy: 10 runs, none failing"
	[ "$rc" -eq 0 ] || tap_diag_file "$out.err" 5
	set -- $(turns_broken "$out")
	tap_is "$1" 0 "poll_pair -s $strategy: in every run the tickers take turns"
	[ "$1" -eq 0 ] || tap_diag "first run out of turn: timeouts by thread $2"
done

# One seed, three sessions: the same events.
counts=
for i in 1 2 3; do
	rc=0
	sc launch --json -n 10 --seed 9 -- "$bin" >"$SC_TMP/same.$i.json" \
		2>/dev/null || rc=$?
	counts="$counts $rc/$(json_get "$SC_TMP/same.$i.json" 'd["events"]')"
done
first=${counts# }
first=${first%% *}
tap_is "$counts" " $first $first $first" \
	"poll_pair: the same seed three times runs the same events (exit/events)"

tap_is "$(sc_count_replays "$SC_TMP"/random/run-00000[1-5].sctrace)" 5 "poll_pair: 5 runs replay"

tap_done
