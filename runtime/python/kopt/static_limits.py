"""kopt.static_limits: gate 1's bounds on what a candidate may compute
before and while it compiles.

Python computes a candidate's module-level constants, decorator arguments
and defaults when it imports the file, and Triton computes a kernel's
compile-time values (constexprs, ``tl.static_range`` bodies, helper calls)
when it compiles it. Either can be made to take forever. Each bound below
rejects with a one-line reason:

- the text: at most ``MAX_SOURCE`` characters (kopt.static_text), an AST
  nested at most ``MAX_DEPTH`` deep and at most ``MAX_FUNCTIONS``
  functions;
- literals (``literal``): numbers, strings, tuples, lists, sets and dicts
  of them and a few calls (``triton.Config``, ``DeviceProperties``,
  ``set()``); arithmetic on numbers only, each value computed here first
  with every integer at most ``MAX_BITS`` bits (no ``10 ** 10 ** 10``, no
  nested powers past it, no ``1 << 10 ** 9``); a launch config's integers
  at most 64 bits, its ``num_warps``, ``num_stages`` and ``num_ctas``
  constants within ``LAUNCH_LIMITS`` (so is a decorator's own, and
  ``triton.autotune``'s ``warmup`` and ``rep``, the milliseconds it times
  each config for); a comprehension over literal tuples of at most ``MAX_COMPREHENSION``
  elements in all;
- loops in a kernel or helper run over ``range``, ``tl.range`` or
  ``tl.static_range``, their arguments bound as Triton binds them
  (static_lists.range_arguments: ``tl.static_range(0, arg2=N)`` ends at
  N, ``tl.range``'s fifth argument is its unroll factor; no keyword to
  ``range()``); a ``tl.static_range`` unrolls at most
  ``MAX_UNROLL`` bodies (nested ones multiply) and its bounds are constants
  or the original kernel's own; a loop whose bounds are constants runs at
  most ``MAX_TRIPS`` times with a step that is not zero; ``loop_unroll_factor``
  is a constant of at most 64 and ``num_stages`` of at most 16; a ``while`` loop's condition reads a name
  that its body assigns (a condition nothing changes never ends);
- compile-time integers (literals, constexpr parameters, taken at 64 bits,
  module constants and what is computed from them, through assignments and
  unrolled loops, in the order Triton computes them) stay within
  ``MAX_COMPILE_BITS`` bits; a power's exponent is a constant of at most 64;
  no string or sequence is repeated; a value passed to a helper is at most
  64 bits; ``range()`` (and ``tl.range``, ``tl.static_range``) only as a
  for loop's iterable, since Python iterates any other at compile time
  (``math.prod(range(2 ** 40))``); no ``math.factorial``, ``math.comb``
  or ``math.perm``, whose work grows with their arguments;
- no recursion: the module's functions do not reach themselves through the
  names they mention (Triton inlines calls at compile time), and a function
  calls no name it was given as a value; a kernel compiles at most
  ``MAX_BODIES`` bodies, its helpers inlined (into each other and into
  unrolled loops) counted.

Standard library only.
"""

from __future__ import annotations

import ast

from .static_lists import (LITERAL_CALLS, Aliases, Reject, excerpt, hint_enum, module_constants, range_arguments,
                           range_values)

MAX_DEPTH = 200              # nesting of the AST
MAX_FUNCTIONS = 64           # top-level functions (kernels and helpers)
MAX_BITS = 1024              # an integer a literal computes
MAX_CONFIG_BITS = 64         # an integer of a launch config (a constexpr's value)
MAX_COMPREHENSION = 1024     # elements a literal comprehension makes
MAX_POW = 64                 # a power's exponent
MAX_UNROLL = 1024            # bodies tl.static_range unrolls, nested ones multiplied
MAX_BODIES = 1 << 14         # bodies a kernel compiles: its unrolling and its helpers, inlined
MAX_TRIPS = 1 << 31          # iterations of a loop whose bounds are constants
MAX_UNROLL_FACTOR = 64       # tl.range(..., loop_unroll_factor=N)
MAX_COMPILE_BITS = 4096      # a compile-time integer in a kernel
# launch and loop keywords that set how much Triton compiles
# warmup and rep: the milliseconds triton.autotune times each config for
# (Triton's defaults are 25 and 100); past these its first call never ends
LAUNCH_LIMITS = {"num_warps": 64, "num_stages": 16, "num_ctas": 16, "warmup": 1000, "rep": 1000}
ARG_BITS = 64                # a constexpr parameter, and what a helper may be passed
# Python's math functions whose work grows with their integer arguments
# (math.factorial(2 ** 40) never ends), which Triton runs while it compiles
UNBOUNDED_MATH = {"math.factorial", "math.comb", "math.perm"}
_RANGES = ("range", "triton.language.range", "triton.language.static_range")

