#!/bin/sh
# Regenerate the build system; automake does not install tap-driver.sh by
# itself, so copy it from the automake installation.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf -fi
for d in /usr/share/automake-*; do
	[ -f "$d/tap-driver.sh" ] && cp -f "$d/tap-driver.sh" build-aux/ && break
done
test -f build-aux/tap-driver.sh || { echo "autogen.sh: tap-driver.sh not found (install automake)" >&2; exit 1; }
