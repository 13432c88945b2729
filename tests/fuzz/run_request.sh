#!/bin/sh
# run_request.sh BUILD_DIR [SECONDS] - fuzz the control-socket request
# decoder: proto/framing.c's sc_frame_recv() on a real socket, then
# scctl.Request decoding (fuzz_request.c).  Like run.sh: clang with
# -fsanitize=fuzzer,address,undefined; control.pb-c.c from BUILD_DIR/proto;
# a seed corpus of valid framed requests written by Python (no protoc
# needed: the frames are built by hand); findings left in
# BUILD_DIR/fuzz-request/.  Default 60 s.
set -eu

# shellcheck source=tests/fuzz/args.sh
. "$(dirname "$0")/args.sh"

work=$build/fuzz-request
mkdir -p "$work"
gen=$build/proto
[ -f "$gen/control.pb-c.c" ] || make -C "$build" proto/control.pb-c.c >/dev/null

pbc_cflags=$(pkg-config --cflags libprotobuf-c)
pbc_libs=$(pkg-config --libs libprotobuf-c)
echo "building the fuzz target in $work"
# shellcheck disable=SC2086
"$cc" -std=gnu11 -g -O1 -I"$build" -I"$src/proto" -I"$gen" $pbc_cflags \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -o "$work/fuzz_request" \
	"$src/tests/fuzz/fuzz_request.c" "$src/proto/framing.c" \
	"$gen/control.pb-c.c" $pbc_libs

# Seed corpus: a ping, a shutdown, a stop, a small launch, framed.
corpus=$work/corpus
rm -rf "$corpus"
mkdir -p "$corpus"
python3 - "$corpus" <<'PY'
import struct, sys
def varint(n):
    out = b""
    while True:
        b = n & 0x7f
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out
def field(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload
def frame(msg):
    return struct.pack(">I", len(msg)) + msg
launch = field(1, 2, b"/bin/true") + field(2, 2, b"/tmp") + field(6, 0, 3)
seeds = {
    "ping": field(3, 0, 1),
    "shutdown": field(4, 0, 1),
    "stop": field(6, 2, field(1, 2, b"20261122-031500-ab12")),
    "launch": field(1, 2, launch),
    "attach": field(5, 2, field(1, 0, 1234) + field(2, 0, 1000)),
}
for name, msg in seeds.items():
    with open(f"{sys.argv[1]}/{name}", "wb") as f:
        f.write(frame(msg))
PY

echo "fuzzing for $secs s"
rc=0
"$work/fuzz_request" -max_total_time="$secs" -max_len=65536 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
	"$corpus" || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "$0: the fuzzer failed (exit $rc); see $work/crash-* and co." >&2
	exit 1
fi
echo "no finding in $secs s"
