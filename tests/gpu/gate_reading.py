"""tests/gpu/gate_reading.py: gate 1 reads a kernel as Triton does (needs
torch and triton; launches nothing, so any machine with them runs it).

Gate 1 (kopt.static_text) reads each @triton.jit function the way Triton
3.x does: inspect.getsourcelines on the file's lines, dedented, cut at the
first line that starts 'def NAME('. This loads the corpus' files the way
Inductor loads a kernel (its text written to a .py file, compiled from
open(path).read() and run in a fresh module) and compares each function's
JITFunction.src, what Triton compiles, with kopt.static_text.triton_source:

- every file of tests/static/{orig,good,memcheck}: the same text;
- tests/static/bad/text_triton_reads_*: the same text too, and that text is
  another function than the one Python defines (the escape the gate
  rejects is real);
- a standalone kernel through kopt.kernels.load_jit (linecache from
  kopt.static_text.source_lines): the same text;
- the names a kernel may reach in tl.math, libdevice and Inductor's
  triton_helpers, as this Triton and torch define them: every device
  function (a Triton builtin or a @triton.jit function) passes gate 1's
  path check, and every other function, class or module there (host-side
  Python, which Triton runs while it compiles: functools.wraps,
  set_driver_to_cpu) is refused by it. static_lists.HOST_NAMES lists the
  host names, STUB_NAMES the stubs of Triton's libdevice that the CUDA
  backend does not define (fast_tanhf in Triton 3.6); a Triton or torch
  that adds one fails here until it is listed (module_names, checked on stand-ins by
  tests/runtime/test_gate_names.py);
- gate 1's largest block per axis for a launch config
  (kopt.static_config.INDUCTOR_MAX_BLOCK) is this torch's
  TRITON_MAX_BLOCK.

Prints TAP; a file that does not import here is a skip, with its error.

    python3 tests/gpu/gate_reading.py
"""

import ast
import copy
import glob
import linecache
import os
import sys
import tempfile
import types

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(top, "runtime", "python"))
from kopt import static_text as T  # noqa: E402

n = bad = 0


def ok(cond, what, detail=""):
    global n, bad
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {what}")
    if not cond:
        bad += 1
        for line in str(detail).splitlines()[:20]:
            print(f"# {line}")


def skip(what, why):
    global n
    n += 1
    print(f"ok {n} - {what} # SKIP {why}")


def jit_of(obj):
    """The JITFunction behind a @triton.jit function, an Autotuner or
    Inductor's CachingAutotuner."""
    from triton.runtime.jit import JITFunction

    for _ in range(4):
        if isinstance(obj, JITFunction):
            return obj
        obj = getattr(obj, "fn", None)
    return None


def load_like_inductor(text: str, d: str, name: str):
    """torch._inductor.runtime.compile_tasks._reload_python_module."""
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    with open(path) as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    mod = types.ModuleType(f"kopt_gate_reading.{name}")
    mod.__file__ = path
    exec(code, mod.__dict__, mod.__dict__)
    return mod


def check_file(path: str, d: str, other: bool) -> None:
    rel = os.path.relpath(path, top)
    text = open(path, "rb").read().decode("utf-8")
    tree = ast.parse(text)
    try:
        mod = load_like_inductor(text, d, os.path.basename(path)[:-3])
    except Exception as e:  # the file's own import, here
        skip(rel, f"does not import here: {type(e).__name__}: {str(e)[:120]}")
        return
    lines = T.source_lines(text)
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        jit = jit_of(getattr(mod, fn.name, None))
        if jit is None:
            continue
        ours = T.triton_source(lines, fn) if not other else _raw_triton_source(lines, fn)
        ok(jit.src == ours, f"{rel}: {fn.name}: Triton's source is the gate's reading",
           f"Triton:\n{jit.src}\ngate:\n{ours}")
        if other:
            theirs = ast.parse(jit.src).body[0]
            bare = copy.copy(fn)
            bare.decorator_list = []
            same = ast.dump(theirs) == ast.dump(bare)
            ok(not same, f"{rel}: {fn.name}: Triton compiles another function than Python defines")


def module_names(mods, path_ok, is_device, skip=()):
    """For each (canonical path, module) of mods: the public names that
    gate 1's path_ok allows though they are not device functions
    (callables, classes or modules for which is_device is false), and the
    device functions it refuses, as {path: (allowed, refused)}. Plain
    values (numbers, strings) are neither; the paths in skip
    (PATH.NAME) are not looked at."""
    out = {}
    for path, mod in mods:
        allowed, refused = [], []
        for name in sorted(dir(mod)):
            if name.startswith("_") or f"{path}.{name}" in skip:
                continue
            obj = getattr(mod, name)
            device = bool(is_device(obj))
            if not device and not (callable(obj) or isinstance(obj, types.ModuleType)):
                continue
            ok_path = path_ok(f"{path}.{name}", set())
            if device and not ok_path:
                refused.append(name)
            elif not device and ok_path:
                allowed.append(name)
        out[path] = (allowed, refused)
    return out


