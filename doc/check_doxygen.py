#!/usr/bin/env python3
"""The API reference builds without a warning and documents every public symbol.

Usage: check_doxygen.py DOXYGEN DOXYFILE XML_DIR

Runs doxygen (WARN_AS_ERROR=FAIL_ON_WARNINGS: an undocumented function, typedef, enum or macro,
or a malformed comment, fails it). Doxygen does not warn about undocumented enum values, so its
XML output is then read: every member of the header (enum values included) must have a brief or
detailed description.
"""
import glob
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def described(node):
    return any("".join(node.find(tag).itertext()).strip()
               for tag in ("briefdescription", "detaileddescription") if node.find(tag) is not None)


def main():
    doxygen, doxyfile, xml_dir = sys.argv[1:4]
    shutil.rmtree(xml_dir, ignore_errors=True)  # no stale member from an earlier header
    run = subprocess.run([doxygen, doxyfile], capture_output=True, text=True)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0 or run.stderr.strip():
        print(f"check_doxygen: doxygen exited {run.returncode} with the warnings above", file=sys.stderr)
        return 1

    undocumented, members = [], 0
    for path in sorted(glob.glob(f"{xml_dir}/*.xml")):
        root = ET.parse(path).getroot()
        for compound in root.iter("compounddef"):
            if compound.get("kind") == "file" and not described(compound):
                undocumented.append(f"file {compound.findtext('compoundname')}")
        for member in root.iter("memberdef"):
            members += 1
            if not described(member):
                undocumented.append(f"{member.get('kind')} {member.findtext('name')}")
            for value in member.iter("enumvalue"):
                members += 1
                if not described(value):
                    undocumented.append(f"enum value {value.findtext('name')} of {member.findtext('name')}")
    if members == 0:
        print(f"check_doxygen: no members in {xml_dir}: is GENERATE_XML on?", file=sys.stderr)
        return 1
    for item in undocumented:
        print(f"check_doxygen: undocumented {item}", file=sys.stderr)
    print(f"{members} public members and enum values, {len(undocumented)} undocumented")
    return 1 if undocumented else 0


if __name__ == "__main__":
    sys.exit(main())
