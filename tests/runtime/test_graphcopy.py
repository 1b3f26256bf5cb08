"""kopt.graphcopy: a CUDA graph's inputs copied before each replay by a
plain copy each where they are large, by torch's foreach copy where they
are small. Tensors are stand-ins with numel() and copy_() (no torch
needed); Node is a TEST DOUBLE of cudagraph trees' CUDAGraphNode, whose
input copy calls torch._foreach_copy_ as torch 2.11's does; install() runs
in a child against a stand-in torch package. Prints TAP."""
import os
import sys
import tempfile
import types

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import graphcopy as G  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
import standin as S  # noqa: E402


class T:
    """a tensor of n elements holding one value; copy_ counts its calls"""
    copies = 0

    def __init__(self, n, value):
        self.n, self.value = n, value

    def numel(self):
        return self.n

    def copy_(self, src, *args, **kwargs):
        T.copies += 1
        self.value = src.value


def spy():
    calls = []

    def foreach(dsts, srcs, *args, **kwargs):
        calls.append([d.n for d in dsts])
        for d, s in zip(dsts, srcs):
            d.value = s.value
    return foreach, calls


# split_copy: large tensors by their own copy, the rest in one foreach
foreach, calls = spy()
T.copies = 0
dsts = [T(G.BIG, 0), T(G.BIG - 1, 0), T(10, 0), T(5 * G.BIG, 0)]
srcs = [T(d.n, i + 1) for i, d in enumerate(dsts)]
G.split_copy(foreach, dsts, srcs)
ok([d.value for d in dsts] == [1, 2, 3, 4], "split_copy: every destination holds its source's values",
   [d.value for d in dsts])
ok(T.copies == 2 and calls == [[G.BIG - 1, 10]],
   "split_copy: the two of BIG elements or more copied alone, the two below it in one foreach call",
   (T.copies, calls))

# the line koptmake(1) states: 65,536 elements (one chunk of the foreach
# kernel) and more alone, fewer together
foreach, calls = spy()
T.copies = 0
G.split_copy(foreach, [T(65536, 0), T(65535, 0), T(256, 0)], [T(65536, 1), T(65535, 2), T(256, 3)])
ok(T.copies == 1 and calls == [[65535, 256]], "split_copy: 65,536 elements alone, 65,535 and 256 in the foreach call",
   (T.copies, calls))

foreach, calls = spy()
T.copies = 0
G.split_copy(foreach, [T(G.BIG, 0)], [T(G.BIG, 7)])
ok(calls == [] and T.copies == 1, "split_copy: no foreach call where every tensor is large", (calls, T.copies))
T.copies = 0
small = [T(3, 0), T(4, 0)]
G.split_copy(None, small, [T(3, 5), T(4, 6)])
ok(T.copies == 2 and [d.value for d in small] == [5, 6], "split_copy: without a foreach copy, small ones one by one")


# wrap: the node's copy goes through split_copy while it runs, and torch's
# own foreach copy is back afterwards, after an exception too
def make_torch():
    foreach, calls = spy()
    return types.SimpleNamespace(_foreach_copy_=foreach), foreach, calls


torch_mod, foreach, calls = make_torch()


class Node:
    fail = False

    def _copy_inputs_and_remove_from_src(self, dsts, srcs):
        """as torch 2.11's: the non-static inputs, then one foreach copy"""
        if Node.fail:
            raise RuntimeError("boom")
        torch_mod._foreach_copy_(dsts, srcs)
        for i in range(len(srcs)):
            srcs[i] = None


ok(G.wrap(Node, torch_mod), "wrap: True where the node has the method")
ok(Node._copy_inputs_and_remove_from_src.__doc__.startswith("as torch 2.11's"),
   "wrap: the wrapper keeps the method's name and text")
ok(G.wrap(Node, torch_mod) and getattr(Node._copy_inputs_and_remove_from_src, "__wrapped__", None) is not None
   and not getattr(Node._copy_inputs_and_remove_from_src.__wrapped__, G._WRAPPED, False),
   "wrap: a second wrap leaves the one wrapper")
T.copies = 0
dsts, srcs = [T(2 * G.BIG, 0), T(8, 0)], [T(2 * G.BIG, 1), T(8, 2)]
Node()._copy_inputs_and_remove_from_src(dsts, srcs)
ok([d.value for d in dsts] == [1, 2] and srcs == [None, None], "wrap: the copy lands, and the method's own work runs")
ok(T.copies == 1 and calls == [[8]], "wrap: the large input by its own copy, the small one by torch's foreach",
   (T.copies, calls))
ok(torch_mod._foreach_copy_ is foreach, "wrap: torch's foreach copy is torch's again after the call")
Node.fail = True
try:
    Node()._copy_inputs_and_remove_from_src([], [])
    raised = False
except RuntimeError:
    raised = True
Node.fail = False
ok(raised and torch_mod._foreach_copy_ is foreach, "wrap: an exception inside still puts torch's foreach copy back")

