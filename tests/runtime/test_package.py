"""tests/runtime/test_package.py: runtime/python as a package, on a machine
without torch.

- `pip install --no-build-isolation --no-index --target DIR runtime/python`
  works offline (the in-tree build backend, runtime/python/_build), and
  `import kopt` from DIR works in a plain interpreter, importing no torch;
- the installed metadata: version, Requires-Python, torch >= 2.6 and triton
  (the `gpu` extra), and the `torch_dynamo_backends` entry point `kopt`,
  which loads kopt.dynamo_backend;
- backend="kopt": the registration code path against a TEST DOUBLE of
  torch._dynamo (a fake `torch` package written to a temp folder, whose
  register_backend and lookup_backend follow torch 2.6's registry: a
  duplicate name is an AssertionError, an unknown name is looked up in the
  entry points), and the options torch.compile passes (dir, check, mode,
  KOPT_DEPLOY_DIR).
Prints TAP."""

import json
import os
import subprocess
import sys
import tempfile
import zipfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, skip, done  # noqa: E402

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
SRC = os.path.abspath(os.path.join(top, "runtime", "python"))






def py(code, path, env=None, *args):
    """runs code in a plain interpreter (-S: no site-packages) with path first on sys.path"""
    e = dict(os.environ, PYTHONNOUSERSITE="1")
    e.pop("PYTHONPATH", None)
    e.pop("KOPT_DEPLOY_DIR", None)
    e.update(env or {})
    pre = "import sys; sys.path[:0] = " + repr(path) + "\n"
    return subprocess.run([sys.executable, "-S", "-c", pre + code, *args], env=e, capture_output=True, text=True)


TORCH_DOUBLE = '''"""A TEST DOUBLE of torch._dynamo's backend registry (torch 2.6's
torch/_dynamo/backends/registry.py, reduced): register_backend refuses a
duplicate name with an AssertionError; lookup_backend looks a name it does
not know up in the torch_dynamo_backends entry points and registers what it
loads."""
from importlib.metadata import entry_points

_COMPILER_FNS = {}
calls = []


def register_backend(compiler_fn=None, name=None, tags=()):
    name = name or compiler_fn.__name__
    calls.append(name)
    assert name not in _COMPILER_FNS, f"duplicate name: {name}"
    _COMPILER_FNS[name] = compiler_fn
    return compiler_fn


def lookup_backend(name):
    if name not in _COMPILER_FNS:
        eps = entry_points(group="torch_dynamo_backends")
        if name not in eps.names:
            raise KeyError(f"invalid backend {name}")
        register_backend(compiler_fn=eps[name].load(), name=name)
    return _COMPILER_FNS[name]
'''


def fake_torch(d):
    os.makedirs(os.path.join(d, "torch", "_dynamo"))
    with open(os.path.join(d, "torch", "__init__.py"), "w") as f:
        f.write('"""A TEST DOUBLE of torch: only the backend registry."""\n__version__ = "2.11.0+double"\n')
    with open(os.path.join(d, "torch", "_dynamo", "__init__.py"), "w") as f:
        f.write(TORCH_DOUBLE)


tmp = tempfile.mkdtemp(prefix="kopt-package-")
target = os.path.join(tmp, "site")
r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
have_pip = r.returncode == 0
if have_pip:
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-cache-dir",
                        "--disable-pip-version-check", "-q", "--target", target, SRC],
                       capture_output=True, text=True, env=dict(os.environ, PIP_NO_INPUT="1"))
    ok(r.returncode == 0, "pip install --no-build-isolation --no-index --target DIR runtime/python works offline",
       r.stdout + r.stderr)
else:
    skip("pip install --target", "no pip for " + sys.executable)
    # the backend's own wheel, unpacked, stands in for what pip would install
    sys.path.insert(0, os.path.join(SRC, "_build"))
    import kopt_build  # noqa: E402

    os.makedirs(target)
    whl = kopt_build.build_wheel(tmp)
    with zipfile.ZipFile(os.path.join(tmp, whl)) as z:
        z.extractall(target)

