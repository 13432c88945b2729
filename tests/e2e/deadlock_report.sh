#!/bin/bash
# deadlock_report.sh: the report of the AB-BA deadlock names both threads
# by logical id and both mutexes by the symbol of their global variable.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

bin=$(sc_target abba_deadlock)
json=$SC_TMP/abba.json
rc=0
sc launch --json -s random -n 200 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 1 "abba_deadlock: a bug is found (exit 1)"
[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/err"
tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" deadlock "abba_deadlock: kind is deadlock"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
for word in T1 T2 lock_a lock_b; do
	case $message in
	*"$word"*) tap_ok "the deadlock message names $word" ;;
	*) tap_not_ok "the deadlock message names $word" ;;
	esac
done

# pthread spinlocks taken in opposite orders: a thread about to lock a
# held spinlock waits as if blocked (it cannot make progress while the
# holder does not run), so this is a deadlock too, not a hang.
bin=$(sc_target spin_deadlock)
json=$SC_TMP/spin.json
rc=0
sc launch --json -s random -n 50 --seed 7 -- "$bin" >"$json" 2>"$SC_TMP/err" || rc=$?
tap_is "$rc" 1 "spin_deadlock: a bug is found (exit 1)"
[ "$rc" -eq 1 ] || tap_diag_file "$SC_TMP/err"
tap_is "$(json_get "$json" 'd["bugs"][0]["kind"]')" deadlock "spin_deadlock: kind is deadlock"
message=$(json_get "$json" 'd["bugs"][0]["message"]')
tap_diag "message: $message"
for word in T1 T2 "spinlock lock_a" "spinlock lock_b" spin_deadlock.c; do
	case $message in
	*"$word"*) tap_ok "the spin deadlock message names $word" ;;
	*) tap_not_ok "the spin deadlock message names $word" ;;
	esac
done

sc_check_no_leftovers
tap_done
