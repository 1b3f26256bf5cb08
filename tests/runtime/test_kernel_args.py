"""tests/runtime/test_kernel_args.py: what a profile counts as a kernel's
bytes (kopt.inductor.record_kernel_args, kopt.worker's rows), on the CPU
with any torch. A TEST DOUBLE stands in for Inductor's compiled model: two
kernel objects whose run() takes Inductor's parameter names (fn.arg_names),
one reading in_ptr0 and writing out_ptr0, one updating in_out_ptr0 in
place. Checked: each tensor argument's bytes, and in_out only where the
parameter is an in_out_ptr (its bytes move twice: read and written), and
the bytes a profile row gets from them (moved_bytes). Prints TAP."""
import os
import sys
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

torch.cuda.synchronize = lambda *a, **k: None  # the CPU: nothing to wait for
from kopt import inductor as I  # noqa: E402


class Kernel:  # a CachingAutotuner (a test double): run() and its fn's parameter names
    def __init__(self, names):
        self.fn = types.SimpleNamespace(arg_names=names)
        self.calls = 0

    def run(self, *args, **kw):
        self.calls += 1


copy = Kernel(["in_ptr0", "out_ptr0", "xnumel", "XBLOCK"])
inplace = Kernel(["in_out_ptr0", "in_ptr0", "xnumel", "r0_numel", "XBLOCK", "R0_BLOCK"])


class Compiled:  # the compiled model (a test double): its call launches both kernels
    def kernel_objects(self):
        return {"triton_poi_copy_0": copy, "triton_red_inplace_1": inplace}

    def run(self, inputs):
        x = inputs[0]
        y = torch.empty_like(x)
        copy.run(x, y, x.numel(), stream=0)
        inplace.run(y, torch.ones(64), y.numel(), 64, stream=0)
        inplace.run(y, torch.ones(64), y.numel(), 64, stream=0)  # a second launch: the first one's are kept


args = I.record_kernel_args(Compiled(), [torch.zeros(1024, 64)])
a, b = args["triton_poi_copy_0"], args["triton_red_inplace_1"]
ok([x["bytes"] for x in a] == [262144, 262144] and not any("in_out" in x for x in a),
   "a copy kernel: its two arguments' bytes, neither in_out", a)
ok([x["bytes"] for x in b] == [262144, 256] and b[0].get("in_out") is True and "in_out" not in b[1],
   "an in-place kernel: in_out_ptr0 marked in_out, in_ptr0 not", b)
ok(copy.run is not None and inplace.calls == 2 and "run" not in vars(inplace),
   "the kernels' run() is theirs again after the recording", vars(inplace))
ok(I.moved_bytes(b) == 2 * 262144 + 256, "its bytes moved at least (a profile row's bytes): the in-place "
   "buffer twice, read and written", I.moved_bytes(b))
ok(I.moved_bytes(a) == 2 * 262144, "... the copy's, each argument once", I.moved_bytes(a))
done()
