"""tests/runtime/test_own_frame.py: the copy of a model that each compiled
variant gets (kopt.inductor.own_frame), on the CPU with any torch. Dynamo
keeps what it compiled on the code object it traced; variants compiled
side by side on one model shared that cache, and each call went through
the guards of the other variants' entries (a host-bound model's figure in
the race was not a user's). Checked: the copy's forward is a code object
of its own, a second copy's another; the copy computes what the model
does, with the model's own parameters (a change to them shows in the
copy), keyword arguments and defaults; the model is left as it was; a
forward that is not Python code leaves the model as it is. And a compiled
variant runs under its own cudnn_benchmark, whatever variant was compiled
or run before it in the process. And every variant is compiled static
(torch.compile's dynamic=False, Inductor's backend or a rewrite's own),
so that a file compiled at other sizes before gives no symbolic sizes
(kopt.inductor.torch_compiled, torch.compile a TEST DOUBLE that records
its arguments). Prints TAP."""
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

import torch  # noqa: E402

from kopt import inductor as I  # noqa: E402
from kopt.inductor import own_frame  # noqa: E402
from kopt.problem import Compiled  # noqa: E402


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x, scale=2.0):
        return self.fc(x) * scale


m = Model()
a, b = own_frame(m), own_frame(m)
x = torch.randn(5, 4)
code = Model.forward.__code__
ok(a.forward.__code__ is not code and b.forward.__code__ is not code and a.forward.__code__ is not b.forward.__code__,
   "each copy's forward is a code object of its own (Dynamo's cache is per code object)")
ok(a.forward.__code__.co_code == code.co_code and a.forward.__code__.co_varnames == code.co_varnames,
   "... with the model's own code and names (its graph, and Inductor's cache key, are the model's)")
ok(torch.equal(a(x), m(x)) and torch.equal(a(x, scale=3.0), m(x, scale=3.0)),
   "the copy computes what the model does, keyword arguments and defaults too")
with torch.no_grad():
    m.fc.weight.add_(1.0)
ok(a.fc is m.fc and torch.equal(a(x), m(x)), "... with the model's own parameters (a change to them shows)")
ok("forward" not in vars(m) and type(m).forward.__code__ is code, "the model is left as it was")
scripted = torch.jit.script(torch.nn.Linear(4, 3))
ok(own_frame(scripted) is scripted, "a scripted module is taken as it is (its forward is not Python code)")


class Child(Model):  # forward inherited: the class's own dict lacks it
    pass


c = Child()
oc = own_frame(c)
ok(oc is not c and oc.forward.__code__ is not code and torch.equal(oc(x), c(x)),
   "an inherited forward is copied too")
# the cuDNN flag each variant's call sees (a compiled callable that reports it)
seen = lambda: torch.backends.cudnn.benchmark  # noqa: E731
bench, plain = (Compiled(None, {"cudnn_benchmark": True}, seen), Compiled(None, {}, seen))
torch.backends.cudnn.benchmark = True  # as the last compile of a benchmarking variant leaves it
got = [plain.run([]), bench.run([]), plain.run([])]
ok(got == [False, True, False], "each variant's call runs under its own cudnn_benchmark, side by side", got)
calls = []
saved = getattr(torch, "compile", None)
torch.compile = lambda model, **kw: calls.append(kw) or model
saved_rb = I.rewriting_backend
I.rewriting_backend = lambda options, own: lambda gm, ex: gm  # Inductor's internals: torch 2 only
try:
    m = Model()
    I.torch_compiled(m, "max-autotune-no-cudagraphs", {}, {})
    I.torch_compiled(m, None, {"max_autotune": True, "coordinate_descent_tuning": True}, {})
    I.torch_compiled(m, None, {"max_autotune": True}, {"kopt.conv1x1_as_product": True})
finally:
    I.rewriting_backend = saved_rb
    if saved is None:
        del torch.compile
    else:
        torch.compile = saved
ok(len(calls) == 3 and all(kw.get("dynamic") is False for kw in calls),
   "torch_compiled: static code (dynamic=False), with Inductor's backend and with a rewrite's own", calls)
ok(calls[0].get("mode") == "max-autotune-no-cudagraphs" and calls[0].get("options") is None and
   "backend" not in calls[0] and callable(calls[2].get("backend")) and "mode" not in calls[2],
   "torch_compiled: a mode (no options) for Inductor's backend, a backend of its own for the rewrites", calls)
ok(calls[1].get("options") == {"max_autotune": True, "coordinate_descent_tuning": True} and
   calls[1].get("mode") is None, "torch_compiled: Inductor's options where the variant has them", calls[1])

done()
