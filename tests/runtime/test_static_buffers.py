"""tests/runtime/test_static_buffers.py: kopt.static_buffers, gate 1's
"which buffers a pointer is made from", on small kernels: taint through each
kind of expression (casts, arithmetic, conditional expressions, tuples,
subscripts, attributes, loops, tuple unpacking) and not through a load; a
constexpr parameter and a module constant name no buffer; the depth cap
names what the gate cannot follow, and stops an address's linear form on
either operand of a sum; a helper's summary (its loads, stores
and return value in its parameters) read at a call, by position, keyword
and default, and a call by *args; the original's roles (reads, writes,
write-only, the names its stores add, its loads through no buffer), and
the verdicts drawn from them; the accesses an atomic that merges into its
buffer and a call to one of Inductor's helpers make. Prints TAP. Needs python3 alone."""
import ast
import itertools
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

from kopt import static_buffers as B  # noqa: E402
from kopt.static_bounds import Flow  # noqa: E402
from kopt.static_lists import Aliases, Reject, module_constants  # noqa: E402

U = B.UNKNOWN_BUFFER
HEAD = "import triton\nimport triton.language as tl\nK = 8\n\n"


def flow(src, name="k", kernel=True):
    """name's Flow, as the kernel being checked (its constexpr parameters
    numbers) unless kernel is False (a function a call reaches)."""
    tree = ast.parse(HEAD + src)
    funcs = B.Functions(tree)
    return Flow(funcs[name], Aliases(tree), module_constants(tree), funcs, itertools.count(), kernel=kernel)


def loads(src, name="k"):
    """each load's taint in the order written, and each call's site accesses"""
    f = flow(src, name)
    direct = [B.taint(f, a.ptr, a.env) for a in f.accesses if a.kind == "load"]
    sites = [(kind, set(t)) for call, env in f.calls for kind, t in B.site_accesses(f, call, env)]
    return direct, sites


SIG = "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
cases = [
    ("x_ptr + o", {"x_ptr"}, "a pointer plus offsets"),
    ("out_ptr.to(tl.pointer_type(tl.float32)) + o", {"out_ptr"}, "a pointer cast to another pointer type"),
    ("(out_ptr.to(tl.int64) * 1).to(tl.pointer_type(tl.float32))", {"out_ptr"}, "cast to an integer, scaled, cast back"),
    ("x_ptr + (out_ptr.to(tl.int64) - x_ptr.to(tl.int64)) // 4", {"x_ptr", "out_ptr"}, "a pointer difference"),
    ("(out_ptr if BLOCK > 0 else x_ptr) + o", {"x_ptr", "out_ptr"}, "a conditional expression, both sides"),
    ("(x_ptr, out_ptr)[1] + o", {"x_ptr", "out_ptr"}, "a tuple indexed"),
    ("[x_ptr][0] + o", {"x_ptr"}, "a list indexed"),
    ("-(-out_ptr.to(tl.int64))", {"out_ptr"}, "a unary operator"),
    ("(x_ptr + o[:, None]).T", {"x_ptr"}, "an attribute of a pointer block (.T)"),
    ("tl.where(o < n, x_ptr, out_ptr) + o", {"x_ptr", "out_ptr", "n"}, "tl.where's two sides (and its test's number)"),
    ("(BLOCK > 0 and out_ptr) + o", {"out_ptr"}, "and/or: Triton folds a constexpr operand away"),
    ("(((out_ptr.to(tl.int64) >> 3) & 1) != 0).to(tl.int64) << 3", {"out_ptr"},
     "a comparison of a pointer's bit (64 of them add up to the pointer)"),
    ("tl.where(out_ptr.to(tl.int64) % 2 == 1, 1, 0)", {"out_ptr"}, "tl.where's test on a pointer's bit"),
    ("x_ptr + tl.load(out_ptr + o)", {"x_ptr"}, "a load's value is data, not its pointer"),
    ("(n * 4096).to(tl.pointer_type(tl.float32))", {"n"}, "an integer parameter is named (the roles drop numbers)"),
    ("(BLOCK * 4096).to(tl.pointer_type(tl.float32))", set(), "a constexpr parameter names nothing"),
    ("(K * 4096).to(tl.pointer_type(tl.float32))", set(), "a module constant names nothing"),
]
for expr, want, what in cases:
    got, _ = loads(SIG + f"    tl.load({expr})\n")
    got = got[:1]  # the outer load (a load inside its pointer comes after it)
    ok(got == [want], f"taint: {what} ({expr}): {sorted(want)}", got)

