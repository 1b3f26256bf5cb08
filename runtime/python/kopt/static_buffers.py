"""kopt.static_buffers: which buffers a pointer may be made from, for gate 1.

``Flow.bases`` (kopt.static_bounds) names the buffer an access goes through
when its pointer is a buffer's pointer plus or minus offsets, the form
Inductor's and hand-written kernels use. A pointer can be made in other
ways: cast to an integer and back (``x_ptr.to(tl.int64)``), from the
difference of two buffers' pointers, chosen by a conditional expression,
unpacked from a tuple, taken from a loop over pointers, returned by a helper
function, or loaded from memory. ``taint`` follows a value through every
operation (what a load returns is data, but for its mask and `other`; a
value made under an if, a while or a for carries the test's and the
iterable's) and names each parameter whose value it may be made from; a
name the gate cannot follow adds UNKNOWN_BUFFER. A store's value, mask
and surrounding tests may be made from no buffer's pointer
(Roles.check_data): a pointer's bits are not data.

A call to a function of the module (a helper, or another kernel) is read
through its ``summary``: the parameters each of its loads and stores and its
return value are made from. At the call they become the arguments' buffers
(``site_accesses``), so a helper that loads through its argument, given an
output's pointer, reads that output.

kopt.static_bounds.check_accesses draws gate 1's buffer rules from these.
Standard library only.
"""

from __future__ import annotations

import ast

from .static_limits import NOT_NUMBER
from .static_lists import HELPER_ACCESSES, INDUCTOR_RUNTIME, LOADS, STORES, Reject

MAX_DEPTH = 100     # names and nodes followed into an expression, then unknown
UNKNOWN_BUFFER = "?"  # in a set of bases: a buffer the gate cannot name
# in an access's set of names: an access only where they name a buffer (an
# unknown helper of Inductor's given its arguments: numbers are no pointer)
IF_BUFFER = "~"
IN_PROGRESS = frozenset({"in progress"})  # bases being found (a loop-carried value)
# with UNKNOWN_BUFFER: past MAX_DEPTH steps (a pointer copied 120 times is
# unknown, but not as a pointer read from memory is: Roles.check_load)
TOO_DEEP = "?deep"
# attributes of a value that Triton fixes as it compiles (its type and
# shape), not made from the value's bits
METADATA = {"dtype", "element_ty", "type", "shape", "primitive_bitwidth", "is_floating", "is_int", "is_ptr",
            "is_fp16", "is_bf16", "is_fp32", "is_fp64", "is_int_signed", "is_int_unsigned", "int_bitwidth"}


def joined(parts) -> set[str]:
    """The buffers of a value that is any one of parts (sets of buffers;
    IN_PROGRESS ones left out): their union, with UNKNOWN_BUFFER where some
    name buffers and others none (a pointer on one path, what the gate
    cannot follow on another: it may point anywhere)."""
    parts = [p for p in parts if p is not IN_PROGRESS]
    out = set().union(*parts)
    if out and any(not p for p in parts):
        out.add(UNKNOWN_BUFFER)
    return out


def _union(parts) -> set[str]:
    return set().union(*[p for p in parts if p is not IN_PROGRESS])


class Functions(dict):
    """A module's top-level functions by name, and what each one does with
    its parameters (summary), found once for the module."""

    def __init__(self, tree: ast.Module):
        super().__init__((n.name, n) for n in tree.body if isinstance(n, ast.FunctionDef))
        self.summaries: dict[str, Summary | None] = {}


class Summary:
    """For each load and store of a function (its own, and those of the
    functions it calls), and for its return value: the parameters (or
    UNKNOWN_BUFFER) its pointer or value is made from."""

    def __init__(self, fn: ast.FunctionDef):
        self.positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        self.accesses: list[tuple[str, frozenset]] = []
        self.returns: frozenset = frozenset()


UNKNOWN_SUMMARY = None  # a function being summarized (a call cycle): anything


def local_callee(flow, node: ast.Call, env: dict) -> str | None:
    """The name of the module's function that node calls, if it calls one."""
    f = node.func
    if isinstance(f, ast.Name) and f.id not in env and f.id in flow.funcs:
        return f.id
    return None


