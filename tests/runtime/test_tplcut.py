"""kopt.tplcut: inside Inductor's timing of a template's choices, a choice
whose one call takes over CUT times the best so far and over CUT_MS is
timed by that call alone; the pick is the same. No torch needed:
AlgorithmSelectorCache and the benchmarker are stand-ins (TEST DOUBLES of
Inductor's, called as Inductor calls them), a choice's one call is timed
by a stand-in timer, and install() runs in a child against a stand-in
torch package. Prints TAP."""
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import tplcut as T  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402
import standin as S  # noqa: E402


class Choice:
    """a choice: its time per call in ms (first: its first call's, where
    that differs)"""

    def __init__(self, name, ms, first=None):
        self.name, self.ms, self.first = name, ms, ms if first is None else first
        self.calls = 0

    def run(self):
        self.calls += 1


def stand_ins():
    """fresh stand-ins: benchmark_choices times each choice through
    benchmark_choice, which asks the benchmarker's benchmark_gpu for the
    time of a callable that runs the choice (ten calls, as an estimate and
    a few repeats would)"""

    class Bench:
        def __init__(self):
            self.timed = []

        def benchmark_gpu(self, fn, estimation_iters=5, **kw):
            for _ in range(10):
                fn()
            self.timed.append(fn.choice.name)
            return fn.choice.ms

    bench = Bench()

    class AlgorithmSelectorCache:
        @classmethod
        def benchmark_choice(cls, choice, autotune_args):
            def fn():
                choice.run()
            fn.choice = choice
            return bench.benchmark_gpu(fn)

        @classmethod
        def benchmark_choices(cls, choices, autotune_args, is_collective=False):
            if autotune_args == "boom":
                raise RuntimeError("a choice failed to compile")
            return {c.name: cls.benchmark_choice(c, autotune_args) for c in choices}

    return AlgorithmSelectorCache, bench


once_calls = []


def timer(fn):
    """the stand-in for a CUDA-event timing of one call"""
    fn()
    once_calls.append(fn.choice.name)
    if fn.choice.first == "raise":
        raise RuntimeError("an illegal memory access")
    return fn.choice.first


def pick(timings):
    return min(timings, key=timings.get)


# the depthwise convolution of EfficientNetMBConv, as Inductor timed it:
# ATen's call first, then Triton's grouped template choices
def depthwise():
    return [Choice("aten", 0.80), Choice("t31", 2061.1), Choice("t20", 2127.4), Choice("t29", 2691.3),
            Choice("t_fast", 0.75)]


Sel, B = stand_ins()
plain = Sel.benchmark_choices(depthwise(), None)
B.timed.clear()
ok(T.wrap(Sel, B, timer), "the selector's two classmethods and benchmark_gpu found: wrapped")
cs = depthwise()
got = Sel.benchmark_choices(cs, None)
ok(pick(got) == pick(plain) == "t_fast", "the pick is the same (t_fast)", (pick(got), pick(plain)))
ok(B.timed == ["aten", "t_fast"], "only the choices that could win are timed by Inductor's benchmark_gpu", B.timed)
ok(got["t31"] == 2061.1 and got["t29"] == 2691.3 and all(got[c] > got["aten"] for c in ("t31", "t20", "t29")),
   "a hopeless choice's time is its one call's, which loses", got)
ok([c.calls for c in cs] == [10, 1, 1, 1, 11], "a hopeless choice runs once, not ten times; another once more",
   [c.calls for c in cs])
ok(once_calls == ["t31", "t20", "t29", "t_fast"], "the first choice, before any best, is timed as Inductor does",
   once_calls)
ok(T.best() is None, "nothing left on this thread after the timing")

# the limits: over CUT times the best and over CUT_MS, both
B.timed.clear()
edge = [Choice("best", 0.5), Choice("nine", 4.5), Choice("ten", 5.0), Choice("eleven", 5.5)]
got = Sel.benchmark_choices(edge, None)
ok(B.timed == ["best", "nine", "ten"], "9x and exactly 10x the best: timed by Inductor; 11x: one call", B.timed)
B.timed.clear()
tiny = [Choice("best", 0.05), Choice("slow_small", 0.9), Choice("slow_ms", 1.0)]
got = Sel.benchmark_choices(tiny, None)
ok(B.timed == ["best", "slow_small"], "18x the best but under 1 ms: timed by Inductor; 20x at 1 ms: one call",
   B.timed)

# the best is the best so far: a later faster choice lowers it
B.timed.clear()
order = [Choice("a", 100.0), Choice("b", 0.9), Choice("c", 50.0), Choice("d", 9.0)]
got = Sel.benchmark_choices(order, None)
ok(B.timed == ["a", "b", "d"], "after b (0.9 ms), c (50 ms) is hopeless and d (9 ms) is not", B.timed)

