#!/bin/sh
# pkg-config works from the build tree (meson-uninstalled) and after `meson install`, and a
# program outside the source tree builds and runs with those flags alone.
# Usage: check_pkgconfig.sh <build root> <source root> [CONSUMER.c ...]
# Each CONSUMER.c given (examples/consumer/consumer.c) is built and run the same way, beside the
# built-in consumer: `cc CONSUMER.c $(pkg-config --cflags --libs llmmem)` and nothing else.
set -eu
build=$1
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/consumer.c" <<'C'
#include <stdio.h>
#include <llmmem/llmmem.h>
int main(void)
{
    llmmem_model *m;
    if (llmmem_model_from_preset(&m, "llama-2-7b") != LLMMEM_OK)
        return 1;
    uint64_t n = 0;
    llmmem_model_total_parameters(&n, m);
    llmmem_model_free(m);
    printf("libllmmem %s: llama-2-7b has %llu parameters\n", llmmem_version_string(), (unsigned long long)n);
    return n == 6738415616ULL ? 0 : 1;
}
C
cc=${CC:-cc}

# (a) the uninstalled build tree
flags=$(PKG_CONFIG_PATH="$build/meson-uninstalled" pkg-config --cflags --libs llmmem)
echo "uninstalled: $flags"
# shellcheck disable=SC2086
$cc -o "$tmp/consumer" "$tmp/consumer.c" $flags
LD_LIBRARY_PATH="$build/lib" "$tmp/consumer"
for src in "$@"; do
  # shellcheck disable=SC2086
  $cc -o "$tmp/extra" "$src" $flags
  LD_LIBRARY_PATH="$build/lib" "$tmp/extra"
done

# (b) an installed copy
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
pcdir=$(dirname "$(find "$tmp/root" -name llmmem.pc | head -n 1)")
libdir=$(dirname "$(find "$tmp/root" -name 'libllmmem.so.*' -type f | head -n 1)")
flags=$(PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$tmp/root" pkg-config --cflags --libs llmmem)
echo "installed: $flags"
# shellcheck disable=SC2086
$cc -o "$tmp/consumer-installed" "$tmp/consumer.c" $flags
LD_LIBRARY_PATH="$libdir" "$tmp/consumer-installed"
for src in "$@"; do
  echo "installed: $(basename "$src")"
  # shellcheck disable=SC2086
  $cc -o "$tmp/extra-installed" "$src" $flags
  LD_LIBRARY_PATH="$libdir" "$tmp/extra-installed"
done
