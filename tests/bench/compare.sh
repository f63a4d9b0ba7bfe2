#!/bin/sh
# tests/bench/compare.sh BASE_COMMIT [--all | BENCH_ARGS...]
#
# The benchmark of this build beside BASE_COMMIT's: the baseline's shared library is built from
# `git archive BASE_COMMIT` under /tmp (kept there per commit, so a second run starts at once; the
# buildtype of this build, no tests, bindings or web), then build/tests/bench/llmmem-bench runs
# with LLMMEM_BENCH_BASELINE pointing at it, pinned to one core when taskset is there. Each line
# reads "LABEL: X (baseline Y, RATIO x)". Runs the estimate figures (`--only estimates`) unless
# told otherwise: --all for every section, or the benchmark's own arguments.
# LLMMEM_BUILD names this build's folder (default: build at the top of the checkout).
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 BASE_COMMIT [--all | --only SECTION]" >&2
    exit 2
fi
base=$1
shift
if [ $# -eq 0 ]; then
    set -- --only estimates
elif [ "$1" = --all ]; then
    shift
fi

top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
build=${LLMMEM_BUILD:-$top/build}
commit=$(git -C "$top" rev-parse --verify "$base^{commit}")
buildtype=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "buildtype"))')
dir=/tmp/llmmem-baseline-$commit-$buildtype
so=$dir/build/lib/libllmmem.so.0

if [ ! -e "$so" ]; then
    rm -rf "$dir"
    mkdir -p "$dir/src"
    git -C "$top" archive "$commit" | tar -x -C "$dir/src"
    # the options a minimal build turns off, where that commit has them
    options=
    for name in tests python go web; do
        if cat "$dir/src/meson_options.txt" "$dir/src/meson.options" 2>/dev/null | grep -q "option('$name'"; then
            options="$options -D$name=disabled"
        fi
    done
    # shellcheck disable=SC2086 # one word per option
    meson setup "$dir/build" "$dir/src" --buildtype="$buildtype" $options >"$dir/setup.log" ||
        { cat "$dir/setup.log" >&2; exit 1; }
    meson compile -C "$dir/build" lib/llmmem:shared_library >"$dir/compile.log" ||
        { cat "$dir/compile.log" >&2; exit 1; }
fi

meson compile -C "$build" tests/bench/llmmem-bench >/dev/null
pin=
if command -v taskset >/dev/null 2>&1 && taskset -c 1 true 2>/dev/null; then
    pin="taskset -c 1"
fi
echo "this build: $build ($(git -C "$top" describe --always --dirty)); baseline: $base ($commit)"
LLMMEM_BENCH_BASELINE=$so exec $pin "$build/tests/bench/llmmem-bench" "$@"
