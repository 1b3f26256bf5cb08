#!/usr/bin/env python3
"""tests/gpu/attention.py: kopt::attention's Triton kernel
(runtime/python/kopt/attention.py) on the GPU.

    attention.py

Checks, printed as TAP: the kernel's output against float64's
softmax(q @ kt * scale) @ v within 1e-4 (relative to the output's scale)
at sizes that leave partial blocks (rows and keys not a multiple of the
blocks, heads of 40 and 72 and 8, a head of one size for the queries and
another for the values), with the keys transposed in place (strided) and
contiguous; with a mask (causal; one that leaves out whole rows and
blocks: NaN where torch's softmax is); and a graph compiled by Inductor
with the rewrite on (kopt.flash_attention, through
kopt.rewrites.applied), nn.MultiheadAttention's and minGPT's causal one,
calls it and agrees with eager. Prints the kernel's time against the unfused form's
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


# with a mask (True: the score left out), broadcast over the batch: causal,
# over rows and keys that leave partial blocks; and one that leaves out a
# whole row (NaN there, as torch's softmax) and, for other rows, the keys
# of their first blocks (a running maximum of -inf until a kept key)
for (b, m, n, d, full_row) in [(3, 200, 200, 32, False), (2, 70, 300, 16, True)]:
    q = torch.randn(b, m, d, device="cuda")
    kt = torch.randn(b, n, d, device="cuda").transpose(1, 2)
    v = torch.randn(b, n, d, device="cuda")
    mask = torch.ones(m, n, device="cuda").tril() == 0  # causal
    if full_row:
        mask = torch.zeros(m, n, dtype=torch.bool, device="cuda")
        mask[5] = True
        mask[10:20, :150] = True  # the first blocks of these rows left out, their last keys kept
    sc = d ** -0.5
    got = op(q, kt, v, sc, mask.unsqueeze(0))
    want = torch.softmax((q.double() @ kt.double() * sc).masked_fill(mask, float("-inf")), -1) @ v.double()
    nan_same = bool((got.isnan() == want.isnan()).all())
    fin = ~want.isnan()
    err = float((got.double() - want)[fin].abs().max() / want[fin].abs().max())
    ok(nan_same and err < 1e-4, f"kopt::attention with a {'causal' if not full_row else 'row-and-block'} mask "
       f"B={b} M={m} N={n} D={d} equals float64's, NaN where torch's is", f"relative error {err:.2e}, NaN same {nan_same}")


class Causal(torch.nn.Module):  # minGPT's masked self-attention, written out
    def __init__(self, c=64, h=4, t=256):
        super().__init__()
        self.attn, self.h = torch.nn.Linear(c, 3 * c), h
        self.register_buffer("bias", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = (e.view(B, T, self.h, C // self.h).transpose(1, 2) for e in self.attn(x).split(C, dim=2))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (C // self.h) ** 0.5)
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf")).softmax(-1)
        return (att @ v).transpose(1, 2).contiguous().view(B, T, C)


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
err = float((got - want).abs().max())
ok(calls and err < 1e-4, "nn.MultiheadAttention compiled with kopt.flash_attention calls kopt::attention and "
   "agrees with eager", f"calls {len(calls)}, max abs error {err:.2e}")
calls.clear()
causal = Causal().cuda().eval()
xc = torch.randn(2, 200, 64, device="cuda")
torch._dynamo.reset()
with torch.no_grad():
    want = causal(xc)
    with rewrites.applied(own):
        got = torch.compile(causal)(xc)
attention._kernel = orig
err = float((got - want).abs().max())
ok(calls and err < 1e-4, "a causal attention (minGPT's) compiled with kopt.flash_attention calls kopt::attention "
   "with its mask and agrees with eager", f"calls {len(calls)}, max abs error {err:.2e}")


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