def stubs_dispatched(is_device, backend, stub_module="triton.language.extra.libdevice"):
    """is_device, and also true for a stub of Triton's libdevice module
    (`def abs(arg0): ...`), which Triton's compiler replaces by the
    backend's function of the same name (backend: that module) where the
    backend has it as a device function"""
    def device(o):
        if is_device(o):
            return True
        name = getattr(o, "__name__", None)
        return (getattr(o, "__module__", None) == stub_module and callable(o) and name is not None
                and backend is not None and bool(is_device(getattr(backend, name, None))))
    return device


def check_module_names():
    """module_names on this Triton's tl.math and libdevice modules and
    this torch's triton_helpers"""
    import triton.language as tl
    from triton.language.core import is_builtin
    from triton.runtime.jit import JITFunction

    from kopt import static_lists as L

    mods = [("triton.language.math", tl.math)]
    for path, get in (("triton.language.extra.libdevice", lambda: tl.extra.libdevice),
                      ("triton.language.extra.cuda.libdevice", lambda: tl.extra.cuda.libdevice)):
        try:
            mods.append((path, get()))
        except AttributeError as e:
            skip(f"{path}: its names", e)
    try:
        from torch._inductor.runtime import triton_helpers
        # its libdevice and math are the modules above, reached through it
        mods.append((L.INDUCTOR_RUNTIME + ".triton_helpers", triton_helpers))
    except ImportError as e:
        skip("triton_helpers: its names", e)
    def is_device(o):
        return isinstance(o, JITFunction) or is_builtin(o)
    backend = dict(mods).get("triton.language.extra.cuda.libdevice")
    found = module_names(mods, L.path_ok, stubs_dispatched(is_device, backend),
                         skip=(L.INDUCTOR_RUNTIME + ".triton_helpers.libdevice",
                               L.INDUCTOR_RUNTIME + ".triton_helpers.math"))
    for path, (allowed, refused) in found.items():
        ok(not allowed, f"{path}: gate 1 refuses every public name that is not a device function",
           f"allowed: {allowed}")
        ok(not refused, f"{path}: gate 1 allows every device function", f"refused: {refused}")


def _raw_triton_source(lines, fn):
    """triton_source without its checks (the escape files fail them)."""
    import inspect
    import re
    import textwrap

    first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
    src = textwrap.dedent("".join(inspect.getblock(lines[first - 1:])))
    return src[re.search(r"^def\s+\w+\s*\(", src, re.MULTILINE).start():]


def check_max_block() -> None:
    """gate 1's largest block per axis (static_config.INDUCTOR_MAX_BLOCK,
    copied: the module imports no torch) is this torch's TRITON_MAX_BLOCK,
    which its kernels' dropped masks assume"""
    from kopt import static_config as SC
    try:
        from torch._inductor.runtime.hints import TRITON_MAX_BLOCK
    except ImportError as e:
        skip("static_config.INDUCTOR_MAX_BLOCK against torch's TRITON_MAX_BLOCK", str(e))
        return
    want = {k + "BLOCK": v for k, v in TRITON_MAX_BLOCK.items()}
    ok(SC.INDUCTOR_MAX_BLOCK == want, "static_config.INDUCTOR_MAX_BLOCK is this torch's TRITON_MAX_BLOCK",
       f"{SC.INDUCTOR_MAX_BLOCK} against {want}")


def main() -> int:
    try:
        import triton  # noqa: F401
    except ImportError as e:
        print(f"1..0 # SKIP no triton: {e}")
        return 0
    static = os.path.join(top, "tests", "static")
    with tempfile.TemporaryDirectory(prefix="kopt-gate-reading-") as d:
        for kind in ("orig", "good", "memcheck"):
            for path in sorted(glob.glob(os.path.join(static, kind, "*.py"))):
                check_file(path, d, other=False)
        for path in sorted(glob.glob(os.path.join(static, "bad", "text_triton_reads_*.py"))):
            check_file(path, d, other=True)
        from kopt import kernels as K

        vadd = open(os.path.join(static, "good", "standalone_vadd_kernel_only.py")).read()
        base = types.ModuleType("kopt_gate_reading_base")
        exec(compile("import triton\nimport triton.language as tl\n", "<base>", "exec"), base.__dict__)
        obj = jit_of(K.load_jit("vadd_kernel", vadd, base))
        fn = next(f for f in ast.parse(vadd).body if isinstance(f, ast.FunctionDef))
        ok(obj is not None and obj.src == T.triton_source(T.source_lines(vadd), fn),
           "kopt.kernels.load_jit: Triton's source is the gate's reading", obj.src if obj else "no JITFunction")
        linecache.clearcache()
    check_module_names()
    check_max_block()
    print(f"1..{n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
