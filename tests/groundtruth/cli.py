"""The estimate each scenario is compared with: `llmmem estimate --json` (LLMMEM_CLI, set by meson
test) for the job given as keys."""
import json
import os
import subprocess


def estimate_json(keys):
    cmd = [os.environ["LLMMEM_CLI"], "estimate", "--json"]
    for k, v in keys.items():
        cmd += ["--set", f"{k}={v}"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
