"""Loading problems: KernelBench-format models and standalone Triton kernels.

A KernelBench-format file defines ``Model`` (an nn.Module), ``get_inputs()``
and ``get_init_inputs()``. A standalone Triton file defines one or more
``@triton.jit`` kernels, ``launch(*inputs)`` (runs them, returns the outputs),
``reference(*inputs)`` (plain torch) and ``get_inputs()``.
"""

from __future__ import annotations

import hashlib
import importlib.util
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
        """Fresh inputs at the model's shapes: get_inputs() under a seed."""
        torch.manual_seed(seed)
        return list(to_device(self.module.get_inputs()))


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
