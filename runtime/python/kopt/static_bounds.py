"""kopt.static_bounds: gate 1's bounds on loads and stores.

Every ``tl.load``, ``tl.store`` and atomic of a kernel is matched with the
original kernel's accesses to the same buffer: an access without a mask
where the original masks that buffer, or with a mask that drops or loosens
one of the original's bounds, or a pointer a constant past the original's,
is rejected; one whose pointer and mask are the original's is proven in
bounds; the rest (another index, another buffer, an access in a helper) is
listed for compute-sanitizer's memcheck.

To see through names, ``Flow`` walks a function in the order it runs and
gives each name, at each point, the definitions that may reach it
(reaching definitions):

- a name's value at an access is what was assigned to it before the access
  (a later assignment does not count), resolved in the names as they were
  at that assignment;
- after an ``if``, a name either branch assigned may hold either value; a
  name that a loop assigns is, inside the loop before its assignment and
  after the loop, unknown;
- a parameter is itself (the signature is the original's); a for-loop's
  variable is "the k-th loop's element of its iterable"; a module constant
  is its literal; anything else the gate cannot follow is a fresh unknown
  that equals nothing, the original's expressions included.

Two expressions are the same when their canonical forms (names replaced by
what reaches them) are equal; unknowns never are, so what cannot be
followed is never proven and goes to the memcheck. A load from a buffer
the kernel writes is an unknown of its own at each place; a subscript
that adds dimensions keeps where it places its value's axes
(static_forms.axes); a linear form with a large constant, or a term
taken away again, is not folded (_BIG_CONSTANT: Triton's integers wrap);
what follows an if that may return on a run-time value is conditional.
A pointer's buffers are followed through ifs and through a loop's back
edge (what the end of its body leaves for the next iteration); one that
may also hold what the gate cannot follow names no buffer, and a store
through it is rejected. Which
buffers a pointer may be made from by any other means (casts, differences,
helpers) is kopt.static_buffers' part. Standard library only.
"""

from __future__ import annotations

import ast
import itertools

from .static_buffers import (IN_PROGRESS, MAX_DEPTH, UNKNOWN_BUFFER, Roles, helper_accesses, inductor_helper, joined,
                             local_callee, site_accesses, store_data, taint)
from .static_limits import NOT_NUMBER, TooBig, number
from .static_forms import axes, broadcast_only, keeps, one_axis, placed, shift
from .static_proofs import needs_of, proofs_of, proven
from .static_lists import LOADS, MERGING_ATOMICS, STORES, Aliases, Reject, excerpt, range_arguments, range_values

_CANON_MAX = 20000  # characters of a canonical form, then unknown
# A linear form adds and cancels its constants as exact integers; Triton's
# are 32 or 64 bits wide, and a constant past 32 bits widens the sum where
# it stands (`offs + 2147483647 + 4294967296 - 2147483647 - 4294967296`
# wraps in 32 bits, then widens: 2**32 before offs; `i + C < n + C` with
# C near 2**63 wraps on one side). Past this magnitude an expression's
# constants are not folded, whether a literal or a sum of small ones
# (Triton folds `(1048575 + 1048575 + ...)` as a Python integer, an int32
# constant of 2**31 - 2048, and `offs + T` wraps where `- T` after the
# pointer's widening does not undo it): the whole expression is one term, its own
# canonical form, which equals only the same expression. So is one where a
# term is added and taken away again (`(t + t + w) - t - t` with t int32
# and w int64 wraps before it widens): within one width such terms cancel,
# across two they do not, and the gate does not know the widths.
_BIG_CONSTANT = 1 << 20


class Def:
    """One definition of a name: a parameter, an assignment (its value and
    the names' definitions at that point), a loop variable, or unknown.
    guards: the tests of the ifs and whiles and the iterables of the for
    loops around it (with their names' definitions), whose values decide
    whether and how often it is made."""

    __slots__ = ("kind", "expr", "env", "tag", "guards")

    def __init__(self, kind: str, tag: object = None, expr: ast.expr | None = None,
                 env: dict | None = None, guards: tuple = ()):
        self.kind, self.tag, self.expr, self.env, self.guards = kind, tag, expr, env or {}, guards


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _seen(node: ast.AST, env: dict) -> dict:
    """The definitions of node's names at this point (what an expression
    written here reads)."""
    return {n: env[n] for n in _names(node) if n in env}


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


