"""kopt.tunecache: a kernel loaded from Inductor's graph cache keeps the
launch config that coordinate descent found for it, as the autotuning
cache records it, so that its first run does not search again. No torch
needed: CachingAutotuner, check_autotune_cache and
triton_config_to_hashable are stand-ins (TEST DOUBLES of torch 2.11's, as
its recheck_autotune_cache behaves: a hit narrows the compile results
only where there were several, and does not carry the winner's mark),
and install() runs in a child against a stand-in torch package. Prints
TAP."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import tunecache as C  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
import standin as S  # noqa: E402


class Config:
    def __init__(self, block, warps, found=False):
        self.kwargs = {"XBLOCK": block}
        self.num_warps = warps
        self.found_by_coordesc = found


def hashable(c):
    return (tuple(sorted(c.kwargs.items())), c.num_warps)


class Result:
    def __init__(self, config):
        self.config = config


# the autotuning cache: the configs' hash -> its entry (a Config), and what
# each read was asked for
CACHE = {}
ASKED = []


def key(configs):
    return tuple(hashable(c) for c in configs)


def check(configs, filename, meta):
    ASKED.append((key(configs), filename))
    if meta.get("boom"):
        raise KeyError("a cache entry of another shape")
    hit = CACHE.get(key(configs))
    if hit is None:
        return configs, None, {"hit": False}
    best = Config(hit.kwargs["XBLOCK"], hit.num_warps, hit.found_by_coordesc)  # a fresh object, as read
    return [best], None, {"hit": True}


def stand_in():
    class CachingAutotuner:
        def __init__(self, configs, meta=None):
            self.compile_results = [Result(c) for c in configs]
            self.filename = "/cache/ab/kernel.py"
            self.inductor_meta = dict(meta or {})

        # torch 2.11's, reduced: a hit narrows only where several were compiled
        def recheck_autotune_cache(self, reload_kernel_from_src):
            configs = [r.config for r in self.compile_results]
            cached, _, info = check(configs, self.filename, self.inductor_meta)
            self.autotune_cache_info = info
            if len(cached) == 1 and len(configs) > 1:
                want = hashable(cached[0])
                for r in self.compile_results:
                    if hashable(r.config) == want:
                        self.compile_results = [r]
                        return

    return CachingAutotuner


def state(t):
    return [(hashable(r.config), r.config.found_by_coordesc) for r in t.compile_results]


A, B = Config(64, 4), Config(128, 8)
T = stand_in()
ok(C.wrap(T, check, hashable) and C.wrap(T, check, hashable), "wrap: the recheck wrapped, and a second time a no-op")
ok(getattr(vars(T)["recheck_autotune_cache"], "__wrapped__", None) is not None
   and not getattr(vars(T)["recheck_autotune_cache"].__wrapped__, "kopt_tune_cache", False),
   "... once: the wrapper wraps torch's own, not itself")

# one compiled config, coordinate descent's winner in the cache: torch's own
# recheck skips it (a single config); the wrapper marks it found
CACHE.clear()
CACHE[key([Config(64, 4)])] = Config(64, 4, found=True)
t = T([Config(64, 4)])
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(A), True)], "one compiled config, the cache's coordinate-descent winner: marked found",
   state(t))

# several compiled configs: torch narrows to the winner and leaves the mark off
CACHE.clear()
CACHE[key([A, B])] = Config(128, 8, found=True)
t = T([Config(64, 4), Config(128, 8)])
ASKED.clear()
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(B), True)], "two compiled, the winner the second: that one alone, marked found", state(t))
ok(len(ASKED) == 2 and ASKED[0] == ASKED[1] == (key([A, B]), "/cache/ab/kernel.py"),
   "... the cache read again for the configs the kernel was loaded with (their hash names the entry)", ASKED)

# an entry that is not coordinate descent's: left as torch leaves it
CACHE.clear()
CACHE[key([A, B])] = Config(128, 8, found=False)
t = T([Config(64, 4), Config(128, 8)])
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(B), False)], "the cache's winner not coordinate descent's: narrowed by torch, not marked",
   state(t))
CACHE[key([A])] = Config(64, 4, found=False)
t = T([Config(64, 4)])
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(A), False)], "... one config, the same: not marked", state(t))

# a miss: nothing changes
CACHE.clear()
t = T([Config(64, 4), Config(128, 8)])
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(A), False), (hashable(B), False)], "a miss: both configs kept, neither marked", state(t))

# a winner none of the compiled configs is (coordinate descent went past
# them): torch's own path, untouched
CACHE[key([A, B])] = Config(256, 8, found=True)
t = T([Config(64, 4), Config(128, 8)])
t.recheck_autotune_cache(lambda: None)
ok(state(t) == [(hashable(A), False), (hashable(B), False)],
   "a winner that no compiled config matches: left to torch (both kept, neither marked)", state(t))

# the addition failing: torch's result stands, the error said once, no raise
C._said = False
t = T([Config(64, 4), Config(128, 8)], meta={"boom": True})
err = tempfile.TemporaryFile("w+")
old, sys.stderr = sys.stderr, err
try:
    raised = None
    try:
        T.recheck_autotune_cache(t, lambda: None)
    except Exception as exc:  # torch's own check raises too here
        raised = exc
finally:
    sys.stderr = old
ok(isinstance(raised, KeyError), "a check that fails in torch's own recheck still fails there (not hidden)", raised)


def failing_check(configs, filename, meta):
    """the wrapper's own read failing (torch's recheck reads through check)"""
    raise KeyError("a cache entry of another shape")


T2 = stand_in()
C.wrap(T2, failing_check, hashable)
C._said = False
CACHE.clear()
CACHE[key([A, B])] = Config(128, 8, found=True)
err.seek(0)
err.truncate()
sys.stderr = err
try:
    t = T2([Config(64, 4), Config(128, 8)])
    t.recheck_autotune_cache(lambda: None)
    t2 = T2([Config(64, 4), Config(128, 8)])
    t2.recheck_autotune_cache(lambda: None)
finally:
    sys.stderr = old
err.seek(0)
said = err.read()
ok(state(t) == [(hashable(B), False)] and said.count("not adopted") == 1,
   "the addition's own read failing: torch's narrowing stands, unmarked, said once in two", (state(t), said))

# adopt alone: no compile results, no configs
ok(C.adopt(T([]), [], check, hashable) is False, "adopt: nothing compiled, nothing done")

# install() against a stand-in torch package
heur = '''
class Config:
    def __init__(self, found=False):
        self.kwargs = {"XBLOCK": 8}
        self.num_warps = 2
        self.found_by_coordesc = found

def triton_config_to_hashable(c):
    return (tuple(sorted(c.kwargs.items())), c.num_warps)

def check_autotune_cache(configs, filename, meta):
    return [Config(True)], None, {}

class R:
    def __init__(self):
        self.config = Config()

class CachingAutotuner:
    def __init__(self):
        self.compile_results = [R()]
        self.filename = "k.py"
        self.inductor_meta = {}

    def recheck_autotune_cache(self, reload_kernel_from_src):
        pass
'''
child = '''
from kopt import tunecache as C
r = C.install()
from torch._inductor.runtime.triton_heuristics import CachingAutotuner
t = CachingAutotuner()
t.recheck_autotune_cache(None)
print(r, t.compile_results[0].config.found_by_coordesc)
'''
with tempfile.TemporaryDirectory() as d:
    heuristics = "torch/_inductor/runtime/triton_heuristics.py"
    path = S.package(d, {heuristics: heur})

    def run(env_extra, code=child):
        return S.child(path, code, env_extra, drop=("KOPT_TUNE_CACHE",))

    out = run({})
    ok(out == "True True", "install(): torch's recheck wrapped; a cached winner found by coordinate descent kept", out)
    out = run({"KOPT_TUNE_CACHE": "0"})
    ok(out == "False False", "KOPT_TUNE_CACHE=0: Inductor left as it is", out)
    S.package(d, {heuristics: heur.replace("def check_autotune_cache", "def _renamed")})
    out = run({}, "from kopt import tunecache as C; print(C.install())")
    ok(out == "False", "install() where torch has no check_autotune_cache: False, no error", out)

done()
