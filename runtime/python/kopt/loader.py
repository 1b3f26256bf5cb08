"""Loading problems: KernelBench-format models and standalone Triton kernels.

A KernelBench-format file defines ``Model`` (an nn.Module), ``get_inputs()``
and ``get_init_inputs()``. A standalone Triton file defines one or more
``@triton.jit`` kernels, ``launch(*inputs)`` (runs them, returns the outputs),
``reference(*inputs)`` (plain torch) and ``get_inputs()``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import torch


def load_module(path: str):
    digest = hashlib.sha256(path.encode()).hexdigest()[:12]
    name = f"kopt_problem_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def to_device(x: Any, device: str = "cuda") -> Any:
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(v, device) for v in x)
    return x


# inputs kept per problem (host or device memory, as get_inputs made them)
INPUT_CACHE_BYTES = int(float(os.environ.get("KOPT_INPUT_CACHE_GIB", "16")) * 2**30)


def fresh(x: Any) -> Any:
    """A device copy of x that shares no memory with it."""
    if isinstance(x, torch.Tensor):
        return x.to("cuda", copy=True)
    if isinstance(x, (list, tuple)):
        return type(x)(fresh(v) for v in x)
    return x


@dataclass
class Problem:
    kind: str                      # "torch" or "triton"
    path: str
    module: Any
    fn: Callable                   # what is compiled (torch) or launched (triton)
    model: torch.nn.Module | None = None
    reference: Callable | None = None
    extra: dict = field(default_factory=dict)

    def inputs(self, seed: int) -> list:
        """Fresh inputs at the model's shapes: get_inputs() under a seed,
        made once per seed and copied anew for every call (a step runs the
        same seeds again and again; KernelBench-style inputs are drawn on
        the CPU, seconds per GiB). The copies are the caller's to modify."""
        hit = self.extra.get(("inputs", seed))
        if hit is not None:
            raw, cpu_rng, cuda_rng = hit
            torch.set_rng_state(cpu_rng)  # the generators as get_inputs left them
            torch.cuda.set_rng_state(cuda_rng)
            return [fresh(x) for x in raw]
        torch.manual_seed(seed)
        raw = list(self.module.get_inputs())
        size = sum(x.numel() * x.element_size() for x in raw if isinstance(x, torch.Tensor))
        if self.extra.get("input_bytes", 0) + size <= INPUT_CACHE_BYTES:
            self.extra[("inputs", seed)] = (raw, torch.get_rng_state(), torch.cuda.get_rng_state())
            self.extra["input_bytes"] = self.extra.get("input_bytes", 0) + size
        return [fresh(x) for x in raw]


def load_problem(req: dict, seed: int) -> Problem:
    kind, path = req["kind"], req["path"]
    mod = load_module(path)
    if kind == "torch":
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, name):
                raise AttributeError(f"{path} has no {name} (KernelBench format wants Model, get_inputs, get_init_inputs)")
        torch.manual_seed(seed)
        init = to_device(list(mod.get_init_inputs()))
        model = mod.Model(*init).cuda().eval()
        return Problem("torch", path, mod, model, model=model)
    if kind == "triton":
        for name in ("launch", "reference", "get_inputs"):
            if not hasattr(mod, name):
                raise AttributeError(f"{path} has no {name} (a standalone Triton file wants launch, reference, get_inputs)")
        return Problem("triton", path, mod, mod.launch, reference=mod.reference)
    raise ValueError(f"{kind} problems are not supported by this runtime")
