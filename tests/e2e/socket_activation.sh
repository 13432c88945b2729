#!/bin/bash
# socket_activation.sh: schedctld serves a socket handed over the systemd
# way (descriptor 3, LISTEN_FDS=1, LISTEN_PID=its pid) instead of binding
# its own, and leaves the socket file to its owner at exit.  python3
# plays systemd (exec keeps the pid, so LISTEN_PID can be set first).
set -u
# shellcheck source=tests/lib/tap.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/tap.sh"
sc_setup

python3 - "$SC_SOCKET" "$SCHEDCTLD" "$SC_STATE" 2>"$SC_TMP/daemon.log" <<'PY' &
import os, socket, sys
path, daemon, state = sys.argv[1:]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
os.chmod(path, 0o600)
s.listen(16)
os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()),
           SCHEDCTL_STATE_DIR=state)
os.execve(daemon, [daemon, "--foreground", "--socket", path], env)
PY
daemon=$!

for i in $(seq 50); do
	[ -S "$SC_SOCKET" ] && break
	sleep 0.1
done
rc=0
sc ping >"$SC_TMP/ping.out" 2>&1 || rc=$?
tap_is "$rc" 0 "the socket-activated daemon answers ping"
rc=0
sc launch -n 3 -- "$(sc_target bounded_buffer)" >/dev/null 2>"$SC_TMP/l.err" || rc=$?
tap_is "$rc" 0 "and runs a launch"
tap_diag_file "$SC_TMP/l.err"
if grep -q "(socket-activated)" "$SC_TMP/daemon.log"; then
	tap_ok "its log says it was socket-activated"
else
	tap_not_ok "its log says it was socket-activated"
	tap_diag_file "$SC_TMP/daemon.log"
fi
sc shutdown >/dev/null 2>&1
wait "$daemon"
if [ -S "$SC_SOCKET" ]; then
	tap_ok "at exit the socket file stays (it belongs to whoever activated us)"
else
	tap_not_ok "at exit the socket file stays (it belongs to whoever activated us)"
fi
rm -f "$SC_SOCKET"

sc_check_no_leftovers
tap_done
