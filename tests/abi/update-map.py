#!/usr/bin/env python3
"""Rewrites lib/llmmem.map from the LLMMEM_API declarations of include/llmmem/llmmem.h."""
import pathlib
import re

root = pathlib.Path(__file__).resolve().parents[2]
header = (root / "include" / "llmmem" / "llmmem.h").read_text()
names = sorted(set(re.findall(r"LLMMEM_API[^;{]*?\b(llmmem_\w+)\s*\(", header)))
text = """/* Linker version script: every public function, one node per ABI major. Keep sorted;
   tests/check_symbols.py checks it against the header and the built library.
   Regenerate with tests/abi/update-map.py. */
LLMMEM_0 {
  global:
"""
text += "".join(f"    {n};\n" for n in names)
text += "  local:\n    *;\n};\n"
(root / "lib" / "llmmem.map").write_text(text)
print(f"lib/llmmem.map: {len(names)} symbols")
