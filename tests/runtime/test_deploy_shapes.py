"""tests/runtime/test_deploy_shapes.py: kopt.backend's dispatch by shape
(kopt.deploy: load_tables, signature, pick_shape, make_backend) on the
CPU, against TEST DOUBLES of torch: tensors are objects with a shape and a
dtype, a symbolic size an object that is no int, torch._inductor's
config.patch and compile_fx stand-ins that record what they compile (and
under which float32 flags: torch.backends' as torch 2.11 keeps them), and
kopt.deploy.compile_with replaced by a recorder of the table each graph is
compiled with. The table is a model served at three shapes as koptmake's
deploy step joins them, sealed as koptmake seals it (kopt.seal, under a key
of the test's own); with a folder argument, that folder's
substitutions.json (tests/e2e/shapes.sh passes the one a build with the
simulated worker wrote). Checks that each graph goes to the shape whose
inputs it takes (the model's parameters among its inputs too), that a
shape outside every declared one and a dynamic-shape compile get
Inductor's code with one warning each, that each compile is counted, and
that Inductor compiles under the capture's float32 flags and the
caller's come back after, that a compile the graph cache did not serve
warns where its variant autotunes, and that a table of one model (no
shapes) takes every graph as before.
Prints TAP."""

import json
import os
import sys
import tempfile
import types
import warnings

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

# ---- the torch double: what the outside-shape path imports ----
plain_compiles = []


class _Patch:
    now: dict = {}

    def __init__(self, opts):
        self.opts = opts

    def __enter__(self):
        _Patch.now = self.opts
        return self

    def __exit__(self, *exc):
        _Patch.now = {}
        return False


class _Flags:
    """one of torch 2.11's float32 flag objects: its state is fp32_precision
    ('none' in a fresh process), which the legacy allow_tf32 setter
    changes ('ieee' for False, 'tf32' for True)"""

    def __init__(self, state="none"):
        self.fp32_precision = state

    @property
    def allow_tf32(self):
        return self.fp32_precision == "tf32"

    @allow_tf32.setter
    def allow_tf32(self, on):
        self.fp32_precision = "tf32" if on else "ieee"


backends = types.SimpleNamespace(cuda=types.SimpleNamespace(matmul=_Flags()), cudnn=_Flags())
backends.cudnn.conv, backends.cudnn.rnn = _Flags("tf32"), _Flags()


def flags():
    """the double's flag states: matmul, cuDNN, its conv and rnn"""
    d = backends.cudnn
    return [o.fp32_precision for o in (backends.cuda.matmul, d, d.conv, d.rnn)]


FRESH = flags()


def _compile_fx(gm, example_inputs):
    plain_compiles.append((gm, list(example_inputs), flags()))
    if _Patch.now.get("fail"):
        raise RuntimeError("the double's compile fails where told to")
    return lambda *a: ("inductor", gm)


torch = types.ModuleType("torch")
inductor = types.ModuleType("torch._inductor")
config = types.ModuleType("torch._inductor.config")
config.patch = _Patch
cfx = types.ModuleType("torch._inductor.compile_fx")
cfx.compile_fx = _compile_fx
inductor.config = config
inductor.compile_fx = cfx
torch._inductor = inductor
torch.backends = backends
sys.modules.update({"torch": torch, "torch._inductor": inductor, "torch._inductor.config": config,
                    "torch._inductor.compile_fx": cfx})


class T:
    """a tensor's stand-in: a shape and a dtype as torch prints it"""

    def __init__(self, *shape, dtype="torch.float32"):
        self.shape, self.dtype = tuple(shape), dtype


class Sym:
    """a symbolic size (torch.SymInt): no int"""


own = len(sys.argv) > 1
if not own:  # a folder of a build is sealed with the machine's key (XDG_CONFIG_HOME's)
    os.environ["KOPT_SEAL_KEY"] = "3c" * 32
