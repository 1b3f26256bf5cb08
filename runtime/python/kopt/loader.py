"""Loading problems: KernelBench-format models, standalone Triton kernels
and Helion kernel files (helion.py says their form).

A KernelBench-format file defines ``Model`` (an nn.Module), ``get_inputs()``
and ``get_init_inputs()``; both run with torch's default device set to the
GPU, so tensors they create without naming a device are made there. A
model served at several shapes (kopt(5), shape) gets the request's
``"shape"``, values for module-level names of its file: they are set after
the model is made (its weights are the same at every shape) and before
get_inputs() makes the inputs, and the problem's digest, which keys its
inputs and references in the worker's store, includes them. A
standalone Triton file defines one or more ``@triton.jit`` kernels,
``launch(*inputs)`` (runs them, returns the outputs), ``reference(*inputs)``
(plain torch) and ``get_inputs()``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys

import torch

from . import helion
from .problem import Problem, on_gpu, to_device  # noqa: F401 (to_device: the loader's callers too)


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


def file_digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def problem_digest(req: dict) -> str:
    """The file's digest, and the shape's names and values where the
    request has one: what a problem's inputs are made from."""
    d = file_digest(req["path"])
    shape = req.get("shape")
    if not shape:
        return d
    return d + "@" + hashlib.sha256(json.dumps(shape, sort_keys=True).encode()).hexdigest()[:12]


def apply_shape(mod, shape: dict | None, path: str) -> None:
    """Sets a shape's names in the model file's module; a list where the
    file holds a tuple is set as a tuple. A name the file does not define
    raises (koptmake's checker refuses it first where Python could read
    the file)."""
    for name, value in (shape or {}).items():
        if not hasattr(mod, name):
            raise AttributeError(f"the shape sets {name!r}, which {path} does not define at its top level")
        if isinstance(getattr(mod, name), tuple) and isinstance(value, list):
            value = tuple(value)
        setattr(mod, name, value)


def load_problem(req: dict, seed: int) -> Problem:
    kind, path = req["kind"], req["path"]
    if kind == "helion":
        helion.import_helion()   # before the file's own import of it
    mod = load_module(path)
    digest = problem_digest(req)
    if kind == "torch":
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(mod, name):
                raise AttributeError(f"{path} has no {name} (KernelBench format wants Model, get_inputs, get_init_inputs)")
        torch.manual_seed(seed)
        init, _ = on_gpu(lambda: list(mod.get_init_inputs()))
        init = to_device(init)
        torch.manual_seed(seed)
        # the weights are drawn on the GPU too (a large Linear's init takes
        # seconds on the CPU); the same seed gives the same weights
        model, where = on_gpu(lambda: mod.Model(*init))
        model = model.cuda().eval()
        # the shape's names: after the model, before get_inputs (master)
        apply_shape(mod, req.get("shape"), path)
        return Problem("torch", path, mod, model, model=model, digest=digest, seed=seed,
                       extra={"model_made_on": where})
    if kind == "triton":
        for name in ("launch", "reference", "get_inputs"):
            if not hasattr(mod, name):
                raise AttributeError(f"{path} has no {name} (a standalone Triton file wants launch, reference, get_inputs)")
        return Problem("triton", path, mod, mod.launch, reference=mod.reference, digest=digest, seed=seed)
    if kind == "helion":
        return helion.load(path, mod, digest, seed)
    raise ValueError(f"{kind} problems are not supported by this runtime")