r = py("import kopt; print(kopt.__version__, kopt.__file__, 'torch' in sys.modules)", [target])
ver, where, torch_loaded = (r.stdout.split() + ["", "", ""])[:3]
ok(r.returncode == 0 and where == os.path.join(target, "kopt", "__init__.py"),
   "import kopt works in a plain interpreter, from DIR", r.stdout + r.stderr)
ok(torch_loaded == "False", "importing kopt imports no torch", r.stdout + r.stderr)
with open(os.path.join(SRC, "kopt", "__init__.py")) as f:
    want_ver = [ln.split('"')[1] for ln in f if ln.startswith("__version__")][0]
ok(ver == want_ver, f"the version is kopt/__init__.py's ({ver})")

r = py("import importlib.metadata as m, json\n"
       "d = m.distribution('kopt')\n"
       "eps = m.entry_points(group='torch_dynamo_backends')\n"
       "ep = eps['kopt'] if 'kopt' in eps.names else None\n"
       "import kopt\n"
       "print(json.dumps({'version': d.version, 'python': d.metadata['Requires-Python'],\n"
       "  'requires': d.requires, 'ep': ep.value if ep else None,\n"
       "  'loads': bool(ep) and ep.load() is kopt.dynamo_backend}))", [target])
try:
    meta = json.loads(r.stdout)
except ValueError:
    meta = {}
ok(meta.get("version") == want_ver and meta.get("python") == ">=3.10",
   "the installed metadata: version and Requires-Python >= 3.10", r.stdout + r.stderr)
ok(sorted(meta.get("requires") or []) == sorted(['torch>=2.6; extra == "gpu"', 'triton; extra == "gpu"']),
   "the installed metadata declares torch >= 2.6 and triton (the gpu extra)", meta.get("requires"))
ok(meta.get("ep") == "kopt:dynamo_backend" and meta.get("loads") is True,
   "entry point torch_dynamo_backends: kopt = kopt:dynamo_backend, and it loads", r.stdout + r.stderr)

# the registration, against the torch._dynamo double
fakes = os.path.join(tmp, "fakes")
fake_torch(fakes)
r = py("import torch._dynamo as d\nfn = d.lookup_backend('kopt')\nimport kopt\n"
       "print(fn is kopt.dynamo_backend, d.calls)", [fakes, target])
ok(r.stdout.strip() == "True ['kopt']",
   "backend='kopt' without importing kopt: torch's lookup finds it through the entry point", r.stdout + r.stderr)
r = py("import torch._dynamo as d\nimport kopt\nprint(d._COMPILER_FNS.get('kopt') is kopt.dynamo_backend, "
       "kopt.register(), d.lookup_backend('kopt') is kopt.dynamo_backend)", [fakes, SRC])
ok(r.stdout.strip() == "True False True",
   "kopt on the path (no metadata), imported after torch: registered on import, once; register() again is harmless",
   r.stdout + r.stderr)
r = py("import kopt\nprint('torch' in sys.modules)\nprint(kopt.register())\nimport torch._dynamo as d\n"
       "print(d.lookup_backend('kopt') is kopt.dynamo_backend)", [fakes, SRC])
ok(r.stdout.split() == ["False", "True", "True"],
   "kopt imported before torch: nothing registered on import, kopt.register() does it", r.stdout + r.stderr)
r = py("import torch._dynamo as d\nimport kopt\nprint(d.lookup_backend('kopt') is kopt.dynamo_backend, d.calls)",
       [fakes, target])
ok(r.stdout.strip() == "True ['kopt']",
   "installed kopt imported after torch: the entry point and the import register it once between them",
   r.stdout + r.stderr)

# the options torch.compile passes
table = os.path.join(tmp, "kopt-out", "m")
os.makedirs(table)
with open(os.path.join(table, "substitutions.json"), "w") as f:
    json.dump({"variant": {"name": "default"}, "kernels": {}, "gates": {}}, f)
