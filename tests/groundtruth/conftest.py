"""The suite prints its table of measured and estimated bytes after the tests (README: Validated
against PyTorch)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

ROWS = []  # (scenario, measured peak, estimated peak, measured saved, estimated saved, phase); saved None: none


def pytest_terminal_summary(terminalreporter):
    if not ROWS:
        return
    w = terminalreporter.write_line
    w("")
    w("| scenario | measured peak | estimate | error | measured saved | estimate | error | peak at |")
    w("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, mp, ep, ms, es, phase in ROWS:
        if ms is None:  # nothing saved for backward (inference: the generate loop)
            w(f"| {name} | {mp:,} | {ep:,} | {100 * (ep - mp) / mp:+.2f}% | — | — | — | {phase} |")
            continue
        w(f"| {name} | {mp:,} | {ep:,} | {100 * (ep - mp) / mp:+.2f}% | {ms:,} | {es:,} | "
          f"{100 * (es - ms) / ms:+.2f}% | {phase} |")