got, _ = loads(SIG + "    a, b = x_ptr, out_ptr\n    tl.load(a + o)\n    tl.load(b + o)\n    b, a = a, b\n    tl.load(a + o)\n")
ok(got == [{"x_ptr"}, {"out_ptr"}, {"out_ptr"}], "a tuple written out: each name its own value, all read before any is bound (a swap)", got)
got, _ = loads(SIG + "    a, b = tl.split(tl.join(x_ptr, out_ptr))\n    tl.load(a + o)\n")
ok(got == [{"x_ptr", "out_ptr"}], "unpacked from a call: each name may be made from all of its value", got)
got, _ = loads(SIG + "    for p in (x_ptr, out_ptr):\n        tl.load(p + o)\n")
ok(got == [{"x_ptr", "out_ptr"}], "a loop over pointers: the loop variable is made from its iterable", got)
got, _ = loads(SIG + "    for p, q in ((x_ptr, n),):\n        tl.load(p + o)\n")
ok(got == [{"x_ptr", "n"}], "a loop that unpacks: each name made from the iterable", got)
got, _ = loads(SIG + "    p = x_ptr\n    for i in range(n):\n        tl.load(p + o)\n        p = out_ptr\n")
ok(got == [{"x_ptr", "out_ptr", "n"}], "a pointer a loop sets for the next iteration: both values, and the loop's "
   "bound's names (a value made in a loop carries its iterable's: Def.guards)", got)
got, _ = loads(SIG + "    if n > 0:\n        d = 1\n    tl.load(x_ptr + d)\n")
ok(got == [{"x_ptr", "n"}], "a name one branch leaves undefined adds no buffer (it has no value there); the "
   "test's names come with the branch's value", got)
got, _ = loads(SIG + "    d = 0\n    if x_ptr.to(tl.int64) & 1:\n        d = 1\n    tl.load(out_ptr + d)\n")
ok(got == [{"out_ptr", "x_ptr"}], "a value an if sets on a pointer's bits is made from that pointer", got)
got, _ = loads(SIG + "    d = 0\n    if x_ptr.dtype.element_ty == tl.float16:\n        d = 1\n    tl.load(out_ptr + d)\n")
ok(got == [{"out_ptr"}], "a pointer's element type is no bits of it (METADATA)", got)
got, _ = loads(SIG + "    c = 0\n    for i in range(x_ptr.to(tl.int64) & 7):\n        c += 1\n    tl.load(out_ptr + c)\n")
ok(got == [{"out_ptr", "x_ptr"}], "a counter a loop bounded by a pointer's bits leaves is made from that pointer", got)


def chained(k, start):
    """a pointer copied k times after start, then loaded"""
    return (SIG + start + "    p0 = q\n" + "".join(f"    p{i + 1} = p{i}\n" for i in range(k))
            + f"    tl.load(p{k} + o)\n")


# the cap (MAX_DEPTH, 100) counts each expression and each name followed:
# the load's sum, k + 1 copies, q, and out_ptr's parameter
for k, want in ((97, {"out_ptr"}), (98, {U, B.TOO_DEEP})):
    got, _ = loads(chained(k, "    q = out_ptr\n"))
    ok(got[:1] == [want], f"the depth cap: a pointer copied {k} times is {sorted(want)}", got)
# Flow.bases counts the same steps: a name followed and each sum's side,
# so a pointer summed with 0 forty times is two steps a copy, 81 in all
src = SIG + "    p0 = out_ptr\n" + "".join(f"    p{i + 1} = p{i} + 0\n" for i in range(40)) + "    tl.load(p40 + o)\n"
f = flow(src)
a = [x for x in f.accesses if x.kind == "load"][0]
ok(f.bases(a.ptr, a.env) == {"out_ptr"}, "bases: a pointer summed with 0 forty times, within the cap", f.bases(a.ptr, a.env))
src = SIG + "    p0 = out_ptr\n" + "".join(f"    p{i + 1} = p{i} + 0\n" for i in range(50)) + "    tl.load(p50 + o)\n"
f = flow(src)
a = [x for x in f.accesses if x.kind == "load"][0]
ok(f.bases(a.ptr, a.env) == {U}, "... fifty times, past it: what the gate cannot follow", f.bases(a.ptr, a.env))
# a loop's carried value is one more step: q after the loop, then its value at the body's end
LOOP = "    q = x_ptr\n    for i in range(n):\n        q = q + 1\n"
for k, want in ((92, {"x_ptr", "n"}), (93, {"x_ptr", "n", U, B.TOO_DEEP})):
    got, _ = loads(chained(k, LOOP))
    ok(got[:1] == [want], f"the depth cap through a loop's carried value: copied {k} times, {sorted(want)}", got)