from kopt import deploy as D  # noqa: E402
from kopt import seal  # noqa: E402

KEY = seal.key()[0]


def joined(folder):
    """a joined substitutions.json of a model at three batch sizes, sealed"""
    shapes = []
    for name, b in (("b1", 1), ("b8", 8), ("b64", 64)):
        shapes.append({"shape": name, "set": {"batch_size": b}, "inputs": [{"shape": [b, 4096], "dtype": "float32"}],
                       "variant": {"name": "default", "mode": None},
                       "kernels": {f"hash{b}": {"kernel": "triton_poi_fused_0", "config": {"XBLOCK": 64}}},
                       "gates": {"atol": 1e-4}, "speedup": 1.1})
    # the build's graph-cache keys, where its stitch had them (b8's)
    shapes[1]["graph_keys"] = [{"key": "fk8", "parts": {"gm": "g8"}}]
    with open(os.path.join(folder, "substitutions.json"), "w") as f:
        json.dump({"model": "m", "shapes": shapes, "failed": []}, f)
    seal.write(folder, ["substitutions.json"], KEY)


folder = sys.argv[1] if own else tempfile.mkdtemp()
if not own:
    joined(folder)

table, tables = D.load_tables(folder)
ok(table is None and [t.shape for t in tables] == ["b1", "b8", "b64"],
   "a joined substitutions.json: one table per declared shape, in the spec's order", [t.shape for t in tables])
ok([t.inputs for t in tables] == [[((b, 4096), "float32")] for b in (1, 8, 64)],
   "each with its inputs' shapes and dtypes", [t.inputs for t in tables])
ok(all(t.variant.get("name") for t in tables) and tables[0].kernels and tables[1].kernels,
   "and its variant and winners")
if not own:
    ok(tables[1].graph_keys == [{"key": "fk8", "parts": {"gm": "g8"}}] and tables[0].graph_keys == [],
       "and the build's graph-cache keys where the shape's table has them (none: empty)",
       [t.graph_keys for t in tables])

# the signature of a graph's inputs
ok(D.signature([T(8, 4096), 3, T(4096, dtype="torch.bfloat16")]) == [((8, 4096), "float32"), ((4096,), "bfloat16")],
   "signature: each tensor's shape and dtype, other values left out")
class Parameter(T):
    """a parameter's stand-in, as torch names its class"""


ok(D.signature([Parameter(8, 4096), T(1, 4096)]) == [((1, 4096), "float32")],
   "signature: the model's parameters, where they are marked as such, are left out")
ok(D.signature([T(Sym(), 4096)]) is None and D.signature([T(8, 4096), Sym()]) is None,
   "signature: a symbolic size or a SymInt input is a dynamic-shape compile (None)")

# which shape a graph serves
params = [T(4096, 4096), T(4096)]
ok(D.pick_shape(tables, [((8, 4096), "float32")]) is tables[1], "pick_shape: the shape whose inputs the graph takes")
ok(D.pick_shape(tables, D.signature(params + [T(64, 4096)])) is tables[2],
   "pick_shape: the model's parameters among the graph's inputs (Dynamo lifts them) do not hide its shape")
ok(D.pick_shape(tables, [((8, 4096), "bfloat16")]) is None, "pick_shape: another dtype is another shape")
ok(D.pick_shape(tables, [((3, 4096), "float32")]) is None, "pick_shape: a batch size not declared: none")
two = [D.Table("x", {"shape": "a", "inputs": [{"shape": [8, 4096], "dtype": "float32"}]}),
       D.Table("x", {"shape": "ab", "inputs": [{"shape": [8, 4096], "dtype": "float32"},
                                                {"shape": [8], "dtype": "int64"}]})]
ok(D.pick_shape(two, [((8, 4096), "float32"), ((8,), "int64")]).shape == "ab"
   and D.pick_shape(two, [((8, 4096), "float32")]).shape == "a",
   "pick_shape: of two that fit, the one with more inputs; a shape's every input must be there")

