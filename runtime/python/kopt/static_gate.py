"""kopt.static_gate: gate 1 of the verification cascade.

A candidate kernel source (written by an agent) is checked against the
original kernel source (Inductor's, from the output code's
``async_compile.triton('name', '''source''')``, or a standalone Triton file)
before anything runs. Standard library only: this module must not import
torch or triton, so that koptmake and the tests run it anywhere.

``check(candidate, original) -> (ok, reason)``; the reason is one line.
``report(candidate, original) -> dict`` adds ``memcheck``: the accesses the
gate could not prove in bounds (a list of one-line reasons, empty when it
proved them all); the worker then runs the candidate under
compute-sanitizer's memcheck (kopt.memcheck) before it counts as passed.

The check is an allow-list: what is not named here is rejected, each with
its own reason. Candidate files are imported, so decorator arguments,
default values and module-level constants run at import time, and Triton
evaluates names and attributes of a kernel body when it compiles it; each
of them must pass.

What passes:

- the source is UTF-8 (no other coding declaration) and every name in it is
  ASCII (no look-alike letters);
- it parses, and defines every ``@triton.jit`` function the original
  defines (the kernels), each once, with the same name, the same parameters
  (names, order, annotations, defaults) and decorators of the same kinds in
  the same order (``@triton_heuristics.pointwise(...)`` may change its
  arguments, not become ``@triton_heuristics.reduction``), so that it slots
  into Inductor's wrapper;
- other top-level functions are helpers decorated with ``@triton.jit`` alone,
  or ``@triton.jit(...)`` with ``noinline``, ``do_not_specialize``,
  ``do_not_specialize_on_alignment`` or ``debug`` set to literals; their
  defaults are literals, their annotations ``tl.constexpr`` and the like;
- decorator arguments are literals: constants, tuples, lists, sets and dicts
  of literals, ``__file__``, Inductor's hint enums (``TileHint.SQUARE``),
  ``DeviceProperties(...)``, ``set()`` and ``triton.Config(...)`` of
  literals, and list comprehensions over literal tuples; an argument equal
  to the original's same argument passes as it is; ``triton_meta`` and
  ``inductor_meta`` (the signature, the caches, remote autotuning,
  profiling) must equal the original's;
- imports come only from triton (``jit``, ``autotune``, ``heuristics``,
  ``Config``, ``cdiv``, ``next_power_of_2``, ``language``), triton.language
  and its submodules, Inductor's runtime helpers
  (``torch._inductor.runtime.{triton_helpers, triton_heuristics, hints,
  triton_compat}``) and math;
- module level holds only imports, functions, constant assignments of
  literals (or ``tl.constexpr(literal)``), a docstring and Inductor's
  ``triton_helpers.set_driver_to_gpu()``;
- every name used is defined in the file or is a harmless builtin; every
  attribute is on the allow-list: a path into triton.language (its
  functions and dtypes, ``tl.math``, libdevice), Inductor's helpers and
  hints, Python's math, or a tensor's own (``x.to``, ``x.dtype``, ...);
- every ``tl.load``, ``tl.store`` and atomic keeps a mask at least as strict
  as the original kernel's accesses to the same buffer: an access without a
  mask where the original masks that buffer, or one whose mask drops the
  original's bound (``xindex < xnumel`` gone, ``<=`` for ``<``, a larger
  constant, ``|`` with something else) is rejected, naming the access.
  Accesses the gate cannot prove (another index, another buffer, one made in
  a helper) are listed for the memcheck.

What is rejected, each with its own reason: other imports; file, process,
network, stream, event and timer access (``open``, ``os``, ``torch.cuda``,
``time`` ...); ``exec``/``eval``/``compile``/``__import__``/``getattr``/
``setattr``/``globals()``/``locals()``/``vars()``/``type()``; dunder
attributes and names (``__class__``, ``__dict__``, ``__globals__``,
``__builtins__``; only ``__file__`` is allowed, Inductor's decorators pass
it); frame, code and generator attributes (``gi_frame``, ``f_globals``,
``f_builtins``, ``co_code``, ...); string subscripts (``x['__builtins__']``);
``str.format``, f-strings and ``%`` formatting; inline assembly
(``tl.inline_asm_elementwise``); device printing (``print``,
``tl.device_print``, ``tl.static_print``); assignments to attributes
(monkey-patching); module-level mutable state (lists, dicts, sets) and
``global``/``nonlocal``; ``try`` (fallbacks to the original kernel);
``with``; classes, lambdas, nested functions, comprehensions in code,
generators, the walrus operator and async code; ``while`` loops whose
condition is a constant true (they cannot end).

Command line: ``python3 -m kopt.static_gate CANDIDATE ORIGINAL`` prints
``pass: <reason>`` (exit 0) or ``fail: <reason>`` (exit 1); exit 2 on a usage
or read error. A pass that needs the memcheck says so after the reason:
``pass: <reason>; memcheck: <why>``.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from typing import Iterable

# Canonical module paths that an import may bind.
_INDUCTOR_RUNTIME = "torch._inductor.runtime"
_INDUCTOR_MODULES = {"triton_helpers", "triton_heuristics", "hints", "triton_compat"}
# Attributes of the triton package a kernel may use.
_TRITON_ATTRS = {"jit", "autotune", "heuristics", "Config", "cdiv", "next_power_of_2",
                 "language", "constexpr"}
# Inductor's kernel decorators (triton_heuristics.*); the original's own are added.
_HEURISTICS_ATTRS = {"pointwise", "reduction", "persistent_reduction", "cooperative_reduction",
                     "split_scan", "template", "foreach", "user_autotune", "fixed_config"}
# triton.language: the programming model, its math and its dtypes.
_TL_ATTRS = {
    # programs, blocks, shapes
    "program_id", "num_programs", "arange", "full", "zeros", "zeros_like", "full_like", "cdiv",
    "broadcast", "broadcast_to", "reshape", "view", "trans", "permute", "expand_dims", "ravel",
    "join", "split", "interleave", "cat", "flip", "where", "swizzle2d",
    # memory (masks checked below)
    "load", "store", "make_block_ptr", "advance", "make_tensor_descriptor",
    "atomic_add", "atomic_max", "atomic_min", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_xchg", "atomic_cas",
    # reductions and scans
    "sum", "max", "min", "argmax", "argmin", "reduce", "xor_sum", "associative_scan", "cumsum",
    "cumprod", "sort", "histogram", "dot", "dot_scaled",
    # math
    "maximum", "minimum", "clamp", "abs", "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "cast",
    "sin", "cos", "erf", "floor", "ceil", "fma", "fdiv", "div_rn", "umulhi", "sigmoid", "softmax",
    "math", "extra", "PropagateNan",
    # random numbers
    "rand", "randn", "randint", "randint4x", "philox",
    # compile-time
    "constexpr", "static_range", "range", "static_assert", "device_assert", "multiple_of",
    "max_contiguous", "max_constancy", "debug_barrier", "assume",
    # types
    "dtype", "tensor", "pointer_type", "block_type", "void", "int1", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
    "float8e4nv", "float8e5", "float8e4b15", "float8e4b8", "float8e5b16",
}
# Modules reachable through triton_helpers that a kernel must not walk into.
_HELPERS_MODULES = {"triton", "tl", "torch", "os", "sys", "builtins", "inspect", "functools",
                    "typing", "importlib", "warnings", "itertools", "operator", "dataclasses"}
_HINTS_ATTRS = {"TileHint", "ReductionHint", "AutotuneHint", "DeviceProperties", "HeuristicType",
                "TRITON_MAX_BLOCK", "TRITON_MAX_RSPLIT"}
_HINT_ENUMS = {"TileHint", "ReductionHint", "AutotuneHint", "HeuristicType"}
# Attributes of values (tensors, constexprs, dtypes) a kernel may use.
_VALUE_ATTRS = {
    "to", "dtype", "shape", "T", "reshape", "view", "trans", "permute", "broadcast_to",
    "expand_dims", "ravel", "split", "sum", "max", "min", "argmax", "argmin", "cumsum", "cumprod",
    "sort", "flip", "reduce", "logical_and", "logical_or", "element_ty", "primitive_bitwidth",
    "is_floating", "is_int", "is_int_signed", "is_int_unsigned", "is_fp8", "is_fp16", "is_bf16",
    "is_fp32", "is_fp64", "is_ptr", "value", "numel", "type", "int_bitwidth", "scalar",
}

# Builtins that cannot reach outside the kernel.
_SAFE_BUILTINS = {"range", "len", "min", "max", "abs", "int", "float", "bool", "tuple",
                  "zip", "enumerate", "isinstance", "sum", "any", "all", "round", "pow",
                  "divmod", "slice",
                  "ValueError", "RuntimeError", "AssertionError", "NotImplementedError",
                  "True", "False", "None", "__file__"}
# Names with their own reason (they would otherwise be "unknown").
_BANNED_NAMES = {"open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
                 "delattr", "hasattr", "globals", "locals", "vars", "dir", "input",
                 "breakpoint", "exit", "quit", "help", "memoryview", "type", "object",
                 "super", "classmethod", "staticmethod", "property", "id", "format", "repr",
                 "os", "sys", "subprocess", "socket", "shutil", "pathlib", "io", "ctypes",
                 "importlib", "pickle", "marshal", "time", "threading", "multiprocessing",
                 "signal", "urllib", "http", "requests", "builtins", "torch", "numpy", "np",
                 "tempfile", "random", "inspect", "gc", "weakref", "asyncio", "select",
                 "mmap", "resource", "platform", "cupy", "pycuda", "operator", "functools",
                 "codecs", "copyreg", "types", "sysconfig", "site"}
# Attribute names that reach streams, events, timers, processes or modules.
_BANNED_ATTRS = {"cuda", "synchronize", "Event", "Stream", "stream", "current_stream",
                 "default_stream", "set_stream", "elapsed_time", "record", "record_event",
                 "perf_counter", "perf_counter_ns", "monotonic", "time_ns", "sleep",
                 "system", "popen", "spawn", "fork", "environ", "modules", "builtins",
                 "testing", "do_bench", "runtime", "compiler", "driver", "knobs",
                 "os", "sys", "subprocess", "socket", "torch", "time", "importlib"}
# Frames, code objects, generators, coroutines, tracebacks and functions'
# insides: the ways from any object to every global of the process.
_FRAME_ATTRS = {"gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
                "cr_frame", "cr_code", "cr_await", "cr_origin", "ag_frame", "ag_code",
                "ag_await", "f_back", "f_builtins", "f_globals", "f_locals", "f_code",
                "f_trace", "f_lineno", "f_lasti", "tb_frame", "tb_next", "co_code",
                "co_consts", "co_names", "co_filename", "func_globals", "func_code",
                "mro", "fn", "src", "cache_fn", "fget", "fset", "im_func", "im_self"}
_MUTABLE_CALLS = {"list", "dict", "set", "bytearray"}
_PRINTS = {"triton.language.device_print", "triton.language.static_print",
           "triton.language.core.device_print", "triton.language.core.static_print"}
_INLINE_ASM = {"triton.language.inline_asm_elementwise",
               "triton.language.core.inline_asm_elementwise"}
# @triton.jit(...) keywords whose literal values change nothing outside the kernel
_JIT_KEYWORDS = {"noinline", "do_not_specialize", "do_not_specialize_on_alignment", "debug"}
# decorator arguments that must equal the original's
_SAME_AS_ORIGINAL = {"triton_meta", "inductor_meta", "filename"}
# calls a literal may make: canonical path -> allowed positional arguments
_LITERAL_CALLS = {_INDUCTOR_RUNTIME + ".hints.DeviceProperties": 0, "triton.Config": 1}
_MAX_POW = 64

# memory accesses: canonical path -> index of the mask among the positional
# arguments (None: the call takes no mask)
_LOADS = {"triton.language.load": 1}
_STORES = {"triton.language.store": 2, "triton.language.atomic_add": 2,
           "triton.language.atomic_max": 2, "triton.language.atomic_min": 2,
           "triton.language.atomic_and": 2, "triton.language.atomic_or": 2,
           "triton.language.atomic_xor": 2, "triton.language.atomic_xchg": 2,
           "triton.language.atomic_cas": None}
# Inductor helpers that write through a pointer they are given
_HELPER_WRITERS = {"exclusive_scan_decoupled_lookback", "exclusive_scan_decoupled_lookback_64",
                   "x_grid_barrier"}
_CANON_MAX = 20000  # characters of a resolved index expression, then "unknown"

_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


class Reject(Exception):
    """One reason to reject the candidate."""


def _dotted(node: ast.AST) -> list[str] | None:
    """a.b.c -> ['a', 'b', 'c']; None when the chain is not names and attributes."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _is_dunder(s: str) -> bool:
    return s.startswith("__") and s.endswith("__") and len(s) > 4


