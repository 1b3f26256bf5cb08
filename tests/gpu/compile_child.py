"""tests/gpu/compile_child.py: a torch.compile run in a child process with
empty Inductor and Triton caches of its own, for the GPU tests that
compare two such runs (tplthreads.py, tplcut.py)."""

import json
import os
import re
import subprocess
import sys

top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def run(code, out, name, env_extra, drop=(), timeout=900):
    """code run by this interpreter, its argv[1] the source tree, with its
    caches under out/name, the variables in drop removed and env_extra's
    set; its stderr kept in out/name.err. The JSON object it printed last,
    or {"failed": its output's end}; with "bench", Inductor's benchmarking
    seconds (the sum of its "benchmarking takes" lines), and "stderr"."""
    cache = os.path.join(out, name)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"))
    for k in drop:
        env.pop(k, None)
    env.update(env_extra)
    p = subprocess.run([sys.executable, "-c", code, top], env=env, capture_output=True, text=True, timeout=timeout)
    with open(os.path.join(out, name + ".err"), "w") as f:
        f.write(p.stderr)
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        r = {"failed": (p.stdout + p.stderr)[-600:]}
    r["bench"] = round(sum(float(s) for s in re.findall(r"benchmarking takes ([0-9.]+) seconds", p.stderr)), 2)
    r["stderr"] = p.stderr
    return r
