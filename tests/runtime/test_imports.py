"""tests/runtime/test_imports.py: a static check of the GPU-side Python
(runtime/python/kopt, tests/gpu, bench), which this machine cannot run.

`import torch._inductor` inside a function binds the name `torch` locally
for the whole function, so a use of the module-level `torch` earlier in
that function raises UnboundLocalError, on the GPU only (it broke every
capture once). This walks each function's AST: a name that a function-level
`import a.b` binds must not be read in that function before the import.
Also: every file parses, and no function-level import of a kopt module
hides an import loop (the module it imports reaches the importer back
through its own imports). Prints TAP."""

import ast
import glob
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
n = bad = 0


def ok(cond, what):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    bad += not cond


def shadowed_reads(tree):
    """(function, name, line of the read, line of the import) for each read of
    a name before a dotted import in the same function binds it"""
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        binds = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname is None and "." in a.name:
                        first = a.name.split(".")[0]
                        binds[first] = min(binds.get(first, node.lineno), node.lineno)
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in binds \
                    and node.lineno < binds[node.id]:
                out.append((fn.name, node.id, node.lineno, binds[node.id]))
    return out


files = sorted(glob.glob(os.path.join(top, "runtime", "python", "kopt", "*.py")) +
               glob.glob(os.path.join(top, "tests", "gpu", "*.py")) +
               glob.glob(os.path.join(top, "bench", "*", "*.py")))
ok(len(files) > 20, f"the GPU-side Python is found ({len(files)} files)")
problems = []
for f in files:
    try:
        tree = ast.parse(open(f).read(), f)
    except SyntaxError as e:
        problems.append(f"{os.path.relpath(f, top)}:{e.lineno}: does not parse: {e.msg}")
        continue
    for fn, name, line, imp in shadowed_reads(tree):
        problems.append(f"{os.path.relpath(f, top)}:{line}: {fn}() reads '{name}' before its own "
                        f"'import {name}.…' at line {imp} (UnboundLocalError)")
ok(not problems, "no function reads a module name before its own dotted import rebinds it")
for p in problems:
    print("# " + p)

# the check itself: the broken form is found, the fixed forms are not
broken = ast.parse("import torch\ndef f():\n    torch.x = 1\n    import torch._inductor\n")
fixed = ast.parse("import torch\ndef f():\n    torch.x = 1\n    from torch._inductor import y\n")
aliased = ast.parse("import torch\ndef f():\n    torch.x = 1\n    import torch._inductor as ti\n")
ok(shadowed_reads(broken) == [("f", "torch", 3, 4)] and not shadowed_reads(fixed) and not shadowed_reads(aliased),
   "the check finds `import torch._inductor` after a read of torch, and only that")


def kopt_imports(tree, mod):
    """(top-level, function-level) kopt modules that module mod imports"""
    top_level, local = set(), set()
    inner = {id(x) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for x in ast.walk(fn)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            (local if id(node) in inner else top_level).update(n.split(".")[0] for n in names)
    top_level.discard(mod)
    local.discard(mod)
    return top_level, local


def hidden_loops(graph):
    """(A, B, path) for each function-level import of B in A where B's
    imports (at the top or in functions) reach A: a loop that a
    function-level import hides (graph: {module: (top-level,
    function-level)})"""
    out = []
    for a, (_, local) in sorted(graph.items()):
        for b in sorted(local):
            seen, todo = {b: [b]}, [b]
            while todo:
                m = todo.pop()
                top_level, inner = graph.get(m, (set(), set()))
                for c in sorted(top_level | inner):
                    if c not in seen:
                        seen[c] = seen[m] + [c]
                        todo.append(c)
            if a in seen:
                out.append((a, b, seen[a]))
    return out


# the package in layers: no module imports another inside a function where
# that one's imports at the top reach it back (issue 41: helion with
# inductor, loader and verify, verify with memcheck did)
graph = {}
for f in sorted(glob.glob(os.path.join(top, "runtime", "python", "kopt", "*.py"))):
    mod = os.path.basename(f)[:-3]
    graph[mod] = kopt_imports(ast.parse(open(f).read(), f), mod)
loops = hidden_loops(graph)
ok(not loops, "no function-level import in kopt hides an import loop")
for a, b, path in loops:
    print(f"# {a} imports {b} in a function; {' -> '.join(path)} imports it back")
fake = {"a": ({"b"}, set()), "b": ({"c"}, set()), "c": (set(), {"a"}), "d": (set(), {"b"}),
        "e": (set(), {"f"}), "f": (set(), {"e"})}
ok(hidden_loops(fake) == [("c", "a", ["a", "b", "c"]), ("e", "f", ["f", "e"]), ("f", "e", ["e", "f"])],
   "the check finds a function-level import closing a loop, through top-level or function-level ones, and only that")
print(f"1..{n}")
sys.exit(1 if bad else 0)
