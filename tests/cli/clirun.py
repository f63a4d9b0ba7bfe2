"""Running the built `llmmem` tool (named by LLMMEM_CLI, which meson sets), shared by the CLI tests."""
import os
import subprocess

import pytest


def cli_path():
    path = os.environ.get("LLMMEM_CLI")
    if not path:
        pytest.fail("LLMMEM_CLI must name the built llmmem tool")
    return path


def run(*args):
    return subprocess.run([cli_path(), *args], capture_output=True, text=True, timeout=120)


def ok(*args):
    r = run(*args)
    assert r.returncode == 0, f"llmmem {' '.join(args)} exited {r.returncode}: {r.stderr}"
    assert r.stderr == ""
    return r.stdout