class Access:
    """One tl.load / tl.store / atomic, with the names' definitions there."""

    def __init__(self, kind: str, call: ast.Call, ptr: ast.expr | None, mask: ast.expr | None,
                 boundary: ast.expr | None, env: dict):
        self.kind = kind      # "load" or "store"
        self.call = call
        self.ptr = ptr
        self.mask = mask      # the mask expression, or None
        self.boundary = boundary  # a block pointer's boundary_check, or None
        # a mask or a boundary_check is given
        self.masked = mask is not None or (boundary is not None and not (
            isinstance(boundary, (ast.Tuple, ast.List)) and not boundary.elts))
        self.env = env
        self.conditional = False  # under an if or a while: it may not run
        # a load, or an atomic whose result is used: it returns what the buffer held
        self.reads = kind == "load"
        self.merges = False  # an atomic whose new value is made from the old (MERGING_ATOMICS)
        self.atomic = False  # a store that is an atomic (tl.atomic_add, ...)
        self.loops: tuple = ()    # the variables of the for loops around it
        self.guards: tuple = ()   # the tests and iterables around it (Def.guards)

    def label(self) -> str:
        return f"{'atomic' if self.atomic else self.kind} at line {self.call.lineno} ({excerpt(self.call)})"

    @property
    def kinds(self) -> set[str]:
        """What it does to its buffer: a store that reads (an atomic whose
        old value is used, or that merges into it) is a load too."""
        return {self.kind, "load"} if self.reads or self.merges else {self.kind}


def _access(node: ast.Call, path: str | None, env: dict) -> Access | None:
    if path in LOADS:
        kind, idx = "load", LOADS[path]
    elif path in STORES:
        kind, idx = "store", STORES[path]
    else:
        return None
    ptr = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "pointer"), None)
    mask = node.args[idx] if idx is not None and len(node.args) > idx else None
    for k in node.keywords:
        if k.arg == "mask":
            mask = k.value
    if isinstance(mask, ast.Constant) and mask.value is None:
        mask = None
    boundary = next((k.value for k in node.keywords if k.arg == "boundary_check"), None)
    if boundary is None and len(node.args) > 3 and (kind == "load" or idx is not None):
        boundary = node.args[3]
    a = Access(kind, node, ptr, mask, boundary, _seen(node, env))
    a.atomic = kind == "store" and path != "triton.language.store"
    a.merges = path in MERGING_ATOMICS
    return a


