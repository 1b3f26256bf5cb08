"""tests/runtime/test_loader.py: the input cache of kopt.loader.Problem,
against a TEST DOUBLE of torch (a few lines below: tensors are lists of
numbers, the generator a seeded random.Random), since this machine has no
torch. Checks that a seed's inputs are drawn once, come back equal and
unshared every time, leave the generator as get_inputs left it, and that
the cache stops at its size limit. Prints TAP."""

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

    def to(self, device, copy=False):
        return Tensor(self.vals, device) if copy or device != self.device else self


def randn(n):
    torch.draws += 1
    return Tensor([gen.random() for _ in range(n)])


torch.Tensor, torch.randn = Tensor, randn
torch.manual_seed = gen.seed
torch.get_rng_state = gen.getstate
torch.set_rng_state = gen.setstate
torch.cuda = types.SimpleNamespace(get_rng_state=lambda: None, set_rng_state=lambda s: None)
torch.nn = types.SimpleNamespace(Module=object)
sys.modules["torch"] = torch
os.environ["KOPT_INPUT_CACHE_GIB"] = str(3 * 4 * 1000 / 2**30)  # room for 3 inputs of 1000 numbers

sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt.loader import Problem  # noqa: E402

n = failed = 0


def ok(cond, name):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}")
    failed += not cond


mod = types.SimpleNamespace(get_inputs=lambda: [randn(1000), 7])
p = Problem("torch", "m.py", mod, None)
a = p.inputs(0)
after_first = gen.random()
b = p.inputs(0)
after_hit = gen.random()
ok(torch.draws == 1, "a seed's inputs are drawn once")
ok(a[0].vals == b[0].vals and a[1] == b[1] == 7, "and come back equal")
ok(a[0] is not b[0] and a[0].device == "cuda", "as fresh device copies, not shared")
b[0].vals[0] = -1.0
ok(p.inputs(0)[0].vals[0] != -1.0, "a caller's change does not reach the next call")
ok(after_first == after_hit, "the generator is left as get_inputs left it")
c = p.inputs(1)
ok(torch.draws == 2 and c[0].vals != a[0].vals, "another seed, other inputs")
p.inputs(2)
p.inputs(3)
p.inputs(3)
ok(torch.draws == 5, "past the size limit, inputs are drawn anew")
print(f"1..{n}")
sys.exit(1 if failed else 0)
