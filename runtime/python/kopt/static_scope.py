"""kopt.static_scope: gate 1's scope rule, on Python's own symbol table.

The gate reads a name by what the module's imports, functions and
constants bind it to (``tl`` is triton.language, ``libdevice`` Inductor's,
``range`` the builtin). That holds only if nothing else binds the name, and
Python binds names in many ways: assignment (plain, augmented, annotated,
star and tuple targets), parameters (defaults, ``*args``, ``**kwargs``,
keyword-only, lambda's), a function's or class's own name, imports (``as``,
from-imports), for-loop targets, ``with ... as``, ``except ... as``,
comprehension variables, the walrus, ``global``/``nonlocal``, ``del``,
match captures, type aliases and type parameters. Rather than list them,
the gate asks ``symtable``, which the compiler itself builds, which names
each scope binds, and rejects:

- a module-level name bound twice (an import of the same module twice
  aside), or by anything but a top-level import, function or constant
  (a walrus inside a decorator argument);
- a module-level name that shadows a builtin, and any dunder name;
- a name bound in any inner scope (a function, a lambda, a comprehension,
  a type-parameter scope) that is a module-level name or a builtin. The one
  exception is a kernel's parameter: the signature is the original
  kernel's, so a parameter the original has may shadow a builtin or a
  constant (never an import or a function).

Each rejection names the name, how and where it is bound, and what it
shadows. Standard library only.
"""

from __future__ import annotations

import ast
import builtins
import symtable

from .static_lists import Reject, is_dunder

BUILTINS = frozenset(dir(builtins))


def _names_in(target: ast.AST) -> list[str]:
    """The names a target binds (not those it reads: x in x.a = 1)."""
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]


