"""tests/runtime/test_friendly.py: the kopt package's errors say what to do
(issue 44), with no traceback of their own behind them (no "During
handling of the above exception"):

- kopt.backend("kopt-out/x") before any build raises NotBuiltError, a
  FileNotFoundError, that says to run koptmake; an output folder without
  substitutions.json says its build has not finished; kopt.helion_config
  likewise;
- kopt.register() where torch.compile cannot be had raises an ImportError
  that says torch >= 2.6 is needed, how to get it and what this Python
  has: no torch (torch hidden from the import system), torch 1.13 (a TEST
  DOUBLE: a `torch` package of version 1.13.1 and nothing else), and this
  interpreter's own torch, whichever it has (Debian's python3-torch 1.13,
  or none);
- a worker's error for a file its sandbox denied (kopt.errors.error_line:
  a model that reads a module beside the spec's folders) says how to let
  it be read, naming the file's folder; a denied file inside the allowed
  folders, or outside any sandbox, gets no such advice.
Prints TAP."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.abspath(os.path.join(top, "runtime", "python"))
tmp = tempfile.mkdtemp(prefix="kopt-friendly-")


def run(code, path=(), cwd=tmp):
    """code in this interpreter, kopt (and path) first on sys.path; its
    uncaught error as Python prints it"""
    env = dict(os.environ, PYTHONNOUSERSITE="1")
    env.pop("PYTHONPATH", None)
    env.pop("KOPT_DEPLOY_DIR", None)
    pre = "import sys; sys.path[:0] = " + repr([*path, SRC]) + "\n"
    return subprocess.run([sys.executable, "-c", pre + code], env=env, cwd=cwd, capture_output=True, text=True)


def last(r):
    lines = r.stderr.strip().splitlines()
    return lines[-1] if lines else ""


def plain(r):
    """one error, no chain behind it"""
    return "During handling" not in r.stderr and "direct cause" not in r.stderr


r = run("import kopt\nkopt.backend('kopt-out/x')")
ok(r.returncode == 1 and last(r).startswith("kopt.deploy.NotBuiltError: kopt: no 'kopt-out/x' here: koptmake has not "
                                           "built this model yet (run koptmake") and plain(r),
   "kopt.backend('kopt-out/x') before any build: NotBuiltError, run koptmake", r.stderr)
r = run("import kopt\ntry:\n    kopt.backend('kopt-out/x')\nexcept FileNotFoundError as e:\n    print('caught', type(e).__name__)")
ok(r.stdout.strip() == "caught NotBuiltError", "... a FileNotFoundError, as it was", r.stdout + r.stderr)
os.makedirs(os.path.join(tmp, "kopt-out", "y"))
r = run("import kopt\nkopt.backend('kopt-out/y')")
ok(last(r).startswith("kopt.deploy.NotBuiltError: kopt: 'kopt-out/y' has no substitutions.json: its model's build has "
                      "not finished") and "koptmake -t why stitch MODEL" in last(r) and plain(r),
   "an output folder without substitutions.json: its build has not finished, and how to see why", r.stderr)
r = run("import kopt\nkopt.backend('kopt-out/x', check=False)")
ok(r.returncode == 1 and "NotBuiltError" in last(r), "... whatever the options", r.stderr)
r = run("import kopt\nkopt.helion_config('kopt-out/y', 'softmax')")
ok(last(r).startswith("kopt.deploy.NotBuiltError: kopt: 'kopt-out/y' has no helion.json") and plain(r),
   "kopt.helion_config before a build: the same, for helion.json", r.stderr)

NEED = "kopt: kopt.register() needs torch >= 2.6 (torch.compile): pip install 'torch>=2.6' triton; "
r = run("sys.modules['torch'] = None\nimport kopt\nkopt.register()")
ok(r.returncode == 1 and last(r) == f"ModuleNotFoundError: {NEED}{sys.executable} has no torch" and plain(r),
   "kopt.register() without torch: what is needed, how to get it, and that this Python has none", r.stderr)
old = os.path.join(tmp, "old")
os.makedirs(os.path.join(old, "torch"))
with open(os.path.join(old, "torch", "__init__.py"), "w") as f:
    f.write('"""A TEST DOUBLE of torch 1.13: a version and nothing else."""\n__version__ = "1.13.1"\n')
r = run("import kopt\nkopt.register()", [old])
ok(r.returncode == 1 and last(r) == f"ImportError: {NEED}{sys.executable} has torch 1.13.1" and plain(r),
   "kopt.register() with torch 1.13: what is needed, and the torch this Python has", r.stderr)
r = run("import kopt\nkopt.register()")
try:
    import torch  # noqa: F401
    has = f"has torch {torch.__version__}"
except ImportError:
    has = "has no torch"
ok(r.returncode == 1 and last(r).endswith(f"{NEED}{sys.executable} {has}") and plain(r),
   f"kopt.register() with this interpreter's own ({sys.executable}: it {has})", r.stderr)
ok("No module named" not in r.stderr, "... and no bare 'No module named'", r.stderr)

ERR = """import os, sys
from kopt.errors import error_line
def load(path):
    try:
        raise PermissionError(13, "Permission denied", path)
    except PermissionError as e:
        if len(sys.argv) > 1:
            raise ImportError("the model's module") from e
        raise
