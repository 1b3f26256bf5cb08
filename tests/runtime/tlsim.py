"""tests/runtime/tlsim.py: a TEST DOUBLE of Triton for the CPU. It runs an
Inductor kernel's text (or a kernel transform's, kopt.transforms) program
by program on torch's CPU tensors, so that the tests can check that a
transform computes what Inductor's kernel computes, where no GPU is.

It is not Triton: a program's block is a torch tensor, a pointer a
buffer and a tensor of element offsets, ``tl.range`` Python's range, and
what Triton does with layouts, registers and caches does not exist here
(eviction policies, cache modifiers, stages and unrolling are accepted and
ignored). What it keeps is what a kernel computes: loads and stores with
their masks (an unmasked access outside its buffer raises, as
compute-sanitizer's memcheck would report it), broadcasting, reductions,
Inductor's helpers (welford, the online softmax) and libdevice's math.
Integer ``//`` and ``%`` are torch's (floor), which Triton's agree with
on the non-negative offsets Inductor divides.

Buffers are virtual: a buffer of n elements holds fill(offset) where it
was not written (a function of the offset, so a row of 4096 floats of a
512 MB tensor costs what that row costs), and the writes it took, which
two runs compare. Use: ``load_kernel(source)`` gives the kernel object (the
module's kernel of the source's name), ``run(kernel, args, config)``
runs every program of its grid, the grid as Inductor's launcher makes it
(Grid1D: cdiv(xnumel, XBLOCK), the number passed for xnumel).
"""

from __future__ import annotations

import math
import re
import sys
import types

import torch

DTYPES = {"int1": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
          "int64": torch.int64, "uint8": torch.uint8, "float16": torch.float16, "bfloat16": torch.bfloat16,
          "float32": torch.float32, "float64": torch.float64}

_state = {"pid": (0, 0, 0), "grid": (1, 1, 1)}


class OutOfBounds(IndexError):
    """An unmasked access outside its buffer."""


class Buffer:
    """n elements of dtype: fill(offsets) where not written, else the last
    value written there."""

    def __init__(self, name: str, n: int, dtype=torch.float32, fill=None):
        self.name, self.n, self.dtype = name, int(n), dtype
        self.fill = fill or (lambda off: torch.sin(off.to(torch.float64) * 0.7071 + 0.25).to(torch.float32))
        self.writes: dict = {}
        self._keys = self._vals = None

    def _table(self):
        if self._keys is None:
            ks = sorted(self.writes)
            self._keys = torch.tensor(ks, dtype=torch.int64)
            self._vals = torch.tensor([self.writes[k] for k in ks], dtype=torch.float64)
        return self._keys, self._vals

    def read(self, off: torch.Tensor) -> torch.Tensor:
        out = self.fill(off).to(torch.float64)
        if self.writes:
            keys, vals = self._table()
            at = torch.searchsorted(keys, off).clamp(max=len(keys) - 1)
            hit = keys[at] == off
            out = torch.where(hit, vals[at], out)
        return out.to(self.dtype)

    def write(self, off: torch.Tensor, val: torch.Tensor) -> None:
        v = val.to(self.dtype).to(torch.float64)
        for o, x in zip(off.reshape(-1).tolist(), v.reshape(-1).tolist()):
            self.writes[o] = x
        self._keys = None


class Ptr:
    """A buffer and the element offsets of a block (a tensor) or one (an int)."""

    def __init__(self, buf: Buffer, off=0):
        self.buf, self.off = buf, off

    def __add__(self, other):
        return Ptr(self.buf, self.off + other)

    __radd__ = __add__

    def __sub__(self, other):
        return Ptr(self.buf, self.off - other)


def _t(x, like=None):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, bool):
        return torch.tensor(x)
    if isinstance(x, int):
        return torch.tensor(x, dtype=torch.int64)
    return torch.tensor(float(x), dtype=like.dtype if isinstance(like, torch.Tensor) and like.is_floating_point()
                        else torch.float32)


def _access(ptr: Ptr, mask):
    off = _t(ptr.off)
    if mask is None:
        m = torch.ones_like(off, dtype=torch.bool)
    else:
        m = _t(mask).to(torch.bool)
        off, m = torch.broadcast_tensors(off, m)
    bad = m & ((off < 0) | (off >= ptr.buf.n))
    if bool(bad.any()):
        first = int(off[bad].reshape(-1)[0])
        raise OutOfBounds(f"{ptr.buf.name}: element {first} outside its {ptr.buf.n}")
    return off, m


def load(ptr, mask=None, other=None, boundary_check=None, padding_option="", cache_modifier="",
         eviction_policy="", volatile=False):
    off, m = _access(ptr, mask)
    val = ptr.buf.read(torch.where(m, off, torch.zeros_like(off)))
    fill = 0 if other is None else other
    return torch.where(m, val, _t(fill, val).to(val.dtype))


def store(ptr, value, mask=None, boundary_check=None, cache_modifier="", eviction_policy=""):
    off, m = _access(ptr, mask)
    v = _t(value)
    off, v, m = torch.broadcast_tensors(off, v, m)
    ptr.buf.write(off[m], v[m])