# the backend: each compile to its shape's table, the rest to Inductor
sent = []
D.compile_with = lambda t, gm, ex, *how: sent.append(t.shape) or (lambda *a: ("kopt", t.shape))
b = D.make_backend(folder, check=False)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r1 = b("g", params + [T(1, 4096)])
    r8 = b("g", params + [T(8, 4096)])
    r64 = b("g", params + [T(64, 4096)])
ok(sent == ["b1", "b8", "b64"] and r8() == ("kopt", "b8") and not w,
   "each declared shape's graph is compiled with its own table, without a warning", (sent, [str(x.message) for x in w]))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r3 = b("g3", params + [T(3, 4096)])
ok(r3() == ("inductor", "g3") and sent == ["b1", "b8", "b64"] and len(plain_compiles) == 1,
   "a shape outside every declared one: Inductor's code, no table")
ok(len(w) == 1 and "outside every declared shape (b1, b8, b64)" in str(w[0].message) and "3x4096 float32" in str(w[0].message)
   and "\n" not in str(w[0].message), "with one warning line naming the inputs and the declared shapes",
   [str(x.message) for x in w])
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    b("gd", params + [T(Sym(), 4096)])
ok(len(w) == 1 and "dynamic=False" in str(w[0].message) and len(plain_compiles) == 2,
   "a dynamic-shape compile: Inductor's code, and one warning saying dynamic=False keeps the shapes' code")
ok(b.counts == {"compiles": 5, "outside": 2} and b.table is None and len(b.tables) == 3,
   "the backend counts its compiles (one per graph and shape) and those outside", b.counts)
ok([c[2] for c in plain_compiles] == [["ieee", "ieee", "tf32", "none"]] * 2,
   "Inductor compiles under the capture's float32 flags (TF32 off for cuBLAS and cuDNN): its graph cache "
   "keys on them", [c[2] for c in plain_compiles])
ok(flags() == FRESH == ["none", "none", "tf32", "none"], "and the process's own flags are put back after",
   flags())
backends.cuda.matmul.fp32_precision, backends.cudnn.fp32_precision = "tf32", "tf32"
try:
    D.compile_plain("g4", [T(2, 4096)], {"max_autotune": True, "fail": True})
except RuntimeError:
    pass
ok(plain_compiles[-1][2][:2] == ["ieee", "ieee"] and flags() == ["tf32", "tf32", "tf32", "none"],
   "a caller's TF32 is off for the compile and on again after it, a failed compile too", (plain_compiles[-1], flags()))

# a compile that missed the graph cache, under a variant that autotunes:
# one warning, naming the table, its shape and variant, and where the
# build's cache is
t = tables[2]
t.variant = {"name": "autotune", "mode": "max-autotune-no-cudagraphs"}
auto = {"max_autotune": True, "coordinate_descent_tuning": True}
sys.modules["torch._dynamo"] = None   # an import of it raises ImportError
ok(D.graph_misses() == 0 and D.graph_counts() == (0, 0) and D.compiled_anew(t, auto, 0) is None,
   "compiled_anew: a torch that counts no misses: none, and no warning")
# (torch._dynamo appears only now: kopt registers its backend on import
# where it finds it)
dynamo = types.ModuleType("torch._dynamo")
dutils = types.ModuleType("torch._dynamo.utils")
dutils.counters = {"inductor": {}}   # Inductor's counters, as torch keeps them
dynamo.utils = dutils
torch._dynamo = dynamo
sys.modules.update({"torch._dynamo": dynamo, "torch._dynamo.utils": dutils})
ok(D.graph_misses() == 0 and D.compiled_anew(t, auto, 0) is None,
   "compiled_anew: Inductor's counters before any miss: none, and no warning")
