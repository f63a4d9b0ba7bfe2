#!/usr/bin/env python3
"""The man page cannot drift from the tool, and it renders cleanly.

Usage: check_man.py LLMMEM MANPAGE [BUILD_ROOT]

Reads `LLMMEM --help` and checks that doc/llmmem.1 has
  - a `.SS` subsection for every command listed under "Commands:",
  - a `.TP` item naming every option listed under "Options:",
  - an EXIT STATUS item for every status listed under "Exit status:",
  - every command line listed under "Examples:" in an `.EX` block.
Then renders the page with groff (warnings as failures), or `man -l` where groff is missing;
with BUILD_ROOT, the page is first installed (`meson install --tags man --destdir`) and the
installed copy is rendered, as `man llmmem` would after `meson install`.
"""
import glob
import re
import shutil
import subprocess
import sys
import tempfile

OPTION = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)")


def sections(help_text):
    """The --help text split into its "Title:" sections (title -> lines)."""
    out, current = {}, None
    for line in help_text.splitlines():
        m = re.match(r"^([A-Z][A-Za-z ]*):(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = [m.group(2)] if m.group(2).strip() else []
        elif current is not None:
            out[current].append(line)
    return out


def unescape(roff):
    """Roff source to plain text: hyphens, backslashes and font changes."""
    text = roff.replace(r"\-", "-").replace(r"\e", "\\").replace(r"\(em", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    return re.sub(r"\\[&%]", "", text)


def join_continued(lines):
    """Command lines, with `\\`-continued lines joined and spaces collapsed."""
    out, pending = [], ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append(" ".join((pending + line).split()))
        pending = ""
    return out


def main():
    cli, manpage = sys.argv[1], sys.argv[2]
    build_root = sys.argv[3] if len(sys.argv) > 3 else None
    help_text = subprocess.run([cli, "--help"], check=True, capture_output=True, text=True).stdout
    sec = sections(help_text)
    for needed in ("Commands", "Options", "Exit status", "Examples"):
        if needed not in sec:
            sys.exit(f"check_man: no '{needed}:' section in `llmmem --help`")

    commands = [m.group(1) for line in sec["Commands"] if (m := re.match(r"^  (\w+)\s", line))]
    options = sorted({o for line in sec["Options"] if re.match(r"^  -", line)
                      for o in OPTION.findall(re.split(r"\s{2,}", line.strip())[0])})
    statuses = re.findall(r"\b(\d+) [a-z]", " ".join(sec["Exit status"]))
    examples = join_continued(sec["Examples"])
    if not commands or not options or not statuses or not examples:
        sys.exit("check_man: could not read the commands, options, statuses or examples of `llmmem --help`")

    lines = [unescape(l) for l in open(manpage, encoding="utf-8").read().splitlines()
             if not l.startswith('.\\"')]
    subsections = {l.split(None, 1)[1].strip('"') for l in lines if l.startswith(".SS ")}
    items = [lines[i + 1] for i, l in enumerate(lines[:-1]) if l.strip() == ".TP"]
    item_options = {o for item in items for o in OPTION.findall(item)}
    try:
        exit_at = lines.index(".SH EXIT STATUS")
    except ValueError:
        sys.exit("check_man: the man page has no EXIT STATUS section")
    exit_end = next((i for i in range(exit_at + 1, len(lines)) if lines[i].startswith(".SH")), len(lines))
    exit_items = {lines[i + 1].replace(".B", "").strip() for i in range(exit_at, exit_end - 1)
                  if lines[i].strip() == ".TP"}
    blocks, inside = [], None
    for l in lines:
        if l.strip() == ".EX":
            inside = []
        elif l.strip() == ".EE" and inside is not None:
            blocks.extend(join_continued(inside))
            inside = None
        elif inside is not None:
            inside.append(l)

    missing = [f"command '{c}' (a .SS subsection)" for c in commands if c not in subsections]
    missing += [f"option '{o}' (a .TP item)" for o in options if o not in item_options]
    missing += [f"exit status {s}" for s in statuses if s not in exit_items]
    missing += [f"example '{e}' (an .EX block)" for e in examples if e not in blocks]
    for m in missing:
        print(f"check_man: {manpage} lacks {m}, which `llmmem --help` lists", file=sys.stderr)
    print(f"checked {len(commands)} commands, {len(options)} options, {len(statuses)} exit statuses, "
          f"{len(examples)} examples")
    if missing:
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        page = manpage
        if build_root:
            subprocess.run(["meson", "install", "-C", build_root, "--tags", "man", "--destdir", tmp,
                            "--no-rebuild", "--quiet"], check=True, stdout=subprocess.DEVNULL)
            found = glob.glob(f"{tmp}/**/man1/llmmem.1", recursive=True)
            if not found:
                sys.exit("check_man: `meson install --tags man` installed no man1/llmmem.1")
            page = found[0]
            print(f"installed as {page[len(tmp):]}")
        if shutil.which("groff"):
            run = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page], capture_output=True, text=True)
            tool = "groff -man -Tutf8 -ww"
        elif shutil.which("man"):
            run = subprocess.run(["man", "--warnings", "-l", page], capture_output=True, text=True,
                                 env={"MANWIDTH": "80", "MAN_KEEP_FORMATTING": "0", "PATH": "/usr/bin:/bin"})
            tool = "man -l --warnings"
        else:
            print("neither groff nor man is installed: rendering not checked")
            return 0
        if run.returncode != 0 or run.stderr.strip():
            print(f"check_man: {tool} {page}: exit {run.returncode}\n{run.stderr}", file=sys.stderr)
            return 1
        print(f"rendered without warnings by {tool}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
