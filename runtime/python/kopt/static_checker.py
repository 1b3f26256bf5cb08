"""kopt.static_checker: gate 1's allow-list over a candidate's statements,
names and attributes.

``check_kernels`` compares the candidate's functions with the original's
kernels (names, signatures, decorators; helpers are @triton.jit alone).
``Checker`` walks the module: what module level may hold (imports, the
functions, constant literals, a docstring and Inductor's
``set_driver_to_gpu()``), what any code may not do (try, with, classes,
lambdas, nested functions, generators, comprehensions outside decorator
arguments, the walrus, global state, match, imports in functions,
formatting, string subscripts, attribute assignment), which names and
attributes it may use (kopt.static_lists), decorator arguments, defaults
and annotations, and, through kopt.static_bounds, every load and store.
Standard library only.
"""

from __future__ import annotations

import ast
import itertools

from . import static_bounds as bounds
from .static_buffers import Functions, check_function_values
from .static_limits import launch_limit, literal
from .static_lists import (BANNED_ATTRS, BANNED_NAMES, FRAME_ATTRS, HEURISTICS_ATTRS,
                           CONFIG_KEYWORDS, INDUCTOR_MODULES, INDUCTOR_RUNTIME, INLINE_ASM, JIT_KEYWORDS, LOADS,
                           MODULE_PATHS,
                           MUTABLE_CALLS, PRINTS, SAFE_BUILTINS, SAME_AS_ORIGINAL, STORES, TRITON_ATTRS, VALUE_ATTRS,
                           Aliases, Reject, decorator_kind, excerpt, host_note, is_dunder, module_allowed,
                           module_constants, path_ok, short, signature)

_TRY = tuple(t for t in (ast.Try, getattr(ast, "TryStar", None)) if t is not None)
_MATCH = tuple(t for t in (getattr(ast, "Match", None),) if t is not None)


def _constant_true(test: ast.expr) -> bool:
    return isinstance(test, ast.Constant) and bool(test.value)


def check_kernels(cand: ast.Module, cand_aliases: Aliases,
                  orig_kernels: list[ast.FunctionDef], orig_aliases: Aliases) -> None:
    """The original's kernels, each once, with the same name, signature,
    decorator kinds and return annotation; other functions are helpers."""
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
            raise Reject(f"kernel '{k.name}' signature differs: expected {signature(k)}, got {signature(c)}")
        want = [decorator_kind(d, orig_aliases) for d in k.decorator_list]
        got = [decorator_kind(d, cand_aliases) for d in c.decorator_list]
        if want != got:
            raise Reject(f"kernel '{k.name}' decorators differ: expected [{', '.join(map(short, want))}], "
                         f"got [{', '.join(map(short, got))}]")
        if (c.returns is None) != (k.returns is None) or (
                c.returns is not None and ast.dump(c.returns) != ast.dump(k.returns)):
            raise Reject(f"kernel '{k.name}' return annotation differs")
    for name, defs in funcs.items():
        if name in orig_names:
            continue
        if is_dunder(name):
            raise Reject(f"dunder name '{name}' is not allowed")
        if len(defs) > 1:
            raise Reject(f"function '{name}' is defined {len(defs)} times")
        kinds = [decorator_kind(d, cand_aliases) for d in defs[0].decorator_list]
        if kinds != ["triton.jit"]:
            raise Reject(f"helper '{name}' must be decorated with @triton.jit alone")
    for fn in cand.body:
        if isinstance(fn, ast.FunctionDef) and getattr(fn, "type_params", None):
            raise Reject(f"type parameters of function '{fn.name}' are not allowed")


