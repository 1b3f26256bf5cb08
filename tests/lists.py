"""tests/lists.py: every fact written in both languages, or several times
in one, against its one source (issue 41). One TAP line per fact; each
names the copies that disagree. Exits 1 when one does.

    python3 tests/lists.py [--src DIR] [--dump PROG] [FACT...]

DIR is the source tree (default: top_srcdir); the C lists are read from
its text, the Python ones from its modules' syntax (ast: nothing is
imported that needs torch), so that tests/lists-self.sh can change one
copy in a copy of the tree and see its fact fail. The rules held in both
languages are run on both sides: PROG (tests/unit/lists_dump, built with
the library) runs the C side; the Python side is imported from DIR.
Without PROG those facts are skipped.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys

SRC = "."
DUMP = None


def text(path: str) -> str:
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def py_assign(path: str, name: str, func: str | None = None):
    """The literal value assigned to name at the top of module path (or
    inside function func there)."""
    tree = ast.parse(text(path))
    body = tree.body
    if func:
        body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func).body
    for node in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(f"{path}: no {name}")


def c_xmacro(path: str, macro: str) -> list[list[str]]:
    """The rows X(A, B, ...) of the X-macro list `#define MACRO(X)` in path,
    each as its arguments' texts (strings without their quotes)."""
    src = text(path)
    m = re.search(r"#define " + re.escape(macro) + r"\(X\)((?:[^\n]*\\\n)*[^\n]*)", src)
    if not m:
        raise KeyError(f"{path}: no #define {macro}(X)")
    rows = []
    for args in re.findall(r"\bX\(([^()]*)\)", m.group(1)):
        rows.append([a.strip().strip('"') for a in args.split(",")])
    return rows


def differ(what: str, a, b, an: str, bn: str) -> list[str]:
    return [] if a == b else [f"{what}: {an} has {a}, {bn} has {b}"]


def differ_sets(what: str, a, b, an: str, bn: str) -> list[str]:
    only_a, only_b = sorted(set(a) - set(b)), sorted(set(b) - set(a))
    out = [f"{what}: in {an} alone: {', '.join(only_a)}"] if only_a else []
    return out + ([f"{what}: in {bn} alone: {', '.join(only_b)}"] if only_b else [])


# ---- the facts ----

def launch_keys() -> list[str]:
    """The launch-key order: agents/features.h's AGENT_LAUNCH_ORDER is the
    list; the screen's blocks (screen.py BLOCK_KEYS, NUMEL_OF) are its
    SCREENED ones, in its order."""
    rows = c_xmacro("agents/features.h", "AGENT_LAUNCH_ORDER")
    screened = [r[0] for r in rows if r[3] == "1"]
    blocks = list(py_assign("runtime/python/kopt/screen.py", "BLOCK_KEYS"))
    numel = list(py_assign("runtime/python/kopt/screen.py", "NUMEL_OF"))
    return differ("the screened blocks", screened, blocks, "agents/features.h", "screen.py BLOCK_KEYS") + \
        differ("the blocks with a numel", blocks, numel, "screen.py BLOCK_KEYS", "screen.py NUMEL_OF")


def py_dict_keys(path: str, func: str, name: str) -> list[str]:
    """The keys function func of module path gives dict name: its literal's
    and those it sets later (name["KEY"] = ...)."""
    keys = list(py_assign(path, name, func))
    fn = next(n for n in ast.walk(ast.parse(text(path))) if isinstance(n, ast.FunctionDef) and n.name == func)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name and \
                        isinstance(t.slice, ast.Constant) and t.slice.value not in keys:
                    keys.append(t.slice.value)
    return keys


def graph_facts() -> list[str]:
    """The graph facts: rules/rules.h's RULE_GRAPH_FACTS is the list (the
    profile's measurements, the summary's facts line); graph_facts in
    inductor.py counts each of them, and nothing else."""
    rows = c_xmacro("rules/rules.h", "RULE_GRAPH_FACTS")
    c = [r[1] for r in rows]
    py = py_dict_keys("runtime/python/kopt/inductor.py", "graph_facts", "counts")
    out = differ_sets("the graph facts", c, py, "rules/rules.h RULE_GRAPH_FACTS", "inductor.py graph_facts")
    for what, col in (("field", 0), ("summary key", 2)):
        names = [r[col] for r in rows]
        if len(set(names)) != len(names):
            out.append(f"rules/rules.h RULE_GRAPH_FACTS: a {what} twice: {names}")
    return out


