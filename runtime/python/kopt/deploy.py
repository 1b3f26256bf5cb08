"""One-line deployment: a torch.compile backend that swaps in koptmake's
optimized kernels.

    model = torch.compile(model, backend=kopt.backend("kopt-out/mymodel"))

koptmake writes kopt-out/<model>/substitutions.json: the compile variant that
won (torch.compile mode and Inductor options) and, per Inductor kernel source
hash, the optimized kernel (new source and/or a pinned launch config). While
Inductor compiles, every output module it loads is searched for kernels whose
source hash is in the table; those are replaced. Wherever nothing matches
(other shapes, another torch version) Inductor's own kernel runs, and a
warning counts the misses.
"""

from __future__ import annotations

import json
import os
import warnings

from . import kernels as K


class Table:
    def __init__(self, path: str):
        if os.path.isdir(path):
            path = os.path.join(path, "substitutions.json")
        with open(path) as f:
            data = json.load(f)
        self.path = path
        self.variant = data.get("variant") or {}
        self.kernels: dict = data.get("kernels") or {}
        self.hits: set = set()
        self.seen = 0


def swap_into(mod, table: Table) -> None:
    path = getattr(mod, "__file__", None)
    if not path:
        return
    with open(path) as f:
        code = f.read()
    for d in K.split(code):
        table.seen += 1
        sub = table.kernels.get(d.hash)
        if sub is None or d.var not in mod.__dict__:
            continue
        obj = K.load_kernel(d.name, sub.get("source") or d.source, f"kopt {d.hash}")
        if sub.get("config"):
            K.force_config(obj, sub["config"])
        mod.__dict__[d.var] = obj
        table.hits.add(d.hash)


def swapping(table: Table):
    from .inductor import on_output_module

    return on_output_module(lambda mod: swap_into(mod, table))


def inductor_options(variant: dict) -> dict:
    import torch._inductor

    opts = {}
    if variant.get("mode"):
        opts.update(torch._inductor.list_mode_options(variant["mode"]))
    opts.update(variant.get("options") or {})
    return opts


def make_backend(outdir: str, **options):
    table = Table(outdir)

    def backend(gm, example_inputs):
        import torch
        from torch._inductor import config
        from torch._inductor.compile_fx import compile_fx

        opts = inductor_options(table.variant)
        opts.update(options)
        if table.variant.get("cudnn_benchmark"):
            torch.backends.cudnn.benchmark = True
        from .inductor import aten_fallbacks

        before = len(table.hits)
        fallbacks = list(table.variant.get("aten_fallback") or [])
        with config.patch(opts), aten_fallbacks(fallbacks), swapping(table):
            compiled = compile_fx(gm, example_inputs)
        missed = len(table.kernels) - len(table.hits)
        if missed > 0 and len(table.hits) == before:
            warnings.warn(f"kopt: {missed} of {len(table.kernels)} optimized kernels in {table.path} "
                          f"matched no kernel Inductor generated here; Inductor's kernels run instead",
                          stacklevel=2)
        return compiled

    backend.table = table
    return backend
