#!/usr/bin/env python3
"""tests/gpu/record-modules.py: the text of every module Inductor loads while
compiling a model, in load order, joined by the separator the worker's
output code uses (runtime/python/kopt/inductor.py). On a GPU machine, for
tests/gpu/record-fixtures.sh (the recipe `modules`).

    record-modules.py MODEL.py MODE OUT

Under max-autotune Inductor loads a module per kernel it benchmarks before
the output module; tests/runtime/test_runtime.py checks on this recording
that kernels.output_modules() keeps the output module only.
"""
import os
import sys
import tempfile

# a fresh compile: with a warm cache Inductor benchmarks nothing and loads
# the output module alone
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="kopt-modules-")
import torch  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from kopt.inductor import catch_output_modules  # noqa: E402
from kopt.loader import load_problem  # noqa: E402


def main() -> int:
    path, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    problem = load_problem({"kind": "torch", "path": path}, 0)
    torch._dynamo.reset()
    torch._inductor.config.fx_graph_cache = False
    compiled = torch.compile(problem.model, mode=mode)
    mods: list = []
    with catch_output_modules(mods), torch.no_grad():
        compiled(*problem.inputs(0))
        torch.cuda.synchronize()
    texts = []
    for m in mods:
        p = getattr(m, "__file__", None)
        if p:
            with open(p) as f:
                texts.append(f.read())
    if not texts:
        print("record-modules: Inductor loaded no module", file=sys.stderr)
        return 1
    with open(out, "w") as f:
        f.write("\n# ---- next graph ----\n".join(texts))
    print(f"{len(texts)} modules from {path} ({mode})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