def _reduce(fn, x, axis, keep_dims=False):
    x = _t(x)
    if axis is None:
        return fn(x.reshape(-1), 0)
    r = fn(x, axis)
    return r.unsqueeze(axis) if keep_dims else r


def _sum(x, axis=None, keep_dims=False, dtype=None):
    return _reduce(lambda t, a: t.sum(a, dtype=t.dtype), x, axis, keep_dims)


def _max(x, axis=None, keep_dims=False, return_indices=False, **kw):
    return _reduce(lambda t, a: t.max(a).values, x, axis, keep_dims)


def _min(x, axis=None, keep_dims=False, return_indices=False, **kw):
    return _reduce(lambda t, a: t.min(a).values, x, axis, keep_dims)


def _where(c, a, b):
    c = _t(c).to(torch.bool)
    a, b = _t(a), _t(b)
    if a.dtype != b.dtype:
        dt = torch.promote_types(a.dtype, b.dtype) if a.dim() and b.dim() else (a.dtype if a.dim() else b.dtype)
        a, b = a.to(dt), b.to(dt)
    return torch.where(c, a, b)


class _Constexpr:
    def __init__(self, v=None):
        self.value = v

    def __call__(self, v):
        return v


def _range(a, b=None, c=1, num_stages=None, loop_unroll_factor=None, **kw):
    return range(int(a), int(b), int(c)) if b is not None else range(int(a))


def _cdiv(a, b):
    return (a + b - 1) // b


def _make_tl():
    tl = types.ModuleType("triton.language")
    for k, v in DTYPES.items():
        setattr(tl, k, v)
    tl.constexpr = _Constexpr
    tl.tensor = torch.Tensor
    tl.program_id = lambda axis: _state["pid"][axis]
    tl.num_programs = lambda axis: _state["grid"][axis]
    tl.arange = lambda a, b: torch.arange(int(a), int(b), dtype=torch.int64)
    tl.full = lambda shape, value, dtype: torch.full(list(shape), value, dtype=dtype)
    tl.zeros = lambda shape, dtype: torch.zeros(list(shape), dtype=dtype)
    tl.zeros_like = torch.zeros_like
    tl.broadcast_to = lambda x, shape: _t(x).expand(list(shape))
    tl.where = _where
    tl.load, tl.store = load, store
    tl.sum, tl.max, tl.min = _sum, _max, _min
    tl.maximum = lambda a, b: torch.maximum(_t(a), _t(b))
    tl.minimum = lambda a, b: torch.minimum(_t(a), _t(b))
    tl.range = tl.static_range = _range
    tl.cdiv = _cdiv
    tl.reshape = lambda x, shape, can_reorder=False: _t(x).reshape(list(shape))
    tl.exp, tl.log, tl.sqrt, tl.abs = torch.exp, torch.log, torch.sqrt, torch.abs
    tl.rsqrt = torch.rsqrt
    tl.dot = lambda a, b, acc=None, allow_tf32=None, out_dtype=None, **kw: (a.to(torch.float32) @ b.to(torch.float32)
                                                                              + (acc if acc is not None else 0))
    tl.multiple_of = tl.max_contiguous = lambda x, v: x
    return tl


def _make_helpers(tl):
    th = types.ModuleType("torch._inductor.runtime.triton_helpers")
    th.set_driver_to_gpu = lambda: None
    th.promote_to_tensor = _t
    th.max2, th.min2 = _max, _min
    th.maximum, th.minimum = tl.maximum, tl.minimum

    def welford_reduce(value, mean, m2, weight, first_iteration):
        if first_iteration:
            return value.clone(), torch.zeros_like(m2), torch.ones_like(weight)
        delta = value - mean
        new_weight = weight + 1
        new_mean = mean + delta / new_weight
        return new_mean, m2 + delta * (value - new_mean), new_weight

    def welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
        delta = mean_2 - mean_1
        new_weight = weight_1 + weight_2
        w2_over_w = torch.where(new_weight == 0.0, torch.zeros_like(new_weight), weight_2 / new_weight)
        return mean_1 + delta * w2_over_w, m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w, new_weight

    def welford(mean, m2, weight, dim):
        # the blocks combined along dim, as tl.reduce with welford_combine does
        acc = (mean.select(dim, 0), m2.select(dim, 0), weight.select(dim, 0))
        for i in range(1, mean.shape[dim]):
            acc = welford_combine(*acc, mean.select(dim, i), m2.select(dim, i), weight.select(dim, i))
        return acc

    def online_softmax_combine(lhs_max, lhs_sum, rhs_max, use_fast_math):
        out_max = torch.maximum(lhs_max, rhs_max)
        inf = out_max == float("-inf")
        lhs_scale = torch.where(inf, torch.ones_like(out_max), torch.exp(lhs_max - out_max))
        rhs_scale = torch.where(inf, torch.ones_like(out_max), torch.exp(rhs_max - out_max))
        return out_max, lhs_sum * lhs_scale + rhs_scale

    def online_softmax_reduce(lhs_max, lhs_sum, dim, use_fast_math):
        out_max = lhs_max.max(dim).values
        keep = out_max.unsqueeze(dim)
        delta = torch.where(keep == float("-inf"), torch.zeros_like(lhs_max), lhs_max - keep)
        return out_max, (lhs_sum * torch.exp(delta)).sum(dim)

    th.welford_reduce, th.welford_combine, th.welford = welford_reduce, welford_combine, welford
    th.online_softmax_combine, th.online_softmax_reduce = online_softmax_combine, online_softmax_reduce
    math_ = types.ModuleType("triton_helpers.math")
    for f in ("abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "ceil", "erf", "exp2", "log2"):
        setattr(math_, f, getattr(torch, f))
    math_.rsqrt = torch.rsqrt
    th.math = math_
    lib = types.ModuleType("libdevice")
    for f in ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "abs", "floor", "ceil", "sin", "cos", "exp2", "log1p",
              "expm1", "isnan", "isinf"):
        setattr(lib, f, getattr(torch, f))
    lib.pow = lambda a, b: torch.pow(_t(a), _t(b))
    th.libdevice = lib
    return th


