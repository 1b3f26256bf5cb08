"""What a worker keeps on its GPU between requests, within a memory budget.

A verify is a few model calls on the GPU; what made it cost minutes was the
work around them: inputs drawn on the CPU and copied over for every seed, the
baseline's outputs and the float64 reference computed again for every
candidate, the model compiled again whenever another model's step came in
between. The worker now keeps, per model:

- the master copy of each seed's inputs, made on the GPU by get_inputs()
  under the seed; every call gets a device-to-device copy (loader.py);
- the compiled baseline's outputs per (model, variant, seed, output code);
- the float64 reference per (model file, model seed, input seed), which
  depends on no variant;
- the eager model's outputs per seed (the baseline check, verify.py).

Entries live in one least-recently-used store with a byte budget on the GPU
(KOPT_STATE_GIB, default a quarter of the GPU's memory, less where
koptmake may run several workers on the GPU: gpu_share). An entry pushed out
of it moves to host memory, while the host budget (KOPT_STATE_HOST_GIB,
default 32) lasts, only if making it again costs more than the round trip
over PCIe: a baseline's outputs are one model call (milliseconds) where a
6 GB round trip through pageable memory took seconds on the H200 (a 40 s
verify of a softmax over 6.4 GB). Otherwise it is dropped and made again
when next needed: a miss costs time, never a wrong answer. Before a request
that needs room, trim() pushes entries out until the GPU has it.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from typing import Any, Callable

import torch


HOST_BYTES_PER_S = 4e9   # one way, pageable host memory (a conservative figure)


def _gib(name: str, default: float) -> int:
    try:
        return int(float(os.environ.get(name, default)) * 2**30)
    except ValueError:
        return int(default * 2**30)


def gpu_share() -> int:
    """How many workers koptmake may run on this worker's GPU at once
    (KOPT_GPU_SHARE, engine/worker_pool.c): captures compile side by side,
    and the idle ones keep what they hold while one times."""
    try:
        return max(1, int(os.environ.get("KOPT_GPU_SHARE", "1")))
    except ValueError:
        return 1


def default_gpu_budget(total: int, share: int) -> int:
    """The store's GPU budget on a GPU of `total` bytes that `share`
    workers may share: a quarter of it, and 1 / (2 x share) where more than
    two share it, so that together they keep at most half the GPU from
    the one that times (four workers with a quarter each had left a level-1
    problem's 8 GiB input no room on an H100)"""
    return int(total / max(4, 2 * share))


def nbytes(value: Any) -> int:
    """The bytes value's tensors span: for one that is not dense (a slice of
    a larger buffer, kept with its strides: copy_strided), the gaps too."""
    if isinstance(value, torch.Tensor):
        if not value.numel():
            return 0
        if any(st == 0 and n > 1 for n, st in zip(value.shape, value.stride())):
            return value.numel() * value.element_size()  # overlapping: its copies are dense
        return (1 + sum((n - 1) * st for n, st in zip(value.shape, value.stride()))) * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    return 0


def copy_strided(t: torch.Tensor, device) -> torch.Tensor:
    """A copy of t on device with t's own strides. clone() and to() give a
    tensor that is not dense (a slice of a larger buffer: a model returning
    its final state, new_states[:, -1]) contiguous strides, and the
    correctness gate compares the baseline's outputs with a candidate's
    strides and all. An overlapping tensor (an expanded one) has no such
    copy: to() then, dense."""
    out = torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device=device)
    try:
        out.copy_(t)
    except RuntimeError:  # more than one element at one address
        return t.to(device, copy=True)
    return out


def move(value: Any, device: str) -> Any:
    if isinstance(value, torch.Tensor):
        return copy_strided(value, device)
    if isinstance(value, (list, tuple)):
        return type(value)(move(v, device) for v in value)
    if isinstance(value, dict):
        return {k: move(v, device) for k, v in value.items()}
    return value