def module_bindings(tree: ast.Module) -> dict[str, list[tuple[str, int, str]]]:
    """name -> [(how, line, what)] for each top-level statement that binds it;
    what is an import's module path (two imports of one module agree)."""
    out: dict[str, list[tuple[str, int, str]]] = {}

    def add(name: str, how: str, line: int, what: str = "") -> None:
        out.setdefault(name, []).append((how, line, what or f"{how}@{line}"))
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                name = a.asname or a.name.split(".")[0]
                add(name, "import", node.lineno, "import:" + (a.name if a.asname else name))
        elif isinstance(node, ast.ImportFrom):
            for a in node.names:
                if a.name != "*":
                    add(a.asname or a.name, "import", node.lineno, f"import:{node.module}.{a.name}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name, "definition", node.lineno)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for name in _names_in(t):
                    add(name, "assignment", node.lineno)
        else:  # rejected by the checker; counted here all the same
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                    add(n.id, f"'{type(node).__name__.lower()}' statement", node.lineno)
    return out


def _binding_kind(node: ast.AST, name: str) -> str | None:
    """How node binds name (for messages), or None when it does not."""
    if isinstance(node, ast.arg) and node.arg == name:
        return "parameter"
    if isinstance(node, (ast.For, ast.AsyncFor)) and name in _names_in(node.target):
        return "for-loop target"
    if isinstance(node, ast.comprehension) and name in _names_in(node.target):
        return "comprehension variable"
    if isinstance(node, ast.withitem) and node.optional_vars is not None and name in _names_in(node.optional_vars):
        return "'with ... as' target"
    if isinstance(node, ast.ExceptHandler) and node.name == name:
        return "'except ... as' target"
    if isinstance(node, ast.NamedExpr) and name in _names_in(node.target):
        return "walrus (:=) target"
    if type(node).__name__ in ("MatchAs", "MatchStar") and getattr(node, "name", None) == name:
        return "match capture"
    if type(node).__name__ == "MatchMapping" and getattr(node, "rest", None) == name:
        return "match capture"
    if type(node).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple") and getattr(node, "name", None) == name:
        return "type parameter"
    if type(node).__name__ == "TypeAlias" and name in _names_in(node.name):
        return "type alias"
    if isinstance(node, ast.Delete) and any(name in _names_in(t) for t in node.targets):
        return "del"
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for a in node.names:
            if (a.asname or a.name.split(".")[0]) == name:
                return "import"
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
        return "definition"
    if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
        return f"'{type(node).__name__.lower()}' declaration"
    if isinstance(node, ast.AugAssign) and name in _names_in(node.target):
        return "augmented assignment"
    if isinstance(node, ast.AnnAssign) and name in _names_in(node.target):
        return "annotated assignment"
    if isinstance(node, ast.Assign) and any(name in _names_in(t) for t in node.targets):
        star = any(isinstance(s, ast.Starred) and name in _names_in(s) for t in node.targets for s in ast.walk(t))
        return "star target" if star else "assignment"
    return None


def _how(tree: ast.Module, name: str, after: int) -> tuple[str, int]:
    """The first binding of name below the module level, at or after line
    `after`: (how, line)."""
    found = ("binding", after)
    for top in tree.body:
        for node in ast.walk(top):
            if node is top and not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            kind = _binding_kind(node, name) if node is not top else None
            line = getattr(node, "lineno", None) or after
            if kind is not None and line >= after:
                return kind, line
    return found


def _a(how: str) -> str:
    return ("an " if how[0] in "aeiou" else "a ") + how


def _bound(sym: symtable.Symbol) -> bool:
    return (sym.is_assigned() or sym.is_parameter() or sym.is_imported() or sym.is_namespace()
            or sym.is_declared_global() or sym.is_nonlocal())


def _shadows(name: str, binds: dict) -> str:
    if name in binds:
        how, line, what = binds[name][0]
        if what.startswith("import:"):
            return f"the import of {what[len('import:'):]} (line {line})"
        return f"the module-level {how} of '{name}' (line {line})"
    if is_dunder(name):
        return "a dunder name"
    return f"the builtin '{name}'"


def _check_module_scope(top: symtable.SymbolTable, tree: ast.Module, binds: dict) -> set[str]:
    """Module-level bindings; returns the names comprehension scopes that
    Python inlines bind at module level (checked as inner-scope names)."""
    inlined = {n for node in ast.walk(tree) if isinstance(node, ast.comprehension)
               for n in _names_in(node.target)}
    extra: set[str] = set()
    for sym in top.get_symbols():
        name = sym.get_name()
        if not _bound(sym) or name in binds:
            continue
        if name in inlined:
            extra.add(name)
            continue
        how, line = _how(tree, name, 1)
        raise Reject(f"rebinding '{name}' is not allowed: {_a(how)} on line {line} binds it at module level")
    for name, hows in binds.items():
        if len(hows) > 1 and len({w for _, _, w in hows}) > 1:
            lines = ", ".join(str(line) for _, line, _ in hows)
            raise Reject(f"rebinding '{name}' is not allowed: bound {len(hows)} times at module level (lines {lines})")
        how, line, _ = hows[0]
        if is_dunder(name):
            raise Reject(f"dunder name '{name}' is not allowed")
        if name in BUILTINS:
            raise Reject(f"rebinding '{name}' is not allowed: the module-level {how} on line {line} "
                         f"shadows the builtin")
    return extra


def check_scopes(source: str, tree: ast.Module, kernel_params: dict[str, set[str]]) -> None:
    """The scope rule (see the module's docstring). kernel_params: each
    original kernel's name -> its parameters' names."""
    try:
        top = symtable.symtable(source, "<candidate>", "exec")
    except SyntaxError as e:
        raise Reject(f"candidate does not compile: line {e.lineno}: {e.msg}") from None
    binds = module_bindings(tree)
    inlined = _check_module_scope(top, tree, binds)
    for name in inlined:
        if name in binds or name in BUILTINS or is_dunder(name):
            how, line = _how(tree, name, 1)
            raise Reject(f"rebinding '{name}' is not allowed: {_a(how)} on line {line} shadows {_shadows(name, binds)}")
    stack = [(child, child.get_name() if child.get_type() == "function" else "") for child in top.get_children()]
    while stack:
        table, kernel = stack.pop()
        params = kernel_params.get(kernel, set()) if table.get_name() == kernel else set()
        for sym in table.get_symbols():
            name = sym.get_name()
            if name.startswith(".") or not _bound(sym):
                continue
            if not (name in binds or name in BUILTINS or is_dunder(name)):
                continue
            if sym.is_parameter() and name in params and not (
                    name in binds and binds[name][0][0] in ("import", "definition")):
                continue
            how, line = _how(tree, name, table.get_lineno())
            where = {"listcomp": "a comprehension", "setcomp": "a comprehension", "dictcomp": "a comprehension",
                     "genexpr": "a generator expression", "lambda": "a lambda"}.get(table.get_name())
            if where is None:
                where = f"'{table.get_name()}'" if table.get_type() == "function" else f"a {table.get_type()} scope"
            raise Reject(f"rebinding '{name}' is not allowed: {_a(how)} in {where} (line {line}) "
                         f"shadows {_shadows(name, binds)}")
        stack.extend((child, kernel) for child in table.get_children())
