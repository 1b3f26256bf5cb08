"""tests/runtime/test_loader.py: the worker's GPU state (kopt.state.Store)
and the master inputs of kopt.loader.Problem, against a TEST DOUBLE of torch
(a few lines below: tensors are lists of numbers with a device name, the
generator a seeded random.Random, torch.device a context manager that sets
the default device), since this machine has no torch. Checks that a seed's
inputs are drawn once, on the GPU, come back equal and unshared every time,
leave the generator as get_inputs left it, that a file that cannot draw on
the GPU draws on the CPU, and the store's budget, host spill and
least-recently-used order; and that a shape's names are set after the model
is made and before get_inputs, keyed apart. Prints TAP."""

import os
import random
import sys
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")

# ---- the torch double ----
torch = types.ModuleType("torch")
gen = random.Random()
torch.draws = 0


class Tensor:
    def __init__(self, vals, device="cpu"):
        self.vals, self.device = list(vals), device

    def numel(self):
        return len(self.vals)

    def element_size(self):
        return 4

    @property
    def is_cuda(self):
        return self.device == "cuda"

    def to(self, device, copy=False, non_blocking=False):
        return Tensor(self.vals, device) if copy or device != self.device else self

    dtype = "float32"

    @property
    def shape(self):
        return (len(self.vals),)

    def size(self):
        return self.shape

    def stride(self):
        return (1,)

    def copy_(self, src):
        self.vals = list(src.vals)
        return self


def empty_strided(size, stride, dtype=None, device="cpu"):
    return Tensor([0.0] * size[0], device)


default_device = ["cpu"]


class device:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.saved = default_device[0]
        default_device[0] = self.name

    def __exit__(self, *exc):
        default_device[0] = self.saved
        return False


def randn(n):
    torch.draws += 1
    return Tensor([gen.random() for _ in range(n)], default_device[0])


torch.Tensor, torch.randn, torch.device, torch.empty_strided = Tensor, randn, device, empty_strided
torch.manual_seed = gen.seed
torch.get_rng_state = gen.getstate
torch.set_rng_state = gen.setstate
torch.cuda = types.SimpleNamespace(get_rng_state=lambda: None, set_rng_state=lambda s: None,
                                   is_available=lambda: False)
torch.nn = types.SimpleNamespace(Module=object)
sys.modules["torch"] = torch
os.environ["KOPT_STATE_GIB"] = str(3 * 4 * 1000 / 2**30)  # room for 3 inputs of 1000 numbers
os.environ["KOPT_STATE_HOST_GIB"] = str(2 * 4 * 1000 / 2**30)  # and 2 on the host

sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import state  # noqa: E402
from kopt.problem import Problem  # noqa: E402

n = failed = 0


def ok(cond, name):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}")
    failed += not cond


mod = types.SimpleNamespace(get_inputs=lambda: [randn(1000), 7])
p = Problem("torch", "m.py", mod, None, digest="d1")
a = p.inputs(0)
after_first = gen.random()
b = p.inputs(0)
after_hit = gen.random()
ok(torch.draws == 1, "a seed's inputs are drawn once")
ok(p.master(0)[0][0].device == "cuda" and p.extra["inputs_made_on"] == "cuda",
   "get_inputs ran with the GPU as the default device")
ok(a[0].vals == b[0].vals and a[1] == b[1] == 7, "and come back equal")
ok(a[0] is not b[0] and a[0].device == "cuda", "as fresh device copies, not shared")
b[0].vals[0] = -1.0
ok(p.inputs(0)[0].vals[0] != -1.0, "a caller's change does not reach the next call")
ok(after_first == after_hit, "the generator is left as get_inputs left it")
q = Problem("torch", "m.py", mod, None, digest="d1")
q.inputs(0)
ok(torch.draws == 1, "another load of the same file (a second variant) shares the master")
r = Problem("torch", "m.py", mod, None, digest="d2")
r.inputs(0)
ok(torch.draws == 2, "a changed file draws again")
c = p.inputs(1)
ok(torch.draws == 3 and c[0].vals != a[0].vals, "another seed, other inputs")
p.inputs(2)
p.inputs(3)
p.inputs(3)
ok(torch.draws == 5, "inputs drawn on the GPU are kept, not spilled: past the budget they go")
ok(state.store().host_bytes == 0, "and nothing went to host memory")
p.inputs(0)
ok(torch.draws == 6, "the least recently used one is drawn anew")


