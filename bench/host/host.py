"""bench/host/host.py: where a host-bound model call's time goes.

    python3 bench/host/host.py MODEL.py [CONFIG...] > OUT.md

For each compile configuration of a KernelBench-format model (below), in
one process, each from a fresh load of the model file: the median of 30
interleaved calls, each from an idle GPU with the L2 flushed, in CUDA-event
time (koptmake's race measures so); the same with a GPU spin queued ahead
(the kernels alone: device time); the host's time to enqueue a call
(perf_counter, no synchronize inside); and back to back, 200 calls, time
per call. Then, for the configuration named by --profile, the top of a
cProfile of 200 calls: which Python functions hold the host's time.

Configurations (CONFIG, default all): eager; mnc (max-autotune-no-
cudagraphs); fold (mnc + kopt.linear_reduction_fold); fold-cpp
(+ cpp_wrapper); fold-freeze (+ freezing); fold-freeze-cpp; floor (a
compiled x * 2 on a 4-element tensor: the least a compiled call costs
here). A benchmark: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time

import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from kopt import inductor, rewrites  # noqa: E402
from kopt import measure as M  # noqa: E402
from kopt.loader import load_module, to_device  # noqa: E402

CONFIGS = {
    "eager": None,
    "mnc": {},
    "mnc-cpp": {"cpp_wrapper": True},
    "fold": {"kopt.linear_reduction_fold": True},
    "fold-cpp": {"kopt.linear_reduction_fold": True, "cpp_wrapper": True},
    "fold-freeze": {"kopt.linear_reduction_fold": True, "freezing": True},
    "fold-freeze-cpp": {"kopt.linear_reduction_fold": True, "freezing": True, "cpp_wrapper": True},
    "floor": "floor",
}
def load(path):
    mod = load_module(path)   # a fresh execution: new code objects, a Dynamo cache apart
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = mod.Model(*mod.get_init_inputs()).eval()
    return model, list(to_device(mod.get_inputs()))


def build(path, name, state):
    cfg = CONFIGS[name]
    if cfg == "floor":
        x = torch.randn(4, device="cuda")
        return torch.compile(lambda t: t * 2), [x]
    model, inputs = load(path)
    model.load_state_dict(state)
    if cfg is None:
        return model, inputs
    opts = dict(torch._inductor.list_mode_options("max-autotune-no-cudagraphs"))
    opts.update(cfg)
    ind, own = rewrites.split(opts)
    return torch.compile(model, backend=inductor.rewriting_backend(ind, own)), inputs


def enqueue_s(fn, inputs, n=20):
    return M.enqueue_seconds(lambda: fn(*inputs), n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("configs", nargs="*")
    ap.add_argument("--profile", default="fold")
    a = ap.parse_args()
    names = a.configs or list(CONFIGS)
    ref_model, ref_inputs = load(a.model)
    state = ref_model.state_dict()
    with torch.no_grad():
        ref = ref_model(*ref_inputs)
    flush = torch.empty(64 << 20, dtype=torch.int32, device="cuda")
    fns = {}
    print(f"# host time: {os.path.basename(a.model)} on {torch.cuda.get_device_name()}, torch {torch.__version__}\n")
    for name in names:
        t = time.perf_counter()
        try:
            fn, inputs = build(a.model, name, state)
            with torch.no_grad():
                for _ in range(3):
                    out = fn(*inputs)
            torch.cuda.synchronize()
        except Exception as e:  # a configuration that fails is reported, not fatal
            print(f"- {name}: failed: {type(e).__name__}: {str(e)[:300]}")
            continue
        close = "" if name == "floor" else \
            f", close to eager at 1e-2: {torch.allclose(out.double(), ref.double(), atol=1e-2, rtol=1e-2)}"
        print(f"- {name}: compiled in {time.perf_counter() - t:.1f} s{close}")
        fns[name] = (fn, inputs)
    sys.stdout.flush()
    rows = {k: {"idle": [], "device": []} for k in fns}
    with torch.no_grad():
        host = {k: enqueue_s(fn, inp) for k, (fn, inp) in fns.items()}
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(30):
            for k, (fn, inp) in fns.items():
                for mode in ("idle", "device"):
                    flush.zero_()
                    torch.cuda.synchronize()
                    if mode == "device":
                        torch.cuda._sleep(int(max(4 * host[k], 2e-4) * 2.0e9))
                    s.record()
                    fn(*inp)
                    e.record()
                    torch.cuda.synchronize()
                    rows[k][mode].append(s.elapsed_time(e) * 1e3)
        steady = {}
        for k, (fn, inp) in fns.items():
            torch.cuda.synchronize()
            t = time.perf_counter()
            for _ in range(200):
                fn(*inp)
            torch.cuda.synchronize()
            steady[k] = (time.perf_counter() - t) / 200 * 1e6
    print("\n| config | idle start (us) | device (us) | host enqueue (us) | back to back (us per call) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for k in fns:
        print(f"| {k} | {statistics.median(rows[k]['idle']):.1f} | {statistics.median(rows[k]['device']):.1f} "
              f"| {host[k] * 1e6:.1f} | {steady[k]:.1f} |")
    if a.profile in fns:
        fn, inp = fns[a.profile]
        pr = cProfile.Profile()
        with torch.no_grad():
            pr.enable()
            for _ in range(200):
                fn(*inp)
            pr.disable()
        torch.cuda.synchronize()
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(25)
        print(f"\n## cProfile of 200 calls, {a.profile}, by own time\n\n```")
        print("\n".join(line for line in buf.getvalue().splitlines() if line.strip())[:6000])
        print("```")
        buf = io.StringIO()
        pstats.Stats(pr, stream=buf).sort_stats("cumulative").print_stats(25)
        print(f"\n## by cumulative time\n\n```")
        print("\n".join(line for line in buf.getvalue().splitlines() if line.strip())[:6000])
        print("```")


if __name__ == "__main__":
    main()
