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
import tempfile

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
    SCREENED ones, in its order; gate 1's largest block per axis
    (static_config.py INDUCTOR_MAX_BLOCK) is its MAX."""
    rows = c_xmacro("agents/features.h", "AGENT_LAUNCH_ORDER")
    screened = [r[0] for r in rows if r[3] == "1"]
    blocks = list(py_assign("runtime/python/kopt/screen.py", "BLOCK_KEYS"))
    numel = list(py_assign("runtime/python/kopt/screen.py", "NUMEL_OF"))
    most = {r[0]: int(r[1]) for r in rows if int(r[1]) > 0}
    gate = py_assign("runtime/python/kopt/static_config.py", "INDUCTOR_MAX_BLOCK")
    return differ("the screened blocks", screened, blocks, "agents/features.h", "screen.py BLOCK_KEYS") + \
        differ("the blocks with a numel", blocks, numel, "screen.py BLOCK_KEYS", "screen.py NUMEL_OF") + \
        differ("each block's largest", most, gate, "agents/features.h", "static_config.py INDUCTOR_MAX_BLOCK")


def py_dict_keys(path: str, func: str, name: str) -> list[str]:
    """The keys function func of module path sets in dict name (a name or
    a dotted attribute): name["KEY"] = ..."""
    keys = []
    fn = next(n for n in ast.walk(ast.parse(text(path))) if isinstance(n, ast.FunctionDef) and n.name == func)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Subscript) and ast.unparse(t.value) == name and \
                        isinstance(t.slice, ast.Constant) and t.slice.value not in keys:
                    keys.append(t.slice.value)
    return keys


def graph_facts() -> list[str]:
    """The graph facts: rules/summary.h's RULE_GRAPH_FACTS is the list (the
    profile's measurements, the summary's facts line); facts.py counts
    each of them (FACTS, and the parameters graph_facts adds), and nothing
    else."""
    rows = c_xmacro("rules/summary.h", "RULE_GRAPH_FACTS")
    c = [r[1] for r in rows]
    py = list(py_assign("runtime/python/kopt/facts.py", "FACTS")) + py_dict_keys(
        "runtime/python/kopt/facts.py", "graph_facts", "count.counts")
    out = differ_sets("the graph facts", c, py, "rules/summary.h RULE_GRAPH_FACTS", "facts.py FACTS and graph_facts")
    for what, col in (("field", 0), ("summary key", 2)):
        names = [r[col] for r in rows]
        if len(set(names)) != len(names):
            out.append(f"rules/summary.h RULE_GRAPH_FACTS: a {what} twice: {names}")
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
    builds on) say it, and no code of rules/ compares a mode with
    "max-autotune" itself but those and rule_mode_graphs (which modes run
    CUDA graphs)."""
    out, defined, spaces = [], 0, 0
    folder = os.path.join(SRC, "rules")
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".c", ".h")):
            continue
        src = text(os.path.join("rules", name))
        for body in re.finditer(r"^bool (rule_max_autotune|rule_mode_graphs)\(const char \*mode\)\n\{.*?^\}",
                                src, re.S | re.M):
            defined += body.group(1) == "rule_max_autotune"
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