class Store:
    """LRU of values (tensors, lists of them) by key, GPU first, host second."""

    def __init__(self, gpu_budget: int | None = None, host_budget: int | None = None):
        if gpu_budget is None:
            total = torch.cuda.get_device_properties(0).total_memory if torch.cuda.is_available() else 0
            gpu_budget = _gib("KOPT_STATE_GIB", default_gpu_budget(total, gpu_share()) / 2**30)
        self.gpu_budget = gpu_budget
        self.host_budget = _gib("KOPT_STATE_HOST_GIB", 32) if host_budget is None else host_budget
        self.gpu: OrderedDict = OrderedDict()    # key -> (value, bytes)
        self.host: OrderedDict = OrderedDict()
        self.gpu_bytes = 0
        self.host_bytes = 0
        self.nospill: set = set()
        self.hits = 0
        self.misses = 0

    def get(self, key) -> Any | None:
        """The value on the GPU, or None. A host entry is copied back."""
        hit = self.gpu.get(key)
        if hit is not None:
            self.gpu.move_to_end(key)
            self.hits += 1
            return hit[0]
        hit = self.host.pop(key, None)
        if hit is not None:
            self.host_bytes -= hit[1]
            self.hits += 1
            value = move(hit[0], "cuda")
            self._put_gpu(key, value, hit[1])
            return value
        self.misses += 1
        return None

    def where(self, key) -> str | None:
        return "gpu" if key in self.gpu else "host" if key in self.host else None

    def put(self, key, value: Any, spill: bool = True, cost_s: float | None = None) -> Any:
        """Stores value (on the GPU: the caller's tensors themselves). With
        spill false, or a making cost cost_s below the PCIe round trip, an
        entry pushed off the GPU is dropped rather than moved to host
        memory."""
        size = nbytes(value)
        self.drop(key)
        if not spill or (cost_s is not None and cost_s < 2 * size / HOST_BYTES_PER_S):
            spill = False
            self.nospill.add(key)
        if size <= self.gpu_budget:
            self._put_gpu(key, value, size)
        elif size <= self.host_budget and spill:
            self._put_host(key, move(value, "cpu"), size)
        return value

    def fetch(self, key, make: Callable[[], Any], spill: bool = True) -> tuple[Any, bool]:
        """(value, was_cached): the stored value, or make()'s, stored with
        what making it cost."""
        value = self.get(key)
        if value is not None:
            return value, True
        t0 = time.perf_counter()
        value = make()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return self.put(key, value, spill, time.perf_counter() - t0), False

    def trim(self, need: int) -> None:
        """Pushes entries off the GPU, least recently used first, until
        `need` bytes are free for the request at hand (free memory plus what
        torch's allocator holds unused)."""
        def avail() -> int:
            free = torch.cuda.mem_get_info()[0]
            return free + torch.cuda.memory_reserved() - torch.cuda.memory_allocated()
        if not torch.cuda.is_available() or avail() >= need:
            return
        while self.gpu and avail() < need:
            key, (value, size) = self.gpu.popitem(last=False)
            self.gpu_bytes -= size
            self._spill(key, value, size)
            del value
        torch.cuda.empty_cache()

    def drop(self, key) -> None:
        self.nospill.discard(key)
        hit = self.gpu.pop(key, None)
        if hit is not None:
            self.gpu_bytes -= hit[1]
        hit = self.host.pop(key, None)
        if hit is not None:
            self.host_bytes -= hit[1]

    def drop_where(self, pred: Callable[[Any], bool]) -> None:
        for key in [k for k in list(self.gpu) + list(self.host) if pred(k)]:
            self.drop(key)

    def clear(self) -> None:
        self.gpu.clear()
        self.host.clear()
        self.nospill.clear()
        self.gpu_bytes = self.host_bytes = 0

    def shrink(self) -> None:
        """Everything to host memory (or dropped): the GPU is needed."""
        while self.gpu:
            key, (value, size) = self.gpu.popitem(last=False)
            self.gpu_bytes -= size
            self._spill(key, value, size)

    def _put_gpu(self, key, value, size: int) -> None:
        while self.gpu and self.gpu_bytes + size > self.gpu_budget:
            old, (v, s) = self.gpu.popitem(last=False)
            self.gpu_bytes -= s
            self._spill(old, v, s)
        self.gpu[key] = (value, size)
        self.gpu_bytes += size

    def _spill(self, key, value, size: int) -> None:
        if key in self.nospill or size > self.host_budget:
            self.nospill.discard(key)
            return
        self._put_host(key, move(value, "cpu"), size)

    def _put_host(self, key, value, size: int) -> None:
        while self.host and self.host_bytes + size > self.host_budget:
            _, (_, s) = self.host.popitem(last=False)
            self.host_bytes -= s
        self.host[key] = (value, size)
        self.host_bytes += size

    def stats(self) -> dict:
        return {"gpu_bytes": self.gpu_bytes, "host_bytes": self.host_bytes, "entries": len(self.gpu) + len(self.host),
                "hits": self.hits, "misses": self.misses}


_STORE: Store | None = None


def store() -> Store:
    global _STORE
    if _STORE is None:
        _STORE = Store()
    return _STORE