def _module_allowed(path: str) -> bool:
    """May `import path` / `from path import ...` name this module?"""
    if path in ("triton", "math", "triton.language") or path.startswith("triton.language."):
        return True
    if path == _INDUCTOR_RUNTIME:
        return True
    if path.startswith(_INDUCTOR_RUNTIME + "."):
        rest = path[len(_INDUCTOR_RUNTIME) + 1:].split(".")
        return len(rest) == 1 and rest[0] in _INDUCTOR_MODULES
    return False


def _public(name: str) -> bool:
    return not name.startswith("_")


def _tl_path_ok(rest: list[str]) -> bool:
    """A path below triton.language (rest may be a prefix of an allowed one)."""
    if not rest:
        return True
    head = rest[0]
    if head not in _TL_ATTRS:
        return False
    if len(rest) == 1:
        return True
    if head == "math":
        return len(rest) == 2 and _public(rest[1])
    if head == "extra":
        # libdevice only: not tl.extra.cuda's timers, SM ids or format conversions
        if rest[1] == "libdevice":
            return len(rest) <= 3 and (len(rest) < 3 or _public(rest[2]))
        if rest[1] == "cuda":
            if len(rest) == 2:
                return True
            return rest[2] == "libdevice" and (len(rest) == 3 or (len(rest) == 4 and _public(rest[3])))
        return False
    return False


