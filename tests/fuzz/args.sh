# shellcheck shell=sh disable=SC2034
# tests/fuzz/args.sh: argument checks shared by the fuzz scripts, sourced
# with their "$@".  Sets build (absolute BUILD_DIR), secs (default 60),
# src (the source tree) and cc (clang, or $CLANG); exits 2 on bad usage or
# when clang is missing.
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 BUILD_DIR [SECONDS]" >&2
	exit 2
fi
[ -d "$1" ] || { echo "$0: $1: no such build directory" >&2; exit 2; }
build=$(cd "$1" && pwd)
secs=${2:-60}
case $secs in
''|*[!0-9]*) echo "$0: SECONDS must be a number: $secs" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CLANG:-clang}
command -v "$cc" >/dev/null 2>&1 || {
	echo "$0: $cc not found (apt-get install clang libclang-rt-14-dev)" >&2
	exit 2
}
