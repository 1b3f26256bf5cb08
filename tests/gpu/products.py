#!/usr/bin/env python3
"""tests/gpu/products.py: kopt::products' Triton kernel
(runtime/python/kopt/products.py) on the GPU.

    products.py

Checks, printed as TAP: the kernel's output against float64's a @ b + bias
at sizes that leave partial tiles, with operands transposed in place
(strided), a batch stride of 0 (a 1x1 convolution's weight), biases of a
linear layer's [N] and a 1x1 convolution's [M, 1], two- and
three-dimensional operands; each error against float64 at most twice
cuBLAS's float32 product's plus 1e-6 of the result's scale (gate 3's rule);
and an MLP compiled by Inductor with the rewrite on (kopt.tf32x3_products,
through kopt.rewrites.applied), whose large linear layers call the kernel
and whose small one does not, agreeing with eager; and an inverted-residual
block compiled with kopt.conv1x1_as_product convolving only its depthwise
layer, agreeing with eager, its time beside the block's without. Prints the kernel's time against torch's float32 product (cuBLAS, TF32
off) at the products of the level-3 sample's networks (a recurrent
network's input product, a classifier's linear layers, an EfficientNet
block's 1x1 convolutions as batched products).
"""

import copy
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "runtime"))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import products, rewrites  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(0)
op = products.op()


def rel(x, ref):
    return float((x.double() - ref).pow(2).mean().sqrt() / ref.pow(2).mean().sqrt())


def case(name, a, b, bias=None):
    got = op(a, b, bias)
    ref = a.double() @ b.double() + (bias.double() if bias is not None else 0)
    fp32 = torch.matmul(a, b) + (bias if bias is not None else 0)
    e, e32 = rel(got, ref), rel(fp32, ref)
    ok(list(got.shape) == list(ref.shape) and got.is_contiguous() and e <= 2 * e32 + 1e-6,
       f"kopt::products {name}: as close to float64 as cuBLAS's float32 product",
       f"relative RMS error {e:.2e}, cuBLAS's {e32:.2e}")


dev = "cuda"
case("M=100 K=77 N=300", torch.randn(100, 77, device=dev), torch.randn(77, 300, device=dev))
case("M=257 K=1000 N=129, b transposed", torch.randn(257, 1000, device=dev),
     torch.randn(129, 1000, device=dev).t())
case("linear: M=33 K=512 N=200 with bias [N]", torch.randn(33, 512, device=dev),
     torch.randn(200, 512, device=dev).t(), torch.randn(200, device=dev))
case("batched: B=3 M=70 K=64 N=90", torch.randn(3, 70, 64, device=dev), torch.randn(3, 64, 90, device=dev))
w = torch.randn(96, 40, device=dev)
case("1x1 convolution: weight batch stride 0, bias [M, 1]", w.unsqueeze(0).expand(4, 96, 40),
     torch.randn(4, 40, 13 * 17, device=dev), torch.randn(96, 1, device=dev))
case("K=4000 (long sums)", torch.randn(64, 4000, device=dev), torch.randn(4000, 64, device=dev))

# an MLP compiled with the rewrite: the kernel runs (counted where the
# operator's CUDA form looks it up) for the two layers of 256 rows by 512
# and 384 columns, not for the last of 10 columns
mlp = torch.nn.Sequential(torch.nn.Linear(300, 512), torch.nn.ReLU(), torch.nn.Linear(512, 384), torch.nn.ReLU(),
                          torch.nn.Linear(384, 10)).cuda().eval()
xm = torch.randn(256, 300, device=dev)
calls = []
orig = products._kernel


def counted():
    calls.append(1)
    return orig()


products._kernel = counted
torch._dynamo.reset()
with torch.no_grad():
    want = mlp(xm)
    _, own = rewrites.split({"kopt.tf32x3_products": True})
    with rewrites.applied(own):
        got = torch.compile(mlp)(xm)
