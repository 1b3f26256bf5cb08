"""tests/runtime/test_verify_kept.py: the copy the correctness gate keeps of
the compiled baseline's outputs (kopt.state.copy_strided, as
verify.Refs.baseline makes it) has the outputs' own strides, on the CPU with any torch: a slice of a larger buffer (a model
returning its final state, x[:, -1]) kept its strides, where clone() made
it contiguous and every candidate then failed on strides; a dense
permuted output keeps its order; an expanded output (overlapping) is
cloned; the values are the same. compare_output then finds no stride
mismatch between a baseline kept so and the same output; the worker's
store (state.move) keeps the strides when it moves entries to host memory
and back, and counts a slice's span. Prints TAP."""
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import state as ST  # noqa: E402
from kopt import verify as V  # noqa: E402


def kept(t):
    """the copy Refs.baseline keeps of an output (state.copy_strided)"""
    return ST.copy_strided(t, t.device)

big = torch.randn(2, 5, 3)
last = big[:, -1]  # not dense: strides (15, 1)
k = kept(last)
ok(k.stride() == last.stride() and torch.equal(k, last), "a slice of a larger buffer keeps its strides and values",
   (k.stride(), last.stride()))
ok(last.clone().stride() != last.stride(), "... where clone() does not (why kept exists)", last.clone().stride())
big.zero_()
ok(not torch.equal(k, last), "... and it is a copy: the buffer written again does not change it")
perm = torch.randn(4, 6).t()
ok(kept(perm).stride() == perm.stride(), "a dense permuted output keeps its order", kept(perm).stride())
exp = torch.randn(3, 1).expand(3, 4)
ke = kept(exp)
ok(torch.equal(ke, exp), "an expanded (overlapping) output: a copy with its values", ke.stride())
gates = {"atol": 1e-4, "rtol": 1e-4, "atol_half": 1e-2, "rtol_half": 1e-2}
src = torch.randn(2, 5, 3)
out = src[:, -1]
if hasattr(torch.Tensor, "untyped_storage"):  # torch 2: the gate's own comparison
    r = V.compare_output(0, kept(out), out, [], gates)
    ok(not r["stride_mismatch"] and r["allclose"], "compare_output: the kept baseline against the same output: "
       "no mismatch", r)
    r = V.compare_output(0, out.clone(), out, [], gates)
    ok(r["stride_mismatch"], "... a clone() of it would have read as one", r)
else:  # an older torch (Debian's 1.13) has no untyped_storage: compare_output's stride test itself
    ok(kept(out).stride() == out.stride(), "the kept baseline's strides are the output's (compare_output's test)")
    ok(out.clone().stride() != out.stride(), "... a clone()'s are not")
# the worker's store moves entries to host memory and back (state.move):
# strides kept there too; its sizes count a kept slice's span

src = torch.randn(4, 6, 5)
sl = src[:, 2]
back = ST.move(ST.move([sl], "cpu"), "cpu")[0]
ok(back.stride() == sl.stride() and torch.equal(back, sl), "the store's moves keep a slice's strides and values",
   back.stride())
ok(ST.nbytes(sl) == (1 + 3 * 30 + 4 * 1) * 4, "the store counts a slice's span: (1 + 3*30 + 4*1) floats",
   ST.nbytes(sl))
ok(ST.nbytes(torch.randn(3, 4)) == 48 and ST.nbytes(torch.randn(3, 1).expand(3, 4)) == 48
   and ST.nbytes(torch.randn(0, 4)) == 0, "... a dense one's, an expanded one's as its dense copy, an empty one's")
moved = ST.move(torch.randn(3, 1).expand(3, 4), "cpu")
ok(moved.shape == (3, 4) and moved.is_contiguous(), "an expanded tensor moves as a dense copy", moved.stride())

# the store's GPU budget where workers share the GPU (KOPT_GPU_SHARE, set by
# koptmake's worker pool): a quarter alone or with one other, 1 / (2 x share)
# beyond, so that together they keep at most half of it
G = 80 * 2**30
ok([ST.default_gpu_budget(G, n) for n in (1, 2, 3, 4, 8)] == [G // 4, G // 4, G // 6, G // 8, G // 16],
   "default_gpu_budget: a quarter for one or two workers, 1/(2n) for n beyond",
   [ST.default_gpu_budget(G, n) / 2**30 for n in (1, 2, 3, 4, 8)])
saved = os.environ.get("KOPT_GPU_SHARE")
try:
    shares = []
    for v in ("4", "1", "0", "x", None):
        if v is None:
            os.environ.pop("KOPT_GPU_SHARE", None)
        else:
            os.environ["KOPT_GPU_SHARE"] = v
        shares.append(ST.gpu_share())
finally:
    if saved is None:
        os.environ.pop("KOPT_GPU_SHARE", None)
    else:
        os.environ["KOPT_GPU_SHARE"] = saved
ok(shares == [4, 1, 1, 1, 1], "gpu_share: KOPT_GPU_SHARE, at least 1; unset or unreadable, 1", shares)
# a store made without a budget takes it from the GPU's size and the share
# (the GPU a TEST DOUBLE: torch.cuda's two answers, on any machine)
cuda = ST.torch.cuda
saved = (cuda.is_available, cuda.get_device_properties, os.environ.get("KOPT_GPU_SHARE"),
         os.environ.pop("KOPT_STATE_GIB", None))
cuda.is_available = lambda: True
cuda.get_device_properties = lambda i: type("P", (), {"total_memory": G})()
try:
    budgets = []
    for v in ("1", "4"):
        os.environ["KOPT_GPU_SHARE"] = v
        budgets.append(ST.Store().gpu_budget)
    os.environ["KOPT_STATE_GIB"] = "3"
    budgets.append(ST.Store().gpu_budget)
finally:
    cuda.is_available, cuda.get_device_properties = saved[0], saved[1]
    for name, v in (("KOPT_GPU_SHARE", saved[2]), ("KOPT_STATE_GIB", saved[3])):
        if v is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = v
ok(budgets == [G // 4, G // 8, 3 * 2**30], "Store(): a quarter of an 80 GiB GPU alone, an eighth with four "
   "workers on it, KOPT_STATE_GIB where set", [b / 2**30 for b in budgets])

done()
