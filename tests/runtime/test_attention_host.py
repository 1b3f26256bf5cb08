"""tests/runtime/test_attention_host.py: kopt::attention's host side on the
CPU (runtime/python/kopt/attention.py). The Triton kernel is replaced by a
TEST DOUBLE that records its launch, so what is checked is what the
kernel is given: the scale in base 2 (times log2(e)), the precision, each
operand's strides, and a mask broadcast over the batch and the rows with
stride 0 there (HAS_MASK on; off and no mask strides without one); the
grid (query blocks by batches); no launch for empty sizes, and NaN for a
softmax over no keys. And the operator's CPU form: the unfused attention,
a mask's scores left out (a whole row of them: NaN, as torch's). Prints TAP."""
import math
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import attention as A  # noqa: E402

launches = []


class Launch:  # the autotuned kernel as _cuda uses it: kernel[grid](*args, **meta)
    def __getitem__(self, grid):
        def run(*args, **meta):
            launches.append((grid, args, meta))
        return run


A._kernel = lambda: Launch()
torch.manual_seed(0)
B, M, N, D, DV = 3, 10, 7, 8, 5
q, k, v = torch.randn(B, M, D), torch.randn(B, N, D), torch.randn(B, N, DV)
kt = k.transpose(1, 2)  # strided keys
o = A._cuda(q, kt, v, 0.25)
grid, args, meta = launches[-1]
ok(o.shape == (B, M, DV) and args[0] is q and args[1] is kt and args[2] is v and args[3] is o,
   "the operands and the output, as they are (the keys strided)", [tuple(a.shape) for a in args[:4]])
ok(math.isclose(args[5], 0.25 * math.log2(math.e), rel_tol=1e-12) and args[6:8] == (M, N),
   "the scale in base 2 (times log2 e), the rows and the keys", args[5:8])
ok(list(args[8:20]) == list(q.stride() + kt.stride() + v.stride() + o.stride()),
   "each operand's strides, the keys' transposed ones among them", args[8:20])
ok(meta.get("HAS_MASK") is False and list(args[20:23]) == [0, 0, 0] and meta.get("PREC") == A.PRECISION == "tf32x3",
   "without a mask: HAS_MASK off, no mask strides; the dots in tf32x3", (meta, args[20:23]))
ok(meta["BD"] == 16 and meta["BDV"] == 16 and meta["D"] == D and meta["DV"] == DV,
   "the heads padded to tl.dot's least size (16)", meta)
ok(grid({"BM": 4}) == (3, B) and grid({"BM": 64}) == (1, B), "the grid: query blocks by batches",
   (grid({"BM": 4}), grid({"BM": 64})))

causal = (torch.ones(M, N).tril() == 0).unsqueeze(0)  # [1, M, N]
A._cuda(q, kt, v, 0.25, causal)
_, args, meta = launches[-1]
ok(meta["HAS_MASK"] is True and args[4].shape == (B, M, N) and list(args[20:23]) == [0, N, 1],
   "a causal mask [1, M, N]: HAS_MASK on, read over the batch with stride 0", (tuple(args[4].shape), args[20:23]))
keys_only = torch.tensor([False, True] * 3 + [False]).view(1, 1, N)  # [1, 1, N]: the same keys left out in each row
A._cuda(q, kt, v, 0.25, keys_only)
_, args, _ = launches[-1]
ok(list(args[20:23]) == [0, 0, 1], "a mask over the keys alone [1, 1, N]: stride 0 over the batch and the rows",
   args[20:23])

n = len(launches)
empty = A._cuda(q[:, :0], kt, v, 0.25)
nokeys = A._cuda(q, kt[:, :, :0], v[:, :0], 0.25)
ok(len(launches) == n and empty.shape == (B, 0, DV) and nokeys.isnan().all(),
   "no launch for no rows, nor for no keys: a softmax over none is NaN, as torch's")

want = torch.softmax(q @ kt * 0.25, -1) @ v
ok(torch.allclose(A._reference(q, kt, v, 0.25), want, atol=1e-6), "the CPU form: the unfused attention")
row = causal.clone()
row[0, 2] = True  # row 2 left out whole
got = A._reference(q, kt, v, 0.25, row)
wantm = torch.softmax((q @ kt * 0.25).masked_fill(row, float("-inf")), -1) @ v
ok(torch.allclose(got, wantm, atol=1e-6, equal_nan=True) and got[:, 2].isnan().all() and not got[:, 3].isnan().any(),
   "... with a mask: its scores left out, a row left out whole NaN")
done()