def dump(*args, stdin: str | None = None):
    """The C side's answer (tests/unit/lists_dump ARGS), parsed."""
    r = subprocess.run([DUMP, *args], input=stdin, capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def import_kopt(name: str):
    """Module kopt.NAME of the tree under test (torch-free modules only)."""
    sys.path.insert(0, os.path.join(SRC, "runtime", "python"))
    try:
        for m in [m for m in sys.modules if m == "kopt" or m.startswith("kopt.")]:
            del sys.modules[m]
        return __import__(f"kopt.{name}", fromlist=[name])
    finally:
        sys.path.pop(0)


def perf_cases(rng: random.Random, n: int) -> list[dict]:
    """Pairs of times as a GPU gives them: a candidate some factor faster or
    slower than its baseline, each pair drifting alike, each time with its
    own noise; now and then one slow outlier."""
    cases = []
    for _ in range(n):
        pairs = rng.randint(3, 24)
        factor = rng.choice([0.9, 0.97, 1.0, 1.02, 1.03, 1.05, 1.1, 1.3])
        noise = rng.choice([0.002, 0.01, 0.03, 0.08])
        base, cand = [], []
        for _ in range(pairs):
            drift = 1 + rng.gauss(0, noise)
            base.append(1e5 * drift * (1 + rng.gauss(0, noise)))
            cand.append(1e5 / factor * drift * (1 + rng.gauss(0, noise)))
            if rng.random() < 0.05:
                (base if rng.random() < 0.5 else cand)[-1] *= 3
        cases.append({"base": base, "cand": cand, "gamma": rng.choice([1.0, 1.03, 1.1])})
    return cases


def perf_quartile() -> list[str] | None:
    """Gate 4's quartile test: gates/perf.c decides; verify's early stop
    (gate_rules.perf_decided) takes the same quartiles of the pair ratios
    (gate_rules._quantile: interpolated, R's type 7) and stops only where
    the gate's decision is the one it foresees, for a model (the ratios
    alone) and for a kernel (its own ratios and the model's beside them).
    Each kind of stop must come up in the cases, or the check says so."""
    if not DUMP:
        return None
    g = import_kopt("gate_rules")
    rng = random.Random(41)
    cases, models = perf_cases(rng, 400), perf_cases(rng, 400)
    kernels = []
    for k, m in zip(cases, models):
        n = min(len(k["base"]), len(m["base"]))
        for c in (k, m):
            c["base"], c["cand"] = c["base"][:n], c["cand"][:n]
    c = dump("perf", stdin=json.dumps(cases + models))
    cc, cm = c[:len(cases)], c[len(cases):]
    out, stops = [], {}
    for i, (case, got) in enumerate(zip(cases, cc)):
        b, k, gamma = case["base"], case["cand"], case["gamma"]
        r = [x / y for x, y in zip(b, k)]
        for q, key in ((0.25, "q25"), (0.5, "q50"), (0.75, "q75")):
            py = g._quantile(r, q)
            if abs(py - got[key]) > 1e-12 * abs(got[key]):
                out.append(f"case {i}: the {key} of the pair ratios: gates/perf.c {got[key]!r}, gate_rules {py!r}")
        d = g.perf_decided({"model_base_ns": b, "model_base_dev_ns": b, "model_cand_dev_ns": k}, gamma, None)
        stops[("model", d)] = stops.get(("model", d), 0) + 1
        if d is not None and (d == "pass") != got["pass"]:
            out.append(f"case {i}: a model's early stop says {d}, gates/perf.c {'passes' if got['pass'] else 'fails'} it")
        m = models[i]
        d = g.perf_decided({"model_base_ns": m["base"], "model_base_dev_ns": m["base"], "model_cand_dev_ns": m["cand"],
                            "base_ns": b, "cand_ns": k}, gamma, "k")
        stops[("kernel", d)] = stops.get(("kernel", d), 0) + 1
        passes = got["pass"] and cm[i]["no_regression"]
        if d is not None and (d == "pass") != passes:
            out.append(f"case {i}: a kernel's early stop says {d}, gates/perf.c {'passes' if passes else 'fails'} it")
    for level in ("model", "kernel"):
        for d in ("pass", "fail", None):
            if stops.get((level, d), 0) < 10:
                out.append(f"the cases hold {stops.get((level, d), 0)} {level} stops of {d}: too few to tell")
    return out


def tolerance() -> list[str] | None:
    """The tolerance an output's dtype takes: gates/gate.c's gate_tolerance
    over every name its table knows (and a few it does not), and
    gate_rules.tolerance alike."""
    if not DUMP:
        return None
    g = import_kopt("gate_rules")
    names = re.findall(r'\{ "(\w+)", GATE_DTYPE_\w+ \}', text("gates/gate.c"))
    if not names:
        return ["gates/gate.c: no dtype table"]
    names += ["float8_e4m3fn", "complex64", "torch.float16", "torch.int64", "unknown"]
    c = dump("tolerance", *names)
    gates = {"atol": 1, "rtol": 2, "atol_half": 3, "rtol_half": 4}
    out = []
    for n in names:
        py = list(g.tolerance(gates, n))
        if py != c[n]:
            out.append(f"{n}: gates/gate.c gives (atol, rtol) {tuple(c[n])}, gate_rules.tolerance {tuple(py)}")
    return out


# the shapes persist_test.c has the coder's edit refuse
PERSIST_REFUSED = {
    "a dynamic row length": "@triton.jit\ndef k(in_ptr0, out_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        a = tl.load(in_ptr0 + r0_offset)\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0 + r0_offset)\n",
    "a loop inside the row loop": "@triton.jit\ndef k(in_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n    r0_numel = 64\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        for j in range(4):\n            a = tl.load(in_ptr0)\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0)\n",
    "a row longer than the bound": "@triton.jit\ndef k(in_ptr0, r0_numel, R0_BLOCK : tl.constexpr):\n"
    "    r0_numel = 32768\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        a = tl.load(in_ptr0 + (r0_1), r0_mask)\n"
    "    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):\n        b = tl.load(in_ptr0 + (r0_1), r0_mask)\n",
}


def persist() -> list[str] | None:
    """The persistent transform: the coder's edit (agents/builtin/persist.c)
    and the screen's persist=on (knobs.py persist) make the same text and
    ask the same R0_BLOCK from every recorded kernel, and refuse the same
    ones; knobs.py's PERSIST_MAX is persist.h's PERSIST_MAX_RBLOCK."""
    m = re.search(r"#define PERSIST_MAX_RBLOCK (\d+)", text("agents/builtin/persist.h"))
    out = [] if m else ["agents/builtin/persist.h: no PERSIST_MAX_RBLOCK"]
    py_max = py_assign("runtime/python/kopt/knobs.py", "PERSIST_MAX")
    if m and int(m.group(1)) != py_max:
        out.append(f"the row bound: persist.h PERSIST_MAX_RBLOCK {m.group(1)}, knobs.py PERSIST_MAX {py_max}")
    if not DUMP:
        return out or None
    knobs = import_kopt("knobs")
    folder = os.path.join(SRC, "tests", "fixtures", "kernels")
    kernels = {f: text(os.path.join("tests", "fixtures", "kernels", f)) for f in sorted(os.listdir(folder))
               if f.endswith(".py")}
    kernels.update(PERSIST_REFUSED)
    edited = 0
    for name, src in kernels.items():
        path = os.path.join(folder, name) if name.endswith(".py") else None
        if not path:
            with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
                f.write(src)
                path = f.name
        try:
            c = dump("persist", path)
        finally:
            if not name.endswith(".py"):
                os.unlink(path)
        try:
            py = knobs.persist(src)
        except knobs.KnobError:
            py = (None, 0)
        edited += py[0] is not None
        if (c["source"], c["rblock"]) != py:
            what = "refuses it" if c["source"] is None else f"edits it, R0_BLOCK {c['rblock']}"
            pyw = "refuses it" if py[0] is None else f"edits it, R0_BLOCK {py[1]}"
            diff = "" if c["source"] is None or py[0] is None else ", another text"
            out.append(f"{name}: persist.c {what}, knobs.py {pyw}{diff}")
    if edited < 3:
        out.append(f"only {edited} kernels edited: too few to tell")
    return out


def py_value(path: str, name: str):
    """A top-level tuple of path, literal or the sum of literals and names
    assigned before it there."""
    tree = ast.parse(text(path))
    env = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                env[node.targets[0].id] = eval(compile(ast.Expression(node.value), path, "eval"), {}, dict(env))
            except Exception:
                pass
    return env[name]


def graph_code() -> list[str]:
    """The rewrites' code: rewrites.py's FILES is every rewrite*.py of the
    package, and its GRAPH_CODE (the env's graph_code) every kopt module
    those import, so that a change to any of them changes the key of a
    variant with kopt.NAME options."""
    kopt = "runtime/python/kopt"
    files = list(py_value(f"{kopt}/rewrites.py", "FILES"))
    code = set(py_value(f"{kopt}/rewrites.py", "GRAPH_CODE"))
    present = sorted(f for f in os.listdir(os.path.join(SRC, kopt)) if re.fullmatch(r"rewrites?(_\w+)?\.py", f))
    out = differ_sets("the rewrites' files", present, files, kopt, "rewrites.py FILES")
    for f in sorted(code):
        for node in ast.walk(ast.parse(text(f"{kopt}/{f}"))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                mods = [node.module] if node.module else [a.name for a in node.names]
                for m in mods:
                    if f"{m}.py" not in code:
                        out.append(f"{f} imports kopt.{m}, which rewrites.py GRAPH_CODE leaves out")
    return out


def graphs_modes() -> list[str]:
    """Which modes torch runs as CUDA graphs: rules/space_pick.c's
    rule_mode_graphs says it; graphcopy.py's GRAPH_MODES, which the
    worker's Compiled.graphs and the memcheck's guarded run read
    (variant_graphs), names the same modes."""
    m = re.search(r"^bool rule_mode_graphs\(const char \*mode\)\n\{(.*?)^\}", text("rules/space_pick.c"), re.S | re.M)
    c = re.findall(r'"([\w-]+)"', m.group(1)) if m else []
    out = [] if m else ["rules/space_pick.c: no rule_mode_graphs"]
    py = list(py_assign("runtime/python/kopt/graphcopy.py", "GRAPH_MODES") or [])
    if not py:
        out.append("graphcopy.py: GRAPH_MODES names no modes")
    return out + differ_sets("the modes run as CUDA graphs", c, py, "rules/space_pick.c rule_mode_graphs",
                             "graphcopy.py GRAPH_MODES")


def transforms() -> list[str]:
    """The kernel transforms: their version (transforms.py VERSION, which
    the screen keys on in C as agents/agent.h AGENT_TRANSFORMS_VERSION),
    and every edit the analyst asks for (agents/builtin/transform.c) one
    that transforms.py, or knobs.py's persist, names."""
    m = re.search(r"#define AGENT_TRANSFORMS_VERSION (\d+)", text("agents/agent.h"))
    out = [] if m else ["agents/agent.h: no AGENT_TRANSFORMS_VERSION"]
    py = py_assign("runtime/python/kopt/transforms.py", "VERSION")
    if m and int(m.group(1)) != py:
        out.append(f"the transforms' version: agents/agent.h {m.group(1)}, transforms.py {py}")
    values = py_assign("runtime/python/kopt/transforms.py", "VALUES")
    asked = re.findall(r'add\(out, "(\w+)=(\w+)"', text("agents/builtin/transform.c"))
    if not asked:
        out.append("agents/builtin/transform.c: no edit asked for")
    for kind, value in asked:
        if (kind, value) != ("persist", "on") and value not in values.get(kind, ()):
            out.append(f"agents/builtin/transform.c asks for {kind}={value}, which transforms.py does not name")
    return out


def products_side() -> list[str]:
    """The least rows and columns of a float32 product that the tf32x3
    rewrite takes: products.py's MIN_SIDE (the pass's rule); rules/
    space_pick.c's GEMM32_SIDE counts the profile's products by it, so
    that the variant is chosen where the pass will take them."""
    m = re.search(r"#define GEMM32_SIDE (\d+)", text("rules/space_pick.c"))
    out = [] if m else ["rules/space_pick.c: no GEMM32_SIDE"]
    py = py_assign("runtime/python/kopt/products.py", "MIN_SIDE")
    if m and int(m.group(1)) != py:
        out.append(f"a product's least side: rules/space_pick.c GEMM32_SIDE {m.group(1)}, products.py MIN_SIDE {py}")
    return out


FACTS = {
    "graphs-modes": (graphs_modes, "which modes run as CUDA graphs (rules/space_pick.c; graphcopy.py)"),
    "graph-code": (graph_code, "the rewrites' files (rewrites.py FILES, GRAPH_CODE; the package)"),
    "persist": (persist, "the persistent transform and its row bound (persist.c; knobs.py)"),
    "perf-quartile": (perf_quartile, "gate 4's quartile test (gates/perf.c; gate_rules.py perf_decided)"),
    "tolerance": (tolerance, "the tolerance a dtype takes (gates/gate.c; gate_rules.py)"),
    "max-autotune": (max_autotune, "which variant is the max-autotune baseline (rules/: rule_max_autotune)"),
    "products-side": (products_side, "a tf32x3 product's least side (products.py; rules/space_pick.c)"),
    "rewrite-names": (rewrite_names, "the rewrite names (rewrites.py; rules/space.c, kopt(5))"),
    "graph-facts": (graph_facts, "the graph facts (rules/summary.h; facts.py)"),
    "launch-keys": (launch_keys, "the launch-key order and each block's largest (agents/features.h; screen.py, static_config.py)"),
    "transforms": (transforms, "the kernel transforms' names and version (transform.c, agent.h; transforms.py)"),
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
        for p in problems[:10]:
            print(f"# {p}")
        if len(problems) > 10:
            print(f"# ... and {len(problems) - 10} more")
        failed += bool(problems)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
