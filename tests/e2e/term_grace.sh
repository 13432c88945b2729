#!/bin/bash
# term_grace.sh: a program that schedctl must end early (--timeout, a
# deadlock) gets SIGTERM and a short grace before SIGKILL, so its SIGTERM
# handler removes its temporary file; nothing is left running afterwards.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

tc=$(sc_target term_cleanup)
for mode in spin deadlock; do
	f=$SC_TMP/tmpfile.$mode
	rc=0
	sc launch -n 1 --seed 1 --timeout 1 --out "$SC_TMP/$mode" -- "$tc" "$f" "$mode" \
		>"$SC_TMP/$mode.out" 2>"$SC_TMP/$mode.err" || rc=$?
	want=hang
	[ "$mode" = deadlock ] && want=deadlock
	tap_is "$rc" 1 "$mode: launch reports a bug (exit 1)"
	tap_check "$mode: the verdict is $want" grep -q "^run 1: $want:" "$SC_TMP/$mode.out"
	tap_check "$mode: the SIGTERM handler removed the temporary file" test ! -e "$f"
done

sc_check_no_leftovers
tap_done
