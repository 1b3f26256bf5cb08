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
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import state


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


def fresh(x: Any) -> Any:
    """A device copy of x that shares no memory with it."""
    if isinstance(x, torch.Tensor):
        return x.to("cuda", copy=True)
    if isinstance(x, (list, tuple)):
        return type(x)(fresh(v) for v in x)
    return x


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


def on_gpu(make: Callable[[], Any]) -> tuple[Any, str]:
    """make() with tensors created on the GPU (torch's default device set
    to cuda for the call): get_inputs() in KernelBench files draws with
    torch.rand and friends, which take seconds per GiB on the CPU and
    milliseconds on the GPU. A file that cannot run that way (numpy, an
    explicit CPU op that then meets a CUDA tensor) runs on the CPU."""
    try:
        with torch.device("cuda"):
            return make(), "cuda"
    except Exception:  # the file's own code; it runs again on the CPU
        return make(), "cpu"


# the random generators' states as get_inputs() left them, per inputs key
# (a model whose forward draws random numbers draws the same ones)
RNG: dict = {}


@dataclass
class Problem:
    kind: str                      # "torch", "triton" or "helion"
    path: str
    module: Any
    fn: Callable                   # what is compiled (torch) or launched (triton)
    model: torch.nn.Module | None = None
    reference: Callable | None = None
    digest: str = ""               # the file's content hash: the inputs' key
    seed: int = 0                  # the model's seed (its weights)
    extra: dict = field(default_factory=dict)

    def master(self, seed: int) -> tuple[list, bool]:
        """(inputs, was_cached): seed's inputs as get_inputs() makes them
        under manual_seed(seed) on the GPU, kept in the worker's store (the
        same seed gives the same tensors on every worker and every run).
        Not to be modified: callers get copies from inputs()."""
        key = ("inputs", self.path, self.digest, seed)
        raw = state.store().get(key)
        if raw is not None and key in RNG:
            cpu_rng, cuda_rng = RNG[key]
            torch.set_rng_state(cpu_rng)  # the generators as get_inputs left them
            torch.cuda.set_rng_state(cuda_rng)
            return raw, True
        torch.manual_seed(seed)
        raw, where = on_gpu(lambda: list(self.module.get_inputs()))
        self.extra["inputs_made_on"] = where
        raw = [fresh(x) if isinstance(x, torch.Tensor) and not x.is_cuda else x for x in raw]
        RNG[key] = (torch.get_rng_state(), torch.cuda.get_rng_state())
        state.store().put(key, raw, spill=where != "cuda")
        return raw, False

    def inputs(self, seed: int) -> list:
        """Fresh inputs at the model's shapes: a device-to-device copy of the
        seed's master inputs. The copies are the caller's to modify."""
        return [fresh(x) for x in self.master(seed)[0]]


def load_problem(req: dict, seed: int) -> Problem:
    kind, path = req["kind"], req["path"]
    if kind == "helion":
        from . import helion

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
        from . import helion

        return helion.load(path, mod, digest, seed)
    raise ValueError(f"{kind} problems are not supported by this runtime")