NOT_NUMBER = object()


class TooBig(Exception):
    """A number past MAX_BITS (its computation stopped before it ran)."""


def check_depth(tree: ast.Module) -> None:
    """The AST is at most MAX_DEPTH deep (without recursion), and the module
    defines at most MAX_FUNCTIONS functions."""
    funcs = sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in tree.body)
    if funcs > MAX_FUNCTIONS:
        raise Reject(f"candidate defines {funcs} functions (at most {MAX_FUNCTIONS})")
    stack = [(tree, 1)]
    while stack:
        node, d = stack.pop()
        if d > MAX_DEPTH:
            line = getattr(node, "lineno", "?")
            raise Reject(f"candidate is nested more than {MAX_DEPTH} deep (line {line})")
        stack.extend((c, d + 1) for c in ast.iter_child_nodes(node))


def _bits(v) -> int:
    return abs(int(v)).bit_length() if isinstance(v, int) else 0


def _binop(op: ast.operator, a, b):
    """a op b on numbers, refusing results past MAX_BITS before computing them."""
    ints = isinstance(a, int) and isinstance(b, int)
    if isinstance(op, ast.Pow) and ints and b > 0 and abs(a) > 1 and _bits(a) * b > MAX_BITS:
        raise TooBig()
    if isinstance(op, ast.LShift) and ints and (b > MAX_BITS or _bits(a) + b > MAX_BITS):
        raise TooBig()
    if isinstance(op, ast.Mult) and ints and _bits(a) + _bits(b) > MAX_BITS:
        raise TooBig()
    fn = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
          ast.Div: lambda: a / b, ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
          ast.Pow: lambda: a ** b, ast.LShift: lambda: a << b, ast.RShift: lambda: a >> b,
          ast.BitAnd: lambda: a & b, ast.BitOr: lambda: a | b, ast.BitXor: lambda: a ^ b}.get(type(op))
    if fn is None:
        return NOT_NUMBER
    try:
        r = fn()
    except OverflowError:
        raise TooBig() from None
    except (ArithmeticError, TypeError, ValueError):
        return NOT_NUMBER  # fails at import, or at compile: harmless
    if isinstance(r, int) and _bits(r) > MAX_BITS:
        raise TooBig()
    return r


def number(node: ast.AST, consts: dict[str, ast.expr], depth: int = 0):
    """node's value when it is a number made of literals and the names in
    consts; NOT_NUMBER when it is not one. Raises TooBig past MAX_BITS."""
    if depth > MAX_DEPTH:
        return NOT_NUMBER
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, (bool, int, float)):
            if isinstance(v, int) and _bits(v) > MAX_BITS:
                raise TooBig()
            return v
        return NOT_NUMBER
    if isinstance(node, ast.Name):
        return number(consts[node.id], consts, depth + 1) if node.id in consts else NOT_NUMBER
    if isinstance(node, ast.UnaryOp):
        v = number(node.operand, consts, depth + 1)
        if v is NOT_NUMBER:
            return v
        if isinstance(node.op, ast.Not):
            return not v
        if isinstance(node.op, ast.Invert):
            return ~v if isinstance(v, int) else NOT_NUMBER
        return -v if isinstance(node.op, ast.USub) else +v
    if isinstance(node, ast.BinOp):
        a = number(node.left, consts, depth + 1)
        b = number(node.right, consts, depth + 1) if a is not NOT_NUMBER else a
        return NOT_NUMBER if b is NOT_NUMBER else _binop(node.op, a, b)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and (
            ast.unparse(node.func).endswith("constexpr")):
        return number(node.args[0], consts, depth + 1)
    return NOT_NUMBER


