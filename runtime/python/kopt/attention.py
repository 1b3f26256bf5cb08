"""kopt::attention, the operator the attention rewrite (rewrites.py,
kopt.flash_attention) puts in place of a softmax between two batched
products:

    attention(q, kt, v, scale, mask) =
        softmax((q @ kt * scale).masked_fill(mask, -inf), dim=-1) @ v

q [B, M, D], kt [B, D, N] (the keys already transposed, any strides), v
[B, N, DV]: [B, M, DV], contiguous. mask (optional): booleans, True where
a score is left out (a causal mask, say), [1 or B, 1 or M, 1 or N], any
strides: read a tile at a time beside the scores' tile, and a tile whose
every score it leaves out (a causal mask's upper blocks) costs no dots; a
row with every score left out is NaN, as torch's softmax makes it. On CUDA one Triton kernel computes it
in a single pass over the keys with the online softmax (a running maximum
and sum per row, the partial output rescaled as the maximum grows), so the
B x M x N scores are never written: Inductor's code for the unfused form
writes them once and reads them twice or more (a 16384-token attention of
8 heads: 8.6 GB a pass). Strict precision forbids TF32, so its dots are
float32 products to float32's accuracy, and tensor cores give that too:
input_precision="tf32x3" splits each float32 operand into a TF32 high
part and a TF32 remainder and sums three TF32 products (hi*hi, hi*lo,
lo*hi) in float32 (a product of two TF32 numbers is exact in float32),
leaving out lo*lo. The products err by about 2^-21 of their size (the
remainder's rounding and lo*lo) against float32's 2^-24; the
sums are float32's in another order than cuBLAS's, as any other kernel's;
and the gates judge the result against float64 as any candidate's
(DESIGN.md, gate 3). input_precision="ieee" had run the dots on the FMA
units: on an H200 at 8 heads of 32 over 16384 tokens that kernel took
15.9 ms where Inductor's unfused form (cuBLAS's SGEMM) took 14.2
(bench/beyond/README.md). PRECISION names the choice. On the
CPU (the tests, a model traced there) it is the unfused form in torch.

Registered once a process (register()), with torch.library, so that a
compiled graph that calls it runs wherever kopt is imported: the worker,
kopt.backend's deployment, a compiled graph loaded from Inductor's cache.
"""

from __future__ import annotations

import functools

from . import oplib

OP = "kopt::attention"
SCHEMA = "attention(Tensor q, Tensor kt, Tensor v, float scale, Tensor? mask=None) -> Tensor"
# head sizes the kernel takes: q's and v's last axes, each held in registers
MAX_HEAD = 128


def _reference(q, kt, v, scale, mask=None):
    import torch

    s = torch.bmm(q, kt) * scale
    if mask is not None:
        s = s.masked_fill(mask, float("-inf"))
    return torch.softmax(s, dim=-1).bmm(v)


def _meta(q, kt, v, scale, mask=None):
    return q.new_empty((q.shape[0], q.shape[1], v.shape[2]))


def _pow2(n: int) -> int:
    p = 16  # tl.dot's least size
    while p < n:
        p *= 2
    return p


# how the dots reach float32's accuracy (tl.dot's input_precision): "tf32x3"
# on tensor cores, or "ieee" on the FMA units
PRECISION = "tf32x3"
# the launch configs Triton's autotuner times at each new size (query rows
# per program, keys per step, warps, stages): tiles that Hopper's
# warp-group MMA takes (64 rows a warp group)
CONFIGS = [(128, 64, 4, 2), (128, 128, 8, 2), (64, 64, 4, 3), (128, 32, 4, 3), (64, 128, 4, 2)]
LOG2E = 1.4426950408889634


