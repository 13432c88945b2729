#!/bin/bash
# native.sh: the "native" strategy (the kernel schedules, schedctl only
# watches) runs the buggy targets and reports whatever it finds.  What it
# finds is luck, so only the exit status and the run count are asserted;
# the hit counts are diagnostics to compare with the random strategy.
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

RUNS=200

for name in order_violation check_then_act abba_deadlock lost_wakeup \
	crash_null exit_status; do
	bin=$(sc_target "$name")
	json=$SC_TMP/$name.json
	rc=0
	# A native deadlock really hangs: --timeout bounds each such run.
	sc launch --json -s native -n "$RUNS" --keep-going --timeout 10 -- "$bin" \
		>"$json" 2>"$SC_TMP/$name.err" || rc=$?
	hits=$(json_get "$json" 'd["failing_runs"]')
	runs=$(json_get "$json" 'd["runs"]')
	kinds=$(json_get "$json" '",".join(sorted(set(b["kind"] for b in d["bugs"])))')
	tap_diag "$name: native: $hits of $runs runs failed (${kinds:-no bug})"
	case $rc in
	0 | 1) tap_ok "$name: exit status $rc is 0 or 1" ;;
	*) tap_not_ok "$name: exit status $rc is 0 or 1"
	   tap_diag_file "$SC_TMP/$name.err" ;;
	esac
	tap_is "$runs" "$RUNS" "$name: all $RUNS runs are counted"
	if [ "$rc" -eq 1 ]; then want=yes; else want=no; fi
	if [ "${hits:-0}" -gt 0 ] 2>/dev/null; then got=yes; else got=no; fi
	tap_is "$got" "$want" "$name: exit status agrees with failing_runs ($hits)"
done

# A child that leaves the run's process group (setsid) and ignores
# SIGTERM does not outlive its run, whether the run ends by itself or at
# its --timeout (it outlived -s native sessions).
escaper=$SC_BIN/escaper.sh
cat >"$escaper" <<'EOF2'
#!/bin/sh
setsid sh -c 'trap "" TERM HUP INT; while :; do sleep 1; done' "$0-child" &
[ "${1:-}" = hang ] && sleep 100
exit 0
EOF2
chmod +x "$escaper"
for how in "" hang; do
	rc=0
	sc launch -s native -n 2 --keep-going --timeout 1 -- "$escaper" $how \
		>/dev/null 2>"$SC_TMP/escaper.err" || rc=$?
	tap_is "$rc" "$([ -n "$how" ] && echo 1 || echo 0)" \
		"escaper ${how:-exits}: exit status"
	sc_check_no_targets_left "escaper ${how:-exits}: its setsid child does not outlive the run"
done

sc_check_no_leftovers
tap_done