def _path_ok(path: str, heuristics_ok: set[str]) -> bool:
    """Is this canonical module path (or a prefix of one) on the allow-list?"""
    parts = path.split(".")
    if parts[0] == "triton":
        if len(parts) == 1:
            return True
        if parts[1] == "language":
            return _tl_path_ok(parts[2:])
        return len(parts) == 2 and parts[1] in _TRITON_ATTRS
    if parts[0] == "math":
        return len(parts) <= 2 and all(_public(p) for p in parts[1:])
    runtime = _INDUCTOR_RUNTIME.split(".")
    if parts[:len(runtime)] == runtime[:len(parts)]:
        if len(parts) <= len(runtime):
            return True
        mod, rest = parts[len(runtime)], parts[len(runtime) + 1:]
        if mod == "triton_helpers" or mod == "triton_compat":
            if not rest:
                return True
            if not _public(rest[0]) or rest[0] in _HELPERS_MODULES:
                return False
            if len(rest) == 1:
                return mod == "triton_helpers" or rest[0] in ("libdevice", "math")
            return rest[0] in ("libdevice", "math") and len(rest) == 2 and _public(rest[1])
        if mod == "triton_heuristics":
            return len(rest) <= 1 and (not rest or rest[0] in heuristics_ok)
        if mod == "hints":
            if not rest:
                return True
            if rest[0] not in _HINTS_ATTRS:
                return False
            return len(rest) == 1 or (len(rest) == 2 and rest[0] in _HINT_ENUMS and _public(rest[1]))
        return False
    return False


class _Aliases:
    """Local names bound by the imports, mapped to canonical dotted paths."""

    def __init__(self, tree: ast.Module):
        self.map: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.map[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.map[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.map[a.asname or a.name] = node.module + "." + a.name

    def resolve(self, node: ast.AST) -> str | None:
        parts = _dotted(node)
        if not parts:
            return None
        head = self.map.get(parts[0])
        if head is None:
            return ".".join(parts)
        return ".".join([head] + parts[1:])

    def module_path(self, node: ast.AST) -> str | None:
        """The canonical path when node is a chain rooted at an import, else None."""
        parts = _dotted(node)
        if not parts or parts[0] not in self.map:
            return None
        return ".".join([self.map[parts[0]]] + parts[1:])


def _decorator_kind(dec: ast.AST, aliases: _Aliases) -> str:
    target = dec.func if isinstance(dec, ast.Call) else dec
    return aliases.resolve(target) or ast.unparse(target)


def _is_jit(fn: ast.FunctionDef, aliases: _Aliases) -> bool:
    return any(_decorator_kind(d, aliases) == "triton.jit" for d in fn.decorator_list)


def _kernels(tree: ast.Module, aliases: _Aliases) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef) and _is_jit(n, aliases)]


def _signature(fn: ast.FunctionDef) -> str:
    return "(" + ast.unparse(fn.args) + ")"


def _short(path: str) -> str:
    """A canonical path as a person reads it: the last two components."""
    return ".".join(path.split(".")[-2:])


def _excerpt(node: ast.AST, n: int = 70) -> str:
    s = " ".join(ast.unparse(node).split())
    return s if len(s) <= n else s[:n - 3] + "..."


# ---- literals -------------------------------------------------------------

def _literal(node: ast.AST, aliases: _Aliases, scope: frozenset = frozenset()) -> str | None:
    """None when node is a literal (see the module's docstring); else why not."""
    if isinstance(node, ast.Constant):
        return None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for e in node.elts:
            why = _literal(e, aliases, scope)
            if why:
                return why
        return None
    if isinstance(node, ast.Dict):
        for k, v in zip(node.keys, node.values):
            if k is None:
                return "'**' in a literal"
            why = _literal(k, aliases, scope) or _literal(v, aliases, scope)
            if why:
                return why
        return None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not, ast.Invert)):
        return _literal(node.operand, aliases, scope)
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)):
            return f"'{_excerpt(node)}' (only + - * / // ** of numbers)"
        for side in (node.left, node.right):
            if isinstance(side, ast.Constant) and not isinstance(side.value, (int, float)):
                return f"'{_excerpt(node)}' (only + - * / // ** of numbers)"
            if isinstance(side, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr)):
                return f"'{_excerpt(node)}' (only + - * / // ** of numbers)"
        if isinstance(node.op, ast.Pow) and not (isinstance(node.right, ast.Constant)
                                                 and isinstance(node.right.value, int)
                                                 and 0 <= node.right.value <= _MAX_POW):
            return f"'{_excerpt(node)}' (a power needs a small constant exponent)"
        return _literal(node.left, aliases, scope) or _literal(node.right, aliases, scope)
    if isinstance(node, ast.Name):
        if node.id in ("True", "False", "None", "__file__") or node.id in scope:
            return None
        return f"'{node.id}'"
    if isinstance(node, ast.Attribute):
        path = aliases.module_path(node) or ""
        parts = path.split(".")
        if (path.startswith(_INDUCTOR_RUNTIME + ".hints.") and len(parts) == 6
                and parts[4] in _HINT_ENUMS and _public(parts[5])):
            return None
        return f"'{_excerpt(node)}'"
    if isinstance(node, ast.Call):
        path = aliases.module_path(node.func)
        if isinstance(node.func, ast.Name) and node.func.id == "set" and not node.args and not node.keywords:
            return None
        if path in _LITERAL_CALLS:
            if len(node.args) > _LITERAL_CALLS[path]:
                return f"'{_excerpt(node)}' (too many positional arguments)"
            for a in node.args:
                why = _literal(a, aliases, scope)
                if why:
                    return why
            for kw in node.keywords:
                if kw.arg is None:
                    return "'**' in a literal"
                why = _literal(kw.value, aliases, scope)
                if why:
                    return why
            return None
        return f"call '{_excerpt(node.func)}(...)'"
    if isinstance(node, ast.ListComp):
        inner = set(scope)
        for g in node.generators:
            if g.is_async or not isinstance(g.target, ast.Name):
                return f"'{_excerpt(node)}'"
            if not isinstance(g.iter, (ast.Tuple, ast.List)):
                return f"'{_excerpt(g.iter)}' (a comprehension runs over a literal tuple or list)"
            why = _literal(g.iter, aliases, frozenset(inner))
            if why:
                return why
            inner.add(g.target.id)
            if g.ifs:
                return f"'{_excerpt(node)}' (no conditions in a comprehension)"
        return _literal(node.elt, aliases, frozenset(inner))
    return f"'{_excerpt(node)}'"


# ---- memory accesses ------------------------------------------------------

class _TooBig(Exception):
    pass


class _Access:
    """One tl.load / tl.store / atomic in a function."""

    def __init__(self, kind: str, call: ast.Call, ptr: ast.expr | None, mask: ast.expr | None,
                 masked: bool):
        self.kind = kind      # "load" or "store"
        self.call = call
        self.ptr = ptr
        self.mask = mask      # the mask expression, or None
        self.masked = masked  # a mask (or a block pointer's boundary_check) is given

    def label(self) -> str:
        return f"{self.kind} at line {self.call.lineno} ({_excerpt(self.call)})"