@functools.lru_cache(maxsize=1)
def _kernel():
    import triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BM": bm, "BN": bn}, num_warps=w, num_stages=st)
                              for bm, bn, w, st in CONFIGS], key=["M", "N", "D", "DV"])
    @triton.jit
    def kopt_flash_attention_fwd(Q, KT, V, O, MK, scale, M, N,
                                 sqb, sqm, sqd, skb, skd, skn, svb, svn, svd, sob, som, sod, smb, smm, smn,
                                 D: tl.constexpr, DV: tl.constexpr, BD: tl.constexpr, BDV: tl.constexpr,
                                 BM: tl.constexpr, BN: tl.constexpr, PREC: tl.constexpr,
                                 HAS_MASK: tl.constexpr):
        pm = tl.program_id(0)
        b = tl.program_id(1).to(tl.int64)
        om = pm * BM + tl.arange(0, BM)
        od = tl.arange(0, BD)
        odv = tl.arange(0, BDV)
        q = tl.load(Q + b * sqb + om[:, None] * sqm + od[None, :] * sqd,
                    mask=(om[:, None] < M) & (od[None, :] < D), other=0.0)
        mi = tl.full([BM], float("-inf"), tl.float32)  # each row's running maximum
        li = tl.zeros([BM], tl.float32)                # and its sum of exponentials
        acc = tl.zeros([BM, BDV], tl.float32)
        for start in range(0, N, BN):
            on = start + tl.arange(0, BN)
            if HAS_MASK:
                out = tl.load(MK + b * smb + om[:, None] * smm + on[None, :] * smn,
                              mask=(om[:, None] < M) & (on[None, :] < N), other=1)
                # a tile whose every score is left out (a causal mask's
                # upper blocks) changes nothing: its dots are not done
                live = tl.min(out.to(tl.int32)) == 0
            else:
                live = True
            if live:
                kt = tl.load(KT + b * skb + od[:, None] * skd + on[None, :] * skn,
                             mask=(od[:, None] < D) & (on[None, :] < N), other=0.0)
                # the scores in base 2 (scale carries log2(e)): exp2 where exp was
                s = tl.dot(q, kt, input_precision=PREC) * scale
                s = tl.where(on[None, :] < N, s, float("-inf"))
                if HAS_MASK:
                    s = tl.where(out != 0, float("-inf"), s)
                mn = tl.maximum(mi, tl.max(s, 1))
                if HAS_MASK:  # a row whose scores so far are all left out: its maximum is -inf
                    ms = tl.where(mn == float("-inf"), 0.0, mn)
                    p = tl.exp2(s - ms[:, None])
                    alpha = tl.exp2(mi - ms)
                else:
                    p = tl.exp2(s - mn[:, None])
                    alpha = tl.exp2(mi - mn)
                li = li * alpha + tl.sum(p, 1)
                v = tl.load(V + b * svb + on[:, None] * svn + odv[None, :] * svd,
                            mask=(on[:, None] < N) & (odv[None, :] < DV), other=0.0)
                acc = acc * alpha[:, None] + tl.dot(p, v, input_precision=PREC)
                mi = mn
        acc = acc / li[:, None]
        tl.store(O + b * sob + om[:, None] * som + odv[None, :] * sod, acc,
                 mask=(om[:, None] < M) & (odv[None, :] < DV))

    return kopt_flash_attention_fwd


def _cuda(q, kt, v, scale, mask=None):
    import torch

    B, M, D = (int(e) for e in q.shape)
    N, DV = int(kt.shape[2]), int(v.shape[2])
    o = torch.empty((B, M, DV), device=q.device, dtype=q.dtype)
    if B == 0 or M == 0 or DV == 0:
        return o
    if N == 0:  # a softmax over no keys: NaN, as torch's
        return o.fill_(float("nan"))
    # the mask's broadcast axes with stride 0; without one, the kernel reads none
    mk = mask.expand(B, M, N) if mask is not None else o
    _kernel()[lambda meta: ((M + meta["BM"] - 1) // meta["BM"], B)](
        q, kt, v, o, mk, float(scale) * LOG2E, M, N, *q.stride(), *kt.stride(), *v.stride(), *o.stride(),
        *(mk.stride() if mask is not None else (0, 0, 0)),
        D=D, DV=DV, BD=_pow2(D), BDV=_pow2(DV), PREC=PRECISION, HAS_MASK=mask is not None)
    return o


def register() -> None:
    """Define kopt::attention in this process (once)."""
    oplib.define(SCHEMA, _reference, _cuda, _meta)


def op():
    """torch.ops.kopt.attention.default, registered"""
    register()
    return oplib.op(SCHEMA)