products._kernel = orig
err = float((got - want).abs().max() / want.abs().max())
ok(len(calls) == 2 and err < 1e-5, "an MLP compiled with kopt.tf32x3_products calls kopt::products for its two "
   "large layers and agrees with eager", f"calls {len(calls)}, relative max error {err:.2e}")

# an inverted-residual block (EfficientNet's: a 1x1 expansion on the
# model's NCHW input, a depthwise 5x5, a 1x1 projection) compiled with
# kopt.conv1x1_as_product: its output code convolves only the depthwise
# one, it agrees with eager, and its time is printed beside the block's
# compiled without the rewrite (Inductor's defaults both)
from torch._inductor.utils import run_and_get_code  # noqa: E402

block = torch.nn.Sequential(torch.nn.Conv2d(112, 672, 1, bias=False), torch.nn.BatchNorm2d(672), torch.nn.ReLU6(),
                            torch.nn.Conv2d(672, 672, 5, stride=2, padding=2, groups=672, bias=False),
                            torch.nn.BatchNorm2d(672), torch.nn.ReLU6(),
                            torch.nn.Conv2d(672, 192, 1, bias=False), torch.nn.BatchNorm2d(192)).cuda().eval()
xb = torch.randn(10, 112, 112, 112, device=dev)
torch._dynamo.reset()
with torch.no_grad():
    want = block(xb)
    plain = torch.compile(block)
    plain(xb)
    _, own = rewrites.split({"kopt.conv1x1_as_product": True})
    with rewrites.applied(own):
        # a module of its own: two compiles of one module are entries of
        # one Dynamo cache, and a call could take the other's
        rewritten = torch.compile(copy.deepcopy(block))
        got, code = run_and_get_code(rewritten, xb)
    convs = sum(c.count("extern_kernels.convolution(") + c.count("aten.convolution.default(") for c in code)
    err = float((got - want).abs().max() / want.abs().max())
    ok(convs == 1 and err < 1e-4, "an inverted-residual block compiled with kopt.conv1x1_as_product convolves only "
       "its depthwise layer and agrees with eager", f"convolutions in the output code {convs}, relative error {err:.2e}")
    from triton.testing import do_bench as _bench
    t_plain, t_rw = _bench(lambda: plain(xb), warmup=10, rep=100), _bench(lambda: rewritten(xb), warmup=10, rep=100)
    print(f"# the block at 10 x 112 x 112 x 112: compiled {t_plain * 1e3:.1f} us, with the rewrite {t_rw * 1e3:.1f} us "
          f"({t_plain / t_rw:.2f}x)")

# times: kernel time, L2 flushed (triton.testing.do_bench), median
from triton.testing import do_bench  # noqa: E402

print("# shape | torch (us) | kopt::products (us) | speedup | TFLOP/s")
for name, a, b in [
        ("VanillaRNN input: M=256 K=32768 N=16384", torch.randn(256, 32768, device=dev),
         torch.randn(16384, 32768, device=dev).t()),
        ("square 4096", torch.randn(4096, 4096, device=dev), torch.randn(4096, 4096, device=dev)),
        ("linear M=10 K=9216 N=4096", torch.randn(10, 9216, device=dev), torch.randn(4096, 9216, device=dev).t()),
        ("1x1 conv B=10 M=672 K=112 N=50176", torch.randn(672, 112, device=dev).unsqueeze(0).expand(10, 672, 112),
         torch.randn(10, 112, 50176, device=dev)),
        ("1x1 conv B=10 M=192 K=672 N=12544", torch.randn(192, 672, device=dev).unsqueeze(0).expand(10, 192, 672),
         torch.randn(10, 672, 12544, device=dev))]:
    t0 = do_bench(lambda: torch.matmul(a, b), warmup=25, rep=200)
    t1 = do_bench(lambda: op(a, b), warmup=25, rep=200)
    flop = 2.0 * a.shape[-2] * a.shape[-1] * b.shape[-1] * (a.shape[0] if a.dim() == 3 else 1)
    print(f"# {name} | {t0 * 1e3:.1f} | {t1 * 1e3:.1f} | {t0 / t1:.2f}x | {flop / t1 / 1e9:.1f}")
done()