# ---- literals: what an import computes --------------------------------------

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)


def _literal_binop(node: ast.BinOp, aliases: Aliases, scope: dict) -> str | None:
    if not isinstance(node.op, _ARITH):
        return f"'{excerpt(node)}' (only + - * / // ** of numbers)"
    for side in (node.left, node.right):
        if isinstance(side, ast.Constant) and not isinstance(side.value, (int, float)):
            return f"'{excerpt(node)}' (only + - * / // ** of numbers)"
        if isinstance(side, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr)):
            return f"'{excerpt(node)}' (only + - * / // ** of numbers)"
    if isinstance(node.op, ast.Pow) and not (isinstance(node.right, ast.Constant)
                                             and isinstance(node.right.value, int)
                                             and 0 <= node.right.value <= MAX_POW):
        return f"'{excerpt(node)}' (a power needs a small constant exponent)"
    why = literal(node.left, aliases, scope) or literal(node.right, aliases, scope)
    if why:
        return why
    try:
        number(node, {})
    except TooBig:
        return f"'{excerpt(node)}' (a number larger than {MAX_BITS} bits)"
    return None


def _literal_call(node: ast.Call, aliases: Aliases, scope: dict) -> str | None:
    path = aliases.module_path(node.func)
    if isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args and not node.keywords:
        return None
    if path not in LITERAL_CALLS:
        return f"call '{excerpt(node.func)}(...)'"
    if len(node.args) > LITERAL_CALLS[path]:
        return f"'{excerpt(node)}' (too many positional arguments)"
    for a in node.args:
        why = literal(a, aliases, scope)
        if why:
            return why
        if path == "triton.Config":
            for n in ast.walk(a):
                v = number(n, {}) if isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp)) else None
                if isinstance(v, int) and _bits(v) > MAX_CONFIG_BITS:
                    return f"'{excerpt(n, 40)}' (a launch config's integers are at most {MAX_CONFIG_BITS} bits)"
    for kw in node.keywords:
        if kw.arg is None:
            return "'**' in a literal"
        why = literal(kw.value, aliases, scope) or launch_limit(kw.arg, kw.value, scope)
        if why:
            return why
    return None


def launch_limit(arg: str | None, node: ast.AST, scope: dict | None = None) -> str | None:
    """Why a launch keyword (num_warps, num_stages, num_ctas) is out of its
    bounds, or None; a comprehension variable is each value it runs over."""
    if arg not in LAUNCH_LIMITS:
        return None
    nodes = (scope or {}).get(node.id, [node]) if isinstance(node, ast.Name) else [node]
    for n in nodes:
        try:
            v = number(n, {})
        except TooBig:
            v = NOT_NUMBER
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= LAUNCH_LIMITS[arg]:
            return f"'{arg}={excerpt(n, 30)}' (a constant of at most {LAUNCH_LIMITS[arg]})"
    return None


def _literal_comprehension(node: ast.ListComp, aliases: Aliases, scope: dict) -> str | None:
    inner = dict(scope)
    count = 1
    for g in node.generators:
        if g.is_async or not isinstance(g.target, ast.Name):
            return f"'{excerpt(node)}'"
        if not isinstance(g.iter, (ast.Tuple, ast.List)):
            return f"'{excerpt(g.iter)}' (a comprehension runs over a literal tuple or list)"
        why = literal(g.iter, aliases, inner)
        if why:
            return why
        count *= len(g.iter.elts)
        if count > MAX_COMPREHENSION:
            return f"'{excerpt(node)}' (a comprehension makes at most {MAX_COMPREHENSION} elements)"
        inner[g.target.id] = tuple(g.iter.elts)
        if g.ifs:
            return f"'{excerpt(node)}' (no conditions in a comprehension)"
    return literal(node.elt, aliases, inner)


