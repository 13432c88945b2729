#!/bin/bash
# quickstart.sh: from a fresh Debian 12 clone to a found and replayed bug.
#  1. installs the build dependencies (apt-get, through sudo if not root);
#  2. builds schedctl in build/ and the bundled example
#     tests/targets/abba_deadlock (two threads taking two mutexes in
#     opposite orders; natively it almost never deadlocks);
#  3. runs it 200 times under the random scheduler: schedctl finds the
#     deadlock and prints the command that replays it;
#  4. runs that replay: the same deadlock, step for step.
set -euo pipefail

src=$(cd "$(dirname "$0")" && pwd)
cd "$src"
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

echo "== installing build dependencies"
mapfile -t packages < <(grep -v -e '^#' -e '^[[:space:]]*$' tests/lib/debian-packages)
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"

echo "== building schedctl in build/"
./autogen.sh
mkdir -p build
cd build
[ -f Makefile ] || ../configure
make -j"$(nproc)"
make tests/targets/abba_deadlock

echo
echo "== schedctl launch -s random -n 200 -- tests/targets/abba_deadlock"
rc=0
cli/schedctl launch -s random -n 200 -- tests/targets/abba_deadlock | tee launch.out || rc=$?
if [ "$rc" -ne 1 ]; then
	echo "quickstart.sh: expected a bug (exit 1), schedctl exited $rc" >&2
	exit 1
fi

# The report ends with a "schedctl replay TRACE" command; run it from the
# build tree.
trace=$(grep -oE 'schedctl replay [^ ]+' launch.out | tail -n 1 | cut -d' ' -f3 | tr -d "'\"")
if [ -z "$trace" ]; then
	echo "quickstart.sh: no replay command in the report" >&2
	exit 1
fi
echo
echo "== schedctl replay $trace"
rc=0
cli/schedctl replay "$trace" || rc=$?
if [ "$rc" -eq 1 ]; then
	echo "== reproduced (exit 1).  Next: ./tests/run-all.sh runs the test suite."
else
	echo "quickstart.sh: replay exited $rc, expected 1 (bug reproduced)" >&2
	exit 1
fi
