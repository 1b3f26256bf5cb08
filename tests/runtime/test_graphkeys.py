"""tests/runtime/test_graphkeys.py: kopt.graphkeys on the CPU, against a
TEST DOUBLE of torch._inductor.codecache whose compiled_fx_graph_hash
returns a key and its lines as torch 2.11's does ("[HASH] PART: VALUE").
Checks that install() wraps it once and records each key with its parts
while returning what it returned, that take() hands the keys over once,
that a torch without the function records nothing, and that differing()
names the parts that differ from the build's nearest key. Prints TAP."""

import os
import sys
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

calls = []


def compiled_fx_graph_hash(gm, example_inputs, fx_kwargs, inputs_to_check):
    calls.append(gm)
    lines = [f"[h{gm}] gm: GraphModule()", "[ieee1] cuda_matmul_settings: ('ieee', False, True)",
             "[t1] inductor_config[max_autotune]: True", "[t2] inductor_config[max_autotune]: twice",
             "not a part line"]
    return f"f{gm}key", lines


torch = types.ModuleType("torch")
inductor = types.ModuleType("torch._inductor")
codecache = types.ModuleType("torch._inductor.codecache")
codecache.compiled_fx_graph_hash = compiled_fx_graph_hash
inductor.codecache = codecache
torch._inductor = inductor
sys.modules.update({"torch": torch, "torch._inductor": inductor, "torch._inductor.codecache": codecache})

from kopt import graphkeys as GK  # noqa: E402

ok(GK.install() and GK.install() and codecache.compiled_fx_graph_hash is not compiled_fx_graph_hash,
   "install wraps Inductor's key function")
wrapped = codecache.compiled_fx_graph_hash
GK.install()
ok(codecache.compiled_fx_graph_hash is wrapped, "... once: a second install wraps nothing more")
out = codecache.compiled_fx_graph_hash("g1", [], {}, [])
ok(out[0] == "fg1key" and len(out[1]) == 5 and calls == ["g1"], "the wrapped function returns what Inductor's does", out)
codecache.compiled_fx_graph_hash("g2", [], {}, [])
got = GK.take()
ok([k["key"] for k in got] == ["fg1key", "fg2key"], "take: every key looked up, in order", got)
ok(got[0]["parts"] == {"gm": "hg1", "cuda_matmul_settings": "ieee1", "inductor_config[max_autotune]": "t1"},
   "each with its parts' hashes (a part named twice: its first; other lines left out)", got[0]["parts"])
ok(GK.take() == [], "take hands the keys over once")
m = GK.mark()
codecache.compiled_fx_graph_hash("g3", [], {}, [])
ok([k["key"] for k in GK.since(m)] == ["fg3key"], "since(mark()): the keys recorded after the mark")
ok([k["key"] for k in GK.since(m)] == ["fg3key"] and [k["key"] for k in GK.take()] == ["fg3key"],
   "... left recorded: again, and for take")
codecache.compiled_fx_graph_hash("g4", [], {}, [])
ok([k["key"] for k in GK.since(m + 5)] == ["fg4key"], "... a mark past a take between: every key recorded since it")
ok(GK.since(GK.mark()) == [], "... nothing recorded since the mark: none, though earlier keys are still recorded")
GK.take()

build = [{"key": "fg1key", "parts": {"gm": "hg1", "flags": "ieee", "cfg": "a"}},
         {"key": "fg9key", "parts": {"gm": "hg9", "flags": "ieee", "cfg": "a"}}]
ok(GK.differing(build, [{"key": "fg1key", "parts": {}}]) == [], "differing: a key that is the build's: nothing")
d = GK.differing(build, [{"key": "fxkey", "parts": {"gm": "hg9", "flags": "none", "cfg": "a"}}])
ok(d == ["key fxkey against fg9key: flags"], "differing: the parts that differ from the build's nearest key", d)
d = GK.differing(build, [{"key": "fykey", "parts": {"gm": "hg1", "flags": "ieee", "cfg": "a", "extra": "x"}}])
ok(d == ["key fykey against fg1key: extra"], "... a part only one side has differs too", d)
ok(GK.differing([], [{"key": "fz", "parts": {}}]) == ["key fz: the build recorded no keys"],
   "... and a build that recorded no keys says so")
many = {f"p{i:02d}": "x" for i in range(15)}
d = GK.differing([{"key": "k0", "parts": {}}], [{"key": "k1", "parts": many}])
ok(len(d) == 1 and d[0].endswith("p11 and 3 more") and "p12" not in d[0], "... at most 12 named, the rest counted", d)
d12 = GK.differing([{"key": "k0", "parts": {}}], [{"key": "k1", "parts": {f"p{i:02d}": "x" for i in range(12)}}])
d13 = GK.differing([{"key": "k0", "parts": {}}], [{"key": "k1", "parts": {f"p{i:02d}": "x" for i in range(13)}}])
ok(d12[0].endswith("p11") and d13[0].endswith("p11 and 1 more"), "... twelve all named, a thirteenth counted", (d12, d13))

# parts_apart: the differing parts over every key that is not the build's
ap = GK.parts_apart(build, [{"key": "fg1key", "parts": {}},
                            {"key": "fxkey", "parts": {"gm": "hg9", "flags": "none", "cfg": "a"}},
                            {"key": "fykey", "parts": {"gm": "hg1", "flags": "ieee", "cfg": "b"}},
                            {"key": "fwkey", "parts": {"gm": "hg9", "flags": "none", "cfg": "a"}}])
ok(ap == ["cfg", "flags"], "parts_apart: each differing part once, sorted, over every key not the build's", ap)
ok(GK.parts_apart(build, [{"key": "fg9key", "parts": {"gm": "zz"}}]) == [],
   "parts_apart: a key that is the build's, whatever its parts: none")
ok(GK.parts_apart([], [{"key": "fz", "parts": {"gm": "x"}}]) == [], "parts_apart: a build that recorded no keys: none")

# a torch without the key function: nothing wrapped, nothing recorded
GK._installed[0] = False
del codecache.compiled_fx_graph_hash
ok(GK.install() is False and GK.take() == [], "a torch without the key function: install says so, records nothing")
sys.modules["torch._inductor"] = None   # an import of it raises ImportError
ok(GK.install() is False, "a torch without Inductor: install says so")
done()
