"""tests/callgraph.py: the calls between a module's files, read from
their object files, and the two rules tests/agents-layers.sh holds them
to. Prints TAP; exits 1 when a rule is broken.

    python3 tests/callgraph.py --root DIR [--part NAME:RANK:PREFIX,...]... OBJ...

A file calls another when its object file uses a symbol (`nm`: U) that
the other's defines (T, D, B, R: functions and data alike). The files are
named by their object files' paths below DIR, less ".o".

1. No cycle of more than two files: no strongly connected component of
   the graph holds three files or more (two files that call each other
   are one module cut in two, and allowed; a loop through three is not).
   Each offending component is named with the calls that close it.
2. With --part: every file belongs to a part (the first whose PREFIX its
   name starts with), and a file calls only files of its own part or of a
   part of a lower RANK. Parts of the same rank stand beside each other
   and call nothing of each other. Each offending call is named with its
   symbols; a file of no part is named too (place it in a part).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import defaultdict


def symbols(obj: str, nm: str) -> tuple[set, set]:
    """The global symbols obj defines and those it uses."""
    out = subprocess.run([nm, obj], capture_output=True, text=True, check=True).stdout
    defs, uses = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBRGSVW":
            defs.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            uses.add(f[1])
    return defs, uses


def graph(objs: list[str], root: str, nm: str) -> dict:
    """{caller: {callee: [symbols]}} over the files of objs."""
    name = {}
    for o in objs:
        n = os.path.relpath(o, root)
        n = n[:-2] if n.endswith(".o") else n
        d, b = os.path.split(n)
        name[o] = os.path.join(d, b.split("-", 1)[1]) if b.startswith("libkopt_a-") else n
    syms = {o: symbols(o, nm) for o in objs}
    owner = {s: name[o] for o in objs for s in syms[o][0]}
    g = defaultdict(lambda: defaultdict(list))
    for o in objs:
        g[name[o]]
        for s in sorted(syms[o][1]):
            if s in owner and owner[s] != name[o]:
                g[name[o]][owner[s]].append(s)
    return g


def components(g: dict) -> list[list[str]]:
    """The strongly connected components of g (Tarjan), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            out.append(sorted(c))

    sys.setrecursionlimit(10000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--part", action="append", default=[])
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"))
    ap.add_argument("objs", nargs="*")
    a = ap.parse_args()
    n = 0
    failed = False

    def check(name: str, problems: list[str]) -> None:
        nonlocal n, failed
        n += 1
        print(f"{'not ' if problems else ''}ok {n} - {name}")
        for p in problems:
            print(f"# {p}")
        failed |= bool(problems)

    if not a.objs:
        print("1..0 # SKIP no object files: build first")
        return 0
    g = graph(a.objs, a.root, a.nm)
    big = []
    for c in components(g):
        if len(c) > 2:
            calls = [f"{x} -> {y} ({', '.join(g[x][y])})" for x in c for y in c if y in g[x]]
            big.append(f"a cycle of {len(c)} files: {', '.join(c)}: " + "; ".join(calls))
    check(f"no cycle of more than two files ({len(g)} files)", big)
    if a.part:
        parts = []
        for p in a.part:
            pname, rank, prefixes = p.split(":", 2)
            parts.append((pname, int(rank), prefixes.split(",")))

        def part_of(f: str):
            for p in parts:
                if any(f.startswith(x) for x in p[2]):
                    return p
            return None

        bad = [f"{f}: in no part (place it in one)" for f in sorted(g) if not part_of(f)]
        for f in sorted(g):
            pf = part_of(f)
            for t in sorted(g[f]):
                pt = part_of(t)
                if pf and pt and pf is not pt and pt[1] >= pf[1]:
                    bad.append(f"{f} ({pf[0]}) calls {t} ({pt[0]}): {', '.join(g[f][t])}")
        names = ", ".join(f"{p[0]} ({p[1]})" for p in parts)
        check(f"each file calls only its own part or a part below it: {names}", bad)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