class Kernel:
    """A kernel as the decorators leave it: its function and the
    heuristic's keyword arguments (inductor_meta's grid type among them)."""

    def __init__(self, fn, heuristic: str, meta: dict):
        self.fn, self.heuristic, self.meta = fn, heuristic, meta

    @property
    def name(self) -> str:
        return self.fn.__name__


def _heuristic(kind):
    def deco(*args, **meta):
        def wrap(jit):
            return Kernel(jit, kind, meta)
        return wrap
    return deco


def install() -> None:
    """Puts the doubles in sys.modules as triton, triton.language and
    torch._inductor.runtime's modules (a test process of its own)."""
    tl = _make_tl()
    triton = types.ModuleType("triton")
    triton.language = tl
    triton.jit = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)
    triton.cdiv = _cdiv
    triton.Config = lambda *a, **kw: (a, kw)
    th = _make_helpers(tl)
    heur = types.ModuleType("torch._inductor.runtime.triton_heuristics")
    for kind in ("pointwise", "reduction", "persistent_reduction", "template", "foreach", "split_scan",
                 "cooperative_reduction", "user_autotune", "fixed_config"):
        setattr(heur, kind, _heuristic(kind))
    hints = types.ModuleType("torch._inductor.runtime.hints")
    for h in ("AutotuneHint", "ReductionHint", "TileHint", "HeuristicType"):
        setattr(hints, h, types.SimpleNamespace(INNER=0, OUTER=1, OUTER_TINY=2, DEFAULT=3, SQUARE=4))
    hints.DeviceProperties = lambda **kw: kw
    ind = types.ModuleType("torch._inductor")
    rt = types.ModuleType("torch._inductor.runtime")
    rt.triton_helpers, rt.triton_heuristics, rt.hints = th, heur, hints
    ind.runtime = rt
    sys.modules.update({"triton": triton, "triton.language": tl, "torch._inductor": ind,
                        "torch._inductor.runtime": rt, "torch._inductor.runtime.triton_helpers": th,
                        "torch._inductor.runtime.triton_heuristics": heur, "torch._inductor.runtime.hints": hints})


def kernel_name(source: str) -> str:
    return re.search(r"^def (\w+)\(", source, re.M)[1]


def load_kernel(source: str) -> Kernel:
    install()
    ns: dict = {"__file__": "<tlsim>"}
    exec(compile(source, "<tlsim kernel>", "exec"), ns)
    return ns[kernel_name(source)]


def run(kernel: Kernel, args: dict, config: dict) -> None:
    """Every program of the kernel's grid, one after the other: args by
    parameter name (Ptr for pointers, ints for numels), config the launch
    config's constexprs (XBLOCK, R0_BLOCK, ...; num_warps and num_stages
    ignored)."""
    grid_type = kernel.meta.get("inductor_meta", {}).get("grid_type", "Grid1D")
    if grid_type != "Grid1D" and kernel.heuristic != "template":
        raise NotImplementedError(f"grid {grid_type}")
    const = {k: v for k, v in config.items() if k not in ("num_warps", "num_stages", "maxnreg")}
    if kernel.heuristic == "template":
        raise NotImplementedError("templates: their grid is their wrapper's")
    n = math.ceil(args["xnumel"] / const.get("XBLOCK", 1))
    _state["grid"] = (n, 1, 1)
    params = kernel.fn.__code__.co_varnames[:kernel.fn.__code__.co_argcount]
    call = {p: (args[p] if p in args else const[p]) for p in params if p in args or p in const}
    for pid in range(n):
        _state["pid"] = (pid, 0, 0)
        kernel.fn(**call)


def shrink_rows(source: str, rows: int) -> str:
    """The kernel with fewer rows: its static xnumel set to rows (the rows'
    length, and so every stride, kept)."""
    out, k = re.subn(r"^    xnumel = \d+$", f"    xnumel = {rows}", source, count=1, flags=re.M)
    if not k:
        raise ValueError("no static xnumel")
    return out
