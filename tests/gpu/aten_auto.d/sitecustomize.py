"""TEST DOUBLE for tests/gpu/aten_auto.sh, loaded by the worker's Python
through PYTHONPATH: it changes what an ATen fallback computes.

On torch 2.11 an ATen fallback inside Inductor's code computes eager's own
result, bit for bit (bench/results/2026-12-01-h200-aten-probe: 28 of 28
models, reductions over permuted producers among them), so no real model
gives a fallback variant that changes the results. This double makes one
at that boundary: while kopt.inductor.aten_fallbacks keeps aten.sum out of
Inductor, the fallback sums a float16 copy of its input (another precision,
and so another result beyond the gates' tolerance). Everything else (the
compile, the worker, the check against eager, koptmake's decision) is the
real thing."""

import contextlib
import importlib.abc
import importlib.util
import sys


def _patch(mod):
    orig = mod.aten_fallbacks

    @contextlib.contextmanager
    def aten_fallbacks(ops):
        with orig(ops):
            if "aten.sum" in ops:
                import torch
                from torch._inductor import lowering

                for op in (torch.ops.aten.sum.dim_IntList, torch.ops.aten.sum.default):
                    fb = lowering.fallback_handler(op, add_to_fallback_set=False)

                    def half_sum(x, *args, _fb=fb, **kwargs):
                        dt = x.get_dtype()
                        return lowering.to_dtype(_fb(lowering.to_dtype(x, torch.float16), *args, **kwargs), dt)
                    lowering.lowerings[op] = half_sum
            yield  # orig's exit puts the real lowerings back
    mod.aten_fallbacks = aten_fallbacks


class _Hook(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name != "kopt.inductor":
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        self.real = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        self.real.exec_module(module)
        _patch(module)


sys.meta_path.insert(0, _Hook())
print("aten_auto test double: aten.sum fallbacks sum in float16", file=sys.stderr)
