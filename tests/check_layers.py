#!/usr/bin/env python3
"""The core's folders are its layers (doc/architecture.md): a file in lib/ includes headers from its
own folder and the folders before it in LAYERS only. ALLOWED lists the known exceptions, each with
the step that removes it; the list may only shrink. Exits 1 naming every other include that goes
against the order, or a folder that is not a layer."""
import pathlib
import re
import sys

LAYERS = ['base', 'readers', 'inventory', 'job', 'views', 'alloc', 'engines', 'solvers', 'report']
ALLOWED = {
    # parallel.c fills the estimate's trace (llmmem__trace_stage): moves with the trace to report/ (issue 31)
    ('views/parallel.c', 'engines/estimate.h'),
}

def main(lib):
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
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else 'lib')))