# a first call slower than the choice's median, under the limits, is no cut
B.timed.clear()
warm = [Choice("best", 2.0), Choice("cold_first", 1.5, first=19.0)]
got = Sel.benchmark_choices(warm, None)
ok(pick(got) == "cold_first" and B.timed == ["best", "cold_first"],
   "a first call at 9.5x the best, the choice faster over many: timed by Inductor, and picked", got)

# a one call that fails: the choice's own timing says what is wrong
B.timed.clear()
failing = [Choice("best", 1.0), Choice("odd", 500.0, first="raise")]
got = Sel.benchmark_choices(failing, None)
ok(B.timed == ["best", "odd"] and got["odd"] == 500.0, "a one call that raises: timed by Inductor", got)

# outside the timing of a template's choices: benchmark_gpu as it was
once_calls.clear()
lone = Choice("coordesc", 5000.0)


def fn():
    lone.run()


fn.choice = lone
ok(B.benchmark_gpu(fn) == 5000.0 and once_calls == [] and lone.calls == 10,
   "outside benchmark_choices (coordinate descent): no one call, Inductor's timing")

# an error from Inductor's benchmark_choices goes through and resets
try:
    Sel.benchmark_choices([], "boom")
except RuntimeError as e:
    ok(str(e) == "a choice failed to compile", "an error from Inductor's function goes through unchanged", e)
ok(T.best() is None, "after an error: nothing left on this thread")

# nested timings (a choice whose timing times choices) keep their own best
B.timed.clear()
inner = [Choice("i_best", 1.0), Choice("i_slow", 20.0)]


class Nest(Choice):
    def run(self):
        super().run()
        if self.calls == 1:
            Sel.benchmark_choices(inner, None)


outer = [Choice("o_best", 100.0), Nest("o_nest", 150.0)]
got = Sel.benchmark_choices(outer, None)
ok(B.timed == ["o_best", "i_best", "o_nest"] and T.best() is None,
   "a nested timing cuts against its own best (i_slow: one call), the outer's restored after", B.timed)

ok(T.wrap(Sel, B, timer), "wrapping again says wrapped")
B.timed.clear()
Sel.benchmark_choices([Choice("x", 1.0), Choice("y", 2.0)], None)
ok(B.timed == ["x", "y"], "and does not wrap twice", B.timed)

# missing functions: nothing changes
Sel3, B3 = stand_ins()
del Sel3.benchmark_choice
orig = Sel3.benchmark_choices
ok(not T.wrap(Sel3, B3, timer), "a selector without benchmark_choice: not wrapped")
ok(not getattr(vars(Sel3)["benchmark_choices"].__func__, "kopt_cut", False) and "benchmark_gpu" not in vars(B3),
   "and the selector and the benchmarker left as they were")

ok(T.hopeless(11.0, 1.0) and not T.hopeless(10.0, 1.0) and not T.hopeless(0.9, 0.01) and
   not T.hopeless(None, 1.0) and not T.hopeless(50.0, math.inf) and not T.hopeless(50.0, None),
   "hopeless: over 10x and over 1 ms; never without a time or a best")

# install() against a stand-in torch package, in a child
sel = '''
from torch._inductor.runtime.benchmarking import benchmarker
class AlgorithmSelectorCache:
    @classmethod
    def benchmark_choice(cls, ms, args):
        return benchmarker.benchmark_gpu(lambda: None, ms=ms)
    @classmethod
    def benchmark_choices(cls, choices, args):
        return [cls.benchmark_choice(c, args) for c in choices]
'''
bm = '''
class Benchmarker:
    def benchmark_gpu(self, fn, ms=0.0):
        return ms
benchmarker = Benchmarker()
'''
child = '''
from kopt import tplcut as T
r = T.install()
from torch._inductor.select_algorithm import AlgorithmSelectorCache as S
from torch._inductor.runtime.benchmarking import benchmarker
print(r, getattr(vars(S)["benchmark_choices"].__func__, "kopt_cut", False), "benchmark_gpu" in vars(benchmarker))
'''
with tempfile.TemporaryDirectory() as d:
    path = S.package(d, {"torch/_inductor/select_algorithm.py": sel, "torch/_inductor/runtime/benchmarking.py": bm})

    def run(env_extra, code=child):
        return S.child(path, code, env_extra, drop=("KOPT_TEMPLATE_CUT",))

    out = run({})
    ok(out == "True True True", "install(): Inductor's selector and benchmarker wrapped", out)
    opt = ("from kopt import tplcut as T; "
           "print(T.for_options({'coordinate_descent_tuning': True}), T.for_options({'max_autotune': True}))")
    out = run({}, opt)
    ok(out == "False True", "for_options: only options that autotune templates install it", out)
    out = run({"KOPT_TEMPLATE_CUT": "0"})
    ok(out == "False False False", "KOPT_TEMPLATE_CUT=0: Inductor left as it is", out)
    os.remove(os.path.join(d, "torch", "_inductor", "runtime", "benchmarking.py"))
    out = run({}, "from kopt import tplcut as T; print(T.install())")
    ok(out == "False", "install() without Inductor's benchmarking module: False, no error", out)

done()
