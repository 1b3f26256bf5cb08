"""kopt.tplthreads: while Inductor submits a template's choices for
precompiling, its compile pool is not offered to that thread, so the
choices compile in this process; every other caller still gets the pool.
No torch needed: AlgorithmSelectorCache and AsyncCompile are stand-ins
(TEST DOUBLES of Inductor's classes, as Inductor calls them), and install()
runs in a child against a stand-in torch package. Prints TAP."""
import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import tplthreads as T  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
import standin as S  # noqa: E402


def stand_ins():
    """fresh stand-ins: the pool is up; make_precompile_fn asks as
    Inductor's does (an AsyncCompile instance) and records the answer"""

    class AsyncCompile:
        asked = 0

        @classmethod
        def use_process_pool(cls):
            cls.asked += 1
            return True

    class AlgorithmSelectorCache:
        def __init__(self):
            self.seen = []

        def make_precompile_fn(self, choices, name, hook=None):
            if hook:
                hook()
            self.seen.append(AsyncCompile().use_process_pool())
            if name == "boom":
                raise RuntimeError("no valid choices")
            return ("precompile", tuple(choices), name)

    return AlgorithmSelectorCache, AsyncCompile


Sel, AC = stand_ins()
ok(T.wrap(Sel, AC), "both functions found: wrapped")
s = Sel()
got = s.make_precompile_fn(["c1", "c2"], "mm")
ok(got == ("precompile", ("c1", "c2"), "mm"), "make_precompile_fn returns what Inductor's returns", got)
ok(s.seen == [False], "while it submits the choices, the pool is not offered", s.seen)
ok(AC.use_process_pool() is True, "outside it, the pool is offered as before")
ok(AC.asked == 1, "and asked through Inductor's own function (its side effects kept)", AC.asked)
ok(not T.submitting(), "nothing left marked on this thread")

# another thread asking while this one submits (final kernels compiling beside it)
other = []
started, release = threading.Event(), threading.Event()


def asker():
    started.wait(5)
    other.append(AC.use_process_pool())
    release.set()


t = threading.Thread(target=asker)
t.start()
s.make_precompile_fn(["c3"], "conv", hook=lambda: (started.set(), release.wait(5)))
t.join(5)
ok(other == [True], "another thread asking meanwhile is offered the pool", other)
ok(s.seen[-1] is False, "while this one's choices still are not", s.seen)

# nested and failing calls leave nothing marked
try:
    s.make_precompile_fn([], "boom", hook=lambda: ok(T.submitting(), "inside: marked"))
except RuntimeError as e:
    ok(str(e) == "no valid choices", "an error from Inductor's function goes through unchanged", e)
ok(not T.submitting() and AC.use_process_pool() is True, "after an error: the pool is offered again")

ok(T.wrap(Sel, AC), "wrapping again says wrapped")
before = AC.asked
AC.use_process_pool()
ok(AC.asked == before + 1, "and does not wrap twice (one ask per call)", AC.asked - before)
s2 = Sel()
s2.make_precompile_fn(["c"], "mm")
ok(s2.seen == [False], "the wrapped function still keeps the pool from its choices", s2.seen)

# missing functions: nothing changes
Sel3, AC3 = stand_ins()
del Sel3.make_precompile_fn
orig = vars(AC3)["use_process_pool"]
ok(not T.wrap(Sel3, AC3), "a selector without make_precompile_fn: not wrapped")
ok(vars(AC3)["use_process_pool"] is orig, "and AsyncCompile left as it was")
Sel4, AC4 = stand_ins()
AC4.use_process_pool = staticmethod(lambda: True)
ok(not T.wrap(Sel4, AC4), "a use_process_pool that is not a classmethod: not wrapped")
ok(not getattr(vars(Sel4)["make_precompile_fn"], "kopt_threads", False), "and the selector left as it was")

# install() against a stand-in torch package, in a child
pkg = '''
class AsyncCompile:
    @classmethod
    def use_process_pool(cls):
        return True
'''
sel = '''
from torch._inductor.async_compile import AsyncCompile
class AlgorithmSelectorCache:
    def make_precompile_fn(self):
        return AsyncCompile().use_process_pool()
'''
child = '''
import sys
from kopt import tplthreads as T
r = T.install()
from torch._inductor.select_algorithm import AlgorithmSelectorCache as S
from torch._inductor.async_compile import AsyncCompile as A
print(r, S().make_precompile_fn(), A.use_process_pool())
'''
with tempfile.TemporaryDirectory() as d:
    path = S.package(d, {"torch/_inductor/async_compile.py": pkg, "torch/_inductor/select_algorithm.py": sel})

    def run(env_extra, code=child):
        return S.child(path, code, env_extra, drop=("KOPT_TEMPLATE_THREADS",))

    out = run({})
    ok(out == "True False True", "install(): Inductor's functions wrapped (choices off the pool, the rest on it)", out)
    opt = ("from kopt import tplthreads as T; "
           "print(T.for_options({'max_autotune': False, 'coordinate_descent_tuning': True}), "
           "T.for_options({'max_autotune_gemm': True}), T.for_options({'max_autotune': True}))")
    out = run({}, opt)
    ok(out == "False True True",
       "for_options: only options that autotune templates (max_autotune, max_autotune_gemm) install it", out)
    plain = ("from kopt import tplthreads as T; r = T.for_options({'coordinate_descent_tuning': True}); "
             "from torch._inductor.select_algorithm import AlgorithmSelectorCache as S; "
             "print(r, getattr(vars(S)['make_precompile_fn'], 'kopt_threads', False))")
    out = run({}, plain)
    ok(out == "False False", "and other options leave Inductor's functions unwrapped", out)
    out = run({"KOPT_TEMPLATE_THREADS": "0"})
    ok(out == "False True True", "KOPT_TEMPLATE_THREADS=0: Inductor left as it is", out)
    os.remove(os.path.join(d, "torch", "_inductor", "select_algorithm.py"))
    out = run({}, "from kopt import tplthreads as T; print(T.install())")
    ok(out == "False", "install() without Inductor's selector module: False, no error", out)

done()
