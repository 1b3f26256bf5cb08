"""bench/overhead/graphs.py: how much of a model's time is the host's, and
what CUDA graphs would take back. For each KernelBench-format model given
(default: the examples' single-operator models), compiles it with torch.compile's
defaults and with mode="reduce-overhead" (CUDA graphs), and times both side
by side: interleaved calls, CUDA events around each call after a sync, as
koptmake's stitch measures a model. Prints a Markdown table, a line per
model as it is measured. A benchmark: it prints figures, it asserts nothing.

    python3 bench/overhead/graphs.py [MODEL.py ...]
"""
import importlib.util
import math
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SINGLE = ["layernorm", "col_mean", "row_sum", "softmax", "rmsnorm", "cross_entropy", "elementwise", "avgpool2d",
          "maxpool3d", "conv2d_relu"]


def load(path):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def timed(fn, args, graphs):
    if graphs:
        torch.compiler.cudagraph_mark_step_begin()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn(*args)
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3


def main():
    paths = sys.argv[1:] or [os.path.join(HERE, "..", "..", "examples", "models", m + ".py") for m in SINGLE]
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    print("| model | torch.compile (us) | reduce-overhead (us) | ratio | one CUDA graph, fixed inputs (us) | ratio |",
          flush=True)
    print("| --- | ---: | ---: | ---: | ---: | ---: |", flush=True)
    ratios = []
    for p in paths:
        mod = load(p)
        torch.manual_seed(0)
        model = mod.Model(*mod.get_init_inputs()).cuda().eval()
        args = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
        with torch.no_grad():
            d = torch.compile(model)
            g = torch.compile(model, mode="reduce-overhead")
            for _ in range(5):
                timed(d, args, False)
                timed(g, args, True)
            # the compiled code captured once into a CUDA graph over these
            # very inputs: no host work and no input copy, the bound
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    d(*args)
            torch.cuda.current_stream().wait_stream(side)
            cg = torch.cuda.CUDAGraph()
            with torch.cuda.graph(cg):
                d(*args)
            td, tg, tc = [], [], []
            for _ in range(30):
                td.append(timed(d, args, False))
                tg.append(timed(g, args, True))
                tc.append(timed(cg.replay, [], False))
        md, mg, mc = statistics.median(td), statistics.median(tg), statistics.median(tc)
        ratios.append(md / mc)
        print(f"| {os.path.basename(p)[:-3]} | {md:.1f} | {mg:.1f} | {md / mg:.3f}x | {mc:.1f} | {md / mc:.3f}x |",
              flush=True)
        torch._dynamo.reset()
    print(f"\nGeometric mean, one CUDA graph over torch.compile: "
          f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}x over {len(ratios)} models.")


if __name__ == "__main__":
    main()
