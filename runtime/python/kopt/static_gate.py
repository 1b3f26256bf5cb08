"""kopt.static_gate: gate 1 of the verification cascade.

A candidate kernel source (written by an agent) is checked against the
original kernel source (Inductor's, from the output code's
``async_compile.triton('name', '''source''')``, or a standalone Triton file)
before anything runs. Standard library only: this module must not import
torch or triton, so that koptmake and the tests run it anywhere.

``check(candidate, original) -> (ok, reason)``; the reason is one line.

What passes:

- the candidate parses;
- it defines every ``@triton.jit`` function the original defines (the
  kernels), each once, with the same name, the same parameters (names, order,
  annotations, defaults) and decorators of the same kinds in the same order
  (``@triton_heuristics.pointwise(...)`` may change its arguments, not become
  ``@triton_heuristics.reduction``), so that it slots into Inductor's wrapper;
- other top-level functions are helpers decorated with ``@triton.jit`` alone;
- imports come only from triton (``jit``, ``autotune``, ``heuristics``,
  ``Config``, ``cdiv``, ``next_power_of_2``, ``language``), triton.language
  and its submodules, Inductor's runtime helpers
  (``torch._inductor.runtime.{triton_helpers, triton_heuristics, hints,
  triton_compat}``) and math;
- module level holds only imports, functions, constant assignments, a
  docstring and Inductor's ``triton_helpers.set_driver_to_gpu()``;
- every name used is defined in the file or is a harmless builtin.

What is rejected, each with its own reason: other imports; file, process,
network, stream, event and timer access (``open``, ``os``, ``torch.cuda``,
``time`` ...); ``exec``/``eval``/``compile``/``__import__``/``getattr``/
``setattr``/``globals()``/``locals()``/``vars()``; dunder attributes and
names (``__class__``, ``__dict__``, ``__globals__``, ``__builtins__``; only
``__file__`` is allowed, Inductor's decorators pass it); assignments to
attributes (monkey-patching); module-level mutable state (lists, dicts, sets)
and ``global``/``nonlocal``; ``try`` (fallbacks to the original kernel);
``with``; classes, lambdas, nested functions, generators and async code;
``while`` loops whose condition is a constant true (they cannot end).

Command line: ``python3 -m kopt.static_gate CANDIDATE ORIGINAL`` prints
``pass: <reason>`` (exit 0) or ``fail: <reason>`` (exit 1); exit 2 on a usage
or read error.
"""

from __future__ import annotations

import ast
import sys
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

# Builtins that cannot reach outside the kernel.
_SAFE_BUILTINS = {"range", "len", "min", "max", "abs", "int", "float", "bool", "str", "tuple",
                  "list", "dict", "set", "zip", "enumerate", "isinstance", "print", "sum",
                  "any", "all", "round", "pow", "divmod", "slice", "reversed", "sorted",
                  "ValueError", "RuntimeError", "AssertionError", "NotImplementedError",
                  "True", "False", "None", "__file__"}
# Names with their own reason (they would otherwise be "unknown").
_BANNED_NAMES = {"open", "exec", "eval", "compile", "__import__", "getattr", "setattr",
                 "delattr", "hasattr", "globals", "locals", "vars", "dir", "input",
                 "breakpoint", "exit", "quit", "help", "memoryview", "type", "object",
                 "super", "classmethod", "staticmethod", "property", "id",
                 "os", "sys", "subprocess", "socket", "shutil", "pathlib", "io", "ctypes",
                 "importlib", "pickle", "marshal", "time", "threading", "multiprocessing",
                 "signal", "urllib", "http", "requests", "builtins", "torch", "numpy", "np",
                 "tempfile", "random", "inspect", "gc", "weakref", "asyncio", "select",
                 "mmap", "resource", "platform", "cupy", "pycuda"}
# Attribute names that reach streams, events, timers, processes or modules.
_BANNED_ATTRS = {"cuda", "synchronize", "Event", "Stream", "stream", "current_stream",
                 "default_stream", "set_stream", "elapsed_time", "record", "record_event",
                 "perf_counter", "perf_counter_ns", "monotonic", "time_ns", "sleep",
                 "system", "popen", "spawn", "fork", "environ", "modules", "builtins",
                 "testing", "do_bench", "runtime", "compiler", "driver", "knobs",
                 "os", "sys", "subprocess", "socket", "torch", "time", "importlib"}
_MUTABLE_CALLS = {"list", "dict", "set", "bytearray"}


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


