"""tests/gpu/cudagraphs.py: CUDA graphs as a deployment choice (issue 22,
item 6), measured apart from koptmake's kernel figures.

    cudagraphs.py MODEL.py KOPT_OUT_DIR OUT.json > OUT.md

Times one model call, CUDA events, median of interleaved rounds after a
warm-up, under: eager; torch.compile's default, reduce-overhead,
max-autotune (CUDA graphs) and max-autotune-no-cudagraphs; koptmake's
deployment (kopt.backend) without graphs, and with cudagraphs="copy" and
"static". Checks that both contracts give the outputs of the same
deployment without graphs (atol and rtol 1e-5: the same kernels, replayed),
that "copy" gives them for other tensors of the same values, and that
"static" refuses another tensor. Where the chosen variant runs Inductor's
own CUDA graphs (autotune-cudagraphs won the race), the deployment adds
none (kopt.deploy.own_graphs): then both contracts must warn, capture no
graph of their own, and give the same outputs. Each deployment's agreement with eager
(atol and rtol 1e-3) is written beside, not checked: a rewrite that sums
in another order can differ by more and still pass the gates' float64 rule,
which tests/gpu/deploy.py applies. Exit 1 on a failed check.
These figures are the deployment's: koptmake's reports never include them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import sys
import warnings

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
import kopt  # noqa: E402
from kopt import deploy as D  # noqa: E402


_loads = [0]


def load(path: str):
    """the model from a fresh execution of its file: new code objects, so
    that Dynamo keeps each compile's cache apart without a reset"""
    _loads[0] += 1
    spec = importlib.util.spec_from_file_location(f"model_under_test_{_loads[0]}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = mod.Model(*mod.get_init_inputs()).eval()
        inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
    return model, inputs


def flat(out) -> list:
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat(o)]
    return []


def time_calls(fns: dict, inputs, rounds: int = 30, warm: int = 5) -> dict:
    ns = {k: [] for k in fns}
    with torch.no_grad():
        for fn in fns.values():
            for _ in range(warm):
                fn(*inputs)
        torch.cuda.synchronize()
        for _ in range(rounds):
            for k, fn in fns.items():   # interleaved
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                fn(*inputs)
                b.record()
                b.synchronize()
                ns[k].append(a.elapsed_time(b) * 1e6)
    return {k: statistics.median(v) for k, v in ns.items()}


def main() -> int:
    model_path, outdir, out_json = sys.argv[1:4]
    model, inputs = load(model_path)
    with torch.no_grad():
        ref = [t.clone() for t in flat(model(*inputs))]
    state = model.state_dict()

    def fresh():
        m, _ = load(model_path)
        m.load_state_dict(state)
        return m
    fns = {"eager": model}
    for mode in ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        fns[mode] = torch.compile(fresh(), mode=mode)
        with torch.no_grad():
            fns[mode](*inputs)
    ok = True
    checks = []
    plain = None   # the deployment's outputs without graphs

    def close(a, b, tol):
        return len(a) == len(b) and all(torch.allclose(x.double(), y.double(), atol=tol, rtol=tol) for x, y in zip(a, b))
    for name, graphs in (("kopt", None), ("kopt cudagraphs=copy", "copy"), ("kopt cudagraphs=static", "static")):
        be = kopt.backend(outdir, cudagraphs=graphs)
        variant = (be.table or be.tables[0]).variant
        inductors = bool(D.inductor_options(variant)[0].get("triton.cudagraphs"))
        fn = torch.compile(fresh(), backend=be)
        with torch.no_grad(), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(3):   # the check's call, the capture, a replay
                out = [t.clone() for t in flat(fn(*inputs))]
        said = any("runs Inductor's own CUDA graphs" in str(x.message) for x in w)
        if graphs is None:
            plain = out
        same = close(out, plain, 1e-5)
        replays = sum(g.replays for g in be.graphs)
        checks.append({"deployment": name, "variant": variant.get("name"),
                       "inductors_graphs": inductors, "close_to_eager_1e-3": close(out, ref, 1e-3),
                       **({} if graphs is None else {"same_as_without_graphs": same, "warned": said}),
                       "graphs": len(be.graphs), "replays": replays})
        if graphs is not None and inductors:  # the variant's own graphs kept, ours not added
            ok &= same and said and not be.graphs
        else:
            ok &= graphs is None or (same and replays > 0 and not said)
        if graphs == "copy":
            other = [x.clone() for x in inputs]
            with torch.no_grad():
                out2 = [t.clone() for t in flat(fn(*other))]
            same = close(out2, plain, 1e-5)
            checks.append({"deployment": name, "other_tensors_same_values": same})
            ok &= same
        if graphs == "static" and not inductors:
            refused = False
            try:
                with torch.no_grad():
                    fn(*[x.clone() for x in inputs])
            except ValueError:
                refused = True
            checks.append({"deployment": name, "refuses_other_tensors": refused})
            ok &= refused
        fns[name] = fn
    times = time_calls(fns, inputs)
    base = times["max-autotune-no-cudagraphs"]
    res = {"model": model_path, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
           "ns": times, "checks": checks,
           "note": "deployment figures with CUDA graphs; koptmake's kernel speedups never include them"}
    with open(out_json, "w") as f:
        json.dump(res, f, indent=2)
    print(f"# CUDA graphs as a deployment choice: {os.path.basename(model_path)} on {res['gpu']}, torch {torch.__version__}\n")
    print("Apart from koptmake's figures, which are measured without CUDA graphs.\n")
    print("| compile | us per call | over max-autotune-no-cudagraphs |\n| --- | ---: | ---: |")
    for k, v in times.items():
        print(f"| {k} | {v / 1000:.2f} | {base / v:.3f}x |")
    print()
    for c in checks:
        print(f"- {json.dumps(c)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