# sealed as koptmake seals it (kopt.seal), under a key of the test's own
SEAL_KEY = "5e" * 32
sys.path.insert(0, SRC)
from kopt import seal  # noqa: E402

seal.write(table, ["substitutions.json"], bytes.fromhex(SEAL_KEY))
sys.path.remove(SRC)
code = ("import kopt\nb = kopt.backend_for({'dir': sys.argv[1], 'check': False})\n"
        "print(b.table.path == sys.argv[1] + '/substitutions.json', kopt.backend_for({'dir': sys.argv[1], 'check': False}) is b)")
r = py(code, [SRC], {"KOPT_SEAL_KEY": SEAL_KEY}, table)
ok(r.stdout.strip() == "True True",
   "options={'dir': ...}: the model's table; the same options give the same backend (one table for every graph)",
   r.stdout + r.stderr)
r = py("import kopt\nprint(kopt.backend_for(None).table.path)", [SRC], {"KOPT_DEPLOY_DIR": table, "KOPT_SEAL_KEY": SEAL_KEY})
ok(r.stdout.strip() == os.path.join(table, "substitutions.json"), "KOPT_DEPLOY_DIR stands for options={'dir': ...}",
   r.stdout + r.stderr)
r = py("import kopt\ntry:\n    kopt.dynamo_backend(None, [], options={})\nexcept ValueError as e:\n    print(e)", [SRC])
ok("options={\"dir\": \"kopt-out/MODEL\"}" in r.stdout and "KOPT_DEPLOY_DIR" in r.stdout,
   "no dir: the error says how to give one", r.stdout + r.stderr)
r = py("import kopt\ntry:\n    kopt.backend_for({'dir': sys.argv[1]}, mode='max-autotune')\nexcept ValueError as e:\n    print(e)",
       [SRC], None, table)
ok("leave mode unset" in r.stdout, "a mode is refused: the table's variant decides it", r.stdout + r.stderr)

# the wheel the backend builds: RECORD's hashes are the files'
sys.path.insert(0, os.path.join(SRC, "_build"))
import kopt_build  # noqa: E402

wdir = os.path.join(tmp, "wheel")
os.makedirs(wdir)
whl = kopt_build.build_wheel(wdir)
import base64  # noqa: E402
import hashlib  # noqa: E402

with zipfile.ZipFile(os.path.join(wdir, whl)) as z:
    names = z.namelist()
    rec = z.read(f"kopt-{want_ver}.dist-info/RECORD").decode().split()
    bad = []
    for line in rec:
        path, h, size = line.rsplit(",", 2)
        if not h:
            continue
        data = z.read(path)
        d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        if h != "sha256=" + d or int(size) != len(data):
            bad.append(path)
ok(whl == f"kopt-{want_ver}-py3-none-any.whl" and not bad and len(rec) == len(names),
   f"the wheel ({whl}): RECORD lists every file with its hash", bad)
ok("kopt/preflight.py" in names and not [x for x in names if "_build" in x or x.endswith(".pyc")],
   "the wheel holds the package and nothing of the build", names)

import shutil  # noqa: E402


shutil.rmtree(tmp)
# make install and make dist ship runtime/local.mk's list: every module of
# the package must be on it (helion.py was not, and an installed worker
# failed at its import)
mk = open(os.path.join(top, "runtime", "local.mk")).read()
listed = {ln.strip().rstrip("\\").strip() for ln in mk.split("KOPT_PY_FILES =", 1)[1].split("\n\n")[0].splitlines()}
mods = {f"runtime/python/kopt/{f}" for f in os.listdir(os.path.join(SRC, "kopt")) if f.endswith(".py")}
ok(mods <= listed, "runtime/local.mk's KOPT_PY_FILES lists every kopt/*.py", sorted(mods - listed))

done()
