#!/bin/sh
# ABI gate: compares a built libllmmem.so against the committed baseline (lib/libllmmem.abi).
# Removed or changed symbols fail (abidiff exit bits 4 "ABI change" and 8 "incompatible change");
# added functions pass (--no-added-syms), as do harmless changes such as appended enumerators.
# Usage: check-baseline.sh <libllmmem.so> <source root>
set -eu
lib=$1
root=$2
baseline=$root/lib/libllmmem.abi
if [ ! -f "$baseline" ]; then
  echo "no ABI baseline at $baseline: run tests/abi/update-baseline.sh" >&2
  exit 1
fi
set +e
abidiff --no-added-syms --headers-dir2 "$root/include/llmmem" "$baseline" "$lib"
rc=$?
set -e
# bits: 1 tool error, 2 usage error, 4 ABI change, 8 incompatible change
if [ "$rc" -ne 0 ]; then
  echo "ABI check failed (abidiff exit $rc): a symbol was removed or changed against lib/libllmmem.abi." >&2
  echo "If the break is deliberate, bump llmmem_abi_major, run tests/abi/update-baseline.sh and add a CHANGELOG line." >&2
  exit 1
fi
echo "ABI matches lib/libllmmem.abi (additions allowed)"
