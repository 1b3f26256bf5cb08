"""A problem and its compiled form: the types every kind of problem
(a KernelBench model, a standalone Triton file, a Helion kernel file)
shares, below the modules that load (loader.py), compile (inductor.py,
helion.py) and verify (verify.py) them, so that each of those imports a
kind's module (helion.py) at its top and none imports another in a loop.

Problem holds the loaded file and makes its inputs per seed (kept in the
worker's store, state.py); Compiled, what compiling it gave (the callable,
the output modules and their kernels); Swaps, kernels swapped into a
Compiled while a block runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from . import kernels as K
from . import state
from .graphcopy import variant_graphs


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


@dataclass
class Compiled:
    problem: Problem
    variant: dict
    fn: Any                                  # the compiled callable
    modules: list = field(default_factory=list)
    decls: list = field(default_factory=list)     # KernelDecl, in output-code order
    output_code: str = ""
    compile_s: float = 0.0
    phases: dict = field(default_factory=dict)   # compile_time.measured's parts of compile_s
    load_s: float = 0.0                      # the model's file run, the model built, before the compile
    around_s: float = 0.0                    # outside the compile's spans: imports, wrappers, the code read
    key: str = ""                            # the worker's key for it (worker.py)
    graph_keys: list = field(default_factory=list)  # Inductor's graph-cache keys it looked up (graphkeys.py)

    def kernel_objects(self) -> dict:
        out = {}
        for d in self.decls:
            for m in self.modules:
                if d.var in m.__dict__:
                    out[d.name] = m.__dict__[d.var]
                    break
        return out

    @property
    def graphs(self) -> bool:
        """whether the compiled code runs as CUDA graphs (graphcopy.variant_graphs)"""
        return variant_graphs(self.variant)

    def run(self, inputs):
        # cuDNN's algorithm choice is a flag of the process and a setting of
        # the variant (cudnn_benchmark): set at each call, since variants
        # compiled side by side in one worker share the process
        torch.backends.cudnn.benchmark = bool(self.variant.get("cudnn_benchmark", False))
        with torch.no_grad():
            if not self.graphs:
                return self.fn(*inputs)
            # CUDA graphs (Inductor's trees): each call a step of its own,
            # and its outputs, which the next replay overwrites in the
            # graphs' pool, copied out (the gates keep outputs across calls)
            torch.compiler.cudagraph_mark_step_begin()
            out = self.fn(*inputs)
            return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, out)


class Swaps:
    """Several kernel swaps at once (stitch), or none (the baseline)."""

    def __init__(self, c: Compiled, objs: dict):
        self.swaps = [K.Swap(c.modules, var, k) for var, k in objs.items()]

    def __enter__(self):
        for s in self.swaps:
            s.__enter__()

    def __exit__(self, *exc):
        for s in reversed(self.swaps):
            s.__exit__(*exc)
        return False
