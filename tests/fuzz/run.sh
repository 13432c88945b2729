#!/bin/sh
# run.sh BUILD_DIR [SECONDS] - fuzz the trace reader and the JSON export.
#
# Builds tests/fuzz/fuzz_trace_reader.c with clang -fsanitize=fuzzer,
# address,undefined straight from the sources (the protobuf-c generated
# trace.pb-c.c comes from BUILD_DIR/proto), writes a seed corpus of valid
# traces with the real writer (make_corpus.c), adds the checked-in inputs
# of tests/fuzz/corpus/ if any, and fuzzes for SECONDS (default 60).
# Exits non-zero when the fuzzer finds a crash, a leak, undefined
# behaviour or a broken invariant; the input is left in
# BUILD_DIR/fuzz/crash-* (reproduce: BUILD_DIR/fuzz/fuzz_trace_reader FILE).
#
# Needs clang and its fuzzer runtime (Debian: clang libclang-rt-14-dev).
set -eu

# shellcheck source=tests/fuzz/args.sh
. "$(dirname "$0")/args.sh"

work=$build/fuzz
mkdir -p "$work"

# trace.pb-c.[ch]: from the build dir, generated there if needed.
gen=$build/proto
if [ ! -f "$gen/trace.pb-c.c" ]; then
	make -C "$build" proto/trace.pb-c.c >/dev/null 2>&1 || {
		gen=$work/proto
		mkdir -p "$gen"
		protoc-c --proto_path="$src/proto" --c_out="$gen" \
			"$src/proto/trace.proto"
	}
fi

pbc_cflags=$(pkg-config --cflags libprotobuf-c)
pbc_libs=$(pkg-config --libs libprotobuf-c)
cflags="-std=gnu11 -g -O1 -I$src/tracer/include -I$src/analysis/include -I$gen $pbc_cflags"

echo "building the fuzz target in $work"
# The symbolizer demangles C++ names with libstdc++ and Rust's with
# libiberty (tracer/demangle.cc).
"${CLANGXX:-${cc}++}" -std=c++17 -g -O1 -I"$src/tracer/include" \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-c -o "$work/demangle.o" "$src/tracer/demangle.cc"
# shellcheck disable=SC2086
"$cc" $cflags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -o "$work/fuzz_trace_reader" \
	"$work/demangle.o" \
	"$src/tests/fuzz/fuzz_trace_reader.c" \
	"$src/analysis/trace_reader.c" "$src/analysis/export_json.c" \
	"$src/analysis/json_escape.c" "$src/tracer/names.c" "$src/tracer/env_pack.c" \
	"$src/analysis/u64map.c" "$src/analysis/hb_rules.c" \
	"$src/analysis/fingerprint.c" "$src/analysis/race_detect.c" \
	"$src/analysis/atomic_vars.c" \
	"$src/analysis/symbolizer.c" "$src/analysis/short_name.c" \
	"$src/analysis/session.c" \
	"$src/analysis/analyze_report.c" "$src/analysis/coverage_files.c" \
	"$src/analysis/export_chrome.c" "$src/analysis/export_dot.c" \
	"$src/tracer/dwarf_inline.c" "$src/tracer/dwarf_attrs.c" \
	"$src/tracer/dwarf_line_files.c" \
	"$src/tracer/addr_ranges.c" "$src/tracer/elf_symbols.c" \
	"$gen/trace.pb-c.c" $pbc_libs -I/usr/include/libdwarf -ldwarf -lelf -lz \
	-lstdc++ -liberty
# shellcheck disable=SC2086
"$cc" $cflags -o "$work/make_corpus" "$src/tests/fuzz/make_corpus.c" \
	"$src/tracer/trace_writer.c" "$src/tracer/env_digest.c" "$src/tracer/env_pack.c" \
	"$src/tracer/names.c" "$gen/trace.pb-c.c" $pbc_libs -lz

# The first corpus directory receives what the fuzzer finds; the
# checked-in one (regressions worth keeping) is only read.
corpus=$work/corpus
rm -rf "$corpus"
mkdir -p "$corpus"
"$work/make_corpus" "$corpus"
dirs=$corpus
if [ -d "$src/tests/fuzz/corpus" ]; then
	dirs="$dirs $src/tests/fuzz/corpus"
fi

echo "fuzzing for $secs s"
rc=0
# shellcheck disable=SC2086
"$work/fuzz_trace_reader" -max_total_time="$secs" -max_len=65536 \
	-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-dict="$src/tests/fuzz/trace.dict" -artifact_prefix="$work/" \
	$dirs || rc=$?
if [ "$rc" -ne 0 ]; then
	echo "$0: the fuzzer failed (exit $rc); the input is in:" >&2
	for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
		[ -e "$f" ] && echo "  $f" >&2
	done
	exit 1
fi
echo "no finding in $secs s"
