"""tests/runtime/test_precompile.py: the screen's compile children
(kopt.precompile) on the CPU. The children here are test doubles (a
script that answers each request after a pause, one that exits, one that
answers garbage), but for the last check, which runs the real child
(``python -m kopt.precompile``) without a torch that can compile: its
reply says why. Needs no torch. Prints TAP."""

import json
import os
import sys
import tempfile
import time
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

from kopt import precompile as P  # noqa: E402

tmp = tempfile.mkdtemp(prefix="kopt-precompile-")
log = os.path.join(tmp, "log")


def child_script(body: str) -> list:
    path = os.path.join(tmp, f"child{abs(hash(body))}.py")
    with open(path, "w") as f:
        f.write("import json, os, sys, time\n" + body)
    return [sys.executable, path]


# a child double: answers each request after 0.3 s, logging its pid and the
# point, after a line that is not JSON and a reply that is not this point's
GOOD = child_script(f"""
for line in sys.stdin:
    req = json.loads(line)
    time.sleep(0.3)
    with open({log!r}, 'a') as f:
        f.write('%d %s\\n' % (os.getpid(), req['config']['XBLOCK']))
    print('a library says something on stdout', flush=True)
    print(json.dumps({{'id': req['id'] - 1, 'ok': True}}), flush=True)  # not this point's
    print(json.dumps({{'id': req['id'], 'ok': req['config']['XBLOCK'] != 13, 'error': 'bad config' if req['config']['XBLOCK'] == 13 else ''}}), flush=True)
""")
EXITS = child_script("sys.stdin.readline()\nsys.exit(3)\n")
GARBAGE = child_script("for line in sys.stdin:\n    for i in range(1000):\n        print('Traceback: not json')\n    sys.stdout.flush()\n")


def points(n, first=1):
    return [P.Point("triton_poi_fused_add_0", "def k(): pass\n", {"XBLOCK": first + i, "num_warps": 4}) for i in range(n)]


pool = P.Pool(3, GOOD).start()
ok(pool.alive == 3, "a pool of three children starts", pool.alive)
pts = pool.submit(points(9))
t0 = time.time()
waited = all(pt.done.wait(20) for pt in pts)
ok(waited and all(pt.ok for pt in pts), "every point sent is answered, compiled", [(pt.ok, pt.error) for pt in pts])
with open(log) as f:
    rows = [line.split() for line in f]
ok(sorted(int(r[1]) for r in rows) == list(range(1, 10)), "... each once", rows)
ok(len({r[0] for r in rows}) == 3, "... spread over the three children", rows)
bad = pool.submit(points(1, 13))[0]
ok(bad.done.wait(20) and not bad.ok and bad.error == "bad config", "a point that does not build: not ok, the child's reason",
   (bad.ok, bad.error))

# drop: what no child has taken yet is released at once
many = pool.submit(points(30, 100))
pool.drop()
released = [pt for pt in many if pt.error == "dropped"]
ok(len(released) >= 20 and all(pt.done.is_set() for pt in released),
   "a screen that stops early drops the points no child has taken", len(released))
ok(all(pt.done.wait(20) for pt in many), "... and the taken ones still finish")
pool.close()
ok(all(p.poll() is not None for p in pool.procs), "closing the pool ends its children", [p.poll() for p in pool.procs])

# children that exit: nothing waits forever, and the pool says it has none
dead = P.Pool(2, EXITS).start()
pts = dead.submit(points(5))
ok(all(pt.done.wait(20) for pt in pts) and not any(pt.ok for pt in pts),
   "children that exit: every point is released, none ok (the worker compiles them itself)",
   [(pt.ok, pt.error) for pt in pts])
deadline = time.time() + 10
while dead.alive and time.time() < deadline:
    time.sleep(0.05)
ok(dead.alive == 0, "... and the pool has no child left", dead.alive)
late = dead.submit(points(2, 50))
ok(all(pt.done.is_set() and not pt.ok for pt in late), "a pool without children releases what is sent at once")
dead.close()

junk = P.Pool(1, GARBAGE).start()
pt = junk.submit(points(1))[0]
ok(pt.done.wait(60) and not pt.ok and pt.error == "no reply for this point",
   "a child that answers no line of JSON: the point is released, not ok", pt.error)
junk.close()

# children still starting (a torch import): a point no child has taken is
# the worker's at once, and no child compiles it afterwards
open(log, "w").close()
SLOW = child_script(f"""
time.sleep(1.5)
for line in sys.stdin:
    req = json.loads(line)
    with open({log!r}, 'a') as f:
        f.write('%d %s\\n' % (os.getpid(), req['config']['XBLOCK']))
    print(json.dumps({{'id': req['id'], 'ok': True}}), flush=True)
""")
slow = P.Pool(1, SLOW).start()
first, second = slow.submit(points(2, 70))
t0 = time.time()
got = first.wait(10)
ok(not got and time.time() - t0 < 0.5, "a point no child has taken yet: the worker does not wait for it",
   (got, time.time() - t0))
