#!/usr/bin/env python3
"""The functions the WebAssembly module exports: every public function of the version script
(lib/llmmem.map, the one list of the API) and the allocator the JS API passes strings through.
Writes emcc's -sEXPORTED_FUNCTIONS=@FILE list, one C name per line with its leading underscore."""
import re
import sys

map_path, out_path = sys.argv[1], sys.argv[2]
names = re.findall(r"^\s+(llmmem_\w+);", open(map_path, encoding="utf-8").read(), re.M)
if not names:
    sys.exit(f"{map_path}: no exported function found")
with open(out_path, "w", encoding="utf-8") as out:
    out.write("".join(f"_{n}\n" for n in names + ["malloc", "free"]))