class Flow:
    """A function's accesses with the definitions that reach them, and the
    canonical, linear, mask and buffer forms of its expressions."""

    def __init__(self, fn: ast.FunctionDef, aliases: Aliases, consts: dict[str, ast.expr],
                 funcs: dict[str, ast.FunctionDef], tokens: itertools.count, kernel: bool = False):
        self.aliases, self.consts, self.funcs, self.tokens = aliases, consts, funcs, tokens
        self.loops = 0
        self.cond = 0                     # depth of ifs and whiles around the statement
        self.tests: list[tuple] = []      # (test or iterable, its names' definitions) around it (Def.guards)
        self.fors: list[Def] = []         # each for loop's variable
        self.around: list[Def] = []       # the variables of the for loops being walked
        # a kernel's constexpr parameters are numbers its launch config sets;
        # a called function's annotation binds nothing: Triton makes a
        # parameter constexpr by the value passed, so a pointer passes
        # through `p: tl.constexpr` of a helper as through any parameter
        self.constexpr = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                          if a.annotation is not None and (aliases.resolve(a.annotation) or "").endswith("constexpr")
                          } if kernel else set()
        self.subst: dict[int, int] = {}   # a loop variable's id -> the value it stands for
        self.big = False                  # a linear form being made met a large constant (_BIG_CONSTANT)
        self.exact = False                # lin_exact: large constants folded too
        self.written: set | None = None   # the buffers its stores may write (impure), found once
        self.load_of: dict[int, Access] = {}  # each load's access by its call's id (impure)
        self.accesses: list[Access] = []
        self.text: dict[tuple, str] = {}  # each mask atom as written
        self.memo: dict[tuple[str, int], object] = {}
        self.keep: list[object] = []      # what the memo's ids point to
        # a name an if/else sets on both branches: its binding's id -> the
        # test (with the definitions it reads there) and each branch's binding
        self.branches: dict[int, tuple] = {}
        # a loop's own unknown for a name it assigns -> the definitions that
        # reach the end of its body (what the next iteration starts from);
        # none where the body can break or continue
        self.carried: dict[int, tuple] = {}
        self.calls: list[tuple[ast.Call, dict]] = []    # calls to the module's functions
        self.helpers: list[tuple[ast.Call, dict]] = []  # calls to Inductor's helpers (triton_helpers.NAME)
        self.returns: list[tuple[ast.expr, dict]] = []  # each return's value
        self.discarded: set[int] = set()  # calls whose value an expression statement drops
        env = {a.arg: (Def("param", a.arg),) for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        for a in (fn.args.vararg, fn.args.kwarg):
            if a is not None:
                env[a.arg] = (self.unknown(),)
        self.block(fn.body, env)

    def unknown(self, source: ast.expr | None = None, env: dict | None = None) -> Def:
        """A value the gate does not follow; source: what it was taken from
        (a tuple it was unpacked from), for the buffers it may be made from."""
        return Def("unknown", next(self.tokens), source, env, tuple(self.tests))

    # -- walking the function in order -----------------------------------------
    def visit(self, node: ast.AST | None, env: dict) -> None:
        if node is None:
            return
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                a = _access(n, self.aliases.module_path(n.func), env)
                if a is not None:
                    a.reads = a.kind == "load" or id(n) not in self.discarded
                    a.conditional = self.cond > 0
                    a.loops = tuple(self.around)
                    a.guards = tuple(self.tests)
                    self.accesses.append(a)
                elif local_callee(self, n, env) is not None:
                    self.calls.append((n, _seen(n, env)))
                elif inductor_helper(self.aliases.module_path(n.func)) is not None:
                    self.helpers.append((n, _seen(n, env)))
        for name in _stored(node):  # a walrus (rejected by the checker all the same)
            env[name] = (self.unknown(),)

    def bind(self, target: ast.AST, value: ast.expr | None, env: dict) -> None:
        if isinstance(target, ast.Name) and value is not None:
            env[target.id] = (Def("expr", expr=value, env=_seen(value, env), guards=tuple(self.tests)),)
            return
        if isinstance(target, (ast.Subscript, ast.Attribute)):
            self.visit(target, env)
            return
        if (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
                and len(target.elts) == len(value.elts)
                and not any(isinstance(e, ast.Starred) for e in target.elts + value.elts)):
            # a, b = x, y: each its own value, all read before any is bound
            new: dict = {}
            for t, v in zip(target.elts, value.elts):
                scratch = dict(env)
                self.bind(t, v, scratch)
                new.update({k: scratch[k] for k in _stored(t)})
            env.update(new)
            return
        snap = _seen(value, env) if value is not None else None
        for name in _stored(target):
            env[name] = (self.unknown(value, snap),)

    def block(self, stmts: list[ast.stmt], env: dict) -> None:
        for s in stmts:
            self.stmt(s, env)

    def stmt(self, s: ast.stmt, env: dict) -> None:
        if isinstance(s, ast.Expr):
            self.discarded.add(id(s.value))  # a call for its effect: an atomic's old value unused
        if isinstance(s, ast.Assign):
            self.visit(s.value, env)
            for t in s.targets:
                self.bind(t, s.value, env)
        elif isinstance(s, ast.AugAssign):
            self.visit(s.value, env)
            load = ast.Name(s.target.id, ast.Load()) if isinstance(s.target, ast.Name) else None
            self.bind(s.target, ast.BinOp(load, s.op, s.value) if load is not None else None, env)
        elif isinstance(s, ast.AnnAssign):
            self.visit(s.value, env)
            if s.value is not None:
                self.bind(s.target, s.value, env)
        elif isinstance(s, (ast.For, ast.While)):
            self.loop(s, env)
        elif isinstance(s, ast.If):
            self.visit(s.test, env)
            test = _seen(s.test, env)
            other = dict(env)
            self.cond += 1
            self.tests.append((s.test, test))
            self.block(s.body, env)
            self.block(s.orelse, other)
            self.tests.pop()
            self.cond -= 1
            if any(isinstance(x, ast.Return) for b in s.body + s.orelse for x in ast.walk(b)) \
                    and not self.constant_test(s.test, env):
                self.cond += 1  # what follows an if that may return runs only where it did not
            for k in set(env) | set(other):
                a, b = env.get(k), other.get(k)
                if a is not b:
                    env[k] = self.merge(a, b)
                    if a is not None and b is not None:
                        self.branches[id(env[k])] = (s.test, test, a, b)
                        self.keep.append(env[k])
        elif isinstance(s, ast.Return):
            self.visit(s.value, env)
            if s.value is not None:
                self.returns.append((s.value, _seen(s.value, env)))
        elif isinstance(s, ast.Delete):
            for name in _stored(s):
                env[name] = (self.unknown(),)
        else:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.stmt):
                    self.stmt(child, env)
                else:
                    self.visit(child, env)
            for name in _stored(s):
                env[name] = (self.unknown(),)

    def constant_test(self, test: ast.expr, env: dict) -> bool:
        """A test made of numbers alone (`M * N == 0` with M and N set to
        literals): it decides the same at every call."""
        consts = dict(self.consts)
        for name, defs in env.items():
            if len(defs) == 1 and defs[0].kind == "expr":
                consts.setdefault(name, defs[0].expr)
        parts = [test.left] + test.comparators if isinstance(test, ast.Compare) else [test]
        try:
            return all(number(p, consts) is not NOT_NUMBER for p in parts)
        except (TooBig, RecursionError):
            return False

    def merge(self, a: tuple | None, b: tuple | None) -> tuple:
        out: list[Def] = []
        undefined = (self.unknown(ast.Constant(None)),)  # on a path that never sets it: no value, no buffer
        for d in (a or undefined) + (b or undefined):
            if not any(d is x for x in out):
                out.append(d)
        return tuple(out)

    def loop(self, s: ast.For | ast.While, env: dict) -> None:
        """A name the loop assigns may hold what an earlier iteration left:
        unknown inside the loop until assigned, and after it."""
        assigned = set().union(*[_stored(b) for b in s.body + s.orelse]) if s.body else set()
        before = dict(env)
        if isinstance(s, ast.For):
            self.visit(s.iter, env)
            self.loops += 1
            assigned |= _stored(s.target)
        own = {k: self.unknown() for k in assigned}
        for k in assigned:
            env[k] = self.merge(before.get(k), (own[k],))
        if isinstance(s, ast.For):
            snap = _seen(s.iter, env)
            self.tests.append((s.iter, snap))
            if isinstance(s.target, ast.Name):
                d = Def("for", self.loops, s.iter, snap, tuple(self.tests[:-1]))
                self.fors.append(d)
                self.around.append(d)
                env[s.target.id] = (d,)
            else:  # for a, b in pairs: each taken from the iterable
                for name in _stored(s.target):
                    env[name] = (self.unknown(s.iter, snap),)
        else:
            self.visit(s.test, env)
            self.cond += 1
            self.tests.append((s.test, _seen(s.test, env)))
        self.block(s.body, env)
        self.tests.pop()
        jumps = any(isinstance(n, (ast.Break, ast.Continue)) for b in s.body for n in ast.walk(b))
        after = {k: self.unknown() for k in assigned}  # a fresh unknown after the loop, as before it
        for k, u in own.items():
            if not jumps and k in env:
                self.carried[id(u)] = self.carried[id(after[k])] = env[k]
                self.keep += [u, after[k]]
        if isinstance(s, ast.While):
            self.cond -= 1
        elif isinstance(s.target, ast.Name):
            self.around.pop()
        env.clear()
        env.update(before)
        for k in assigned:
            env[k] = self.merge(before.get(k), (after[k],))
        self.block(s.orelse, env)

    def constant(self, node: ast.AST, env: dict) -> int | None:
        """node's value when its linear form is a constant."""
        terms, c = self.lin(node, env)
        return None if terms else c

    def first_value(self, d: Def) -> int | None:
        """The first value loop variable d takes where its loop provably runs:
        range(start, stop, step) with constants start < stop and a step that
        is a positive constant or a constexpr parameter (a launch config's
        block size). None otherwise."""
        it = d.expr
        path = self.aliases.resolve(it.func) if isinstance(it, ast.Call) else None
        bound = range_arguments(it, path)
        if bound is None or "range" in d.env:
            return None
        args = range_values(bound)
        args = args if len(args) > 1 else [ast.Constant(0)] + args
        start, stop = self.constant(args[0], d.env), self.constant(args[1], d.env)
        if start is None or stop is None or start >= stop:
            return None
        if len(args) == 3:
            step = self.constant(args[2], d.env)
            if step is None:
                name = args[2].id if isinstance(args[2], ast.Name) else None
                if name is None or not all(x.kind == "param" and x.tag in self.constexpr
                                           for x in d.env.get(name, (self.unknown(),))):
                    return None
            elif step <= 0:
                return None
        return start

    # -- canonical forms ------------------------------------------------------
    def remember(self, key: tuple[str, object], value):
        self.keep.append(key[1])
        self.memo[(key[0], id(key[1]), tuple(self.subst.items()))] = value
        return value

    def recall(self, what: str, obj: object):
        return self.memo.get((what, id(obj), tuple(self.subst.items())), NOT_NUMBER)

    def canon(self, node: ast.AST, env: dict, depth: int = 0) -> str:
        try:
            return self._canon(node, env, depth)
        except (TooBig, RecursionError):
            return f"?{next(self.tokens)}"

    def _canon(self, node: ast.AST, env: dict, depth: int) -> str:
        if depth > MAX_DEPTH:
            raise TooBig()
        if isinstance(node, ast.Name):
            return self.canon_name(node.id, env, depth)
        if isinstance(node, ast.Attribute):
            path = self.aliases.module_path(node)
            if path is not None:
                return path
        if isinstance(node, ast.expr_context):
            return ""
        if isinstance(node, ast.Call) and self.impure(node):
            # what a buffer the kernel writes holds changes between two
            # loads of one address: each load is a value of its own
            got = self.recall("load", node)
            return got if got is not NOT_NUMBER else self.remember(("load", node), f"?{next(self.tokens)}")
        parts = [type(node).__name__, "("]
        for field, v in ast.iter_fields(node):
            if field in ("ctx", "type_comment", "kind"):
                continue
            if isinstance(v, list):
                parts.append("[" + ",".join(self._canon(x, env, depth + 1) if isinstance(x, ast.AST) else repr(x)
                                            for x in v) + "]")
            elif isinstance(v, ast.AST):
                parts.append(self._canon(v, env, depth + 1))
            else:
                parts.append(repr(v))
            parts.append(",")
        parts.append(")")
        s = "".join(parts)
        if len(s) > _CANON_MAX:
            raise TooBig()
        return s

    def impure(self, node: ast.Call) -> bool:
        """A load from a buffer this function writes, or may write (its
        calls to other functions and to Inductor's helpers may), or an
        atomic's old value: not the same value at two places."""
        path = self.aliases.module_path(node.func)
        if path in STORES:
            return True
        if path not in LOADS:
            return False
        if self.written is None:
            self.written = set()
            for a in self.accesses:
                if a.kind == "store":
                    self.written |= self.bases(a.ptr, a.env) if a.ptr is not None else {UNKNOWN_BUFFER}
                else:
                    self.load_of[id(a.call)] = a
            if self.calls or self.helpers:
                self.written.add(UNKNOWN_BUFFER)
        a = self.load_of.get(id(node))
        if a is None or a.ptr is None:
            return True
        bases = self.bases(a.ptr, a.env)
        return not bases or bool(bases & self.written) or UNKNOWN_BUFFER in self.written

    def canon_name(self, name: str, env: dict, depth: int) -> str:
        if name in env:
            return self.canon_binding(env[name], depth)
        if name in self.aliases.map:
            return self.aliases.map[name]
        if name in self.consts:
            return "K(" + self._canon(self.consts[name], {}, depth + 1) + ")"
        return ("F:" if name in self.funcs else "G:") + name

    def canon_binding(self, b: tuple, depth: int) -> str:
        got = self.recall("canon", b)
        if got is not NOT_NUMBER:
            return got
        forms = {self.canon_def(d, depth) for d in b}
        if len(forms) == 1:
            return self.remember(("canon", b), forms.pop())
        if id(b) in self.branches:
            # set on both branches of an if: the test's value picks one, so
            # the same test over the same two values is the same value, in
            # this function or another (a fresh token for each would make
            # a kernel differ from itself: a GEMM template's offs_a_m)
            node, env, then, orelse = self.branches[id(b)]
            return self.remember(("canon", b), f"If({self._canon(node, env, depth + 1)}|"
                                                f"{self.canon_binding(then, depth + 1)}|"
                                                f"{self.canon_binding(orelse, depth + 1)})")
        return self.remember(("canon", b), f"?{next(self.tokens)}")

    def canon_def(self, d: Def, depth: int) -> str:
        got = self.recall("def", d)
        if got is not NOT_NUMBER:
            return got
        if id(d) in self.subst:
            s = self._canon(ast.Constant(self.subst[id(d)]), {}, depth)
        elif d.kind == "param":
            s = f"P:{d.tag}"
        elif d.kind == "unknown":
            s = f"?{d.tag}"
        else:
            try:
                if d.kind == "for":
                    s = f"For{d.tag}({self.canon_iter(d.expr, d.env, depth + 1)})"
                else:
                    s = self._canon(d.expr, d.env, depth + 1)
            except TooBig:
                s = f"?{next(self.tokens)}"
        return self.remember(("def", d), s)

    def canon_iter(self, it: ast.expr, env: dict, depth: int) -> str:
        """A loop's iterable; range, tl.range and tl.static_range of the same
        bounds and step give the same values, bound as Triton binds them
        (tl.range(0, n, step=s) steps by s; its other keywords change how
        the loop is compiled, not its values)."""
        path = self.aliases.resolve(it.func) if isinstance(it, ast.Call) else None
        bound = range_arguments(it, path)
        if bound is not None and "range" not in env:
            return "Range(" + ",".join(self._canon(a, env, depth + 1) for a in range_values(bound)) + ")"
        return self._canon(it, env, depth)

    # -- linear forms: (((canonical term, count), ...), constant) ----------------
    def lin(self, node: ast.AST, env: dict) -> tuple:
        return self.folded(node, env, 0, lambda: self.canon(node, env))

    def folded(self, node: ast.AST, env: dict, depth: int, whole) -> tuple:
        """node's linear form; where its constants or terms may not be
        folded (_BIG_CONSTANT), one term, whole() (not in lin_exact)"""
        terms: dict[str, int] = {}
        outer, self.big = self.big, False
        try:
            const = self._lin(node, 1, terms, env, depth)
            if self.big and not self.exact:
                return ((whole(), 1),), 0
        finally:
            self.big = outer
        return tuple(sorted((t, c) for t, c in terms.items() if c)), const

    def _lin(self, node: ast.AST, sign: int, terms: dict, env: dict, depth: int) -> int:
        """node's constant, its terms added to terms; a constant of any
        part (a literal, a name's, a sum of literals) past _BIG_CONSTANT
        sets self.big"""
        c = self._lin_part(node, sign, terms, env, depth)
        self.big |= abs(c) >= _BIG_CONSTANT
        return c

    def _lin_part(self, node: ast.AST, sign: int, terms: dict, env: dict, depth: int) -> int:
        if depth <= MAX_DEPTH:
            if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
                return sign * node.value
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
                right = sign if isinstance(node.op, ast.Add) else -sign
                return (self._lin(node.left, sign, terms, env, depth + 1)
                        + self._lin(node.right, right, terms, env, depth + 1))
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
                return self._lin(node.operand, -sign if isinstance(node.op, ast.USub) else sign, terms, env, depth + 1)
            if isinstance(node, ast.Subscript) and broadcast_only(node.slice) and (
                    not axes(node.slice) or one_axis(self.canon(node.value, env, depth + 1))):
                where = axes(node.slice)
                if not where:
                    return self._lin(node.value, sign, terms, env, depth + 1)
                inner: dict[str, int] = {}
                const = self._lin(node.value, sign, inner, env, depth + 1)
                for k, n in placed((tuple(inner.items()), 0), where)[0]:
                    self.add(terms, k, n)
                return const
            inner = self.broadcast_of(node)
            if inner is not None:
                return self._lin(inner, sign, terms, env, depth + 1)
            if isinstance(node, ast.Name) and node.id in env:
                forms = {self.lin_def(d, depth) for d in env[node.id]}
                if len(forms) == 1:
                    t, c = forms.pop()
                    for k, n in t:
                        self.add(terms, k, sign * n)
                    return sign * c
            if isinstance(node, ast.Name) and node.id not in env and node.id in self.consts:
                try:
                    v = number(self.consts[node.id], self.consts)
                except TooBig:
                    v = NOT_NUMBER
                if isinstance(v, int) and not isinstance(v, bool):
                    return sign * v
        self.add(terms, self.canon(node, env, depth), sign)
        return 0

    def add(self, terms: dict, key: str, n: int) -> None:
        """n more of a term; a term added and taken away again (x + y - x)
        is not folded (self.big): integers of two widths do not cancel"""
        had = terms.get(key, 0)
        self.big |= had != 0 and (had > 0) != (n > 0)
        terms[key] = had + n

    def broadcast_of(self, node: ast.AST) -> ast.expr | None:
        """x for tl.broadcast_to(x, shape) and x.broadcast_to(shape): the same
        indices, repeated (the shape does not move an address)."""
        if not isinstance(node, ast.Call):
            return None
        if self.aliases.module_path(node.func) == "triton.language.broadcast_to" and node.args:
            return node.args[0]
        if isinstance(node.func, ast.Attribute) and node.func.attr == "broadcast_to" \
                and self.aliases.module_path(node.func) is None:
            return node.func.value
        return None

    def lin_exact(self, node: ast.AST, env: dict) -> tuple:
        """lin with every constant folded as an exact integer: for what
        rejects (a pointer a constant past the original's), never for what
        proves"""
        self.exact = True
        try:
            return self.lin(node, env)
        finally:
            self.exact = False

    def lin_def(self, d: Def, depth: int) -> tuple:
        what = "linx" if self.exact else "lin"
        got = self.recall(what, d)
        if got is not NOT_NUMBER:
            return got
        if id(d) in self.subst:
            form = ((), self.subst[id(d)])
        elif d.kind == "expr":
            form = self.folded(d.expr, d.env, depth + 1, lambda: self.canon_def(d, depth))
        else:
            form = (((self.canon_def(d, depth), 1),), 0)
        return self.remember((what, d), form)

    # -- what a mask bounds: {(index, bound)} for each `index < bound` it implies
    def atoms(self, node: ast.AST, env: dict, depth: int = 0) -> set:
        if depth > MAX_DEPTH:
            return set()
        if isinstance(node, ast.Compare):
            out = set()
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                atom = None
                if isinstance(op, ast.Lt):
                    atom = (self.lin(left, env), self.lin(right, env))
                elif isinstance(op, ast.Gt):
                    atom = (self.lin(right, env), self.lin(left, env))
                if atom is not None:
                    out.add(atom)
                    self.text.setdefault(atom, excerpt(ast.Compare(left, [op], [right]), 40))
                left = right
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            return self.atoms(node.left, env, depth + 1) | self.atoms(node.right, env, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.atoms(node.left, env, depth + 1) & self.atoms(node.right, env, depth + 1)
        if isinstance(node, ast.BoolOp):
            sets = [self.atoms(v, env, depth + 1) for v in node.values]
            if isinstance(node.op, ast.And):
                return set().union(*sets)
            return set.intersection(*sets) if sets else set()
        if isinstance(node, ast.Subscript):
            if not broadcast_only(node.slice) or (axes(node.slice) and not one_axis(self.canon(node.value, env))):
                return set()  # some of its elements, elsewhere, or axes placed past the gate's reading
            where = axes(node.slice)
            out = set()
            for i, b in self.atoms(node.value, env, depth + 1):
                atom = (placed(i, where), placed(b, where))
                self.text.setdefault(atom, self.text.get((i, b), "?"))
                out.add(atom)
            return out
        if isinstance(node, ast.Call):
            path = self.aliases.module_path(node.func)
            if path == "triton.language.broadcast_to" and node.args:
                return self.atoms(node.args[0], env, depth + 1)
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "broadcast_to"):
                return self.atoms(node.func.value, env, depth + 1)
            return set()
        if isinstance(node, ast.Name) and node.id in env:
            sets = [self.atoms_def(d, depth) for d in env[node.id]]
            return set.intersection(*sets) if sets else set()
        return set()

    def atoms_def(self, d: Def, depth: int) -> set:
        got = self.recall("atoms", d)
        if got is not NOT_NUMBER:
            return got
        return self.remember(("atoms", d), self.atoms(d.expr, d.env, depth + 1) if d.kind == "expr" else set())

    # -- which parameters a pointer expression is based on ---------------------
    def bases(self, node: ast.AST, env: dict, depth: int = 0) -> set[str]:
        if depth > MAX_DEPTH:
            # past the cap a pointer may hide: a chain of copies of x_ptr
            # in out_ptr + (p - out_ptr) would otherwise name out_ptr alone
            return {UNKNOWN_BUFFER}
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.bases(node.left, env, depth + 1) | (self.bases(node.right, env, depth + 1)
                                                            if isinstance(node.op, ast.Add) else set())
        if isinstance(node, ast.Subscript):
            return self.bases(node.value, env, depth + 1)
        if isinstance(node, ast.Call):
            path = self.aliases.module_path(node.func)
            if path in ("triton.language.make_block_ptr", "triton.language.advance",
                        "triton.language.broadcast_to", "triton.language.reshape"):
                base = node.args[0] if node.args else next(
                    (k.value for k in node.keywords if k.arg in ("base", "pointer", "input")), None)
                return self.bases(base, env, depth + 1) if base is not None else set()
            if path == "triton.language.where" and len(node.args) == 3:
                return joined(self.bases(x, env, depth + 1) for x in node.args[1:])  # either side's
            return set()
        if isinstance(node, ast.Name) and node.id in env:
            return joined(self.bases_def(d, depth) for d in env[node.id])  # an if's, a loop's paths
        return set()

    def bases_def(self, d: Def, depth: int):
        """d's buffers; IN_PROGRESS while they are being found (a loop's
        value that reads itself: what it adds is found on the other paths)."""
        got = self.recall("bases", d)
        if got is not NOT_NUMBER:
            return got
        if d.kind == "unknown" and id(d) in self.carried:
            self.remember(("bases", d), IN_PROGRESS)
            return self.remember(("bases", d), joined(self.bases_def(e, depth + 1) for e in self.carried[id(d)]))
        out = {d.tag} if d.kind == "param" and id(d) not in self.subst and d.tag not in self.constexpr else (
            self.bases(d.expr, d.env, depth + 1) if d.kind == "expr" else set())
        return self.remember(("bases", d), out)