def rewrite_names() -> list[str]:
    """koptmake's rewrites of the ATen graph: rewrites.py's NAMES is the
    list; rules/space.c's map of what each needs names each once, and its
    variants set no other kopt.NAME; kopt(5)'s options entry names each,
    and its kopt.NAME lines no other."""
    names = list(py_assign("runtime/python/kopt/rewrites.py", "NAMES"))
    space = text("rules/space.c")
    m = re.search(r"static enum need rewrite_need\(.*?\n\}", space, re.S)
    need = re.findall(r'\{\s*"kopt\.(\w+)",\s*NEED_', m.group(0)) if m else []
    out = [] if m else ["rules/space.c: no rewrite_need"]
    out += differ_sets("the rewrites", names, need, "rewrites.py NAMES", "rules/space.c rewrite_need")
    if len(set(need)) != len(need):
        out.append(f"rules/space.c rewrite_need: a rewrite twice: {need}")
    other = sorted(set(re.findall(r'"kopt\.(\w+)"', space)) - set(names))
    if other:
        out.append(f"rules/space.c sets kopt.NAME options rewrites.py does not know: {', '.join(other)}")
    man = text("man/kopt.5")
    m = re.search(r'^\.BR options .*?^\.BR aten_fallback ', man, re.S | re.M)
    documented = re.findall(r"^\.B kopt\.(\w+)$", m.group(0), re.M) if m else []
    out += differ_sets("the rewrites", names, documented, "rewrites.py NAMES", "kopt(5) options")
    other = sorted(set(re.findall(r"^\.B kopt\.(\w+)(?![\w(])", man, re.M)) - set(names))
    if other:
        out.append(f"kopt(5) names rewrites rewrites.py does not know: {', '.join(other)}")
    return out


def max_autotune() -> list[str]:
    """Which variant is the max-autotune baseline: rule_max_autotune (a
    max-autotune mode) and RULE_SPACE_MODE (the mode the space search
    builds on) say it, and no other code of rules/ compares a mode with
    "max-autotune" itself."""
    out, defined, spaces = [], 0, 0
    folder = os.path.join(SRC, "rules")
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".c", ".h")):
            continue
        src = text(os.path.join("rules", name))
        body = re.search(r"^bool rule_max_autotune\(const char \*mode\)\n\{.*?^\}", src, re.S | re.M)
        if body:
            defined += 1
            src = src.replace(body.group(0), "")
        for m in re.finditer(r"\b(?:strn?cmp|strstr|strcasecmp|strncasecmp)\([^;]*?\"max-autotune", src):
            line = src.count("\n", 0, m.start()) + 1
            out.append(f"rules/{name}:{line}: compares a mode with \"max-autotune\" itself "
                       "(rule_max_autotune, RULE_SPACE_MODE)")
        spaces += len(re.findall(r"#define RULE_SPACE_MODE\b", src))
    if spaces != 1:
        out.append(f"RULE_SPACE_MODE is defined {spaces} times in rules/")
    if defined != 1:
        out.append(f"rule_max_autotune is defined {defined} times in rules/")
    return out


FACTS = {
    "max-autotune": (max_autotune, "which variant is the max-autotune baseline (rules/: rule_max_autotune)"),
    "rewrite-names": (rewrite_names, "the rewrite names (rewrites.py; rules/space.c, kopt(5))"),
    "graph-facts": (graph_facts, "the graph facts (rules/rules.h; inductor.py)"),
    "launch-keys": (launch_keys, "the launch-key order (agents/features.h; screen.py)"),
}


def main() -> int:
    global SRC, DUMP
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.environ.get("top_srcdir", "."))
    ap.add_argument("--dump")
    ap.add_argument("facts", nargs="*")
    a = ap.parse_args()
    SRC, DUMP = a.src, a.dump
    n = failed = 0
    for name in a.facts or FACTS:
        fn, what = FACTS[name]
        n += 1
        try:
            problems = fn()
        except Exception as e:  # a copy that cannot be read is a failure too
            problems = [f"{type(e).__name__}: {e}"]
        if problems is None:
            print(f"ok {n} # SKIP {name}: {what}: no C side to run (--dump)")
            continue
        print(f"{'not ' if problems else ''}ok {n} - {name}: {what}")
        for p in problems:
            print(f"# {p}")
        failed += bool(problems)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