def literal(node: ast.AST, aliases: Aliases, scope: dict | None = None) -> str | None:
    """None when node is a literal (see the module's docstring); else why not.
    scope: the comprehension variables around node, each with the literal
    elements it runs over."""
    scope = scope if scope is not None else {}
    if isinstance(node, ast.Constant):
        return None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for e in node.elts:
            why = literal(e, aliases, scope)
            if why:
                return why
        return None
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if k is None:
                return "'**' in a literal"
            why = literal(k, aliases, scope) or literal(v, aliases, scope)
            if why:
                return why
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not, ast.Invert)):
        return literal(node.operand, aliases, scope)
    if isinstance(node, ast.BinOp):
        return _literal_binop(node, aliases, scope)
    if isinstance(node, ast.Name):
        if node.id in ("True", "False", "None", "__file__") or node.id in scope:
            return None
        return f"'{node.id}'"
    if isinstance(node, ast.Attribute):
        if hint_enum(aliases.module_path(node) or ""):
            return None
        return f"'{excerpt(node)}'"
    if isinstance(node, ast.Call):
        return _literal_call(node, aliases, scope)
    if isinstance(node, ast.ListComp):
        return _literal_comprehension(node, aliases, scope)
    return f"'{excerpt(node)}'"


# ---- recursion ---------------------------------------------------------------

def check_recursion(tree: ast.Module) -> None:
    """No module function reaches itself through the names it mentions, and
    none calls a name it binds itself (a parameter or a local)."""
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    edges: dict[str, list[str]] = {}
    for name, fn in funcs.items():
        local = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        seen = []
        for n in (n for stmt in fn.body for n in ast.walk(stmt)):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in local:
                raise Reject(f"function '{name}' calls '{n.func.id}', a function passed as a value "
                             f"(line {n.lineno}): Triton inlines it at compile time")
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in funcs \
                    and n.id not in local and n.id not in seen:
                seen.append(n.id)
        edges[name] = seen
    state: dict[str, int] = {}  # 1: on the path, 2: done
    for root in funcs:
        if state.get(root):
            continue
        path, stack = [root], [iter(edges[root])]
        state[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise Reject("recursion is not allowed: " + " -> ".join(f"'{c}'" for c in cycle)
                             + " (Triton inlines calls at compile time)")
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(edges[nxt]))



# ---- compile time: what Triton computes while it compiles a function ---------

class _Seq:
    """A string, tuple or list of at most n elements, its integers of at
    most bits bits (None: no integers)."""

    def __init__(self, n: int, bits: int | None = None):
        self.n, self.bits = n, bits

    def __eq__(self, other):
        return isinstance(other, _Seq) and (other.n, other.bits) == (self.n, self.bits)


MAX_SEQ = 1 << 16            # elements of a compile-time string, tuple or list


def _join(a, b):
    """The value that may be either: the larger of two bounds."""
    if isinstance(a, int) or isinstance(b, int):
        return max(x for x in (a, b) if isinstance(x, int))
    if isinstance(a, _Seq) or isinstance(b, _Seq):
        seqs = [x for x in (a, b) if isinstance(x, _Seq)]
        return _Seq(max(x.n for x in seqs), _join(*[x.bits for x in seqs] + [None] * (2 - len(seqs))))
    return None


