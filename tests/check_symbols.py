#!/usr/bin/env python3
"""Exported-symbol check: the library's dynamic symbols, the version script's global list and the
functions the public header declares with LLMMEM_API must be the same set. Also checks that the
library imports nothing that prints, aborts or exits. With a fourth argument, the Check suite
whose EXPECT_NULL / ACCEPTS_NULL lines call every status-returning function with NULL in each of
its pointer parameters: each such function and parameter of the header must be there.

Usage: check_symbols.py <libllmmem.so> <llmmem.map> <llmmem.h> [<test_keys.c>]
"""
import re
import subprocess
import sys

FORBIDDEN = {"printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "fputc",
             "perror", "abort", "exit", "_exit", "_Exit", "quick_exit", "__assert_fail"}


def nm(lib, *flags):
    out = subprocess.run(["nm", "-D", *flags, lib], check=True, capture_output=True, text=True).stdout
    rows = [line.split() for line in out.splitlines() if line.strip()]
    return rows


def null_cases_missing(decl, test_path):
    """(function, parameter) pairs of the header that the NULL test does not call."""
    text = open(test_path).read()
    called = set(re.findall(r'(?:EXPECT|ACCEPTS)_NULL\((llmmem_\w+), "(\w+)"', text))
    missing = []
    for ret, name, params in re.findall(r"LLMMEM_API\s+([^;{]*?)\b(llmmem_\w+)\s*\(([^)]*)\)\s*;", decl, re.S):
        if "llmmem_status" not in ret:
            continue
        for param in params.split(","):
            if "*" in param:
                pair = (name, re.search(r"(\w+)\s*$", param).group(1))
                if pair not in called:
                    missing.append(pair)
    return missing


def main():
    lib, map_path, header = sys.argv[1:4]
    exported = {r[-1].split("@")[0] for r in nm(lib, "--defined-only") if r[-2] in ("T", "W")}
    text = open(map_path).read()
    glob = re.search(r"global:(.*?)local:", text, re.S)
    in_map = set(re.findall(r"(llmmem_\w+)\s*;", glob.group(1) if glob else ""))
    decl = open(header).read()
    in_header = set(re.findall(r"LLMMEM_API[^;{]*?\b(llmmem_\w+)\s*\(", decl, re.S))
    imported = {r[-1].split("@")[0] for r in nm(lib, "--undefined-only")}

    ok = True
    for name, a, b in (("header but not exported", in_header, exported),
                       ("exported but not in the header", exported, in_header),
                       ("version script but not in the header", in_map, in_header),
                       ("header but not in the version script", in_header, in_map)):
        missing = sorted(a - b)
        if missing:
            ok = False
            print(f"in the {name}: {', '.join(missing)}")
    if len(sys.argv) > 4:
        missing = null_cases_missing(decl, sys.argv[4])
        if missing:
            ok = False
            print("not called with NULL by the NULL test: " + ", ".join(f"{f}({p})" for f, p in missing))
    bad = sorted(imported & FORBIDDEN)
    if bad:
        ok = False
        print(f"the library imports functions that print, abort or exit: {', '.join(bad)}")
    if not ok:
        return 1
    print(f"{len(exported)} exported symbols = version script = header; no printing, aborting or exiting imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
