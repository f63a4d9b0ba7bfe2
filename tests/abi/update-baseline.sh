#!/bin/sh
# Rewrites the ABI baseline lib/libllmmem.abi from a fresh debug-info build of the library.
# Run it deliberately, when the public API gained symbols you want frozen or after an
# intended break (with a soname bump); say why in CHANGELOG.md in the same commit.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
meson setup "$build" "$root" -Dtests=disabled -Dbuildtype=debugoptimized >/dev/null
meson compile -C "$build" lib/llmmem:shared_library >/dev/null
lib=$(find "$build/lib" -type f -name 'libllmmem.so.*.*.*' | head -n 1)
abidw --headers-dir "$root/include/llmmem" --no-corpus-path --no-comp-dir-path --short-locs --out-file "$root/lib/libllmmem.abi" "$lib"
echo "wrote lib/libllmmem.abi from $(basename "$lib")"
