"""tests/runtime/test_preflight.py: kopt.preflight, the check kopt-worker and
configure make before torch is imported, against TEST DOUBLES of torch and
triton: tiny packages written to a temp folder that only carry the
attributes preflight reads (__version__, version.cuda,
cuda.is_available()), or that fail to import. Each case runs in a fresh
interpreter with the doubles first on its path. Prints TAP."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
PY = os.path.join(top, "runtime", "python")




def fake_torch(d, version="2.11.0", cuda="13.0", available=True, broken=None):
    os.makedirs(os.path.join(d, "torch"))
    with open(os.path.join(d, "torch", "__init__.py"), "w") as f:
        f.write("# a test double of torch: only what kopt.preflight reads\n")
        if broken:
            f.write(f"raise {broken}\n")
        f.write(f"__version__ = {version!r}\n")
        f.write(f"class version:\n    cuda = {cuda!r}\n")
        f.write(f"class cuda:\n    @staticmethod\n    def is_available():\n        return {available!r}\n")


def fake_triton(d):
    os.makedirs(os.path.join(d, "triton"))
    with open(os.path.join(d, "triton", "__init__.py"), "w") as f:
        f.write("# a test double of triton\n__version__ = '3.6.0'\n")


def run(d, code, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([d, PY]), PYTHONNOUSERSITE="1")
    # -S: no site-packages, so a torch installed on this machine cannot stand in for the doubles
    return subprocess.run([sys.executable, "-S", "-c", code, *args], env=env, capture_output=True, text=True)


def missing(d, gpu=True):
    r = run(d, f"import kopt.preflight as p; print(repr(p.missing(gpu={gpu}, python='PY')))")
    return eval(r.stdout) if r.returncode == 0 else r.stderr


cases = [
    ("nothing installed", {}, True, ["PY has no torch and no triton"]),
    ("triton without torch", {"triton": True}, True, ["PY has no torch"]),
    ("torch without triton", {"torch": {}}, True, ["PY has no triton"]),
    ("torch 2.4 is too old", {"torch": {"version": "2.4.1+cu121"}, "triton": True}, True,
     ["its torch 2.4.1+cu121 is older than 2.6"]),
    ("torch 2.10 is not older than 2.6 (numeric, not text, order)", {"torch": {"version": "2.10.0"}, "triton": True},
     True, []),
    ("a CPU-only torch", {"torch": {"version": "2.11.0+cpu", "cuda": None}, "triton": True}, True,
     ["its torch 2.11.0+cpu is built without CUDA"]),
    ("torch that sees no GPU", {"torch": {"available": False}, "triton": True}, True,
     ["torch 2.11.0 sees no CUDA GPU"]),
    ("configure's check asks no GPU", {"torch": {"available": False}, "triton": True}, False, []),
    ("everything there", {"torch": {}, "triton": True}, True, []),
    ("a torch that fails to import says what it said",
     {"torch": {"broken": "OSError('libcudart.so.13: cannot open shared object file')"}, "triton": True}, True,
     ["torch does not import in PY (OSError: libcudart.so.13: cannot open shared object file)"]),
]
for name, pk, gpu, want in cases:
    with tempfile.TemporaryDirectory() as d:
        if "torch" in pk:
            fake_torch(d, **pk["torch"])
        if pk.get("triton"):
            fake_triton(d)
        got = missing(d, gpu)
        ok(got == want, f"missing(): {name}", f"got {got!r}, want {want!r}")

with tempfile.TemporaryDirectory() as d:
    r = run(d, "import kopt.preflight as p; print(p.problem('no NVIDIA driver (libcuda.so.1 is not found)', 'PY'))")
    line = r.stdout.strip()
    ok(line.startswith("no NVIDIA driver (libcuda.so.1 is not found); PY has no torch and no triton: ")
       and "torch >= 2.6 with triton" in line and "pip install" in line,
       "problem(): one sentence, what is missing first, then how to get it", line or r.stderr)
    fake_torch(d, available=False)
    fake_triton(d)
    r = run(d, "import kopt.preflight as p; print(p.problem('no NVIDIA GPU (the driver sees none)', 'PY'))")
    ok(r.stdout.startswith("no NVIDIA GPU (the driver sees none): the GPU path"),
       "problem(): a missing GPU is said once (the driver's word, not torch's again)", r.stdout or r.stderr)

with tempfile.TemporaryDirectory() as d:
    fake_torch(d)
    fake_triton(d)
    r = run(d, "import kopt.preflight as p; print(p.problem('', 'PY'))")
    ok(r.stdout.strip() == "None", "problem(): None when nothing is missing", r.stdout or r.stderr)

with tempfile.TemporaryDirectory() as d:
    script = os.path.join(PY, "kopt", "preflight.py")
    env = dict(os.environ, PYTHONPATH=d, PYTHONNOUSERSITE="1")
    r = subprocess.run([sys.executable, "-S", script, "--packages", "--as", "/opt/py"], env=env,
                       capture_output=True, text=True)
    ok(r.returncode == 1 and r.stdout == "/opt/py has no torch and no triton\n",
       "the script (configure's check): one line and exit 1 when torch is missing", (r.returncode, r.stdout, r.stderr))
    fake_torch(d, available=False)
    fake_triton(d)
    r = subprocess.run([sys.executable, "-S", script, "--packages"], env=env, capture_output=True, text=True)
    ok(r.returncode == 0 and r.stdout == "", "the script: silent and exit 0 when the packages are there (no GPU asked)",
       (r.returncode, r.stdout, r.stderr))

r = subprocess.run([sys.executable, "-S", "-c", "import sys; sys.path.insert(0, sys.argv[1]); import kopt.preflight; "
                    "print('torch' in sys.modules)", PY], capture_output=True, text=True)
ok(r.stdout.strip() == "False", "importing kopt.preflight imports no torch", r.stdout or r.stderr)

done()