def lin_form(expr):
    """static_bounds' linear form of a load's pointer x_ptr + expr"""
    f = flow(f"def k(x_ptr, n):\n    tl.load(x_ptr + {expr})\n")
    a = next(a for a in f.accesses if a.kind == "load")
    return f.lin(a.ptr, a.env)


# the linear form of an address (Flow.lin) meets the same cap on either
# operand of a sum: n + (1 + (1 + ...)) nested to the right, under the cap,
# is the sum nested to the left (two terms, the ones added up); past it,
# what is left is a term the gate does not look into, its ones not added
under, past = (lin_form("n" + " + (1" * k + ")" * k) for k in (98, 150))
ok(under == lin_form("n" + " + 1" * 98) and len(under[0]) == 2 and under[1] == 98,
   "the linear form: a sum nested to the right under the cap, added up as nested to the left", under)
ok(len(past[0]) > 2 and past[1] < 150,
   "... past the cap, the rest a term not looked into, its ones not all added up", past)

HELP = ("@triton.jit\ndef fetch(p, o, m=None):\n    return tl.load(p + o, mask=m)\n\n"
        "@triton.jit\ndef at(p, o):\n    return p + o\n\n"
        "@triton.jit\ndef outer(o, src):\n    return fetch(src, o) * 2.0\n\n")
_, sites = loads(HELP + SIG + "    fetch(out_ptr, o)\n")
ok(sites == [("load", {"out_ptr"})], "a helper's load through its first argument, given by position", sites)
_, sites = loads(HELP + SIG + "    fetch(o=o, p=x_ptr)\n")
ok(sites == [("load", {"x_ptr"})], "... given by keyword", sites)
_, sites = loads(HELP + SIG + "    outer(o, src=out_ptr)\n")
ok(sites == [("load", {"out_ptr"})], "... through a second helper", sites)
_, sites = loads(HELP + SIG + "    fetch(*(x_ptr, o))\n")
ok(sites == [("load", {U})], "... by *args: what the gate cannot follow", sites)
_, sites = loads(HELP + SIG + "    fetch(**{'p': x_ptr})\n")
ok(sites == [("load", {U})], "... by **kwargs: what the gate cannot follow", sites)
got, _ = loads(HELP + SIG + "    tl.load(at(out_ptr, o))\n")
ok(got == [{"out_ptr"}], "a helper's return value: made from the argument it returns", got)
got, _ = loads(HELP + SIG + "    tl.load(x_ptr + at(o, 1))\n")
ok(got == [{"x_ptr"}], "... and from nothing where its arguments are numbers", got)
f = flow(HELP + SIG + "    pass\n")
s = B.summary(f, "fetch")
ok(s.positional == ["p", "o", "m"] and s.accesses == [("load", frozenset({"p", "o"}))] and s.returns == frozenset({"m"}),
   "fetch's summary: a load made from p and o (at a call, numbers drop out), a return value that is data but for "
   "its mask m (which lanes get `other`)", (s.positional, s.accesses, s.returns))
ok(B.summary(f, "fetch") is s, "a summary is found once per module", None)
ok(B.summary(f, "nope") is B.UNKNOWN_SUMMARY, "no summary for a name that is not the module's function", None)
def rejects(fn, *args):
    try:
        fn(*args)
    except Reject as e:
        return str(e)
    return None


CEXPR = "@triton.jit\ndef addr(p: tl.constexpr, B: tl.constexpr):\n    return p.to(tl.int64) + B\n\n"
s = B.summary(flow(CEXPR + SIG + "    pass\n"), "addr")
ok(s.returns == frozenset({"p", "B"}),
   "a helper's tl.constexpr parameters are followed (Triton makes one constexpr by the value passed)", s.returns)