dutils.counters["inductor"]["fxgraph_cache_miss"] = 3
ok(D.compiled_anew(t, auto, 3) is None, "compiled_anew: a compile the graph cache served: no warning")
dutils.counters["inductor"]["fxgraph_cache_miss"] = 4
ok(D.graph_counts() == (0, 4), "graph_counts: no hit counted yet, four misses", D.graph_counts())
dutils.counters["inductor"]["fxgraph_cache_hit"] = 2
ok(D.graph_counts() == (2, 4), "graph_counts: Inductor's hits and misses, in that order", D.graph_counts())
del dutils.counters["inductor"]["fxgraph_cache_hit"]
why = D.compiled_anew(t, auto, 3)
ok(why is not None and "(shape b64)" in why and "variant autotune" in why and "anew" in why
   and "TORCHINDUCTOR_CACHE_DIR=.kopt/compile/inductor" in why and "\n" not in why,
   "compiled_anew: one that missed, of an autotuning variant: one line naming the shape, the variant, the cache", why)
ok(D.compiled_anew(t, {"max_autotune": False}, 3) is None and D.compiled_anew(t, {"coordinate_descent_tuning": True}, 3),
   "compiled_anew: a variant that autotunes nothing compiles the same code anew: no warning (coordinate descent tunes)")
ok("differs from the build's" not in why, "compiled_anew: a table without the build's keys names no part", why)
# the build's keys in the table (the stitch writes its chosen variant's):
# the warning names the parts of this compile's key that differ
t.graph_keys = [{"key": "fbuild", "parts": {"gm": "g1", "inductor_config[cpp.cxx]": "c1", "flags": "f"}}]
mine = [{"key": "fhere", "parts": {"gm": "g1", "inductor_config[cpp.cxx]": "c2", "flags": "f"}}]
why = D.compiled_anew(t, auto, 3, mine)
ok(why is not None and "its key differs from the build's in inductor_config[cpp.cxx] (" in why
   and "flags" not in why.split("(")[1] and "\n" not in why,
   "compiled_anew: with the build's keys, the one part that differs named, in the same line", why)
ok("differs from the build's" not in D.compiled_anew(t, auto, 3, [{"key": "fbuild", "parts": {}}]),
   "compiled_anew: a key that is the build's (missed for another reason): no part named")
t.graph_keys = []
del dutils.counters["inductor"]["fxgraph_cache_miss"]

# the deployment's own CUDA graphs (own_graphs): a variant that runs
# Inductor's keeps them, and the deployment adds none, saying why
for contract in ("copy", "static"):
    ok(D.own_graphs(t, {"max_autotune": True}, contract) == (contract, None),
       f"own_graphs: cudagraphs={contract!r} on a variant without Inductor's graphs: added, no warning")
    got, why = D.own_graphs(t, {"triton.cudagraphs": True}, contract)
    ok(got is None and why and "Inductor's own CUDA graphs" in why and repr(contract) in why
       and t.variant["name"] in why and "\n" not in why,
       f"own_graphs: cudagraphs={contract!r} on a variant with Inductor's graphs: none added, one warning line", why)
ok(D.own_graphs(t, {"triton.cudagraphs": False}, "copy") == ("copy", None),
   "own_graphs: triton.cudagraphs set false is no graph of Inductor's")
ok(D.own_graphs(t, {"triton.cudagraphs": True}, None) == (None, None),
   "own_graphs: no graphs asked for: none, no warning")

# a model built at its own inputs: one table, every graph
one = tempfile.mkdtemp()
with open(os.path.join(one, "substitutions.json"), "w") as f:
    json.dump({"model": "n", "variant": {"name": "default"}, "kernels": {}, "gates": {}}, f)
seal.write(one, ["substitutions.json"], KEY)
sent.clear()
b1 = D.make_backend(one, check=False)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    b1("g", [T(3, 4096)])
    b1("g", [T(5, 4096)])
ok(sent == [None, None] and not w and b1.table is b1.tables[0],
   "a table without shapes takes every graph, as before shapes", sent)
done()
