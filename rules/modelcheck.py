"""rules/modelcheck.py: the model files read with Python's own parser.

koptmake runs this text with the worker's interpreter (`PYTHON -I -S -c
TEXT`, rules/modelcheck.c; the build embeds it as rules/modelcheck.inc)
before a build's first step and for `-t check`, and writes on its stdin
the files to read: KIND NUL PATH NUL for each, then closes it.
It imports nothing but the standard library and never runs a model file:
each is parsed (the `ast` module of that interpreter, so a file is read as
the worker's Python will read it), and its top level is searched for the
names its kind needs:

  torch   Model, get_inputs and get_init_inputs (KernelBench format)
  triton  launch, reference and get_inputs
  helion  reference, get_inputs, one or more @helion.kernel functions and,
          with more than one, launch

A name counts as defined by a def, a class, an assignment or an import at
the top level, also inside a top-level if, try, with, for or while; a
`from ... import *` may define any. Prints one JSON line per problem:
{"i": the pair's index, "line", "col", "end" (1-based, 0 unknown; end is
the last column), "msg"}, i counting the files from 0; nothing when
every file is fine. Exits 0.
"""

import ast
import json
import os
import sys

NEEDS = {
    "torch": (("Model", "get_inputs", "get_init_inputs"),
              "a KernelBench model file defines Model, get_inputs and get_init_inputs"),
    "triton": (("launch", "reference", "get_inputs"),
               "a Triton kernel file defines launch, reference and get_inputs"),
    "helion": (("reference", "get_inputs"),
               "a Helion kernel file defines @helion.kernel functions, reference and get_inputs, "
               "and launch with more than one kernel"),
}


def say(i, msg, line=0, col=0, end=0):
    print(json.dumps({"i": i, "line": line or 0, "col": col or 0, "end": end or 0, "msg": msg}))


def top_level(body):
    """The statements of the module's top level, into if/try/with/loops."""
    for s in body:
        yield s
        for part in ("body", "orelse", "finalbody"):
            inner = getattr(s, part, None)
            if isinstance(inner, list) and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield from top_level(inner)
        for h in getattr(s, "handlers", None) or []:
            yield from top_level(h.body)


def targets(t):
    if isinstance(t, ast.Name):
        yield t.id
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from targets(e)
    elif isinstance(t, ast.Starred):
        yield from targets(t.value)


def dotted(e):
    """'helion.kernel' for helion.kernel, helion.kernel(...) and the like."""
    if isinstance(e, ast.Call):
        return dotted(e.func)
    if isinstance(e, ast.Attribute):
        inner = dotted(e.value)
        return inner + "." + e.attr if inner else ""
    if isinstance(e, ast.Name):
        return e.id
    return ""


def defined(tree):
    """The names the top level defines, whether a star import may define
    any, and the @helion.kernel functions."""
    names, star, kernels = set(), False, []
    aliases = {"helion.kernel"}
    for s in top_level(tree.body):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(s.name)
            if not isinstance(s, ast.ClassDef) and any(dotted(d) in aliases for d in s.decorator_list):
                kernels.append(s.name)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                names.update(targets(t))
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            names.update(targets(s.target))
        elif isinstance(s, ast.Import):
            for a in s.names:
                names.add(a.asname or a.name.split(".")[0])
                if a.name == "helion" and a.asname:
                    aliases.add(a.asname + ".kernel")
        elif isinstance(s, ast.ImportFrom):
            for a in s.names:
                if a.name == "*":
                    star = True
                else:
                    names.add(a.asname or a.name)
                    if s.module == "helion" and a.name == "kernel":
                        aliases.add(a.asname or a.name)
    return names, star, kernels


def check(i, kind, path):
    try:
        with open(path, "rb") as f:
            src = f.read()
    except OSError as e:
        say(i, f"cannot be read: {e.strerror}")
        return
    try:
        tree = ast.parse(src, path)
    except SyntaxError as e:
        what = "indentation error" if isinstance(e, IndentationError) else "syntax error"
        end = getattr(e, "end_offset", None)
        line, col = e.lineno or 0, e.offset or 0
        end = end - 1 if end and getattr(e, "end_lineno", line) == line and end - 1 > col else 0
        say(i, f"{what}: {e.msg}", line, col, end)
        return
    except (ValueError, UnicodeError) as e:
        say(i, f"cannot be read as Python: {e}")
        return
    need, form = NEEDS.get(kind, ((), ""))
    names, star, kernels = defined(tree)
    if not tree.body:
        say(i, f"empty file ({form})")
        return
    if star:
        return
    missing = [n for n in need if n not in names]
    if kind == "helion" and not kernels:
        missing.append("@helion.kernel function")
    elif kind == "helion" and len(kernels) > 1 and "launch" not in names:
        missing.append(f"launch (it has {len(kernels)} kernels: {', '.join(kernels)})")
    if missing:
        say(i, "no " + ", no ".join(missing) + f" at the top level ({form})")


def main():
    words = sys.stdin.buffer.read().split(b"\0")
    for i in range(0, len(words) - 1, 2):
        check(i // 2, words[i].decode(), os.fsdecode(words[i + 1]))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