for path in %r:
    try:
        load(path)
    except Exception as e:
        print(error_line(e))
"""


def errors(paths, sandbox_read, chained=False):
    env = dict(os.environ)
    env.pop("KOPT_SANDBOX_READ", None)
    env.pop("KOPT_SANDBOX_WRITE", None)
    if sandbox_read is not None:
        env["KOPT_SANDBOX_READ"] = sandbox_read
    argv = ["chained"] if chained else []
    r = subprocess.run([sys.executable, "-c", "import sys; sys.path[:0] = [%r]\n" % SRC + ERR % (paths,), *argv],
                       env=env, capture_output=True, text=True)
    return r.stdout.splitlines()


lines = errors(["/srv/models/base/blocks.py", "/srv/spec/m.py", "/srv/spec2/m.py"], "/srv/spec:/opt/more")
ok(len(lines) == 3 and lines[0].startswith("PermissionError: [Errno 13] Permission denied: '/srv/models/base/blocks.py' (")
   and "add /srv/models/base to allow_roots in the spec's defaults block, or to KOPT_SANDBOX_READ)" in lines[0],
   "a file the sandbox denied outside the spec's folders: its folder, to allow_roots or KOPT_SANDBOX_READ", lines)
ok(len(lines) == 3 and lines[1] == "PermissionError: [Errno 13] Permission denied: '/srv/spec/m.py'",
   "a denied file inside an allowed folder: no advice", lines)
ok(len(lines) == 3 and "allow_roots" in lines[2], "a folder whose name begins with an allowed one's is not inside it", lines)
lines = errors(["/srv/models/blocks.py"], "/srv/spec", chained=True)
ok(len(lines) == 1 and lines[0].startswith("ImportError: the model's module (") and "add /srv/models to allow_roots" in lines[0],
   "the advice for a denied file that another error was raised from", lines)
r = subprocess.run([sys.executable, "-c", "import sys; sys.path[:0] = [%r]\n" % SRC +
                    "from kopt.errors import error_line\ne = PermissionError(13, 'Permission denied')\n"
                    "e.filename = 3\nprint(error_line(e))"],
                   env=dict(os.environ, KOPT_SANDBOX_READ="/srv/spec"), capture_output=True, text=True)
ok(r.returncode == 0 and r.stdout == "PermissionError: [Errno 13] Permission denied: 3\n",
   "a denied descriptor (no path): the error as it is, no advice", r.stdout + r.stderr)
lines = errors(["/srv/models/blocks.py"], None)
ok(lines == ["PermissionError: [Errno 13] Permission denied: '/srv/models/blocks.py'"],
   "outside any sandbox (no KOPT_SANDBOX_READ): no advice", lines)
done()