class _Checker:
    def __init__(self, tree: ast.Module, aliases: _Aliases, kernel_decorators: set[str]):
        self.tree = tree
        self.aliases = aliases
        self.heuristics_ok = _HEURISTICS_ATTRS | kernel_decorators
        self.module_names: set[str] = set(aliases.map)

    # -- paths ------------------------------------------------------------
    def check_path(self, path: str) -> None:
        parts = path.split(".")
        for p in parts:
            if p.startswith("__") and p.endswith("__"):
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
        """A module-level value must be immutable: constants and expressions of them."""
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

    # -- everywhere -------------------------------------------------------
    def check_tree(self, top: ast.stmt) -> None:
        if isinstance(top, ast.FunctionDef):
            for dec in top.decorator_list:
                self.check_expr_tree(dec, self.module_names)
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
            for stmt in top.body:
                for node in ast.walk(stmt):
                    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                        local.add(node.id)
            for stmt in top.body:
                self.check_stmt_tree(stmt, local)
        elif not isinstance(top, (ast.Import, ast.ImportFrom)):
            self.check_stmt_tree(top, self.module_names)

    def check_expr_tree(self, node: ast.AST, names: set[str]) -> None:
        # comprehension variables are defined inside the expression
        local = names | {n.id for n in ast.walk(node)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(node):
            self.check_node(n, local)

    def check_stmt_tree(self, stmt: ast.stmt, names: set[str]) -> None:
        self.check_expr_tree(stmt, names)

    def check_node(self, n: ast.AST, names: set[str]) -> None:
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
        if isinstance(n, ast.Await):
            raise Reject("async code is not allowed")
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            raise Reject("import inside a function is not allowed")
        if isinstance(n, ast.While) and _constant_true(n.test):
            raise Reject("while loop with a constant true condition is not allowed")
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
            if n.id in _BANNED_NAMES:
                raise Reject(f"use of '{n.id}' is not allowed")
            if n.id.startswith("__") and n.id.endswith("__") and n.id != "__file__":
                raise Reject(f"dunder name '{n.id}' is not allowed")
            if isinstance(n.ctx, ast.Load) and n.id not in names and n.id not in _SAFE_BUILTINS:
                raise Reject(f"unknown name '{n.id}'")
        if isinstance(n, ast.Attribute):
            if n.attr.startswith("__") and n.attr.endswith("__"):
                raise Reject(f"dunder attribute '{n.attr}' is not allowed")
            # triton.language.extra.cuda is where libdevice lives
            if n.attr in _BANNED_ATTRS and not (n.attr == "cuda" and (self.aliases.resolve(n) or "")
                                                .startswith("triton.language.extra.cuda")):
                raise Reject(f"attribute '{n.attr}' is not allowed ({_short(ast.unparse(n))})")
            path = self.aliases.resolve(n)
            if path is not None and path.split(".")[0] in ("triton", "torch", "math"):
                self.check_path(path)


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
    for name, defs in funcs.items():
        if name in orig_names:
            continue
        if len(defs) > 1:
            raise Reject(f"function '{name}' is defined {len(defs)} times")
        kinds = [_decorator_kind(d, cand_aliases) for d in defs[0].decorator_list]
        if kinds != ["triton.jit"]:
            raise Reject(f"helper '{name}' must be decorated with @triton.jit alone")


def check(candidate: str, original: str) -> tuple[bool, str]:
    """Gate 1: (True, reason) when the candidate may run in place of the original."""
    try:
        orig = _parse(original, "original")
    except Reject as e:
        return False, str(e)
    orig_aliases = _Aliases(orig)
    orig_kernels = _kernels(orig, orig_aliases)
    if not orig_kernels:
        return False, "original defines no @triton.jit kernel"
    try:
        cand = _parse(candidate, "candidate")
        aliases = _Aliases(cand)
        _check_kernels(cand, aliases, orig_kernels, orig_aliases)
        own = {_decorator_kind(d, orig_aliases).split(".")[-1]
               for k in orig_kernels for d in k.decorator_list}
        _Checker(cand, aliases, own).check_module()
    except Reject as e:
        return False, str(e)
    except RecursionError:
        return False, "candidate is nested too deeply"
    names = ", ".join(f"'{k.name}'" for k in orig_kernels)
    noun = "kernel" if len(orig_kernels) == 1 else "kernels"
    return True, f"{noun} {names} keep{'s' if len(orig_kernels) == 1 else ''} name, signature and decorators"


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
    ok, reason = check(cand, orig)
    print(f"{'pass' if ok else 'fail'}: {reason}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