def check_accesses(cand_fn: ast.FunctionDef, cand: tuple[Aliases, dict, set],
                   orig_fn: ast.FunctionDef, orig: tuple[Aliases, dict, set], memcheck: list[str]) -> None:
    """Rejects an access whose mask is looser than the original's; lists the
    ones the gate cannot prove in memcheck. cand and orig: each module's
    (aliases, module constants, functions by name)."""
    tokens = itertools.count()
    oflow = Flow(orig_fn, *orig, tokens, kernel=True)
    needs, optrs = needs_of(oflow)
    proofs = proofs_of(oflow)
    # the original's own stores through a pointer of several names (an
    # integer argument added as a term, out_ptr + offset): a store through
    # the same names is the original's kind of store, for the memcheck
    shared = {frozenset(oflow.bases(o.ptr, o.env)) for o in oflow.accesses if o.kind == "store" and o.ptr is not None}
    roles = Roles(oflow)
    flow = Flow(cand_fn, *cand, tokens, kernel=True)
    for call, env in flow.calls:
        for kind, named in roles.sites(site_accesses(flow, call, env)):
            why = roles.check_site(f"{kind} in '{call.func.id}', called at line {call.lineno} ({excerpt(call)})",
                                   kind, named)
            if why and call.func.id in orig[2]:
                memcheck.append(why)  # another kernel's (a helper's own loads are listed for it)
    for call, env in flow.helpers:
        for kind, named in roles.sites(helper_accesses(flow, call, env)):
            label = f"{kind} in Inductor's helper, called at line {call.lineno} ({excerpt(call)})"
            memcheck.append(roles.check_site(label, kind, named) or f"{label}: its index is the helper's")
    for a in flow.accesses:
        if a.kind == "store":
            for what, node, env in store_data(a):
                roles.check_data(a.label(), what, taint(flow, node, env))
        bases = flow.bases(a.ptr, a.env) if a.ptr is not None else set()
        t = roles.of(flow, a.ptr, a.env)
        if a.reads:  # a load, or an atomic whose old value is used
            why = roles.check_load(a.label(), t)
            if why:
                memcheck.append(why)
                if a.kind == "load":
                    continue
        if len(bases) > 1 and a.kind == "store" and UNKNOWN_BUFFER not in bases and frozenset(bases) in shared:
            roles.check_store(a.label(), t, bases)
            memcheck.append(f"{a.label()}: it writes through the names the original's store does "
                            f"({', '.join(sorted(bases))})")
            continue
        if len(bases) != 1 and a.kind == "store":
            # a pointer made from two buffers' (x_ptr - out_ptr), or through
            # an integer: the memcheck would pass a store into any buffer
            # that is allocated (a weight, another kernel's result)
            raise Reject(f"{a.label()}: cannot tell which buffer it writes; a store goes through the pointer "
                         f"of a buffer the original writes")
        if a.kind == "store":
            roles.check_store(a.label(), t, bases)
        if len(bases) != 1:  # a load of several buffers, none only written (check_load)
            memcheck.append(f"{a.label()}: cannot tell which buffer it reads")
            continue
        b = next(iter(bases))
        other = "store" if a.kind == "load" else "load"
        need = needs.get((b, a.kind)) or needs.get((b, other))
        if need is None:
            memcheck.append(f"{a.label()}: the original kernel does not touch '{b}'")
            continue
        # a buffer the original only reads is not written (a model's input,
        # a weight, another kernel's result: a change there outlives the
        # call), and one it only writes is not read (what it holds before
        # the store is a previous call's)
        if (b, a.kind) not in needs:
            why = ("writes '%s', which the original only reads: a change there outlives the call"
                   if a.kind == "store" else "reads '%s', which the original only writes: what it holds is a "
                   "previous call's")
            raise Reject(f"{a.label()} {why % b}")
        verb = "stores to" if (b, a.kind) in needs and a.kind == "store" else \
            "loads of" if (b, a.kind) in needs else "accesses to"
        if need.masked and not a.masked:
            raise Reject(f"{a.label()} has no mask; the original's {verb} '{b}' are masked"
                         f"{' (' + need.example + ')' if need.example else ''}")
        have = flow.atoms(a.mask, a.env) if a.mask is not None else set()
        for atom in sorted(need.atoms or set(), key=repr):
            if keeps(have, atom) in ("none", "looser"):
                raise Reject(f"{a.label()} has a mask looser than the original's: it does not keep "
                             f"'{oflow.text.get(atom, '?')}', as the original's {verb} '{b}' do")
        moved = shift(flow.lin_exact(a.ptr, a.env), optrs.get(b, set()))
        if moved:
            raise Reject(f"{a.label()} is {abs(moved)} elements {'past' if moved > 0 else 'before'} "
                         f"the original's index into '{b}': out of its bounds")
        if not proven(flow, a, b, proofs):
            memcheck.append(f"{a.label()}: its index or mask differs from the original's")
    # an atomic that merges into what its buffer held (an add of zero, a max
    # of -inf) leaves there what the buffer held, its old value dropped or
    # not: it reads the buffer as a load does (after the rules above, whose
    # reasons say more about a store)
    for a in flow.accesses:
        if a.merges and not a.reads:
            why = roles.check_load(a.label(), roles.of(flow, a.ptr, a.env))
            if why:
                memcheck.append(why)


def check_helper_accesses(fn: ast.FunctionDef, aliases: Aliases, memcheck: list[str]) -> None:
    """A helper's loads go to the memcheck; a store in a helper is rejected:
    its buffer is whatever the caller passes (an input, a weight), which
    the memcheck passes wherever it is allocated."""
    flow = Flow(fn, aliases, {}, set(), itertools.count())
    for a in flow.accesses:
        if a.kind == "store":
            raise Reject(f"{a.label()} in helper '{fn.name}': a store in a helper writes whatever buffer its "
                         f"caller passes; the kernel's stores are its own")
        memcheck.append(f"{a.label()} in helper '{fn.name}': its buffer is a helper's argument")