def summary(flow, name: str) -> Summary | None:
    funcs = flow.funcs
    cache = getattr(funcs, "summaries", None)
    if cache is None or not isinstance(funcs.get(name), ast.FunctionDef):
        return UNKNOWN_SUMMARY
    if name in cache:
        return cache[name]
    cache[name] = UNKNOWN_SUMMARY
    fn = funcs[name]
    sub = type(flow)(fn, flow.aliases, flow.consts, funcs, flow.tokens)
    s = Summary(fn)
    for a in sub.accesses:
        t = frozenset(taint(sub, a.ptr, a.env) if a.ptr is not None else {UNKNOWN_BUFFER})
        s.accesses += [(k, t) for k in sorted(a.kinds)]
    for call, env in sub.calls:
        s.accesses += site_accesses(sub, call, env)
    for call, env in sub.helpers:
        s.accesses += helper_accesses(sub, call, env)
    s.returns = frozenset(_union(taint(sub, v, env) for v, env in sub.returns))
    cache[name] = s
    return s


def _arguments(flow, call: ast.Call, env: dict, s: Summary) -> dict[str, set[str]] | None:
    """Each parameter's buffers at this call; None when the call's arguments
    cannot be matched to them (a *args or **kwargs argument)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    out = {p: taint(flow, a, env) for p, a in zip(s.positional, call.args)}
    for k in call.keywords:
        out[k.arg] = taint(flow, k.value, env)
    return out


def _at_site(t: frozenset, args: dict[str, set[str]] | None) -> set[str]:
    """A callee's set of parameters as the caller's buffers."""
    if args is None:
        return {UNKNOWN_BUFFER}
    out = {b for b in (UNKNOWN_BUFFER, IF_BUFFER) if b in t}
    for p in t:
        out |= args.get(p, set())  # a parameter left to its default: a literal
    return out


def site_accesses(flow, call: ast.Call, env: dict) -> list[tuple[str, frozenset]]:
    """The loads and stores a call to the module's function makes, each with
    the caller's buffers its pointer is made from."""
    s = summary(flow, call.func.id)
    if s is UNKNOWN_SUMMARY:
        return [("load", frozenset({UNKNOWN_BUFFER})), ("store", frozenset({UNKNOWN_BUFFER}))]
    args = _arguments(flow, call, env, s)
    return [(kind, frozenset(_at_site(t, args))) for kind, t in s.accesses]


def inductor_helper(path: str | None) -> str | None:
    """NAME when path is one of Inductor's helpers, triton_helpers.NAME
    (not its libdevice or math, whose functions take no pointer)."""
    head = INDUCTOR_RUNTIME + ".triton_helpers."
    if path is None or not path.startswith(head) or "." in path[len(head):]:
        return None
    return path[len(head):]


def helper_accesses(flow, call: ast.Call, env: dict) -> list[tuple[str, frozenset]]:
    """The loads and stores a call to one of Inductor's helpers makes (the
    gate does not read its body): through the pointer argument of one named
    in HELPER_ACCESSES, with the buffers it is made from; through any
    buffer's pointer given to another, a load and a store each (its index
    the helper's). A helper given no buffer accesses none of the kernel's."""
    name = inductor_helper(flow.aliases.module_path(call.func))
    if name in HELPER_ACCESSES:
        pos, kw, kinds = HELPER_ACCESSES[name]
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            arg = None  # *args or **kwargs: which argument is the pointer is unknown
        elif len(call.args) > pos:
            arg = call.args[pos]
        else:
            arg = next((k.value for k in call.keywords if k.arg == kw), None)
        t = taint(flow, arg, env) if arg is not None else {UNKNOWN_BUFFER}
    else:
        kinds = ("load", "store")
        t = _union(taint(flow, a, env) for a in call.args + [k.value for k in call.keywords]) - {UNKNOWN_BUFFER}
        t = t | {IF_BUFFER} if t else t
    return [(k, frozenset(t)) for k in kinds] if t else []