class _Flow:
    """A function's assignments, to see through names: what a mask bounds,
    which buffer a pointer points into, and an index in canonical form."""

    def __init__(self, fn: ast.FunctionDef, aliases: _Aliases):
        self.aliases = aliases
        self.params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
        self.defs: dict[str, list[ast.expr | None]] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    self._bind(t, node.value if len(node.targets) == 1 else None)
            elif isinstance(node, ast.AnnAssign):
                self._bind(node.target, node.value)
            elif isinstance(node, ast.AugAssign):
                self._bind(node.target, None)
            elif isinstance(node, (ast.For, ast.comprehension)):
                self._bind(node.target, None)
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, None)
        self.memo: dict[str, str] = {}
        self.busy: set[str] = set()
        self.text: dict[tuple, str] = {}  # each mask atom as written

    def _bind(self, target: ast.AST, value: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.defs.setdefault(target.id, []).append(value)
        else:
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    self.defs.setdefault(n.id, []).append(None)

    def value(self, name: str) -> ast.expr | None:
        """The one value name always has (all its assignments alike), else None."""
        vals = self.defs.get(name)
        if not vals or any(v is None for v in vals):
            return None
        first = ast.dump(vals[0])
        return vals[0] if all(ast.dump(v) == first for v in vals[1:]) else None

    def values(self, name: str) -> list[ast.expr] | None:
        vals = self.defs.get(name)
        if not vals or any(v is None for v in vals):
            return None
        return vals  # type: ignore[return-value]

    # canonical form of an expression: names replaced by their values
    def canon(self, node: ast.AST) -> str:
        try:
            return self._canon(node)
        except _TooBig:
            return "?" + ast.dump(node)

    def _canon(self, node: ast.AST) -> str:
        if isinstance(node, ast.Name):
            return self._canon_name(node.id)
        if isinstance(node, ast.Attribute):
            path = self.aliases.module_path(node)
            if path is not None:
                return path
        if isinstance(node, ast.expr_context):
            return ""
        parts = [type(node).__name__, "("]
        for field, v in ast.iter_fields(node):
            if field in ("ctx", "type_comment", "kind"):
                continue
            if isinstance(v, list):
                parts.append("[" + ",".join(self._canon(x) if isinstance(x, ast.AST) else repr(x)
                                            for x in v) + "]")
            elif isinstance(v, ast.AST):
                parts.append(self._canon(v))
            else:
                parts.append(repr(v))
            parts.append(",")
        parts.append(")")
        s = "".join(parts)
        if len(s) > _CANON_MAX:
            raise _TooBig()
        return s

    def _canon_name(self, name: str) -> str:
        if name in self.memo:
            return self.memo[name]
        v = self.value(name)
        if v is None or name in self.busy:
            s = "N:" + name
        else:
            self.busy.add(name)
            try:
                s = self._canon(v)
            finally:
                self.busy.discard(name)
        self.memo[name] = s
        return s

    # linear form: (((canonical term, count), ...), constant); x + 5 - y
    def lin(self, node: ast.AST, depth: int = 0) -> tuple:
        terms: dict[str, int] = {}
        const = self._lin(node, 1, terms, depth)
        return tuple(sorted((t, c) for t, c in terms.items() if c)), const

    def _lin(self, node: ast.AST, sign: int, terms: dict, depth: int) -> int:
        if depth > 60:
            terms[self.canon(node)] = terms.get(self.canon(node), 0) + sign
            return 0
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return sign * node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            right = sign if isinstance(node.op, ast.Add) else -sign
            return self._lin(node.left, sign, terms, depth + 1) + self._lin(node.right, right, terms, depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._lin(node.operand, -sign if isinstance(node.op, ast.USub) else sign, terms, depth + 1)
        if isinstance(node, ast.Subscript) and _broadcast_only(node.slice):
            return self._lin(node.value, sign, terms, depth + 1)
        if isinstance(node, ast.Name):
            v = self.value(node.id)
            if v is not None and node.id not in self.busy:
                self.busy.add(node.id)
                try:
                    return self._lin(v, sign, terms, depth + 1)
                finally:
                    self.busy.discard(node.id)
        key = self.canon(node)
        terms[key] = terms.get(key, 0) + sign
        return 0

    # what a mask bounds: {(index, bound)} for each `index < bound` it implies
    def atoms(self, node: ast.AST, depth: int = 0) -> set:
        if depth > 60:
            return set()
        if isinstance(node, ast.Compare):
            out = set()
            left = node.left
            for op, right in zip(node.ops, node.comparators):
                atom = None
                if isinstance(op, ast.Lt):
                    atom = (self.lin(left), self.lin(right))
                elif isinstance(op, ast.Gt):
                    atom = (self.lin(right), self.lin(left))
                if atom is not None:
                    out.add(atom)
                    self.text.setdefault(atom, _excerpt(ast.Compare(left, [op], [right]), 40))
                left = right
            return out
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
            return self.atoms(node.left, depth + 1) | self.atoms(node.right, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.atoms(node.left, depth + 1) & self.atoms(node.right, depth + 1)
        if isinstance(node, ast.BoolOp):
            sets = [self.atoms(v, depth + 1) for v in node.values]
            if isinstance(node.op, ast.And):
                return set().union(*sets)
            return set.intersection(*sets) if sets else set()
        if isinstance(node, ast.Subscript):
            return self.atoms(node.value, depth + 1)
        if isinstance(node, ast.Call):
            path = self.aliases.module_path(node.func)
            if path == "triton.language.broadcast_to" and node.args:
                return self.atoms(node.args[0], depth + 1)
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("to", "broadcast_to"):
                return self.atoms(node.func.value, depth + 1)
            return set()
        if isinstance(node, ast.Name):
            vals = self.values(node.id)
            if not vals or node.id in self.busy:
                return set()
            self.busy.add(node.id)
            try:
                sets = [self.atoms(v, depth + 1) for v in vals]
            finally:
                self.busy.discard(node.id)
            return set.intersection(*sets)
        return set()

    # which parameters a pointer expression is based on
    def bases(self, node: ast.AST, depth: int = 0) -> set[str]:
        if depth > 60:
            return set()
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return self.bases(node.left, depth + 1) | (self.bases(node.right, depth + 1)
                                                       if isinstance(node.op, ast.Add) else set())
        if isinstance(node, ast.Subscript):
            return self.bases(node.value, depth + 1)
        if isinstance(node, ast.Call):
            path = self.aliases.module_path(node.func)
            if path in ("triton.language.make_block_ptr", "triton.language.advance",
                        "triton.language.broadcast_to", "triton.language.reshape"):
                base = node.args[0] if node.args else next(
                    (k.value for k in node.keywords if k.arg in ("base", "pointer", "input")), None)
                return self.bases(base, depth + 1) if base is not None else set()
            return set()
        if isinstance(node, ast.Name):
            v = self.value(node.id)
            if v is not None and node.id not in self.busy:
                self.busy.add(node.id)
                try:
                    return self.bases(v, depth + 1)
                finally:
                    self.busy.discard(node.id)
            if node.id in self.params and node.id not in self.defs:
                return {node.id}
        return set()

    def accesses(self, fn: ast.FunctionDef) -> list[_Access]:
        out = []
        for node in ast.walk(fn):
            if not isinstance(node, ast.Call):
                continue
            path = self.aliases.module_path(node.func)
            if path in _LOADS:
                kind, idx = "load", _LOADS[path]
            elif path in _STORES:
                kind, idx = "store", _STORES[path]
            else:
                continue
            ptr = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "pointer"), None)
            mask = None
            if idx is not None and len(node.args) > idx:
                mask = node.args[idx]
            for k in node.keywords:
                if k.arg == "mask":
                    mask = k.value
            if isinstance(mask, ast.Constant) and mask.value is None:
                mask = None
            boundary = next((k.value for k in node.keywords if k.arg == "boundary_check"), None)
            if boundary is None and kind == "load" and len(node.args) > 3:
                boundary = node.args[3]
            if boundary is None and kind == "store" and idx is not None and len(node.args) > 3:
                boundary = node.args[3]
            masked = mask is not None or (boundary is not None and not (
                isinstance(boundary, (ast.Tuple, ast.List)) and not boundary.elts))
            out.append(_Access(kind, node, ptr, mask, masked))
        return out


class _Need:
    """What the original kernel does with one buffer, for one kind of access."""

    def __init__(self):
        self.masked = True   # every access masks it
        self.atoms: set | None = None  # the bounds every access keeps
        self.example = ""    # one of the original's masks, for messages
        self.count = 0


def _needs(flow: _Flow, accesses: list[_Access]) -> tuple[dict, dict]:
    """{(buffer, kind): _Need} and {buffer: {canonical pointers}} of the original."""
    needs: dict[tuple[str, str], _Need] = {}
    ptrs: dict[str, set[str]] = {}
    for a in accesses:
        bases = flow.bases(a.ptr) if a.ptr is not None else set()
        if len(bases) != 1:
            continue
        b = next(iter(bases))
        need = needs.setdefault((b, a.kind), _Need())
        need.count += 1
        need.masked = need.masked and a.masked
        atoms = flow.atoms(a.mask) if a.mask is not None else set()
        need.atoms = atoms if need.atoms is None else need.atoms & atoms
        if a.mask is not None and not need.example:
            need.example = _excerpt(a.mask, 40)
        ptrs.setdefault(b, set()).add(flow.lin(a.ptr))
    return needs, ptrs


def _looser(have: tuple, want: tuple) -> bool | None:
    """Is the mask atom have looser than want? Each is (index, bound), both
    linear forms; `i + c < b + d` reads `i < b + (d - c)`. True when provably
    looser, False when provably as strict, None when the gate cannot tell."""
    (hi, hb), (wi, wb) = have, want
    if hi[0] != wi[0] or hb[0] != wb[0]:
        return None
    return (hb[1] - hi[1]) > (wb[1] - wi[1])


def _keeps(have: set, want: tuple) -> str:
    """'same' when an atom of have is as strict as want; 'other' when one
    compares another index with the same bound (the memcheck decides);
    'looser' when the only ones with that index and bound are looser;
    'none' when no atom compares with that bound."""
    best = "none"
    for atom in have:
        r = _looser(atom, want)
        if r is False:
            return "same"
        if r is None and atom[1][0] == want[1][0]:
            best = "other"
        elif r is True and best == "none":
            best = "looser"
    return best


def _shift(have: tuple, ptrs: set) -> int | None:
    """0 when the pointer is one of the original's; the constant by which it
    differs from one of them when that is all that differs; else None."""
    shifts = [have[1] - c for key, c in ptrs if key == have[0]]
    if not shifts:
        return None
    return 0 if 0 in shifts else min(shifts, key=abs)


def _check_accesses(cand_fn: ast.FunctionDef, cand_aliases: _Aliases,
                    orig_fn: ast.FunctionDef, orig_aliases: _Aliases, memcheck: list[str]) -> None:
    """Rejects an access whose mask is looser than the original's; lists the
    ones the gate cannot prove in memcheck."""
    oflow = _Flow(orig_fn, orig_aliases)
    needs, optrs = _needs(oflow, oflow.accesses(orig_fn))
    flow = _Flow(cand_fn, cand_aliases)
    for a in flow.accesses(cand_fn):
        bases = flow.bases(a.ptr) if a.ptr is not None else set()
        if len(bases) != 1:
            memcheck.append(f"{a.label()}: cannot tell which buffer it {'reads' if a.kind == 'load' else 'writes'}")
            continue
        b = next(iter(bases))
        other = "store" if a.kind == "load" else "load"
        need = needs.get((b, a.kind)) or needs.get((b, other))
        if need is None:
            memcheck.append(f"{a.label()}: the original kernel does not touch '{b}'")
            continue
        verb = "stores to" if (b, a.kind) in needs and a.kind == "store" else \
            "loads of" if (b, a.kind) in needs else "accesses to"
        if need.masked and not a.masked:
            raise Reject(f"{a.label()} has no mask; the original's {verb} '{b}' are masked"
                         f"{' (' + need.example + ')' if need.example else ''}")
        have = flow.atoms(a.mask) if a.mask is not None else set()
        proven = True
        for atom in sorted(need.atoms or set(), key=repr):
            kept = _keeps(have, atom)
            if kept in ("none", "looser"):
                raise Reject(f"{a.label()} has a mask looser than the original's: it does not keep "
                             f"'{oflow.text.get(atom, '?')}', as the original's {verb} '{b}' do")
            proven = proven and kept == "same"
        shift = _shift(flow.lin(a.ptr), optrs.get(b, set()))
        if shift:
            raise Reject(f"{a.label()} is {abs(shift)} elements {'past' if shift > 0 else 'before'} "
                         f"the original's index into '{b}': out of its bounds")
        if shift is None or not proven:
            memcheck.append(f"{a.label()}: its index or mask differs from the original's")


def _check_helper_accesses(fn: ast.FunctionDef, aliases: _Aliases, memcheck: list[str]) -> None:
    flow = _Flow(fn, aliases)
    for a in flow.accesses(fn):
        memcheck.append(f"{a.label()} in helper '{fn.name}': its buffer is a helper's argument")


# ---- the checker ----------------------------------------------------------

class _Checker:
    def __init__(self, tree: ast.Module, aliases: _Aliases, kernel_decorators: set[str],
                 orig_kernels: dict[str, ast.FunctionDef], orig_aliases: _Aliases):
        self.tree = tree
        self.aliases = aliases
        self.heuristics_ok = _HEURISTICS_ATTRS | kernel_decorators
        self.module_names: set[str] = set(aliases.map)
        self.orig_kernels = orig_kernels
        self.orig_aliases = orig_aliases
        self.memcheck: list[str] = []

    # -- paths ------------------------------------------------------------
    def check_path(self, path: str) -> None:
        parts = path.split(".")
        for p in parts:
            if _is_dunder(p):
                raise Reject(f"dunder attribute '{p}' is not allowed")
        if parts[0] == "triton" and len(parts) > 1 and parts[1] not in _TRITON_ATTRS:
            raise Reject(f"'triton.{parts[1]}' is not allowed")
        if path.startswith(_INDUCTOR_RUNTIME + ".triton_heuristics.") and len(parts) > 4:
            if parts[4] not in self.heuristics_ok:
                raise Reject(f"'triton_heuristics.{parts[4]}' is not allowed")
        if parts[0] == "torch" and not (path == _INDUCTOR_RUNTIME
                                        or path.startswith(_INDUCTOR_RUNTIME + ".")):
            raise Reject("use of 'torch' is not allowed")

    # -- module level -----------------------------------------------------
    def check_module(self) -> None:
        funcs = [n.name for n in self.tree.body if isinstance(n, ast.FunctionDef)]
        self.module_names.update(funcs)
        for node in self.tree.body:
            for t in _assign_targets(node):
                self.module_names.add(t)
        for i, node in enumerate(self.tree.body):
            self.check_toplevel(node, first=(i == 0))
        for node in self.tree.body:
            self.check_tree(node)
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                self.check_function(node)

    def check_toplevel(self, node: ast.stmt, first: bool) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                if not _module_allowed(a.name):
                    raise Reject(f"import of '{a.name}' is not allowed")
                if "." in a.name and not a.asname and a.name.split(".")[0] != "triton":
                    raise Reject(f"import of '{a.name}' binds '{a.name.split('.')[0]}'; use from-import")
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                raise Reject("relative import is not allowed")
            mod = node.module or ""
            if not _module_allowed(mod):
                raise Reject(f"import from '{mod}' is not allowed")
            for a in node.names:
                if a.name == "*":
                    raise Reject("star import is not allowed")
                full = mod + "." + a.name
                if mod == _INDUCTOR_RUNTIME and a.name not in _INDUCTOR_MODULES:
                    raise Reject(f"import of '{full}' is not allowed")
                if a.name in _BANNED_ATTRS or a.name in _BANNED_NAMES:
                    raise Reject(f"import of '{full}' is not allowed")
                self.check_path(full)
                if not _path_ok(full, self.heuristics_ok):
                    raise Reject(f"import of '{full}' is not allowed")
            return
        if isinstance(node, ast.FunctionDef):
            return
        if isinstance(node, ast.Expr):
            if first and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return  # docstring
            if (isinstance(node.value, ast.Call) and not node.value.args and not node.value.keywords
                    and self.aliases.resolve(node.value.func)
                    == _INDUCTOR_RUNTIME + ".triton_helpers.set_driver_to_gpu"):
                return
            if isinstance(node.value, ast.Call):
                raise Reject(f"module-level call '{ast.unparse(node.value.func)}(...)' is not allowed")
            raise Reject("module-level expression is not allowed")
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if not isinstance(t, ast.Name):
                    raise Reject(f"module-level assignment to '{ast.unparse(t)}' is not allowed")
                if t.id in self.aliases.map or t.id in _defined_functions(self.tree):
                    raise Reject(f"rebinding '{t.id}' is not allowed")
            if isinstance(node, ast.AnnAssign):
                ann = node.annotation
                path = self.aliases.module_path(ann)
                if not (path is not None and _path_ok(path, self.heuristics_ok)) and not (
                        isinstance(ann, ast.Constant) and isinstance(ann.value, str)):
                    raise Reject(f"annotation '{_excerpt(ann)}' of '{ast.unparse(node.target)}' is not allowed")
            if node.value is not None:
                name = ast.unparse(targets[0])
                self.check_constant(node.value, name)
            return
        if isinstance(node, _TRY):
            raise Reject("try/except is not allowed (no fallbacks)")
        if isinstance(node, ast.ClassDef):
            raise Reject(f"class definition '{node.name}' is not allowed")
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            raise Reject("'global' statement is not allowed")
        if isinstance(node, (ast.AsyncFunctionDef,)):
            raise Reject("async code is not allowed")
        kind = {"AugAssign": "augmented assignment", "Delete": "del",
                "AsyncFor": "async for"}.get(type(node).__name__, type(node).__name__.lower())
        raise Reject(f"module-level '{kind}' statement is not allowed")

    def check_constant(self, value: ast.expr, name: str) -> None:
        """A module-level value must be an immutable literal, or tl.constexpr(literal)."""
        kinds = {ast.List: "a list", ast.Dict: "a dict", ast.Set: "a set",
                 ast.ListComp: "a list", ast.DictComp: "a dict", ast.SetComp: "a set",
                 ast.GeneratorExp: "a generator"}
        for node in ast.walk(value):
            for k, what in kinds.items():
                if isinstance(node, k):
                    raise Reject(f"module-level mutable state: '{name}' is {what}")
            if isinstance(node, ast.Call):
                callee = ast.unparse(node.func)
                if callee in _MUTABLE_CALLS:
                    raise Reject(f"module-level mutable state: '{name}' is a {callee}")
                if self.aliases.resolve(node.func) != "triton.language.constexpr":
                    raise Reject(f"module-level call '{callee}(...)' is not allowed")
        inner = value
        if (isinstance(value, ast.Call) and self.aliases.resolve(value.func) == "triton.language.constexpr"
                and len(value.args) == 1 and not value.keywords):
            inner = value.args[0]
        why = _literal(inner, self.aliases)
        if why:
            raise Reject(f"module-level constant '{name}' must be a literal, not {why}")

    # -- functions: decorators, defaults, annotations, accesses ------------
    def check_function(self, fn: ast.FunctionDef) -> None:
        orig = self.orig_kernels.get(fn.name)
        for i, dec in enumerate(fn.decorator_list):
            if not isinstance(dec, ast.Call):
                continue
            kind = _decorator_kind(dec, self.aliases)
            odec = None
            if orig is not None and i < len(orig.decorator_list) and isinstance(orig.decorator_list[i], ast.Call):
                odec = orig.decorator_list[i]
            self.check_decorator_args(fn, dec, kind, odec)
        if orig is None:
            for d in fn.args.defaults + fn.args.kw_defaults:
                if d is not None:
                    why = _literal(d, self.aliases)
                    if why:
                        raise Reject(f"default value of helper '{fn.name}' must be a literal, not {why}")
            for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg, fn.args.kwarg]:
                if a is not None and a.annotation is not None:
                    self.check_annotation(fn, a.annotation)
            if fn.returns is not None:
                self.check_annotation(fn, fn.returns)
            _check_helper_accesses(fn, self.aliases, self.memcheck)
        else:
            _check_accesses(fn, self.aliases, orig, self.orig_aliases, self.memcheck)
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                path = self.aliases.module_path(node.func) or ""
                if path.startswith(_INDUCTOR_RUNTIME + ".triton_helpers.") and path.split(".")[-1] in _HELPER_WRITERS:
                    self.memcheck.append(f"call at line {node.lineno} ({_excerpt(node)}): "
                                         f"'{path.split('.')[-1]}' writes through a pointer")

    def check_annotation(self, fn: ast.FunctionDef, ann: ast.expr) -> None:
        path = self.aliases.module_path(ann)
        if path is not None and path.startswith("triton.language.") and _path_ok(path, self.heuristics_ok):
            return
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            return
        raise Reject(f"annotation '{_excerpt(ann)}' of helper '{fn.name}' is not allowed")

    def check_decorator_args(self, fn: ast.FunctionDef, dec: ast.Call, kind: str,
                             odec: ast.Call | None) -> None:
        where = f"decorator @{_short(kind)} of '{fn.name}'"
        if kind == "triton.jit":
            if dec.args:
                raise Reject(f"{where}: positional arguments are not allowed")
        okw = {k.arg: k.value for k in (odec.keywords if odec is not None else []) if k.arg}
        for i, a in enumerate(dec.args):
            if odec is not None and i < len(odec.args) and ast.dump(a) == ast.dump(odec.args[i]):
                continue
            why = _literal(a, self.aliases)
            if why:
                raise Reject(f"{where}: arguments must be literals, not {why}")
        for k in dec.keywords:
            if k.arg is None:
                raise Reject(f"{where}: '**' arguments are not allowed")
            same = k.arg in okw and ast.dump(k.value) == ast.dump(okw[k.arg])
            if kind == "triton.jit" and k.arg not in _JIT_KEYWORDS and not same:
                raise Reject(f"{where}: argument '{k.arg}' is not allowed "
                             f"(only {', '.join(sorted(_JIT_KEYWORDS))})")
            if k.arg in _SAME_AS_ORIGINAL and odec is not None and not same:
                raise Reject(f"{where}: '{k.arg}' must stay as the original's")
            if same:
                continue
            why = _literal(k.value, self.aliases)
            if why:
                raise Reject(f"{where}: argument '{k.arg}' must be a literal, not {why}")

    # -- everywhere -------------------------------------------------------
    def check_tree(self, top: ast.stmt) -> None:
        if isinstance(top, ast.FunctionDef):
            for dec in top.decorator_list:
                # set() is a literal there (Inductor's 'autotune_hints': set())
                self.check_expr_tree(dec, self.module_names | {"set"}, decorator=True)
            for d in top.args.defaults + top.args.kw_defaults:
                if d is not None:
                    self.check_expr_tree(d, self.module_names)
            local = set(self.module_names)
            for a in top.args.posonlyargs + top.args.args + top.args.kwonlyargs:
                local.add(a.arg)
                if a.annotation is not None:
                    self.check_expr_tree(a.annotation, self.module_names)
            for a in (top.args.vararg, top.args.kwarg):
                if a is not None:
                    local.add(a.arg)
            if top.returns is not None:
                self.check_expr_tree(top.returns, self.module_names)
            for stmt in top.body:
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                        local.add(node.id)
            for stmt in top.body:
                self.check_stmt_tree(stmt, local)
        elif not isinstance(top, (ast.Import, ast.ImportFrom)):
            self.check_stmt_tree(top, self.module_names)

    def check_expr_tree(self, node: ast.AST, names: set[str], decorator: bool = False) -> None:
        # comprehension variables are defined inside the expression
        local = names | {n.id for n in ast.walk(node)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(node):
            self.check_node(n, local, decorator)

    def check_stmt_tree(self, stmt: ast.stmt, names: set[str]) -> None:
        self.check_expr_tree(stmt, names)

    def check_node(self, n: ast.AST, names: set[str], decorator: bool = False) -> None:
        if isinstance(n, _TRY):
            raise Reject("try/except is not allowed (no fallbacks)")
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            raise Reject(f"'{type(n).__name__.lower()}' statement is not allowed")
        if isinstance(n, (ast.With, ast.AsyncWith)):
            raise Reject("with statement is not allowed")
        if isinstance(n, ast.ClassDef):
            raise Reject(f"class definition '{n.name}' is not allowed")
        if isinstance(n, ast.Lambda):
            raise Reject("lambda is not allowed")
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise Reject(f"nested function '{n.name}' is not allowed")
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            raise Reject("yield is not allowed")
        if isinstance(n, (ast.Await, ast.AsyncFor)):
            raise Reject("async code is not allowed")
        if isinstance(n, ast.NamedExpr):
            raise Reject(f"walrus assignment '{_excerpt(n)}' is not allowed")
        if isinstance(n, (ast.GeneratorExp, ast.SetComp, ast.DictComp)) or (
                isinstance(n, ast.ListComp) and not decorator):
            raise Reject(f"comprehension '{_excerpt(n)}' is not allowed outside decorator arguments")
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            raise Reject("import inside a function is not allowed")
        if isinstance(n, ast.While) and _constant_true(n.test):
            raise Reject("while loop with a constant true condition is not allowed")
        if isinstance(n, ast.JoinedStr):
            raise Reject(f"f-string '{_excerpt(n, 40)}' is not allowed (no formatting of objects)")
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, ast.Constant)
                and isinstance(n.left.value, (str, bytes))):
            raise Reject(f"'%' formatting '{_excerpt(n, 40)}' is not allowed (no formatting of objects)")
        if isinstance(n, ast.Subscript):
            for s in ast.walk(n.slice):
                if isinstance(s, ast.Constant) and isinstance(s.value, (str, bytes)):
                    self.check_names_in(n.value, names)
                    raise Reject(f"string subscript '{_excerpt(n, 50)}' is not allowed")
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = (n.targets if isinstance(n, (ast.Assign, ast.Delete))
                       else [n.target])
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, (ast.Store, ast.Del)):
                        raise Reject(f"assignment to attribute '{ast.unparse(sub)}' is not allowed")
                    if isinstance(sub, ast.Name) and sub.id in self.aliases.map:
                        raise Reject(f"rebinding '{sub.id}' is not allowed")
        if isinstance(n, ast.Name):
            self.check_name(n, names)
        if isinstance(n, ast.Attribute):
            self.check_attribute(n, names)

    def check_name(self, n: ast.Name, names: set[str]) -> None:
        if n.id == "print":
            raise Reject("device print is not allowed ('print')")
        if n.id in _BANNED_NAMES:
            raise Reject(f"use of '{n.id}' is not allowed")
        if _is_dunder(n.id) and n.id != "__file__":
            raise Reject(f"dunder name '{n.id}' is not allowed")
        if isinstance(n.ctx, ast.Load) and n.id not in names and n.id not in _SAFE_BUILTINS:
            raise Reject(f"unknown name '{n.id}'")

    def check_names_in(self, node: ast.AST, names: set[str]) -> None:
        """The names inside node first: their reasons say more than the node's."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self.check_name(sub, names)

    def check_attribute(self, n: ast.Attribute, names: set[str]) -> None:
        if _is_dunder(n.attr):
            raise Reject(f"dunder attribute '{n.attr}' is not allowed")
        path = self.aliases.module_path(n)
        if path in _INLINE_ASM:
            raise Reject(f"inline assembly is not allowed ('{_short(path)}')")
        if path in _PRINTS:
            raise Reject(f"device print is not allowed ('{_short(path)}')")
        if n.attr in _FRAME_ATTRS:
            raise Reject(f"attribute '{n.attr}' is not allowed (frames, code and function internals)")
        if n.attr in ("format", "format_map"):
            raise Reject(f"str.{n.attr} is not allowed (no formatting of objects)")
        # triton.language.extra.cuda is where libdevice lives
        if n.attr in _BANNED_ATTRS and not (n.attr == "cuda" and (self.aliases.resolve(n) or "")
                                            .startswith("triton.language.extra.cuda")):
            raise Reject(f"attribute '{n.attr}' is not allowed ({_short(ast.unparse(n))})")
        self.check_names_in(n.value, names)
        if path is not None:
            if path.split(".")[0] in ("triton", "torch", "math"):
                self.check_path(path)
            if not _path_ok(path, self.heuristics_ok):
                parts = path.split(".")
                bad = next(i for i in range(1, len(parts) + 1)
                           if not _path_ok(".".join(parts[:i]), self.heuristics_ok))
                raise Reject(f"attribute '{parts[bad - 1]}' is not allowed ({_short(ast.unparse(n))})")
            if path in set(_LOADS) | set(_STORES) and not self._called(n):
                raise Reject(f"'{_short(ast.unparse(n))}' may only be called, not passed around")
        elif n.attr not in _VALUE_ATTRS:
            raise Reject(f"attribute '{n.attr}' is not allowed ({_excerpt(n, 40)})")

    def _called(self, attr: ast.Attribute) -> bool:
        return id(attr) in self.callees

    def prepare(self) -> None:
        self.callees = {id(n.func) for n in ast.walk(self.tree) if isinstance(n, ast.Call)}


def _broadcast_only(sl: ast.AST) -> bool:
    """x[:, None]: a subscript that only adds dimensions."""
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    return all((isinstance(e, ast.Constant) and e.value is None) or
               (isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None)
               for e in elts)


_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)


def _constant_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def _assign_targets(node: ast.stmt) -> Iterable[str]:
    if isinstance(node, ast.Assign):
        for t in node.targets:
            if isinstance(t, ast.Name):
                yield t.id
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        yield node.target.id


def _defined_functions(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def _check_text(source: str) -> None:
    """What the parser of a str does not see: the coding declaration, which
    applies when the file is imported, and look-alike letters in names."""
    for i, line in enumerate(source.splitlines()[:2]):
        m = _CODING.match(line)
        if m and m.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise Reject(f"coding declaration '{m.group(1)}' on line {i + 1} is not allowed (UTF-8 only)")
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                raise Reject(f"non-ASCII name '{tok.string}' on line {tok.start[0]} is not allowed")
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # the parser says why


def _parse(source: str, what: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as e:
        where = f"line {e.lineno}: " if e.lineno else ""
        raise Reject(f"{what} does not parse: {where}{e.msg}") from None
    except ValueError as e:  # NUL bytes
        raise Reject(f"{what} does not parse: {e}") from None


def _check_kernels(cand: ast.Module, cand_aliases: _Aliases,
                   orig_kernels: list[ast.FunctionDef], orig_aliases: _Aliases) -> None:
    funcs: dict[str, list[ast.FunctionDef]] = {}
    for n in cand.body:
        if isinstance(n, ast.FunctionDef):
            funcs.setdefault(n.name, []).append(n)
    orig_names = {k.name for k in orig_kernels}
    for k in orig_kernels:
        defs = funcs.get(k.name, [])
        if not defs:
            raise Reject(f"kernel '{k.name}' is missing")
        if len(defs) > 1:
            raise Reject(f"kernel '{k.name}' is defined {len(defs)} times")
        c = defs[0]
        if ast.dump(c.args) != ast.dump(k.args):
            raise Reject(f"kernel '{k.name}' signature differs: expected {_signature(k)}, got {_signature(c)}")
        want = [_decorator_kind(d, orig_aliases) for d in k.decorator_list]
        got = [_decorator_kind(d, cand_aliases) for d in c.decorator_list]
        if want != got:
            raise Reject(f"kernel '{k.name}' decorators differ: expected [{', '.join(map(_short, want))}], "
                         f"got [{', '.join(map(_short, got))}]")
        if (c.returns is None) != (k.returns is None) or (
                c.returns is not None and ast.dump(c.returns) != ast.dump(k.returns)):
            raise Reject(f"kernel '{k.name}' return annotation differs")
    for name, defs in funcs.items():
        if name in orig_names:
            continue
        if _is_dunder(name):
            raise Reject(f"dunder name '{name}' is not allowed")
        if len(defs) > 1:
            raise Reject(f"function '{name}' is defined {len(defs)} times")
        kinds = [_decorator_kind(d, cand_aliases) for d in defs[0].decorator_list]
        if kinds != ["triton.jit"]:
            raise Reject(f"helper '{name}' must be decorated with @triton.jit alone")


def report(candidate: str, original: str) -> dict:
    """Gate 1: {"ok", "reason", "memcheck": [accesses to check on the GPU]}."""
    try:
        orig = _parse(original, "original")
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    orig_aliases = _Aliases(orig)
    orig_kernels = _kernels(orig, orig_aliases)
    if not orig_kernels:
        return {"ok": False, "reason": "original defines no @triton.jit kernel", "memcheck": []}
    try:
        _check_text(candidate)
        cand = _parse(candidate, "candidate")
        aliases = _Aliases(cand)
        _check_kernels(cand, aliases, orig_kernels, orig_aliases)
        own = {_decorator_kind(d, orig_aliases).split(".")[-1]
               for k in orig_kernels for d in k.decorator_list}
        checker = _Checker(cand, aliases, own, {k.name: k for k in orig_kernels}, orig_aliases)
        checker.prepare()
        checker.check_module()
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    except RecursionError:
        return {"ok": False, "reason": "candidate is nested too deeply", "memcheck": []}
    names = ", ".join(f"'{k.name}'" for k in orig_kernels)
    noun = "kernel" if len(orig_kernels) == 1 else "kernels"
    reason = f"{noun} {names} keep{'s' if len(orig_kernels) == 1 else ''} name, signature and decorators"
    return {"ok": True, "reason": reason, "memcheck": checker.memcheck}


def _helion_host(node: ast.stmt, aliases: _Aliases) -> bool:
    """Whether a top-level statement of Helion's generated module is its
    host code (what the gate does not judge, and an edit must not change):
    the host function, and the imports of torch, helion and __future__ it
    needs."""
    if isinstance(node, ast.FunctionDef):
        return not _is_jit(node, aliases)
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in ("torch", "helion") for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in ("helion", "__future__")
    return False


def helion_sources(candidate: str, generated: str) -> tuple[str, str]:
    """Gate 1 for an edit of the Triton module Helion generated: the
    module's host code (the host function that launches the kernels, and
    its torch and helion imports) is Helion's and must come back unchanged,
    statement for statement; the rest (the @triton.jit kernels, their
    constants and Triton imports) is what check() judges, as for any
    kernel. Returns (candidate, original) without the host code. Reject
    when the edit changes it."""
    cand, gen = _parse(candidate, "candidate"), _parse(generated, "original")
    ac, ag = _Aliases(cand), _Aliases(gen)
    host_c = [ast.dump(n) for n in cand.body if _helion_host(n, ac)]
    host_g = [ast.dump(n) for n in gen.body if _helion_host(n, ag)]
    if host_c != host_g:
        raise Reject("a Helion edit changes only the @triton.jit kernels: its host code (the launching "
                     "function and the torch and helion imports) differs from Helion's")

    def rest(m: ast.Module, al: _Aliases) -> str:
        return ast.unparse(ast.Module(body=[n for n in m.body if not _helion_host(n, al)], type_ignores=[]))
    return rest(cand, ac), rest(gen, ag)


def report_helion(candidate: str, generated: str) -> dict:
    """report() for an edit of Helion's generated module (helion_sources)."""
    try:
        cand, orig = helion_sources(candidate, generated)
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    return report(cand, orig)


def check(candidate: str, original: str) -> tuple[bool, str]:
    """Gate 1: (True, reason) when the candidate may run in place of the original
    (after the memcheck, where report() lists accesses for it)."""
    r = report(candidate, original)
    return r["ok"], r["reason"]


def memcheck_text(memcheck: list[str], limit: int = 3) -> str:
    """The memcheck list in one line."""
    more = len(memcheck) - limit
    return "; ".join(memcheck[:limit]) + (f"; and {more} more" if more > 0 else "")


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python3 -m kopt.static_gate CANDIDATE ORIGINAL", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            cand = f.read()
        with open(argv[2], encoding="utf-8") as f:
            orig = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"static_gate: {e}", file=sys.stderr)
        return 2
    r = report(cand, orig)
    extra = f"; memcheck: {memcheck_text(r['memcheck'])}" if r["ok"] and r["memcheck"] else ""
    print(f"{'pass' if r['ok'] else 'fail'}: {r['reason']}{extra}")
    return 0 if r["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