got, _ = loads(CEXPR + SIG + "    tl.load(x_ptr + addr(out_ptr, BLOCK))\n")
ok(got == [{"x_ptr", "out_ptr"}], "... at the call, the caller's pointer through it; the kernel's constexpr still none", got)
f = flow(SIG + "    tl.load((BLOCK * 4096).to(tl.pointer_type(tl.float32)))\n", kernel=False)
got = [B.taint(f, a.ptr, a.env) for a in f.accesses]
ok(got == [{"BLOCK"}], "a function read as a callee (kernel=False): its constexpr annotation binds nothing", got)

VALUES = ("@triton.jit\ndef peek(a, b):\n    return a + tl.load(b.to(tl.pointer_type(tl.float32))).to(tl.int64)\n\n"
          "@triton.jit\ndef add(a, b):\n    return a + b\n\n")


def values(body):
    tree = ast.parse(HEAD + VALUES + SIG + body)
    funcs = B.Functions(tree)
    al, consts = Aliases(tree), module_constants(tree)
    return rejects(B.check_function_values, tree, al, funcs,
                   lambda fn: Flow(fn, al, consts, funcs, itertools.count()))


ok(values("    tl.reduce(o, 0, add)\n") is None, "a combine function that only computes, passed as a value: allowed", None)
why = values("    tl.reduce(o, 0, peek)\n")
ok(why and "'peek' is passed as a value" in why, "a combine function that loads, passed as a value: rejected", why)
ok(values("    peek(o, o)\n") is None, "... called, it is judged at its call site instead", None)

ORIG = ("def k(x_ptr, out_ptr, n, off, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
        "    v = tl.load(x_ptr + o)\n    tl.store(out_ptr + off + o, v)\n")
r = B.Roles(flow(ORIG))
ok(r.universe == {"x_ptr", "out_ptr", "off"} and r.reads == {"x_ptr"} and r.writes == {"out_ptr", "off"}
   and r.write_only == {"out_ptr", "off"} and not r.unnamed_ok,
   "roles: the buffers, what is read, written, only written; no load through no buffer",
   (r.universe, r.reads, r.writes, r.write_only, r.unnamed_ok))
ok(r.named({"x_ptr", "n", U}) == {"x_ptr", U}, "a name no access is based on is a number: dropped", None)


why = rejects(r.check_load, "load", {"out_ptr"})
ok(why and "reads 'out_ptr'" in why, "a load of a buffer only written: rejected, 'reads'", why)
why = rejects(r.check_load, "load", {"x_ptr", "out_ptr"})
ok(why and "may read 'out_ptr'" in why, "... one it may read among others: 'may read'", why)
why = rejects(r.check_load, "load", set())
ok(why and "no buffer" in why, "a load made from no buffer: rejected", why)
why = rejects(r.check_load, "load", {U})
ok(why and "cannot follow" in why, "a load made from what the gate cannot follow: rejected", why)
ok(r.check_load("load", {"x_ptr"}) is None, "a load of a read buffer: left to the other rules", None)
ok(rejects(r.check_store, "store", {"out_ptr", "off"}, {"out_ptr", "off"}) is None,
   "a store made from the names it writes through", None)
why = rejects(r.check_store, "store", {"out_ptr", "x_ptr"}, {"out_ptr"})
ok(why and "'x_ptr' too" in why, "a store made from a second buffer: rejected, naming it", why)
why = rejects(r.check_site, "store", "store", {"x_ptr"})
ok(why and "writes through 'x_ptr'" in why, "a callee's store into a buffer only read: rejected", why)
ok(r.check_site("store", "store", {"out_ptr"}) is not None, "a callee's store into a written buffer: for the memcheck", None)
ok(rejects(r.check_site, "store", "store", {"out_ptr", "off"}), "... into two names: rejected", None)

STACK = ("def k(a_ptr, out_ptr, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
         "    p = tl.load(a_ptr).to(tl.pointer_type(tl.float32))\n    tl.store(out_ptr + o, tl.load(p + o))\n")
r = B.Roles(flow(STACK))
ok(r.unnamed_ok and r.check_load("load", set()) and rejects(r.check_load, "load", {"out_ptr"}),
   "an original that loads through a loaded address: such loads go to the memcheck; its output still not read",
   r.unnamed_ok)
ok(r.writes == {"out_ptr"} and r.check_site("store", "store", {"out_ptr"}) is not None,
   "a callee's store into the one buffer the original writes: for the memcheck", r.writes)