second.wait(10)  # left to the worker too
ok(first.done.wait(10) and first.error == "skipped", "... and the child skips it", first.error)
slow.close()
with open(log) as f:
    ok("70" not in f.read().split(), "... compiling nothing for it")

# the worker's compile environment, as it is when a point is sent: a pool
# started before Inductor set its ptxas (and with a variable since unset)
# compiles with the worker's ptxas, and without that variable
envlog = os.path.join(tmp, "envlog")
# (Triton's NVIDIA backend in the child: a test double whose ptxas version
# is read once a process, as Triton's lru_cache does)
ENVS = child_script(f"""
import functools, types
nc = types.ModuleType('triton.backends.nvidia.compiler')
nc.get_ptxas_version = functools.lru_cache()(lambda arch=80: 'ptxas ' + str(os.environ.get('TRITON_PTXAS_PATH')))
for name in ('triton', 'triton.backends', 'triton.backends.nvidia'):
    sys.modules[name] = types.ModuleType(name)
sys.modules['triton.backends.nvidia'].compiler = nc
sys.modules['triton.backends.nvidia.compiler'] = nc
nc.get_ptxas_version(90)  # read before the worker's ptxas was set
from kopt.precompile import take_env
for line in sys.stdin:
    req = json.loads(line)
    take_env(req.get('env'))
    with open({envlog!r}, 'a') as f:
        f.write(json.dumps([os.environ.get('TRITON_PTXAS_PATH'), os.environ.get('MLIR_ENABLE_DUMP'),
                            nc.get_ptxas_version(90), nc.get_ptxas_version(100)]) + '\\n')
    print(json.dumps({{'id': req['id'], 'ok': True}}), flush=True)
""")
# the worker's side: Triton loaded, its ptxas version read (test doubles)
fake_nc = types.ModuleType("triton.backends.nvidia.compiler")
fake_nc.get_ptxas_version = lambda arch=80: "ptxas 13.0 (the worker's)"
fake_triton = types.SimpleNamespace(runtime=types.SimpleNamespace(driver=types.SimpleNamespace(
    active=types.SimpleNamespace(get_current_target=lambda: types.SimpleNamespace(arch=90)))))
had = {k: sys.modules.get(k) for k in ("triton", "triton.backends.nvidia.compiler")}
sys.modules["triton"], sys.modules["triton.backends.nvidia.compiler"] = fake_triton, fake_nc
os.environ.pop("TRITON_PTXAS_PATH", None)
os.environ["MLIR_ENABLE_DUMP"] = "1"
envs = P.Pool(1, ENVS).start()
os.environ["TRITON_PTXAS_PATH"] = "/opt/torch/bin/ptxas"
del os.environ["MLIR_ENABLE_DUMP"]
pt = envs.submit(points(1))[0]
ok(pt.done.wait(20) and pt.ok, "a child started before the worker's ptxas was set compiles a point", pt.error)
envs.close()
with open(envlog) as f:
    seen_env = [json.loads(x) for x in f]
for k, v in had.items():
    if v is None:
        sys.modules.pop(k, None)
    else:
        sys.modules[k] = v
ok([e[:2] for e in seen_env] == [["/opt/torch/bin/ptxas", None]],
   "... with the worker's TRITON_PTXAS_PATH as it was when the point was sent, and without a variable the worker "
   "unset since (Triton's cache key holds both: the child's entry is the worker's)", seen_env)
ok([e[2:] for e in seen_env] == [["ptxas 13.0 (the worker's)", "ptxas /opt/torch/bin/ptxas"]],
   "... and the ptxas version the worker's keys hold for its GPU's arch, where the child had read its own once before "
   "(another arch: the child's own, read now)", seen_env)
del os.environ["TRITON_PTXAS_PATH"]

# KOPT_COMPILE_JOBS
os.environ["KOPT_COMPILE_JOBS"] = "0"
ok(P.default_jobs() == 0 and P.pool() is None, "KOPT_COMPILE_JOBS=0: no pool")
os.environ["KOPT_COMPILE_JOBS"] = "5"
ok(P.default_jobs() == 5, "KOPT_COMPILE_JOBS=5: five children", P.default_jobs())
del os.environ["KOPT_COMPILE_JOBS"]
ok(0 <= P.default_jobs() <= P.MAX_JOBS, "by default, at most eight", P.default_jobs())

# the real child, where nothing can compile (no torch 2.11 here): it answers why
real = P.Pool(1).start()
pt = real.submit(points(1))[0]
ok(pt.done.wait(120) and not pt.ok and pt.error, "the real compile child answers a point it cannot build, with why",
   (pt.ok, pt.error))
real.close()
ok(real.procs and real.procs[0].returncode == 0, "... and exits when its stdin closes",
   [p.returncode for p in real.procs])
done()