def check_function_values(tree: ast.Module, aliases, funcs, make_flow) -> None:
    """A function of the module named as a value, not called (a combine
    function given to tl.reduce or tl.associative_scan, an argument of
    Inductor's helpers), makes no load, store or atomic, nor does one of
    Inductor's helpers that HELPER_ACCESSES names: Triton calls it with
    values the gate does not follow (the elements being combined, which a
    cast makes pointers), so no call site judges which buffers its
    accesses reach. make_flow(fn): a Flow of the module's function fn."""
    accesses: dict[str, bool] = {}  # each function's answer, found once
    for top in tree.body:
        if not isinstance(top, ast.FunctionDef):
            continue
        callees = {id(n.func) for n in ast.walk(top) if isinstance(n, ast.Call)}
        local = {a.arg for a in ast.walk(top.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(top) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
        for n in (n for stmt in top.body for n in ast.walk(stmt)):
            if id(n) in callees:
                continue
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in funcs and n.id not in local:
                if n.id not in accesses:
                    s = summary(make_flow(funcs[n.id]), n.id)
                    accesses[n.id] = s is UNKNOWN_SUMMARY or bool(s.accesses)
                if accesses[n.id]:
                    raise Reject(f"function '{n.id}' is passed as a value on line {n.lineno} in '{top.name}' and "
                                 f"loads or stores: Triton calls it with values the gate does not follow, so no "
                                 f"call site tells which buffers it reaches")
            elif isinstance(n, ast.Attribute) and inductor_helper(aliases.module_path(n)) in HELPER_ACCESSES:
                raise Reject(f"Inductor's helper '{inductor_helper(aliases.module_path(n))}' is passed as a value "
                             f"on line {n.lineno} in '{top.name}': it loads and stores through its argument, "
                             f"which no call site shows")


def taint(flow, node: ast.AST, env: dict, depth: int = 0) -> set[str]:
    """The parameters node's value may be made from, through any operation
    (a load through its mask, its `other` and an atomic's values, not the
    memory it reads; a value made under a test through the test: Def.guards);
    UNKNOWN_BUFFER where a name cannot be followed, with TOO_DEEP past
    MAX_DEPTH steps."""
    if depth > MAX_DEPTH:
        return {UNKNOWN_BUFFER, TOO_DEEP}
    d = depth + 1
    if isinstance(node, ast.Name):
        return _union(taint_def(flow, x, depth) for x in env[node.id]) if node.id in env else set()
    if isinstance(node, ast.Call):
        path = flow.aliases.module_path(node.func)
        if path in LOADS or path in STORES:
            # what memory holds (or held): data; but a load's mask picks
            # which lanes get its `other` (and an atomic's value is its
            # arguments'): they decide what it returns too
            rest = node.args[1:] + [k.value for k in node.keywords if k.arg != "pointer"]
            return _union(taint(flow, p, env, d) for p in rest)
        callee = local_callee(flow, node, env)
        if callee is not None:
            s = summary(flow, callee)
            if s is UNKNOWN_SUMMARY:
                return {UNKNOWN_BUFFER}
            return _at_site(s.returns, _arguments(flow, node, env, s))
        parts = [node.func.value] if isinstance(node.func, ast.Attribute) and path is None else []
        parts += node.args + [k.value for k in node.keywords]
        known = HELPER_ACCESSES.get(inductor_helper(path) or "")
        if known is not None and known[2] == ("load",):
            # a helper of Inductor's that only loads through its pointer
            # (a binary search) returns what it found there: data
            pos, pname, _ = known
            parts = [a for i, a in enumerate(node.args) if i != pos] + [k.value for k in node.keywords
                                                                       if k.arg != pname]
        return _union(taint(flow, p, env, d) for p in parts)
    if isinstance(node, ast.BinOp):
        return taint(flow, node.left, env, d) | taint(flow, node.right, env, d)
    if isinstance(node, ast.IfExp):
        return taint(flow, node.body, env, d) | taint(flow, node.orelse, env, d)
    if isinstance(node, (ast.Tuple, ast.List)):
        return _union(taint(flow, e, env, d) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return taint(flow, node.operand, env, d)
    if isinstance(node, (ast.Subscript, ast.Starred)):
        return taint(flow, node.value, env, d)
    if isinstance(node, ast.Attribute) and node.attr in METADATA:
        return set()  # x_ptr.dtype.element_ty: what Triton knows as it compiles, not the pointer's bits
    if isinstance(node, ast.Attribute) and flow.aliases.module_path(node) is None:
        return taint(flow, node.value, env, d)  # ptrs.T: the same pointers
    if isinstance(node, (ast.Constant, ast.Attribute)):
        return set()  # a literal, or a path into a module (tl.float32)
    # any other expression is made from its parts: `flag and out_ptr` is
    # out_ptr where Triton folds a constexpr flag, and a pointer's bits,
    # compared one at a time (`(a >> k) & 1 != 0`), add up to the pointer
    return _union(taint(flow, c, env, d) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))


def taint_def(flow, d, depth: int):
    got = flow.recall("taint", d)
    if got is not NOT_NUMBER:
        return got
    if id(d) in flow.subst:
        out = set()
    elif d.kind == "param":
        out = set() if d.tag in flow.constexpr else {d.tag}
    elif d.kind == "unknown" and id(d) in flow.carried:
        flow.remember(("taint", d), IN_PROGRESS)
        out = _union(taint_def(flow, e, depth + 1) for e in flow.carried[id(d)])
    elif d.expr is not None:  # an assignment, a loop's iterable, what a tuple was unpacked from
        out = taint(flow, d.expr, d.env, depth + 1)
    else:
        out = {UNKNOWN_BUFFER}
    # made under an if, a while or a for: the tests and iterables decide
    # its value too (`if (d >> 3) & 1: c += 8` copies d's bits into c)
    out = _union([out] + [taint(flow, t, e, depth + 1) for t, e in d.guards])
    return flow.remember(("taint", d), out)


def store_data(a):
    """A store's or an atomic's values, its mask and the tests and
    iterables around it (kopt.static_bounds.Access a): (what, expression,
    its names' definitions) each, for Roles.check_data."""
    c = a.call
    vals = [x for x in c.args[1:] if x is not a.mask] + [k.value for k in c.keywords
                                                          if k.arg in ("value", "val", "cmp")]
    for v in vals:
        yield "value", v, a.env
    if a.mask is not None:
        yield "mask", a.mask, a.env
    for t, env in a.guards:
        yield "test", t, env


def _unnamed(t: set[str]) -> bool:
    """A pointer made from no buffer (an integer, a loaded value), or from
    what the gate cannot follow."""
    return UNKNOWN_BUFFER in t or not t


def _who(t: set[str]) -> str:
    return ", ".join("what the gate cannot follow" if b == UNKNOWN_BUFFER else f"'{b}'" for b in sorted(t)
                     if b != TOO_DEEP)


class Roles:
    """What the original kernel does with its buffers, for gate 1's buffer
    rules: the names its accesses' pointers are based on (Flow.bases: its
    buffers; other parameters are numbers), the buffers it reads through
    and writes through, the names its stores' pointers are made from beyond
    the buffer they write, and whether it loads through a pointer made from
    no buffer of its own (Helion's stack tensors)."""

    def __init__(self, oflow):
        # an atomic that reads its buffer (Access.kinds) counts as a load too
        direct = [(k, a.ptr, a.env, oflow.bases(a.ptr, a.env) if a.ptr is not None else set())
                  for a in oflow.accesses for k in a.kinds]
        sites = [(kind, t) for call, env in oflow.calls for kind, t in site_accesses(oflow, call, env)]
        sites += [(kind, t) for call, env in oflow.helpers for kind, t in helper_accesses(oflow, call, env)]
        # the names an access is made from (an unknown helper's arguments, IF_BUFFER, are not all pointers)
        self.universe = set().union(*[t for _, t in sites if IF_BUFFER not in t],
                                    *[bases for *_, bases in direct]) - {UNKNOWN_BUFFER}
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.extra: set[str] = set()
        self.unnamed_ok = False
        found = [(kind, self.of(oflow, ptr, env), bases) for kind, ptr, env, bases in direct]
        found += [(kind, named, named) for kind, named in self.sites(sites)]
        for kind, t, bases in found:
            if kind == "load":
                self.reads |= t - {UNKNOWN_BUFFER}
                self.unnamed_ok |= _unnamed(t)
            else:
                self.writes |= bases - {UNKNOWN_BUFFER}
                self.extra |= t - bases
        self.write_only = self.writes - self.reads

    def named(self, t) -> set[str]:
        """t's buffers of the original (numbers left out)."""
        return {b for b in t if b in self.universe or b in (UNKNOWN_BUFFER, TOO_DEEP)}

    def accessed(self, t) -> set[str] | None:
        """The buffers of the original an access made from t goes through;
        None where it is an access only if t names a buffer (IF_BUFFER) and
        names none of the original's."""
        named = self.named(t)
        return None if IF_BUFFER in t and not named - {UNKNOWN_BUFFER} else named

    def sites(self, accesses):
        """(kind, the original's buffers) of each of a call's accesses
        (kind, t) that is one (Roles.accessed)."""
        for kind, t in accesses:
            named = self.accessed(t)
            if named is not None:
                yield kind, named

    def of(self, flow, ptr: ast.expr | None, env: dict) -> set[str]:
        """The original's buffers a pointer may be made from."""
        return self.named(taint(flow, ptr, env) if ptr is not None else {UNKNOWN_BUFFER})

    def check_load(self, label: str, t: set[str]) -> str | None:
        """Rejects a load that may read a buffer the original only writes,
        or through a pointer made from none of its buffers where the
        original has no such load; returns the memcheck's reason where it
        has one, else None (the other rules decide)."""
        if t & self.write_only:
            raise Reject(f"{label} {'reads' if t == t & self.write_only else 'may read'} {_who(t & self.write_only)}, "
                         f"which the original only writes: what it holds is a previous call's")
        if not _unnamed(t):
            return None
        if TOO_DEEP in t:
            raise Reject(f"{label}: its pointer is made in more steps than the gate follows ({MAX_DEPTH}); it could "
                         f"be any buffer's, an output's included")
        if not self.unnamed_ok:
            raise Reject(f"{label}: its pointer is made from {_who(t) if t else 'no buffer (an integer or a loaded value)'}"
                         f", not from a buffer the original reads: it could read any buffer, an output's previous "
                         f"contents included")
        return f"{label}: cannot tell which buffer it reads (the original has such loads too)"

    def check_store(self, label: str, t: set[str], bases: set[str]) -> None:
        """Rejects a store whose pointer is made from a buffer other than
        the one it writes (beyond what the original's stores are made
        from): the memcheck would pass a store into any allocated buffer."""
        extra = t - bases - self.extra
        if extra:
            raise Reject(f"{label}: its pointer is made from {_who(extra)} too, not only from the buffer it "
                         f"writes; a store goes through the pointer of a buffer the original writes")

    def check_data(self, label: str, what: str, t: set[str]) -> None:
        """Rejects a store whose value, mask or surrounding tests are made
        from a buffer's pointer: a pointer's bits written as data come back
        from a load as a number the gate cannot follow (two loads of them
        differ by another buffer's distance), and no memcheck tells a store
        into another allocated buffer from one into its own."""
        named = self.named(t)
        if named:
            of = "the pointer of " if named - {UNKNOWN_BUFFER, TOO_DEEP} else ""
            raise Reject(f"{label}: its {what} is made from {of}{_who(named)}; a pointer's bits are not data a "
                         f"kernel writes")

    def check_site(self, label: str, kind: str, t: set[str]) -> str | None:
        """A load or store that a call to the module's function makes, with
        the caller's buffers its pointer is made from."""
        if kind == "load":
            return self.check_load(label, t)
        if len(t) != 1 or not t <= self.writes:
            raise Reject(f"{label} writes through {_who(t) if t else 'no buffer'}; a store goes through the "
                         f"pointer of one buffer the original writes")
        return f"{label}: its index is the callee's"