bare = types.SimpleNamespace()


class Bare:
    def _copy_inputs_and_remove_from_src(self, dsts, srcs):
        bare._foreach_copy_(dsts, srcs)


G.wrap(Bare, bare)
T.copies = 0
Bare()._copy_inputs_and_remove_from_src([T(3, 0)], [T(3, 1)])
ok(T.copies == 1 and not hasattr(bare, "_foreach_copy_"),
   "wrap: a torch without _foreach_copy_ copies one by one, and has none afterwards")
ok(not G.wrap(type("Other", (), {}), torch_mod), "wrap: False where the node copies no inputs by that method")

# install() in this process, against stand-in modules of torch's
def installed(env_value, trees):
    """install()'s answer with KOPT_GRAPH_COPY=env_value (None: unset) and
    torch._inductor.cudagraph_trees as trees (None: no such module)"""
    names = ("torch", "torch._inductor", "torch._inductor.cudagraph_trees")
    saved = {n: sys.modules.get(n) for n in names}
    saved_env = os.environ.pop("KOPT_GRAPH_COPY", None)
    fake = types.ModuleType("torch")
    ind = types.ModuleType("torch._inductor")
    fake._inductor = ind
    sys.modules["torch"], sys.modules["torch._inductor"] = fake, ind
    if trees is None:
        sys.modules["torch._inductor.cudagraph_trees"] = None  # an import of it fails
    else:
        ind.cudagraph_trees = trees
        sys.modules["torch._inductor.cudagraph_trees"] = trees
    if env_value is not None:
        os.environ["KOPT_GRAPH_COPY"] = env_value
    try:
        return G.install()
    finally:
        for n, m in saved.items():
            if m is None:
                sys.modules.pop(n, None)
            else:
                sys.modules[n] = m
        os.environ.pop("KOPT_GRAPH_COPY", None)
        if saved_env is not None:
            os.environ["KOPT_GRAPH_COPY"] = saved_env


def trees_with_node():
    m = types.ModuleType("torch._inductor.cudagraph_trees")
    m.CUDAGraphNode = type("CUDAGraphNode", (), {"_copy_inputs_and_remove_from_src": lambda self, d, s: None})
    return m


t1 = trees_with_node()
ok(installed(None, t1) is True and getattr(t1.CUDAGraphNode._copy_inputs_and_remove_from_src, G._WRAPPED, False),
   "install, here: cudagraph trees' node wrapped by default")
t2 = trees_with_node()
ok(installed("0", t2) is False and not getattr(t2.CUDAGraphNode._copy_inputs_and_remove_from_src, G._WRAPPED, False),
   "install, here: KOPT_GRAPH_COPY=0 wraps nothing")
ok(installed(" 0 ", trees_with_node()) is False and installed("1", trees_with_node()) is True,
   "install, here: the variable's spaces aside, only 0 turns it off")
ok(installed(None, types.ModuleType("torch._inductor.cudagraph_trees")) is False,
   "install, here: False where the module has no CUDAGraphNode")
ok(installed(None, None) is False, "install, here: False where torch has no cudagraph trees")

# install(), in a child, against a stand-in torch
TREES = '''
class CUDAGraphNode:
    def _copy_inputs_and_remove_from_src(self, dsts, srcs):
        import torch
        torch._foreach_copy_(dsts, srcs)
'''
CODE = ("from kopt import graphcopy as G; from torch._inductor import cudagraph_trees as C; "
        "print(G.install(), getattr(C.CUDAGraphNode._copy_inputs_and_remove_from_src, G._WRAPPED, False))")
with tempfile.TemporaryDirectory() as top:
    path = S.package(top, {"torch/__init__.py": "def _foreach_copy_(d, s):\n    pass\n",
                           "torch/_inductor/cudagraph_trees.py": TREES})
    out = S.child(path, CODE, drop=("KOPT_GRAPH_COPY",))
    ok(out == "True True", "install: cudagraph trees' input copy wrapped", out)
    out = S.child(path, CODE, env={"KOPT_GRAPH_COPY": "0"})
    ok(out == "False False", "install: KOPT_GRAPH_COPY=0 leaves torch as it is", out)
with tempfile.TemporaryDirectory() as top:
    path = S.package(top, {"torch/__init__.py": "", "torch/_inductor/cudagraph_trees.py": "X = 1\n"})
    out = S.child(path, "from kopt import graphcopy as G; print(G.install())", drop=("KOPT_GRAPH_COPY",))
    ok(out == "False", "install: False where torch has no CUDAGraphNode", out)
with tempfile.TemporaryDirectory() as top:
    path = S.package(top, {"torch/__init__.py": ""})
    out = S.child(path, "from kopt import graphcopy as G; print(G.install())", drop=("KOPT_GRAPH_COPY",))
    ok(out == "False", "install: False where torch has no cudagraph trees", out)
done()