def cpu_only():
    if default_device[0] != "cpu":
        raise RuntimeError("numpy on a CUDA tensor")
    return [randn(1000)]


state.store().clear()
cp = Problem("torch", "c.py", types.SimpleNamespace(get_inputs=cpu_only), None, digest="c")
x = cp.inputs(0)
ok(cp.extra["inputs_made_on"] == "cpu" and x[0].device == "cuda", "a file that cannot draw on the GPU draws on the CPU, moved")

# the store alone
st = state.Store(gpu_budget=8000, host_budget=8000)
t1, t2, t3 = Tensor([0] * 1000, "cuda"), Tensor([1] * 1000, "cuda"), Tensor([2] * 1000, "cuda")
st.put("a", t1)
st.put("b", t2)
st.get("a")
st.put("c", t3)
ok(st.where("a") == "gpu" and st.where("b") == "host" and st.where("c") == "gpu",
   "the least recently used entry spills to host memory")
back = st.get("b")
ok(back is not None and back.device == "cuda" and st.where("b") == "gpu" and st.where("a") == "host",
   "a host entry comes back to the GPU and pushes the oldest out")
st.put("d", Tensor([3] * 1000, "cuda"), spill=False)
st.put("e", Tensor([4] * 1000, "cuda"))
ok(st.where("d") == "gpu", "an entry fits while it is among the newest")
st.put("f", Tensor([5] * 1000, "cuda"))
st.put("g", Tensor([6] * 1000, "cuda"))
ok(st.where("d") is None, "an entry kept from spilling is dropped when pushed out")
ok(st.host_bytes <= 8000 and st.gpu_bytes <= 8000, "both budgets hold")
st2 = state.Store(gpu_budget=4000, host_budget=8000)
st2.put("cheap", Tensor([1] * 1000, "cuda"), cost_s=1e-6)
st2.put("dear", Tensor([2] * 1000, "cuda"), cost_s=10.0)
st2.put("next", Tensor([3] * 1000, "cuda"))
st2.put("last", Tensor([4] * 1000, "cuda"))
ok(st2.where("cheap") is None and st2.where("dear") == "host",
   "pushed out: what is cheaper to make than to carry over PCIe is dropped, the rest spills")
v, hit = st.fetch("g", lambda: Tensor([9], "cuda"))
ok(hit and v.vals[0] == 6, "fetch returns the stored value")
v, hit = st.fetch("h", lambda: Tensor([9] * 3000, "cuda"))
ok(not hit and st.where("h") is None, "a value larger than both budgets is computed, not stored")

# a shape (kopt(5), shape): its names set after the model is made, before get_inputs
import tempfile  # noqa: E402

from kopt import loader as L  # noqa: E402

state.store().clear()
src = """import torch
batch_size = 4
dims = (2, 3)
made_with = []


class Model:
    def __init__(self):
        made_with.append(batch_size)

    def cuda(self):
        return self

    def eval(self):
        return self


def get_init_inputs():
    return []


def get_inputs():
    return [torch.randn(batch_size * dims[0] * dims[1])]
"""
with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
    f.write(src)
path = f.name
own = L.load_problem({"kind": "torch", "path": path}, 0)
ok(own.inputs(0)[0].numel() == 24 and own.digest == L.file_digest(path),
   "no shape: the file's own get_inputs, keyed by the file alone")
big = L.load_problem({"kind": "torch", "path": path, "shape": {"batch_size": 8, "dims": [5, 3]}}, 0)
ok(big.inputs(0)[0].numel() == 120, "a shape's names make get_inputs' inputs")
ok(big.module.made_with == [4], "the model is made with the file's own values (its weights are the same at every shape)")
ok(isinstance(big.module.dims, tuple) and big.module.dims == (5, 3), "a list where the file holds a tuple is set as a tuple")
ok(big.digest != own.digest and own.inputs(0)[0].numel() == 24,
   "the shape is part of the digest: the shapes' inputs are kept apart in the store")
ok(L.problem_digest({"path": path, "shape": {"batch_size": 8, "dims": [5, 3]}}) == big.digest,
   "problem_digest gives a request's digest (the worker's check of a kept problem)")
try:
    L.load_problem({"kind": "torch", "path": path, "shape": {"batch_sise": 8}}, 0)
    ok(False, "a name the file does not define fails the load")
except AttributeError as exc:
    ok("batch_sise" in str(exc) and path in str(exc), "a name the file does not define fails the load, saying which")
os.unlink(path)
print(f"1..{n}")
sys.exit(1 if failed else 0)