class Checker:
    def __init__(self, tree: ast.Module, aliases: Aliases, kernel_decorators: set[str],
                 orig_kernels: dict[str, ast.FunctionDef], orig_aliases: Aliases, orig_tree: ast.Module):
        self.tree = tree
        self.aliases = aliases
        self.heuristics_ok = HEURISTICS_ATTRS | kernel_decorators
        self.module_names: set[str] = set(aliases.map)
        self.orig_kernels = orig_kernels
        self.orig_aliases = orig_aliases
        self.orig_tree = orig_tree
        self.funcs = Functions(tree)
        self.cand_module = (aliases, module_constants(tree), self.funcs)
        self.orig_module = (orig_aliases, module_constants(orig_tree), Functions(orig_tree))
        self.memcheck: list[str] = []
        self.callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        self.driver_call: int | None = None

    # -- paths ------------------------------------------------------------
    def check_path(self, path: str) -> None:
        parts = path.split(".")
        for p in parts:
            if is_dunder(p):
                raise Reject(f"dunder attribute '{p}' is not allowed")
        if parts[0] == "triton" and len(parts) > 1 and parts[1] not in TRITON_ATTRS:
            raise Reject(f"'triton.{parts[1]}' is not allowed")
        if path.startswith(INDUCTOR_RUNTIME + ".triton_heuristics.") and len(parts) > 4:
            if parts[4] not in self.heuristics_ok:
                raise Reject(f"'triton_heuristics.{parts[4]}' is not allowed")
        if parts[0] == "torch" and not (path == INDUCTOR_RUNTIME or path.startswith(INDUCTOR_RUNTIME + ".")):
            raise Reject("use of 'torch' is not allowed")

    # -- module level -----------------------------------------------------
    def check_structure(self) -> None:
        """Every statement and node, before the scope and limit checks."""
        self.module_names.update(self.funcs)
        for node in self.tree.body:
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    if isinstance(t, ast.Name):
                        self.module_names.add(t.id)
        for i, node in enumerate(self.tree.body):
            self.check_toplevel(node, first=(i == 0))
        for node in self.tree.body:
            self.check_tree(node)

    def check_functions(self) -> None:
        consts = module_constants(self.tree)
        check_function_values(self.tree, self.aliases, self.funcs,
                              lambda fn: bounds.Flow(fn, self.aliases, consts, self.funcs, itertools.count()))
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef):
                self.check_function(node)

    def check_import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for a in node.names:
                if not module_allowed(a.name):
                    raise Reject(f"import of '{a.name}' is not allowed")
                if "." in a.name and not a.asname and a.name.split(".")[0] != "triton":
                    raise Reject(f"import of '{a.name}' binds '{a.name.split('.')[0]}'; use from-import")
            return
        if node.level:
            raise Reject("relative import is not allowed")
        mod = node.module or ""
        if not module_allowed(mod):
            raise Reject(f"import from '{mod}' is not allowed")
        for a in node.names:
            if a.name == "*":
                raise Reject("star import is not allowed")
            full = mod + "." + a.name
            if mod == INDUCTOR_RUNTIME and a.name not in INDUCTOR_MODULES:
                raise Reject(f"import of '{full}' is not allowed")
            if a.name in BANNED_ATTRS or a.name in BANNED_NAMES:
                raise Reject(f"import of '{full}' is not allowed")
            self.check_path(full)
            if not path_ok(full, self.heuristics_ok):
                raise Reject(f"import of '{full}' is not allowed{host_note(a.name)}")

    def check_toplevel(self, node: ast.stmt, first: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.check_import(node)
            return
        if isinstance(node, ast.FunctionDef):
            return
        if isinstance(node, ast.Expr):
            if first and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return  # docstring
            if (isinstance(node.value, ast.Call) and not node.value.args and not node.value.keywords
                    and self.aliases.resolve(node.value.func)
                    == INDUCTOR_RUNTIME + ".triton_helpers.set_driver_to_gpu"):
                self.driver_call = id(node.value.func)  # Inductor's own line (HOST_NAMES elsewhere)
                return
            if isinstance(node.value, ast.Call):
                raise Reject(f"module-level call '{ast.unparse(node.value.func)}(...)' is not allowed")
            raise Reject("module-level expression is not allowed")
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            self.check_assignment(node)
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

    def check_assignment(self, node: ast.Assign | ast.AnnAssign) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if not isinstance(t, ast.Name):
                raise Reject(f"module-level assignment to '{ast.unparse(t)}' is not allowed")
            if t.id in self.aliases.map or t.id in self.funcs:
                raise Reject(f"rebinding '{t.id}' is not allowed")
        if isinstance(node, ast.AnnAssign):
            ann = node.annotation
            path = self.aliases.module_path(ann)
            if not (path is not None and path_ok(path, self.heuristics_ok)) and not (
                    isinstance(ann, ast.Constant) and isinstance(ann.value, str)):
                raise Reject(f"annotation '{excerpt(ann)}' of '{ast.unparse(node.target)}' is not allowed")
        if node.value is not None:
            self.check_constant(node.value, ast.unparse(targets[0]))

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
                if callee in MUTABLE_CALLS:
                    raise Reject(f"module-level mutable state: '{name}' is a {callee}")
                if self.aliases.resolve(node.func) != "triton.language.constexpr":
                    raise Reject(f"module-level call '{callee}(...)' is not allowed")
        inner = value
        if (isinstance(value, ast.Call) and self.aliases.resolve(value.func) == "triton.language.constexpr"
                and len(value.args) == 1 and not value.keywords):
            inner = value.args[0]
        why = literal(inner, self.aliases)
        if why:
            raise Reject(f"module-level constant '{name}' must be a literal, not {why}")

    # -- functions: decorators, defaults, annotations, accesses ------------
    def check_function(self, fn: ast.FunctionDef) -> None:
        orig = self.orig_kernels.get(fn.name)
        for i, dec in enumerate(fn.decorator_list):
            if not isinstance(dec, ast.Call):
                continue
            kind = decorator_kind(dec, self.aliases)
            odec = None
            if orig is not None and i < len(orig.decorator_list) and isinstance(orig.decorator_list[i], ast.Call):
                odec = orig.decorator_list[i]
            self.check_decorator_args(fn, dec, kind, odec)
        if orig is None:
            for d in fn.args.defaults + fn.args.kw_defaults:
                if d is not None:
                    why = literal(d, self.aliases)
                    if why:
                        raise Reject(f"default value of helper '{fn.name}' must be a literal, not {why}")
            for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg, fn.args.kwarg]:
                if a is not None and a.annotation is not None:
                    self.check_annotation(fn, a.annotation)
            if fn.returns is not None:
                self.check_annotation(fn, fn.returns)
            bounds.check_helper_accesses(fn, self.aliases, self.memcheck)
        else:
            bounds.check_accesses(fn, self.cand_module, orig, self.orig_module, self.memcheck)

    def check_annotation(self, fn: ast.FunctionDef, ann: ast.expr) -> None:
        path = self.aliases.module_path(ann)
        if path is not None and path.startswith("triton.language.") and path_ok(path, self.heuristics_ok):
            return
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            return
        raise Reject(f"annotation '{excerpt(ann)}' of helper '{fn.name}' is not allowed")

    def check_decorator_args(self, fn: ast.FunctionDef, dec: ast.Call, kind: str,
                             odec: ast.Call | None) -> None:
        where = f"decorator @{short(kind)} of '{fn.name}'"
        if kind == "triton.jit" and dec.args:
            raise Reject(f"{where}: positional arguments are not allowed")
        okw = {k.arg: k.value for k in (odec.keywords if odec is not None else []) if k.arg}
        if odec is not None:
            # a positional argument past the original's binds a parameter the
            # original passes by keyword or leaves to its default, where no
            # keyword rule below sees it (triton_meta as pointwise's second)
            if len(dec.args) > len(odec.args):
                raise Reject(f"{where}: {len(dec.args)} positional argument{'s' * (len(dec.args) != 1)} where "
                             f"the original passes {len(odec.args)}; pass the others by keyword")
            dropped = sorted(SAME_AS_ORIGINAL & set(okw) - {k.arg for k in dec.keywords})
            if dropped:
                raise Reject(f"{where}: '{dropped[0]}' must stay as the original's (it is left out)")
        for i, a in enumerate(dec.args):
            if odec is not None and i < len(odec.args) and ast.dump(a) == ast.dump(odec.args[i]):
                continue
            why = literal(a, self.aliases)
            if why:
                raise Reject(f"{where}: arguments must be literals, not {why}")
        for k in dec.keywords:
            if k.arg is None:
                raise Reject(f"{where}: '**' arguments are not allowed")
            same = k.arg in okw and ast.dump(k.value) == ast.dump(okw[k.arg])
            if kind == "triton.jit" and k.arg not in JIT_KEYWORDS and not same:
                raise Reject(f"{where}: argument '{k.arg}' is not allowed "
                             f"(only {', '.join(sorted(JIT_KEYWORDS))})")
            if k.arg in SAME_AS_ORIGINAL and odec is not None and not same:
                raise Reject(f"{where}: '{k.arg}' must stay as the original's")
            if same:
                continue
            why = literal(k.value, self.aliases) or launch_limit(k.arg, k.value)
            if why:
                raise Reject(f"{where}: argument '{k.arg}' must be a literal, not {why}")

    # -- everywhere -------------------------------------------------------
    def check_tree(self, top: ast.stmt) -> None:
        if not isinstance(top, ast.FunctionDef):
            if not isinstance(top, (ast.Import, ast.ImportFrom)):
                self.check_expr_tree(top, self.module_names)
            return
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
            self.check_expr_tree(stmt, local)

    def check_expr_tree(self, node: ast.AST, names: set[str], decorator: bool = False) -> None:
        # comprehension variables are defined inside the expression
        local = names | {n.id for n in ast.walk(node)
                         if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(node):
            self.check_node(n, local, decorator)

    def check_values(self) -> None:
        """What the other checks let through as values: a module is named
        only as the head of a path (MODULE_PATHS); tl.assume states only
        what the original assumes (a false assumption is undefined
        behaviour: the compiler may drop a mask on its word); a
        triton.Config gives launch keywords and the kernels' parameters
        alone (CONFIG_KEYWORDS)."""
        heads = {id(n.value) for n in ast.walk(self.tree) if isinstance(n, ast.Attribute)}
        assumed = {ast.dump(n) for n in ast.walk(self.orig_tree) if isinstance(n, ast.Call)
                   and self.orig_aliases.module_path(n.func) == "triton.language.assume"}
        params = {a.arg for f in self.tree.body if isinstance(f, ast.FunctionDef)
                  for a in f.args.posonlyargs + f.args.args + f.args.kwonlyargs}
        for n in ast.walk(self.tree):
            if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load) and id(n) not in heads \
                    and self.aliases.module_path(n) in MODULE_PATHS:
                raise Reject(f"module '{short(self.aliases.module_path(n))}' used as a value ({excerpt(n, 40)}): "
                             f"a kernel names paths into a module, not the module")
            if not isinstance(n, ast.Call):
                continue
            path = self.aliases.module_path(n.func)
            if path == "triton.language.assume" and ast.dump(n) not in assumed:
                raise Reject(f"'{excerpt(n, 50)}' is not one of the original's assumptions: the compiler takes "
                             f"it on its word, and a false one may drop a mask")
            if path == "triton.Config":
                for k in n.keywords:
                    if k.arg not in CONFIG_KEYWORDS:
                        raise Reject(f"triton.Config keyword '{k.arg}' is not allowed ("
                                     f"{', '.join(sorted(CONFIG_KEYWORDS))}): others reach Triton's compile")
                for d in n.args[:1]:
                    keys = d.keys if isinstance(d, ast.Dict) else [None]
                    for key in keys:
                        if not (isinstance(key, ast.Constant) and key.value in params):
                            raise Reject(f"triton.Config key {excerpt(key, 30) if key else '**'} is not a "
                                         f"parameter of the kernel: others reach Triton's compile as options")

    def check_statement(self, n: ast.AST, decorator: bool) -> None:
        """Statements and expressions no code may hold."""
        if isinstance(n, _TRY):
            raise Reject("try/except is not allowed (no fallbacks)")
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            raise Reject(f"'{type(n).__name__.lower()}' statement is not allowed")
        if isinstance(n, (ast.With, ast.AsyncWith)):
            raise Reject("with statement is not allowed")
        if isinstance(n, _MATCH):
            raise Reject("match statement is not allowed")
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
            raise Reject(f"walrus assignment '{excerpt(n)}' is not allowed")
        if isinstance(n, (ast.GeneratorExp, ast.SetComp, ast.DictComp)) or (
                isinstance(n, ast.ListComp) and not decorator):
            raise Reject(f"comprehension '{excerpt(n)}' is not allowed outside decorator arguments")
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            raise Reject("import inside a function is not allowed")
        if isinstance(n, ast.While) and _constant_true(n.test):
            raise Reject("while loop with a constant true condition is not allowed")
        if isinstance(n, ast.JoinedStr):
            raise Reject(f"f-string '{excerpt(n, 40)}' is not allowed (no formatting of objects)")
        if (isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) and isinstance(n.left, ast.Constant)
                and isinstance(n.left.value, (str, bytes))):
            raise Reject(f"'%' formatting '{excerpt(n, 40)}' is not allowed (no formatting of objects)")

    def check_node(self, n: ast.AST, names: set[str], decorator: bool = False) -> None:
        self.check_statement(n, decorator)
        if isinstance(n, ast.Subscript):
            for s in ast.walk(n.slice):
                if isinstance(s, ast.Constant) and isinstance(s.value, (str, bytes)):
                    self.check_names_in(n.value, names)
                    raise Reject(f"string subscript '{excerpt(n, 50)}' is not allowed")
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = (n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target])
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
        if n.id in BANNED_NAMES:
            raise Reject(f"use of '{n.id}' is not allowed")
        if is_dunder(n.id) and n.id != "__file__":
            raise Reject(f"dunder name '{n.id}' is not allowed")
        if isinstance(n.ctx, ast.Load) and n.id not in names and n.id not in SAFE_BUILTINS:
            raise Reject(f"unknown name '{n.id}'")

    def check_names_in(self, node: ast.AST, names: set[str]) -> None:
        """The names inside node first: their reasons say more than the node's."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                self.check_name(sub, names)

    def check_attribute(self, n: ast.Attribute, names: set[str]) -> None:
        if is_dunder(n.attr):
            raise Reject(f"dunder attribute '{n.attr}' is not allowed")
        path = self.aliases.module_path(n)
        if path in INLINE_ASM:
            raise Reject(f"inline assembly is not allowed ('{short(path)}')")
        if path in PRINTS:
            raise Reject(f"device print is not allowed ('{short(path)}')")
        if n.attr in FRAME_ATTRS:
            raise Reject(f"attribute '{n.attr}' is not allowed (frames, code and function internals)")
        if n.attr in ("format", "format_map"):
            raise Reject(f"str.{n.attr} is not allowed (no formatting of objects)")
        # triton.language.extra.cuda is where libdevice lives
        if n.attr in BANNED_ATTRS and not (n.attr == "cuda" and (self.aliases.resolve(n) or "")
                                           .startswith("triton.language.extra.cuda")):
            raise Reject(f"attribute '{n.attr}' is not allowed ({short(ast.unparse(n))})")
        self.check_names_in(n.value, names)
        if path is None:
            if n.attr not in VALUE_ATTRS:
                raise Reject(f"attribute '{n.attr}' is not allowed ({excerpt(n, 40)})")
            return
        if path.split(".")[0] in ("triton", "torch", "math"):
            self.check_path(path)
        if not path_ok(path, self.heuristics_ok) and id(n) != self.driver_call:
            parts = path.split(".")
            bad = next(i for i in range(1, len(parts) + 1)
                       if not path_ok(".".join(parts[:i]), self.heuristics_ok))
            name = parts[bad - 1]
            raise Reject(f"attribute '{name}' is not allowed ({short(ast.unparse(n))}){host_note(name)}")
        if path in set(LOADS) | set(STORES) and id(n) not in self.callees:
            raise Reject(f"'{short(ast.unparse(n))}' may only be called, not passed around")
