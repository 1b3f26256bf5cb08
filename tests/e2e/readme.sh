#!/bin/sh
# tests/e2e/readme.sh: the README is skimmable and true (issue 44). Its
# "On a fresh machine" section holds the two commands, each naming what
# exists (tools/setup-debian.sh, examples/, tests/run), and CI and
# tests/e2e/no-gpu.sh run them; the section after it is the benchmark
# figures in one table, each row's run folder there and indexed in
# bench/results/README.md (where bench/results is: a release tarball has
# none); the README names no run folder outside that table (the prose
# lives in the index), and no paragraph of it runs past 16 lines. Prints
# TAP.
set -eu
exec python3 - "$top_srcdir" <<'PY'
import os
import re
import sys

top = sys.argv[1]
n = failed = 0


def check(name, cond, diag=""):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}")
    if not cond:
        failed += 1
        if diag:
            print("# " + str(diag).replace("\n", "\n# "))


text = open(os.path.join(top, "README.md"), encoding="utf-8").read()
lines = text.split("\n")
sections = [(i, ln[3:]) for i, ln in enumerate(lines) if ln.startswith("## ")]


def section(title):
    for k, (i, t) in enumerate(sections):
        if t == title:
            end = sections[k + 1][0] if k + 1 < len(sections) else len(lines)
            return lines[i + 1:end], (sections[k + 1][1] if k + 1 < len(sections) else None)
    return [], None


fresh, after = section("On a fresh machine")
run = "    sh tools/setup-debian.sh && autoreconf -fi && ./configure && make && ./koptmake -C examples all"
test = "    sh tools/setup-debian.sh && autoreconf -fi && ./configure && make && tests/run"
check("the fresh-machine section holds the command that builds and runs the examples", run in fresh, "\n".join(fresh))
check("... and the command that runs the tests", test in fresh, "\n".join(fresh))
check("what they name is here: tools/setup-debian.sh, examples/examples.kopt, tests/run, configure.ac",
      all(os.path.exists(os.path.join(top, p)) for p in
          ("tools/setup-debian.sh", "examples/examples.kopt", "tests/run", "configure.ac")))
ci = open(os.path.join(top, ".ci", "run"), encoding="utf-8").read()
check("CI runs the test command's parts in its order (setup, autoreconf -fi, configure, make, tests/run)",
      re.search(r"sh tools/setup-debian.sh.*autoreconf -fi.*\./configure.*make.*tests/run", ci, re.S) is not None)
nogpu = open(os.path.join(top, "tests", "e2e", "no-gpu.sh"), encoding="utf-8").read()
check("tests/e2e/no-gpu.sh runs the examples' command as the README writes it (./koptmake -C ... all)",
      "./koptmake -C" in nogpu and "examples" in nogpu)

body, _ = section(after or "")
table = [ln for ln in body if ln.startswith("|")]
check(f"the section after it ({after!r}) is the benchmark figures in one table ({len(table) - 2} rows)",
      after is not None and len(table) >= 5 and table[1].startswith("| ---")
      and not [ln for ln in body if ln.startswith("## ")], "\n".join(body))
runs = []
for row in table[2:]:
    cells = [c.strip() for c in row.strip("|").split("|")]
    base = None
    for name in re.split(r",\s*", cells[-1]):
        if name.startswith("-") and base:  # "-l2" after "...-beyond-l1"
            name = base.rsplit("-", 1)[0] + name
        runs.append(name)
        base = name
check(f"each row names its runs ({len(runs)})", len(runs) >= len(table) - 2 and all(runs), runs)
results = os.path.join(top, "bench", "results")
if os.path.isdir(results):
    index = open(os.path.join(results, "README.md"), encoding="utf-8").read()
    missing = [r for r in runs if not os.path.exists(os.path.join(results, r))]
    check(f"every run the table names is in bench/results/ (missing: {missing or 'none'})", not missing)
    unindexed = [r for r in runs if f"({r}" not in index]
    check(f"... and indexed in bench/results/README.md (not: {unindexed or 'none'})", not unindexed)
    # every run kept, named in the table or not, has its row in the index
    folders = sorted(d for d in os.listdir(results) if os.path.isdir(os.path.join(results, d)))
    stray = [d for d in folders if f"[{d}/]({d}/)" not in index]
    check(f"every run folder of bench/results/ ({len(folders)}) has its row in its README.md (not: {stray or 'none'})",
          folders and not stray)
else:
    for _ in range(3):
        n += 1
        print(f"ok {n} # SKIP no bench/results here (a release tarball)")

# outside the table, no run folder: the figures' prose is the index's
named = [(i + 1, ln) for i, ln in enumerate(lines)
         if not ln.startswith("|") and re.search(r"bench/results/(?!README\.md)\S", ln)]
check(f"the README names no run folder outside the table ({len(named)} lines do)", not named,
      "\n".join(f"README.md:{i}: {ln}" for i, ln in named[:5]))

# no paragraph (prose: not code, table or list) longer than 16 lines
paras, cur, code = [], [], False
for i, ln in enumerate(lines, 1):
    if ln.startswith("```"):
        code = not code
    if code or ln.startswith("```") or ln.startswith("    ") or ln.startswith("|") or not ln.strip():
        if cur:
            paras.append(cur)
        cur = []
        continue
    cur.append((i, ln))
if cur:
    paras.append(cur)
prose = [p for p in paras if not re.match(r"(\d+\.|-) ", p[0][1])]
longest = max(prose, key=len)
check(f"no paragraph runs past 16 lines (the longest: {len(longest)}, at line {longest[0][0]})", len(longest) <= 16)
print(f"1..{n}")
sys.exit(1 if failed else 0)
PY
