#!/bin/bash
# chess.sh: the systematic search (-s chess).
#  - Schedules explored for chess_count at C = 0 and 1 equal the hand
#    count below; at C = 2 happens-before caching explores fewer
#    schedules and still reaches every distinct partial order.
#  - abba_deadlock and lost_wakeup: exhausted with no bug at C = 0, found
#    at C = 1 in the same run whatever the seed, with 1 preemption (the
#    minimum), and the failing trace replays the bug.
#  - A correct target is reported exhausted with no bug at C = 2.
#  - coin_flip, not deterministic for a fixed schedule: the runs that did
#    not follow their prefix are reported and the search goes on.
#  - The runs cap, one job whatever --jobs says, bad options.
#  - A detached search: status and results SESSION repeat its summary
#    from the index (text and --json "search"); none for -s random.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

# The default slice: preemptions depend on the threads' states, never on
# the machine's load, so a loaded machine adds no events.
SLICE_US=2000
CAP=100000

# chess OUT ARGS...: `sc launch --json -s chess ARGS` to OUT (stderr to
# OUT.err); prints the exit status.
chess() {
	local out=$1
	shift
	sc_launch_json "$out" -s chess --slice-us "$SLICE_US" "$@"
}

count=$(sc_target chess_count)

# The hand count, in the engine's events (a thread about to lock a held
# mutex is enabled: it runs into futex_wait and blocks there).
#   main: pthread_create (then clone T1: glibc's own locking inside is
#         no event), the same for T2,
#         pthread_join(T1) [futex_wait on T1's tid while T1 lives],
#         pthread_join(T2) [the same], exit.
#   T1, T2: start, lock, unlock, lock, unlock, exit.
# C = 0 (switch only when the running thread blocks or exits): main
#   blocks in join(T1); T1 first, then at T1's exit main or T2 (2
#   schedules), or T2 first, then T1 (1): 3.
# C = 1: the one preemption is taken
#   - while main creates T2 (2 points before T2 exists, T1 then runs to
#     its end, main goes on: 1 schedule each) or before join(T1) or its
#     futex_wait (2 points x 2 threads, each followed by a free choice of
#     2 at the thread's exit): 2 + 8 = 10;
#   - in T1 after main blocked (5 points; shared mutex: 1+2+1+2+1
#     schedules, preempted while holding the mutex lets T2 block and adds
#     a free choice at T1's exit; separate mutexes 5 x 1), in main after
#     T1's exit (2 points), in T2 run before main (5 points): 14 (12);
#   - in T2 run first (5 points; shared 2+1+2+1+2, separate 5 x 2): 8
#     (10).
#   32 schedules with one preemption either way, 35 with at most one.
# With caching (the default), alternatives that lead into a state
# explored before get no run: fewer schedules, below.
for v in shared separate; do
	arg=
	[ "$v" = separate ] && arg=separate
	for c in 0 1; do
		want=3
		[ "$c" = 1 ] && want=35
		j=$SC_TMP/count-$v-$c.json
		rc=$(chess "$j" --preemptions "$c" --no-cache -n "$CAP" --keep-going \
			-- "$count" $arg)
		got="$rc $(json_get "$j" 'd["search"]["schedules"]') $(json_get "$j" 'd["search"]["exhausted"]') $(json_get "$j" 'd["failing_runs"]')"
		tap_is "$got" "0 $want true 0" \
			"chess_count $v, C=$c, --no-cache: exhausted after the hand count of $want schedules, no bug"
		if [ "$c" = 1 ]; then
			tap_is "$(json_get "$j" 'd["search"]["schedules_per_preemptions"]')" \
				"[3, 32]" "chess_count $v, C=1: 3 schedules with 0 preemptions, 32 with 1"
		fi
		[ "$rc" = 0 ] || tap_diag_file "$j.err"
	done
done