def _stored(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


def local_consts(fn: ast.FunctionDef, consts: dict[str, ast.expr]) -> dict[str, ast.expr]:
    """consts and the function's names assigned once with a constant number."""
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    counts: dict[str, int] = {}
    single: dict[str, ast.expr] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            single[n.targets[0].id] = n.value
        elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
            single[n.target.id] = n.value
    single = {k: v for k, v in single.items() if counts.get(k) == 1 and k not in params}
    out = dict(consts)
    for _ in range(len(single) + 1):
        grown = False
        for k, v in single.items():
            try:
                ok = k not in out and number(v, out) is not NOT_NUMBER
            except TooBig:
                ok = False
            if ok:
                out[k] = v
                grown = True
        if not grown:
            break
    return out


class Compile:
    """Walks a function in the order Triton compiles it and bounds each
    compile-time integer's bits (see the module's docstring)."""

    def __init__(self, fn: ast.FunctionDef, aliases: Aliases, consts: dict[str, ast.expr],
                 funcs: dict[str, ast.FunctionDef], orig_fn: ast.FunctionDef | None,
                 memo: dict[str, tuple[int, int]], callee: bool):
        self.fn, self.aliases, self.funcs, self.memo = fn, aliases, funcs, memo
        self.module_consts = consts
        self.consts = local_consts(fn, consts)
        self.callee = callee
        self.orig_static = {ast.dump(c) for c in ast.walk(orig_fn) if isinstance(c, ast.Call)} if orig_fn else set()
        # the original's decorators unchanged: its launch configs, so its constexprs
        self.same_configs = orig_fn is not None and [ast.dump(d) for d in fn.decorator_list] == [
            ast.dump(d) for d in orig_fn.decorator_list]
        assigned = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
        self.fixed_params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
                             if a.annotation is not None and a.arg not in assigned
                             and (aliases.resolve(a.annotation) or "").endswith("constexpr")}
        self.loop_iters: set[int] = set()  # the range() calls that are a for loop's iterable
        self.unroll = 1              # the static_range trip counts around the statement, multiplied
        self.counting = True         # off in an unrolled loop's passes after the first
        self.weight = 1              # bodies compiled: the largest unrolling, and each helper inlined
        self.returns = 0

    def run(self) -> int:
        env: dict[str, object] = {}
        for a in self.fn.args.posonlyargs + self.fn.args.args + self.fn.args.kwonlyargs:
            ann = self.aliases.resolve(a.annotation) if a.annotation is not None else ""
            env[a.arg] = ARG_BITS if (self.callee or (ann or "").endswith("constexpr")) else None
        for a in (self.fn.args.vararg, self.fn.args.kwarg):
            if a is not None:
                env[a.arg] = None
        self.block(self.fn.body, env)
        return self.returns

    def add_weight(self, node: ast.AST, w: int) -> None:
        if self.counting:
            self.weight += w
            if self.weight > MAX_BODIES:
                self.fail(node, f"'{self.fn.name}' compiles more than {MAX_BODIES} bodies "
                                "(helpers inlined into unrolled loops and into each other)")

    def fail(self, node: ast.AST, why: str):
        raise Reject(f"{why} ('{excerpt(node, 50)}' on line {getattr(node, 'lineno', '?')} "
                     f"in '{self.fn.name}')")

    def block(self, stmts: list[ast.stmt], env: dict) -> None:
        for s in stmts:
            self.stmt(s, env)

    def stmt(self, s: ast.stmt, env: dict) -> None:
        if isinstance(s, ast.Assign):
            v = self.expr(s.value, env)
            for t in s.targets:
                self.bind(t, v, env)
        elif isinstance(s, ast.AugAssign):
            v = self.arith(s, s.op, self.expr(s.target, env, load=True), self.expr(s.value, env), s.value, env)
            self.bind(s.target, v, env)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.bind(s.target, self.expr(s.value, env), env)
        elif isinstance(s, ast.For):
            self.for_loop(s, env)
        elif isinstance(s, ast.While):
            self.while_loop(s, env)
        elif isinstance(s, ast.If):
            self.expr(s.test, env)
            other = dict(env)
            self.block(s.body, env)
            self.block(s.orelse, other)
            for k in set(env) | set(other):
                env[k] = _join(env.get(k), other.get(k))
        elif isinstance(s, ast.Return):
            v = self.expr(s.value, env) if s.value is not None else None
            if isinstance(v, int):
                self.returns = max(self.returns, v)
        else:
            for child in ast.iter_child_nodes(s):
                if isinstance(child, ast.expr):
                    self.expr(child, env)
                elif isinstance(child, ast.stmt):
                    self.stmt(child, env)

    def bind(self, target: ast.AST, v, env: dict) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = v
            return
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                env[n.id] = v.bits if isinstance(v, _Seq) else None
            elif isinstance(n, (ast.Subscript, ast.Attribute)):
                self.expr(n, env)

    # -- expressions: each one's bound -----------------------------------------
    def expr(self, node: ast.AST | None, env: dict, load: bool = False):
        """The bound of node's value: bits of a compile-time integer, a _Seq,
        or None (a tensor, a float, anything else); rejects past the limits."""
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return 1
            if isinstance(v, int):
                return _bits(v)
            if isinstance(v, (str, bytes)):
                return _Seq(len(v))
            return None
        if isinstance(node, ast.Name):
            return self.name(node.id, env)
        if isinstance(node, (ast.Tuple, ast.List)):
            vals = [self.expr(e, env) for e in node.elts]
            ints = [v for v in vals if isinstance(v, int)] + [v.bits for v in vals if isinstance(v, _Seq) and v.bits]
            return _Seq(len(node.elts), max(ints) if ints else None)
        if isinstance(node, ast.BinOp):
            return self.arith(node, node.op, self.expr(node.left, env), self.expr(node.right, env), node.right, env)
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, env)
            return 1 if isinstance(node.op, ast.Not) else (v if isinstance(v, int) else None)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.IfExp):
            self.expr(node.test, env)
            return _join(self.expr(node.body, env), self.expr(node.orelse, env))
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            vals = [self.expr(c, env) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
            return 1 if all(isinstance(v, int) for v in vals) else None
        if isinstance(node, ast.Subscript):
            v = self.expr(node.value, env)
            self.expr(node.slice, env)
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                return 21  # a block's dimension: at most Triton's largest numel
            return v.bits if isinstance(v, _Seq) else None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, env)
        return None

    def name(self, name: str, env: dict):
        if name in env:
            return env[name]
        if name in self.module_consts:
            try:
                v = number(self.module_consts[name], self.module_consts)
            except TooBig:
                v = NOT_NUMBER
            if isinstance(v, bool):
                return 1
            if isinstance(v, int):
                return _bits(v)
            node = self.module_consts[name]
            if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
                return _Seq(len(node.value))
            if isinstance(node, (ast.Tuple, ast.List)):
                return _Seq(len(node.elts), MAX_BITS)
        return None

    def arith(self, node: ast.AST, op: ast.operator, a, b, right: ast.AST, env: dict):
        if isinstance(op, ast.Mult) and (isinstance(a, _Seq) or isinstance(b, _Seq)):
            self.fail(node, "repeating a string, tuple or list at compile time is not allowed")
        if isinstance(op, ast.Add) and isinstance(a, _Seq) and isinstance(b, _Seq):
            r = _Seq(a.n + b.n, _join(a.bits, b.bits))
            if r.n > MAX_SEQ:
                self.fail(node, f"a compile-time string, tuple or list of more than {MAX_SEQ} elements")
            return r
        if not (isinstance(a, int) and isinstance(b, int)):
            return None  # a tensor or a float: computed on the GPU, or bounded
        if isinstance(op, ast.Pow):
            e = self.pow_exponent(node, right, env)
            r = a * max(int(e), 0) if isinstance(e, int) else None
        elif isinstance(op, ast.LShift):
            e = self.constant(right)
            r = a + e if isinstance(e, int) and e >= 0 else a + (1 << min(b, 64)) - 1
        elif isinstance(op, ast.Mult):
            r = a + b
        elif isinstance(op, (ast.Add, ast.Sub, ast.BitOr, ast.BitXor, ast.BitAnd)):
            r = max(a, b) + 1
        elif isinstance(op, (ast.FloorDiv, ast.Mod, ast.RShift)):
            r = a
        else:
            r = None
        if isinstance(r, int) and r > MAX_COMPILE_BITS:
            self.fail(node, f"a compile-time integer that may grow past {MAX_COMPILE_BITS} bits is not allowed")
        return r

    def constant(self, node: ast.AST):
        try:
            v = number(node, self.consts)
        except TooBig:
            v = NOT_NUMBER
        return None if v is NOT_NUMBER else v

    def pow_exponent(self, node: ast.AST, right: ast.AST, env: dict):
        e = self.constant(right)
        if e is None:
            self.fail(node, f"a compile-time power needs a constant exponent (at most {MAX_POW})")
        if isinstance(e, int) and abs(e) > MAX_POW:
            self.fail(node, f"a compile-time power's exponent is at most {MAX_POW}")
        return e

    def call(self, node: ast.Call, env: dict):
        args = [self.expr(a, env) for a in node.args]
        for k in node.keywords:
            self.expr(k.value, env)
        if isinstance(node.func, ast.Name) and node.func.id in self.funcs:
            return self.helper_call(node, node.func.id, args)
        self.expr(node.func, env)
        path = self.aliases.resolve(node.func) or ""
        if path in _RANGES and id(node) not in self.loop_iters:
            # Python iterates it while Triton compiles: math.prod(range(2 ** 40))
            self.fail(node, f"'{path.split('.')[-1]}()' outside a for loop's iterable is not allowed")
        if path in UNBOUNDED_MATH:
            self.fail(node, f"'{path}' computes at compile time with no bound on its work")
        ints = [a for a in args if isinstance(a, int)]
        if path in ("min", "max", "abs", "int", "round", "divmod", "triton.cdiv", "triton.language.cdiv",
                    "triton.language.constexpr"):
            return max(ints) if ints and len(ints) == len(args) else None
        if path == "triton.next_power_of_2":
            return ints[0] + 1 if ints and len(ints) == len(args) else None
        if path == "len":
            return 21
        if path == "pow" and len(node.args) >= 2 and isinstance(args[0], int) and isinstance(args[1], int):
            return self.arith(node, ast.Pow(), args[0], args[1], node.args[1], env)
        return None

    def helper_call(self, node: ast.Call, name: str, args: list):
        for a, v in zip(node.args, args):
            if isinstance(v, _Seq) or (isinstance(v, int) and v > ARG_BITS):
                self.fail(a, f"a helper is passed at most a {ARG_BITS}-bit integer at compile time, "
                             "no string, tuple or list")
        if name not in self.memo:
            self.memo[name] = (0, 1)  # no recursion (check_recursion): a placeholder
            c = Compile(self.funcs[name], self.aliases, self.module_consts, self.funcs, None, self.memo, callee=True)
            self.memo[name] = (c.run(), c.weight)
        bits, weight = self.memo[name]
        self.add_weight(node, self.unroll * weight)
        return bits or None

    # -- loops ------------------------------------------------------------------
    def for_loop(self, s: ast.For, env: dict) -> None:
        it = s.iter
        path = self.aliases.resolve(it.func) if isinstance(it, ast.Call) else None
        if path not in _RANGES:
            self.fail(it, "a for loop runs over range(), tl.range() or tl.static_range() only")
        # its arguments as Triton binds them, by position or keyword
        # (tl.static_range(0, arg2=N) unrolls N bodies)
        bound = range_arguments(it, path)
        if bound is None:
            self.fail(it, "a loop's range takes its arguments as Triton binds them: no keyword to range(), "
                          "none unknown, repeated or starred")
        self.loop_iters.add(id(it))
        self.expr(it, env)
        values = range_values(bound)
        vals = [self.constant(a) for a in values]
        if len(vals) == 3 and vals[2] == 0:
            self.fail(it, "a loop whose step is 0 never ends")
        known = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
        trips = len(range(*vals)) if known else None
        if path == "triton.language.static_range":
            self.unrolled(s, it, values, trips, env)
            return
        if trips is not None and trips > MAX_TRIPS:
            self.fail(it, f"a loop of more than {MAX_TRIPS} iterations is not allowed")
        if "loop_unroll_factor" in bound:
            v = self.constant(bound["loop_unroll_factor"])
            if not (isinstance(v, int) and 0 <= v <= MAX_UNROLL_FACTOR):
                self.fail(it, f"loop_unroll_factor must be a constant of at most {MAX_UNROLL_FACTOR}")
        if "num_stages" in bound:
            v = self.constant(bound["num_stages"])
            if not (isinstance(v, int) and 0 <= v <= LAUNCH_LIMITS["num_stages"]):
                self.fail(it, f"num_stages must be a constant of at most {LAUNCH_LIMITS['num_stages']}")
        self.runtime_loop(s, s.body + s.orelse, env)

    def unrolled(self, s: ast.For, it: ast.Call, values: list[ast.expr], trips: int | None, env: dict) -> None:
        """tl.static_range: Triton compiles the body once per iteration
        (values: its bounds and step, range_values)."""
        names = {n.id for a in values for n in ast.walk(a) if isinstance(n, ast.Name)} - set(self.aliases.map)
        if trips is None and ast.dump(it) in self.orig_static and names <= self.fixed_params:
            trips = 1 if self.same_configs else self.config_bound(names)
        if trips is None:
            self.fail(it, "tl.static_range's bounds must be constants, or the original kernel's own over "
                          f"constexpr parameters whose launch configs set them to at most {MAX_UNROLL}")
        if trips is not None and self.unroll * trips > MAX_UNROLL:
            self.fail(it, f"tl.static_range unrolls more than {MAX_UNROLL} bodies"
                          f"{' (with the loops around it)' if self.unroll > 1 else ''}")
        outer, counting = self.unroll, self.counting
        self.unroll *= trips or 1
        self.add_weight(it, max(self.unroll - self.weight, 0))
        try:
            bound = max([v for v in (self.expr(a, env) for a in values) if isinstance(v, int)] or [ARG_BITS])
            for _ in range(min(trips if trips is not None else MAX_UNROLL, MAX_UNROLL)):
                before = dict(env)
                self.bind(s.target, bound, env)
                self.block(s.body, env)
                self.counting = False
                if env == before:
                    break
        finally:
            self.unroll, self.counting = outer, counting
        self.block(s.orelse, env)

    def config_bound(self, names: set[str]) -> int | None:
        """The largest value the candidate's own launch configs
        (triton.autotune's triton.Config dicts of integer literals) give
        the names; None where they do not all give each of them one of at
        most MAX_UNROLL."""
        kinds = {self.aliases.resolve(d.func if isinstance(d, ast.Call) else d) for d in self.fn.decorator_list}
        configs = [c for d in self.fn.decorator_list for c in ast.walk(d)
                   if isinstance(c, ast.Call) and self.aliases.resolve(c.func) == "triton.Config"]
        if not configs or not kinds <= {"triton.autotune", "triton.jit"}:
            return None
        top = 1
        for c in configs:
            d = c.args[0] if c.args else None
            if not isinstance(d, ast.Dict):
                return None
            given = {k.value: v for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant)}
            for name in names:
                v = self.constant(given[name]) if name in given else None
                if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_UNROLL:
                    return None
                top = max(top, v)
        return top

    def runtime_loop(self, s: ast.stmt, body: list[ast.stmt], env: dict) -> None:
        """A loop on the GPU: its body compiles once; what it carries from one
        iteration to the next is a runtime value."""
        assigned = set().union(*[_stored(b) for b in body]) if body else set()
        if isinstance(s, ast.For):
            assigned |= _stored(s.target)
        for k in assigned:
            env[k] = None
        self.block(body, env)
        for k in assigned:
            env[k] = None

    def while_loop(self, s: ast.While, env: dict) -> None:
        assigned = set().union(*[_stored(b) for b in s.body]) if s.body else set()
        read = {n.id for n in ast.walk(s.test) if isinstance(n, ast.Name)}
        if not read & assigned:
            self.fail(s.test, "a while loop whose condition nothing in its body changes never ends")
        self.expr(s.test, env)
        self.runtime_loop(s, s.body + s.orelse, env)


def check_compile(tree: ast.Module, aliases: Aliases, orig_kernels: dict[str, ast.FunctionDef]) -> None:
    """Each function of the module within the compile-time limits; helpers as
    their callers see them (every parameter a possible compile-time value)."""
    consts = module_constants(tree)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    memo: dict[str, tuple[int, int]] = {}
    for name, fn in funcs.items():
        Compile(fn, aliases, consts, funcs, orig_kernels.get(name), memo, callee=name not in orig_kernels).run()
