#!/usr/bin/env python3
"""The core's folders are its layers (doc/architecture.md): a file in lib/ includes headers from its
own folder and the folders before it in LAYERS only. ALLOWED lists the known exceptions, each with
the step that removes it; the list may only shrink. Given the core's static library too, no two
source files call each other (a two-file cycle), read from the objects' symbols with nm. Exits 1
naming every include against the order, every folder that is not a layer and every cycle."""
import collections
import pathlib
import re
import subprocess
import sys

LAYERS = ['base', 'readers', 'inventory', 'job', 'views', 'alloc', 'engines', 'solvers', 'report']
ALLOWED = set()


def cycles(archive):
    """Pairs of objects of `archive` that each use a symbol the other defines."""
    out = subprocess.run(['nm', '-A', archive], capture_output=True, text=True, check=True).stdout
    defined, used = {}, collections.defaultdict(set)
    for line in out.splitlines():
        where, _, rest = line.rpartition(':')
        obj = where.rpartition(':')[2] or where
        fields = rest.split()
        if len(fields) >= 2 and fields[-2] in 'TDRB':
            defined[fields[-1]] = obj
        elif len(fields) >= 2 and fields[-2] == 'U':
            used[obj].add(fields[-1])
    calls = collections.defaultdict(set)
    for obj, names in used.items():
        calls[obj] |= {defined[n] for n in names if n in defined and defined[n] != obj}
    return sorted({tuple(sorted((a, b))) for a in calls for b in calls[a] if a in calls.get(b, ())})


def main(lib, archive=None):
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for path in sorted(lib.glob('*/*.[ch]')):
        folder = path.parent.name
        if folder not in rank:
            bad.append(f'{path}: folder {folder!r} is not a layer of {LAYERS}')
            continue
        here = f'{folder}/{path.name}'
        for m in re.finditer(r'#include "([a-z_]+)/([a-z_0-9]+\.h)"', path.read_text()):
            there = f'{m.group(1)}/{m.group(2)}'
            if m.group(1) == 'llmmem':  # the public header
                continue
            if m.group(1) not in rank:
                bad.append(f'{here}: includes {there}, not from a layer')
            elif rank[m.group(1)] > rank[folder] and (here, there) not in ALLOWED:
                bad.append(f'{here}: includes {there}, a later layer than {folder}')
    stale = [pair for pair in ALLOWED if not (lib / pair[0]).exists() or
             f'#include "{pair[1]}"' not in (lib / pair[0]).read_text()]
    bad += [f'{a}: the allowed include of {b} is gone: remove it from ALLOWED' for a, b in stale]
    loose = [p.name for p in lib.glob('*.[ch]')]
    bad += [f'lib/{name}: outside the layers' for name in loose]
    for line in bad:
        print(line)
    print(f'{len(bad)} include(s) against the layers ({" > ".join(LAYERS)})')
    pairs = cycles(archive) if archive else []
    for a, b in pairs:
        print(f'{a} and {b} call each other')
    if archive:
        print(f'{len(pairs)} two-file cycle(s)')
    return 1 if bad or pairs else 0

if __name__ == '__main__':
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else 'lib'), sys.argv[2] if len(sys.argv) > 2 else None))
