#!/usr/bin/env python3
"""tests/gpu/attention.py: kopt::attention's Triton kernel
(runtime/python/kopt/attention.py) on the GPU.

    attention.py

Checks, printed as TAP: the kernel's output against float64's
softmax(q @ kt * scale) @ v within 1e-4 (relative to the output's scale)
at sizes that leave partial blocks (rows and keys not a multiple of the
blocks, heads of 40 and 72 and 8, a head of one size for the queries and
another for the values), with the keys transposed in place (strided) and
contiguous; and a graph compiled by Inductor with the rewrite on
(kopt.flash_attention, through kopt.rewrites.applied) calls it and
agrees with eager. Prints the kernel's time against the unfused form's
compiled by Inductor, at 8 heads of 32 over 16384 tokens, with both
errors against float64 there.
"""

import os
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import attention, rewrites  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.manual_seed(0)
op = attention.op()
for (b, m, n, d, dv, strided) in [(3, 100, 77, 40, 40, True), (2, 129, 300, 72, 24, False), (1, 5, 1000, 8, 8, True),
                                  (4, 256, 256, 32, 64, False)]:
    q = torch.randn(b, m, d, device="cuda")
    k = torch.randn(b, n, d, device="cuda")
    v = torch.randn(b, n, dv, device="cuda")
    kt = k.transpose(1, 2) if strided else k.transpose(1, 2).contiguous()
    sc = d ** -0.5
    got = op(q, kt, v, sc)
    want = torch.softmax(q.double() @ kt.double() * sc, -1) @ v.double()
    err = float((got.double() - want).abs().max() / want.abs().max())
    ok(list(got.shape) == [b, m, dv] and err < 1e-4,
       f"kopt::attention B={b} M={m} N={n} D={d} DV={dv} ({'strided' if strided else 'contiguous'} keys) "
       f"equals float64's softmax(q kt c) v", f"relative error {err:.2e}")


class Attn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = torch.nn.MultiheadAttention(64, 4)

    def forward(self, x):
        return self.mha(x, x, x)[0]


model = Attn().cuda().eval()
x = torch.randn(1000, 2, 64, device="cuda")
calls = []
# the operator's CUDA function was registered as it was (register()); it
# looks the kernel up at each call, which is where the count goes
orig = attention._kernel


def counted():
    calls.append(1)
    return orig()


attention._kernel = counted
torch._dynamo.reset()
with torch.no_grad():
    want = model(x)
    _, own = rewrites.split({"kopt.flash_attention": True})
    with rewrites.applied(own):
        c = torch.compile(model)
        got = c(x)
attention._kernel = orig
err = float((got - want).abs().max())
ok(calls and err < 1e-4, "nn.MultiheadAttention compiled with kopt.flash_attention calls kopt::attention and "
   "agrees with eager", f"calls {len(calls)}, max abs error {err:.2e}")


def bench(f, n=5):
    f()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


q, k, v = (torch.randn(8, 16384, 32, device="cuda") for _ in range(3))
naive = torch.compile(lambda q, k, v: torch.softmax(q @ k.transpose(1, 2) * 32 ** -0.5, -1) @ v)
with torch.no_grad():
    tf, tn = bench(lambda: op(q, k.transpose(1, 2), v, 32 ** -0.5)), bench(lambda: naive(q, k, v))
    want = torch.softmax(q.double() @ k.double().transpose(1, 2) * 32 ** -0.5, -1) @ v.double()
    ef = float((op(q, k.transpose(1, 2), v, 32 ** -0.5).double() - want).abs().max())
    en = float((naive(q, k, v).double() - want).abs().max())
print(f"# 8 heads x 16384 tokens x 32: kopt::attention {tf:.0f} us, Inductor's unfused form {tn:.0f} us "
      f"({tn / tf:.2f}x); the autotuner's config {getattr(attention._kernel(), 'best_config', None)}; "
      f"max abs error against float64 {ef:.2e} and {en:.2e} (precision {attention.PRECISION})")
done()
