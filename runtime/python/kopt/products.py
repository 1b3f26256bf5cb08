"""kopt::products, the operator the split-precision rewrite (rewrite_products.py,
kopt.tf32x3_products) puts in place of a float32 matrix product:

    products(a, b, bias) = a @ b + bias

a [B, M, K], b [B, K, N] (any strides, a batch stride of 0 where one
operand is the same for every batch: a 1x1 convolution's weight), bias
(optional) any shape that broadcasts to [B, M, N] (a linear layer's [N],
a 1x1 convolution's [M, 1]); the result [B, M, N], contiguous. Two-dimensional
a and b (B left out) give a two-dimensional result.

Strict precision forbids TF32, and cuBLAS computes a float32 product on the
FMA units (its SGEMM: about 51 TFLOP/s on an H100, bench/results). Tensor
cores reach float32's accuracy by splitting each operand: tl.dot's
input_precision="tf32x3" takes each float32 number as a TF32 high part and
a TF32 remainder and sums three TF32 products (hi*hi, hi*lo, lo*hi) in
float32 (a product of two TF32 numbers is exact in float32), leaving out
lo*lo. The products err by about 2^-21 of their size against float32's
2^-24; the sums are float32's in another order than cuBLAS's, as any other
kernel's; the gates judge the result against float64 as any candidate's
(DESIGN.md, gate 3), as they judge kopt::attention's tf32x3 dots. On the
CPU (the tests, a model traced there) it is torch's own product.

Registered once a process (register()), with torch.library, so that a
compiled graph that calls it runs wherever kopt is imported (the worker,
kopt.backend's deployment, a compiled graph loaded from Inductor's cache).
"""

from __future__ import annotations

import functools

from . import oplib

SCHEMA = "products(Tensor a, Tensor b, Tensor? bias=None) -> Tensor"
# how the dots reach float32's accuracy (tl.dot's input_precision)
PRECISION = "tf32x3"
# the launch configs Triton's autotuner times at each new size (rows,
# columns and depth per step of a program, warps, stages): tiles that
# Hopper's warp-group MMA takes (64 rows a warp group), float32 operands
# in shared memory (a 128x32 tile of each: 32 KiB a stage)
CONFIGS = [(128, 128, 32, 8, 3), (128, 64, 32, 4, 4), (64, 128, 32, 4, 4), (128, 256, 32, 8, 3),
           (256, 128, 32, 8, 3), (64, 64, 32, 4, 5), (128, 128, 16, 8, 4)]
# the least rows of a and columns of b a product needs to be taken
# (rewrite_products.py; rules/space_pick.c's GEMM32_SIDE, which counts the
# profile's products it would take, is checked against it by tests/lists.py):
# tf32x3 lost to cuBLAS's SGEMM at 10 rows (a small batch's linear layer,
# 0.47x on an H100) and won at 256 rows by 16384 columns over 32768 (1.43x)
MIN_SIDE = 128
# programs along M grouped in bands of GROUP so that neighbours share b's columns in L2
GROUP = 8


def _reference(a, b, bias=None):
    import torch

    out = torch.matmul(a, b)
    return out + bias if bias is not None else out


def _meta(a, b, bias=None):
    shape = (max(a.shape[0], b.shape[0]), a.shape[1], b.shape[2]) if a.dim() == 3 else (a.shape[0], b.shape[1])
    return a.new_empty(shape)


@functools.lru_cache(maxsize=1)
def _kernel():
    import triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BM": bm, "BN": bn, "BK": bk}, num_warps=w, num_stages=st)
                              for bm, bn, bk, w, st in CONFIGS], key=["M", "N", "K", "HAS_BIAS"])
    @triton.jit
    def kopt_products_tf32x3(A, Bm, C, Bias, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
                             sib, sim, sin, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                             GROUP_M: tl.constexpr, PREC: tl.constexpr, HAS_BIAS: tl.constexpr):
        pid = tl.program_id(0)
        bt = tl.program_id(1).to(tl.int64)
        npm = tl.cdiv(M, BM)
        npn = tl.cdiv(N, BN)
        # a band of GROUP_M programs along M walks N together: b's tiles stay in L2
        band = GROUP_M * npn
        first = (pid // band) * GROUP_M
        rows = min(npm - first, GROUP_M)
        pm = first + (pid % band) % rows
        pn = (pid % band) // rows
        om = pm * BM + tl.arange(0, BM)
        on = pn * BN + tl.arange(0, BN)
        ok = tl.arange(0, BK)
        a_ptr = A + bt * sab + om[:, None].to(tl.int64) * sam + ok[None, :] * sak
        b_ptr = Bm + bt * sbb + ok[:, None] * sbk + on[None, :].to(tl.int64) * sbn
        acc = tl.zeros([BM, BN], tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr, mask=(om[:, None] < M) & (ok[None, :] + k < K), other=0.0)
            b = tl.load(b_ptr, mask=(ok[:, None] + k < K) & (on[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PREC)
            a_ptr += BK * sak
            b_ptr += BK * sbk
        if HAS_BIAS:
            acc += tl.load(Bias + bt * sib + om[:, None].to(tl.int64) * sim + on[None, :] * sin,
                           mask=(om[:, None] < M) & (on[None, :] < N), other=0.0)
        tl.store(C + bt * scb + om[:, None].to(tl.int64) * scm + on[None, :] * scn, acc,
                 mask=(om[:, None] < M) & (on[None, :] < N))

    return kopt_products_tf32x3


def _cuda(a, b, bias=None):
    import torch

    two = a.dim() == 2
    a3, b3 = (a.unsqueeze(0), b.unsqueeze(0)) if two else (a, b)
    B = max(int(a3.shape[0]), int(b3.shape[0]))
    M, K, N = int(a3.shape[1]), int(a3.shape[2]), int(b3.shape[2])
    a3, b3 = a3.expand(B, M, K), b3.expand(B, K, N)
    out = torch.empty((B, M, N), device=a.device, dtype=a.dtype)
    if B and M and N:
        if K == 0:
            out.zero_()
            if bias is not None:
                out += bias
        else:
            bi = bias.expand(B, M, N) if bias is not None else out
            _kernel()[lambda meta: (_cdiv(M, meta["BM"]) * _cdiv(N, meta["BN"]), B)](
                a3, b3, out, bi, M, N, K, *a3.stride(), *b3.stride(), *out.stride(),
                *(bi.stride() if bias is not None else (0, 0, 0)),
                GROUP_M=GROUP, PREC=PRECISION, HAS_BIAS=bias is not None)
    return out[0] if two else out


def _cdiv(x: int, y: int) -> int:
    return (x + y - 1) // y


def register() -> None:
    """Define kopt::products in this process (once)."""
    oplib.define(SCHEMA, _reference, _cuda, _meta)


def op():
    """torch.ops.kopt.products.default, registered"""
    register()
    return oplib.op(SCHEMA)