# C = 1 and 2: caching merges schedules that reach one state in another
# order of independent events.  Every distinct partial order of a
# complete run is still reached (schedctl analyze counts them over the
# kept traces).
for cp in 1:shared 1:separate 2:shared 2:separate; do
	c=${cp%%:*}
	v=${cp#*:}
	arg=
	[ "$v" = separate ] && arg=separate
	for cache in cache no-cache; do
		opt=
		[ "$cache" = no-cache ] && opt=--no-cache
		j=$SC_TMP/c$c-$v-$cache.json
		rc=$(chess "$j" --preemptions "$c" $opt -n "$CAP" --keep-going \
			--keep-traces all --out "$SC_TMP/c$c-$v-$cache" -- "$count" $arg)
		n=$(json_get "$j" 'd["search"]["schedules"]')
		tap_is "$rc $(json_get "$j" 'd["search"]["exhausted"]') $(json_get "$j" 'd["failing_runs"]')" \
			"0 true 0" "chess_count $v, C=$c, $cache: exhausted, no bug ($n schedules)"
		sc analyze --json "$SC_TMP/c$c-$v-$cache" >"$j.po" 2>"$j.po.err"
		po=$(json_get "$j.po" 'd["distinct_partial_orders"]')
		if [ "$cache" = cache ]; then
			n_cache=$n po_cache=$po
		else
			n_plain=$n po_plain=$po
		fi
	done
	tap_check "chess_count $v, C=$c: caching explores fewer schedules ($n_cache < $n_plain)" \
		test "${n_cache:-0}" -gt 0 -a "${n_cache:-0}" -lt "${n_plain:-0}"
	tap_is "$po_cache" "$po_plain" \
		"chess_count $v, C=$c: with and without caching the same number of distinct partial orders ($po_cache)"
done
# Without -n the search's cap is 10000 runs: it ends when exhausted.
sc launch -s chess --slice-us "$SLICE_US" -- "$count" \
	>"$SC_TMP/human.out" 2>&1
tap_check "without -n, the human report says the bounded space is exhausted" \
	grep -Eq '^chess: exhausted: all [0-9]+ schedules with <= 2 preemptions( \(.*\))?, no bug' \
	"$SC_TMP/human.out"
tap_check "and that only synchronisation was interleaved (sync granularity)" \
	grep -q 'only synchronisation was interleaved' "$SC_TMP/human.out"

# Seeded bugs: none with 0 preemptions, found with 1 at the same run.
# The preempted thread is about to take one of the locks, or to wait on
# the condition variable that its signal then misses.
for pair in abba_deadlock:deadlock:lock_[ab] lost_wakeup:deadlock:ready_cond; do
	name=${pair%%:*}
	kind=${pair#*:}
	object=${kind#*:}
	kind=${kind%%:*}
	bin=$(sc_target "$name")
	j=$SC_TMP/$name-0.json
	rc=$(chess "$j" --preemptions 0 -n "$CAP" -- "$bin")
	tap_is "$rc $(json_get "$j" 'd["search"]["exhausted"]')" "0 true" \
		"$name, C=0: exhausted with no bug ($(json_get "$j" 'd["search"]["schedules"]') schedules)"
	firsts=
	for seed in 1 2 3; do
		j=$SC_TMP/$name-1-$seed.json
		rc=$(chess "$j" --preemptions 1 --seed "$seed" -n "$CAP" -- "$bin")
		firsts="$firsts $(json_get "$j" 'd["first_bug_run"]')"
	done
	j=$SC_TMP/$name-1-1.json
	first=$(json_get "$j" 'd["first_bug_run"]')
	tap_is "$rc $(json_get "$j" 'd["bugs"][0]["kind"]') $(json_get "$j" 'd["search"]["bug_preemptions"]')" \
		"1 $kind 1" "$name, C=1: a $kind with 1 preemption"
	point=$(json_get "$j" '"|".join(d["search"]["bug_preemption_points"])')
	tap_check "$name, C=1: the preemption is named ($point)" \
		test -n "$(printf '%s' "$point" | grep -E "^step [0-9]+: T[0-9]+ was about to [a-z_]+ $object .*; T[0-9]+ ran instead$")"
	tap_is "$firsts" " $first $first $first" \
		"$name, C=1: found at the same run whatever the seed (run $first)"
	tap_check "$name, C=1: within a small number of runs ($first <= 30)" \
		test "${first:-999}" -le 30
	sc_check_replay "$name: the failing schedule" "$j" "$kind"
done

# Imperfect replay: reported, and the search goes on to the end.
coin=$(sc_target coin_flip)
j=$SC_TMP/coin.json
rc=$(chess "$j" --preemptions 1 -n 400 -- "$coin")
nd=$(json_get "$j" 'd["search"]["nondeterministic"]')
tap_check "coin_flip: runs that did not follow their prefix are reported ($nd)" \
	test "${nd:-0}" -gt 0
tap_check "coin_flip: the divergence is described" \
	grep -q 'at choice point' "$j"
tap_is "$rc $(json_get "$j" 'd["failing_runs"]')" "0 0" \
	"coin_flip: the search goes on and finds no bug"
sc launch -s chess --preemptions 1 --slice-us "$SLICE_US" -n 400 -- "$coin" \
	>"$SC_TMP/coin.out" 2>&1
tap_check "coin_flip: the human report names the first such run" \
	grep -Eq '^chess: [0-9]+ runs? did not follow' "$SC_TMP/coin.out"

# --runs caps the search; what was complete is said.
j=$SC_TMP/cap.json
rc=$(chess "$j" --preemptions 2 -n 10 -- "$count")
tap_is "$rc $(json_get "$j" 'd["runs"]') $(json_get "$j" 'd["search"]["exhausted"]') $(json_get "$j" 'd["search"]["complete_bound"]')" \
	"0 10 false 0" "-n 10 stops the search: not exhausted, every schedule with 0 preemptions done"

# One job whatever --jobs says: the same search.
j=$SC_TMP/jobs.json
rc=$(chess "$j" --preemptions 1 --no-cache --jobs 2 -n "$CAP" -- "$count")
tap_is "$rc $(json_get "$j" 'd["search"]["schedules"]')" "0 35" \
	"--jobs 2: the search runs in one job (35 schedules again)"

# Bad options: one line, exit 2.
for args in "--shard 1/2 -s chess" "-s pos --preemptions 1" \
	"-s chess --preemptions 17" "-s random --no-cache"; do
	rc=0
	# shellcheck disable=SC2086
	sc launch $args -- "$count" >"$SC_TMP/bad.out" 2>"$SC_TMP/bad.err" || rc=$?
	tap_is "$rc $(count_lines "$SC_TMP/bad.err")" "2 1" \
		"launch $args: a one-line usage error, exit 2"
done

# A detached session: status and results read the summary from the index.
# wait_done ID: poll the index (up to 60 s) until the session is over.
wait_done() {
	local i
	for i in $(seq 300); do
		sc status "$1" --json >"$SC_TMP/ws.json" 2>/dev/null
		[ "$(json_get "$SC_TMP/ws.json" 'd["state"]')" = done ] && return 0
		sleep 0.2
	done
	return 1
}
id=$(sc launch --detach -s chess --preemptions 1 --slice-us "$SLICE_US" \
	-n "$CAP" -- "$count" 2>"$SC_TMP/detach.err")
wait_done "$id"
tap_is "$?" 0 "a detached chess session finishes (${id:-no id})"
[ -n "$id" ] || tap_diag_file "$SC_TMP/detach.err"
sc results "$id" >"$SC_TMP/results.txt" 2>&1
n=$(sed -n 's/^chess: exhausted: all \([0-9]*\) schedules with <= 1 preemption[s]*.*, no bug.*/\1/p' \
	"$SC_TMP/results.txt")
tap_check "results SESSION repeats the search summary (${n:-none})" \
	test -n "$n"
[ -n "$n" ] || tap_diag_file "$SC_TMP/results.txt"
sc status "$id" >"$SC_TMP/status.txt" 2>&1
tap_check "status SESSION repeats it too" grep -q \
	"^chess: exhausted: all $n schedules with <= 1 preemption.*, no bug" \
	"$SC_TMP/status.txt"
sc status "$id" --json >"$SC_TMP/status.json" 2>&1
tap_is "$(json_get "$SC_TMP/status.json" 'd["search"]["exhausted"]') $(json_get "$SC_TMP/status.json" 'd["search"]["schedules"]')" \
	"true ${n:-0}" "status SESSION --json: search.exhausted, search.schedules"
sc results "$id" --json >"$SC_TMP/results.json" 2>&1
tap_is "$(json_get "$SC_TMP/results.json" 'd["search"]["schedules"]')" \
	"${n:-0}" "results SESSION --json: the search object"
id=$(sc launch --detach -s random -n 3 -- "$count" 2>"$SC_TMP/detach2.err")
wait_done "$id"
sc status "$id" --json >"$SC_TMP/status2.json" 2>&1
tap_is "$(json_get "$SC_TMP/status2.json" 'd["state"]') $(json_get "$SC_TMP/status2.json" '"search" in d')" \
	"done false" "status --json of a random session has no search"

sc_check_no_leftovers
tap_done
