#!/usr/bin/env python3
"""Writes the web page's site folder, ready for static hosting: the page (index.html, app.js,
style.css), the JS API (llmmem.mjs) and the core (llmmem-core.js, llmmem-core.wasm), side by side.

    build-site.py OUT_DIR FILE...
"""
import os
import shutil
import sys


def main(argv):
    out, files = argv[1], argv[2:]
    tmp = out + '.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    total = 0
    for f in files:
        if f.endswith('.py'):
            continue
        dest = os.path.join(tmp, os.path.basename(f))
        shutil.copyfile(f, dest)
        total += os.path.getsize(dest)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)  # a new folder: its mtime tells ninja the site is current
    print(f'site: {len(os.listdir(out))} files, {total} bytes in {out}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
