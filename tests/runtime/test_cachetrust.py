"""tests/runtime/test_cachetrust.py: kopt.backend compiles nothing where
another user may write Inductor's or Triton's cache folder
(kopt.cachetrust), no torch needed. A folder of this user's, mode 0700
or 0755, passes; one writable by every user, by a group not the user's
own, or (as root, which can give it away) another user's is refused, as
is one below such a folder or reached through a link into one; a sticky
folder of root's above the cache (/tmp) is allowed, the cache folder
itself sticky is not; a cache folder not there is made, mode 0700. End
to end: with a file planted in an Inductor cache folder that every user
may write (there, at the path of a sealed kernel's text, Inductor's code
cache would run it in that kernel's place), kopt.backend raises
UntrustedCache before the kernel loader is called (the loader is
replaced by one that says so, a TEST DOUBLE) and the file never runs.
Prints TAP."""
import json
import os
import stat
import subprocess
import sys
import tempfile

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, skip, done  # noqa: E402

from kopt import cachetrust as C  # noqa: E402
from kopt import seal as S  # noqa: E402

base = tempfile.mkdtemp(prefix="cachetrust-")
os.chmod(base, 0o755)   # mkdtemp's 0700; the folders above it are the system's


def folder(name: str, mode: int) -> str:
    p = os.path.join(base, name)
    os.makedirs(p, exist_ok=True)
    os.chmod(p, mode)
    return p


def refused(path: str) -> str:
    """the refusal's message for path as Inductor's cache folder, or ''"""
    try:
        C.check_folder("Inductor", "TORCHINDUCTOR_CACHE_DIR", path)
    except C.UntrustedCache as e:
        return str(e)
    return ""


ok(not refused(folder("mine", 0o700)) and not refused(folder("mine755", 0o755)),
   "a folder of this user's, mode 0700 or 0755, passes")
m = refused(folder("open", 0o777))
ok("writable by every user (mode 777)" in m and "set TORCHINDUCTOR_CACHE_DIR" in m and "nothing is compiled" in m,
   "a folder every user may write is refused, saying why and what to set", m)
ok(refused(folder("sticky", 0o1777)), "the cache folder itself sticky and open to all is refused (others add entries)")
inner = os.path.join(folder("openparent", 0o777), "cache")
os.makedirs(inner, exist_ok=True)
os.chmod(inner, 0o700)
m = refused(inner)
ok(os.path.join(base, "openparent") + " is writable by every user" in m,
   "a folder of this user's below one every user may write is refused, naming that one", m)
link = os.path.join(folder("links", 0o755), "to-open")
os.symlink(os.path.join(base, "open"), link)
ok("writable by every user" in refused(link), "a link of this user's to a folder every user may write is refused")
made = os.path.join(folder("fresh", 0o755), "a", "cache")
ok(not refused(made) and os.path.isdir(made) and stat.S_IMODE(os.stat(made).st_mode) == 0o700,
   "a cache folder not there yet is made, mode 0700, and passes")
tmpst = os.stat(tempfile.gettempdir())
if tmpst.st_uid == 0 and tmpst.st_mode & stat.S_ISVTX and tmpst.st_mode & stat.S_IWOTH:
    ok(C.why_not(tempfile.gettempdir(), leaf=False) is None and C.why_not(tempfile.gettempdir(), leaf=True),
       "a sticky folder of root's open to all (the temporary folder) is allowed above the cache, not as it")
else:
    skip("a sticky folder of root's above the cache is allowed", "the temporary folder is not one")

group = folder("group", 0o770)
if C._private_group(os.stat(group).st_gid):
    ok(not refused(group), "group write where the group is the user's own private group passes")
else:
    ok("writable by its group" in refused(group), "group write by a group that is not the user's own is refused")

if os.geteuid() == 0:
    other = folder("other", 0o755)
    os.chown(other, 65534, 65534)
    ok("belongs to another user (uid 65534)" in refused(other), "another user's folder is refused")
else:
    skip("another user's folder is refused", "only root can give a folder away")

os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(base, "mine")
os.environ["TRITON_CACHE_DIR"] = os.path.join(base, "open")
try:
    C.check()
    m = ""
except C.UntrustedCache as e:
    m = str(e)
ok("Triton's cache folder" in m and "TRITON_CACHE_DIR" in m and isinstance(C.UntrustedCache(""), S.SealError),
   "check: Triton's folder is checked too; the error is a SealError", m)

# end to end: a sealed table, and a file planted where Inductor's code cache
# would find the text kopt.kernels.load_kernel loads for its kernel
key = "5e" * 32
out = os.path.join(base, "kopt-out", "m")
os.makedirs(out)
name, src = "triton_poi_fused_0", "@triton.jit\ndef triton_poi_fused_0(in_ptr0):\n    pass\n"
with open(os.path.join(out, "substitutions.json"), "w") as f:
    json.dump({"variant": {"name": "default"}, "kernels": {"h": {"kernel": name, "source": src}}, "gates": {}}, f)
S.write(out, ["substitutions.json"], bytes.fromhex(key))
planted = os.path.join(base, "open", "cq", "cplanted.py")
os.makedirs(os.path.dirname(planted), exist_ok=True)
mark = os.path.join(base, "ran")
with open(planted, "w") as f:
    f.write(f"open({mark!r}, 'w').write('ran')\n")
code = """
import sys
import kopt
from kopt import kernels, seal
def called(*a, **k):
    print("the kernel loader was called")
    raise SystemExit(3)
kernels.load_kernel = called
try:
    kopt.backend(sys.argv[1])
    print("made")
except seal.SealError as e:
    print(type(e).__name__, e)
"""
env = dict(os.environ, PYTHONPATH=os.path.join(top, "runtime", "python"), KOPT_SEAL_KEY=key,
           TORCHINDUCTOR_CACHE_DIR=os.path.join(base, "open"), TRITON_CACHE_DIR=os.path.join(base, "mine"))
r = subprocess.run([sys.executable, "-c", code, out], env=env, capture_output=True, text=True)
ok(r.stdout.startswith("UntrustedCache kopt: Inductor's cache folder") and not os.path.exists(mark) and
   "loader was called" not in r.stdout,
   "kopt.backend under an Inductor cache every user may write raises UntrustedCache before any kernel loads",
   r.stdout + r.stderr)
env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(base, "mine")
r = subprocess.run([sys.executable, "-c", code, out], env=env, capture_output=True, text=True)
ok(r.stdout.strip() == "made", "... and under folders of this user's alone the backend is made", r.stdout + r.stderr)
done()
