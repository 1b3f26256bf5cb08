#!/bin/sh
# tests/examples.sh: the example problems are well formed, without torch:
# every file parses; a model file has class Model with __init__ and forward,
# get_inputs() and get_init_inputs(); a kernel file has a @triton.jit kernel,
# launch(), reference() and get_inputs(); a Helion kernel file (helion/) has
# a @helion.kernel function, reference() and get_inputs(), and launch()
# where it has several kernels; get_inputs() makes CPU tensors (no .cuda(),
# no device=, no .to(); a dtype= is allowed); every file is declared in
# examples.kopt (helion/helion.kopt) and listed in examples/local.mk. One
# TAP line per file.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1; then
	echo "1..0 # SKIP no $PYTHON"
	exit 0
fi
exec "$PYTHON" - "$top_srcdir/examples" <<'PY'
import ast
import os
import sys

root = sys.argv[1]
specs = {"models": "examples.kopt", "kernels": "examples.kopt", "helion": "helion/helion.kopt"}
mk = open(os.path.join(root, "local.mk"), encoding="utf-8").read()
n = failed = 0


def functions(tree):
    return {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}


def problems(path, kind):
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
    except SyntaxError as e:
        return [f"does not parse: {e}"]
    out = []
    funcs = functions(tree)
    if kind == "models":
        model = [c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == "Model"]
        if not model:
            out.append("no class Model")
        else:
            methods = functions(model[0])
            out += [f"Model has no {m}" for m in ("__init__", "forward") if m not in methods]
        need = ("get_inputs", "get_init_inputs")
    elif kind == "helion":
        kern = [f for f in funcs.values()
                if any(ast.unparse(d).startswith("helion.kernel") for d in f.decorator_list)]
        if not kern:
            out.append("no @helion.kernel function")
        need = ("reference", "get_inputs") + (("launch",) if len(kern) > 1 else ())
    else:
        jit = [f for f in funcs.values()
               if any(ast.unparse(d).startswith("triton.jit") for d in f.decorator_list)]
        if not jit:
            out.append("no @triton.jit kernel")
        need = ("launch", "reference", "get_inputs")
    out += [f"no {f}()" for f in need if f not in funcs]
    if "get_inputs" in funcs:
        body = ast.unparse(funcs["get_inputs"])
        if ".cuda(" in body or "device=" in body or ".to(" in body:
            out.append("get_inputs() must make CPU tensors")
    rel = os.path.relpath(path, root)
    spec = open(os.path.join(root, specs[kind]), encoding="utf-8").read()
    if f'"{os.path.relpath(path, os.path.dirname(os.path.join(root, specs[kind])))}"' not in spec:
        out.append(f"not declared in {specs[kind]}")
    if f"examples/{rel}" not in mk:
        out.append(f"not in EXTRA_DIST (examples/local.mk)")
    return out


for kind in ("models", "kernels", "helion"):
    for name in sorted(os.listdir(os.path.join(root, kind))):
        if not name.endswith(".py"):
            continue
        n += 1
        errs = problems(os.path.join(root, kind, name), kind)
        if errs:
            failed += 1
            print(f"not ok {n} - {kind}/{name}")
            for e in errs:
                print(f"# {e}")
        else:
            print(f"ok {n} - {kind}/{name}")
print(f"1..{n}")
sys.exit(1 if failed else 0)
PY