ATOM = ("def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
        "    old = tl.atomic_add(out_ptr + o, tl.load(x_ptr + o))\n    tl.atomic_add(x_ptr + o, 1.0)\n")
f = flow(ATOM)
ok([a.reads for a in f.accesses] == [True, True, False],
   "an atomic whose old value is used reads; one whose value is dropped does not", [a.reads for a in f.accesses])
r = B.Roles(f)
ok(r.reads == {"x_ptr", "out_ptr"} and r.write_only == set(), "the original's atomic with its old value used reads its buffer",
   (r.reads, r.write_only))
MERGE = ("def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n"
         "    tl.atomic_max(out_ptr + o, 0.0)\n    tl.atomic_cas(out_ptr + o, 0.0, 1.0)\n"
         "    tl.atomic_xchg(out_ptr + o, tl.load(x_ptr + o))\n")
f = flow(MERGE)
ok([(a.reads, a.merges) for a in f.accesses][:3] == [(False, True), (False, True), (False, False)],
   "an atomic max or compare-and-swap merges into what its buffer held, its old value dropped; an exchange does not",
   [(a.reads, a.merges) for a in f.accesses])
r = B.Roles(f)
ok(r.reads == {"x_ptr", "out_ptr"} and r.write_only == set(),
   "the original's merging atomics read their buffer", (r.reads, r.write_only))
HELPER_MAX = ("def h(p, v):\n    tl.atomic_max(p, v)\n\n"
              "def k(x_ptr, out_ptr, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    h(out_ptr + o, 0.0)\n")
direct, sites = loads(HELPER_MAX)
ok(("load", {"out_ptr"}) in sites and ("store", {"out_ptr"}) in sites,
   "a callee's merging atomic, its old value dropped: a load and a store at the call", sites)
IH = ("from torch._inductor.runtime import triton_helpers\n\n"
      "def h(p, v):\n    return triton_helpers.bucketize_binary_search(v, offsets_ptr=p, indexing_dtype=tl.int32,"
      " right=False, OFFSETS_SIZE=4, BLOCK_SHAPE=[4])\n\n"
      "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    v = tl.load(x_ptr + o)\n"
      "    h(out_ptr + o, v)\n    triton_helpers.x_grid_barrier(x_ptr)\n"
      "    triton_helpers.maximum(v, n)\n    triton_helpers.some_new_helper(v, out_ptr)\n")
f = flow(IH)
r = B.Roles(f)
got = [[(k, r.accessed(t)) for k, t in B.helper_accesses(f, c, e)] for c, e in f.helpers]
ok(got == [[("load", {"x_ptr"}), ("store", {"x_ptr"})], [("load", None), ("store", None)],
           [("load", {"out_ptr"}), ("store", {"out_ptr"})]],
   "Inductor's helpers: a barrier loads and stores through its pointer; one given data and a number accesses "
   "nothing; one not known, given a pointer, loads and stores through it", got)
direct, sites = loads(IH)
ok(sites == [("load", {"out_ptr"})], "a module helper's call to Inductor's bucketize, its pointer by keyword: "
   "a load of the caller's buffer at the call", sites)
STAR = ("from torch._inductor.runtime import triton_helpers\n\n"
        "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    v = tl.load(x_ptr + o)\n"
        "    rest = (x_ptr, tl.int32)\n"
        "    triton_helpers.bucketize_binary_search(v, *rest)\n"
        "    kw = dict(offsets_ptr=x_ptr)\n"
        "    triton_helpers.bucketize_binary_search(v, x_ptr, **kw)\n")
f = flow(STAR)
got = [[(k, set(t)) for k, t in B.helper_accesses(f, c, e)] for c, e in f.helpers]
ok(got == [[("load", {U})], [("load", {U})]],
   "Inductor's helper called with *args, or with **kwargs, alone: which argument is its pointer is unknown", got)
ok(B.inductor_helper("torch._inductor.runtime.triton_helpers.libdevice.exp") is None
   and B.inductor_helper("torch._inductor.runtime.triton_helpers.max2") == "max2",
   "libdevice under triton_helpers is not one of Inductor's helpers", None)
ok(B.joined([{"a"}, set()]) == {"a", U} and B.joined([{"a"}, B.IN_PROGRESS]) == {"a"} and B.joined([set()]) == set(),
   "joined: a buffer on one path and none on another may point anywhere; values being found are left out", None)
done()
