"""kopt.compile_time: a compile's seconds sorted into Dynamo, Inductor,
Triton, autotuning and the first run, from torch's own spans (no torch
needed: the spans are given). Prints TAP."""
import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python"))
from kopt import compile_time as CT  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402



def close(a, b):
    return abs(a - b) < 1e-6


# a max-autotune compile: the frame holds the backend, which holds the
# templates' tuning and precompiling and the waits for Triton
spans = {"_compile.compile_inner": 10.0, "OutputGraph.call_user_compiler": 7.0, "async_compile.wait": 2.0,
         "convolution_template_autotuning": 2.0, "mm_template_autotuning": 1.0,
         "convolution_template_precompiling": 1.0, "CachingAutotuner.benchmark_all_configs": 0.5,
         "GraphLowering.run": 0.7}
p = CT.phases(spans, 12.0)
ok(close(p["dynamo_s"], 3.0), f"Dynamo is the frame less its backend ({p['dynamo_s']})")
ok(close(p["autotune_s"], 3.5), f"autotuning: the templates' and the first run's configs ({p['autotune_s']})")
ok(close(p["triton_s"], 3.0), f"Triton: the waits and the templates' precompiling ({p['triton_s']})")
ok(close(p["inductor_s"], 1.0), f"Inductor: the backend less what it holds of those ({p['inductor_s']})")
ok(close(p["run_s"], 1.5), f"the first run: the wall time the spans do not hold ({p['run_s']})")
ok(close(sum(p[k] for k in CT.PARTS), 12.0), "the parts add up to the wall time")

# the default mode: no templates
p = CT.phases({"_compile.compile_inner": 5.0, "OutputGraph.call_user_compiler": 4.0, "async_compile.wait": 1.5}, 6.0)
ok(close(p["autotune_s"], 0) and close(p["triton_s"], 1.5) and close(p["inductor_s"], 2.5),
   f"without templates nothing is autotuning and the backend is Inductor's and Triton's ({p})")

# spans of a compile pool's threads can add up to more than the wall time
p = CT.phases({"_compile.compile_inner": 8.0, "OutputGraph.call_user_compiler": 6.0,
               "CachingAutotuner.benchmark_all_configs": 4.0}, 10.0)
ok(close(sum(p[k] for k in CT.PARTS), 10.0) and close(p["run_s"], 0), f"over the wall time: scaled to it ({p})")
ok(abs(p["dynamo_s"] / p["autotune_s"] - 2.0 / 4.0) < 1e-3, "scaled in proportion")

# a torch without the spans: all of it is the first run
p = CT.phases({}, 3.0)
ok(close(p["run_s"], 3.0) and all(close(p[k], 0) for k in CT.PARTS if k != "run_s"), "no spans: all of it run_s")

# a backend span longer than its frame (a span name torch renamed): no negative part
p = CT.phases({"_compile.compile_inner": 2.0, "OutputGraph.call_user_compiler": 3.0}, 4.0)
ok(all(p[k] >= 0 for k in CT.PARTS) and close(sum(p[k] for k in CT.PARTS), 4.0), f"never negative ({p})")

# measured() records the wall time and the parts even where torch is absent
sink = {}
with CT.measured(sink):
    pass
ok("wall_s" in sink and all(k in sink for k in CT.PARTS) and isinstance(sink["spans"], dict), "measured() fills the sink")

# the progress line: the finished spans so far, by part
line = CT.progress_line("resnet101.py (max-autotune-no-cudagraphs)", 121.4, spans)
ok(line == "kopt: compiling resnet101.py (max-autotune-no-cudagraphs): 121 s so far; templates autotuned 3.0 s, "
   "precompiled 1.0 s; Triton waited for 2.0 s; launch configs tuned 0.5 s", line)
ok(CT.parse_progress(line) == ("resnet101.py (max-autotune-no-cudagraphs)", ("121", "3.0", "1.0", "2.0", "0.5"))
   and CT.parse_progress("AUTOTUNE mm(8x8, 8x8)") is None,
   "parse_progress reads the line back (bench/beyond/costs.py), and no other line", CT.parse_progress(line))

# measured() with a label writes progress lines while the block runs, from
# a table that grows (a TEST DOUBLE of torch._dynamo.utils's), and none
# after it ends; without a label, or with KOPT_COMPILE_PROGRESS=0, none
import io  # noqa: E402
import time  # noqa: E402
import types  # noqa: E402

metrics = {}
fake = types.ModuleType("torch._dynamo.utils")
fake.compilation_time_metrics = metrics
for name in ("torch", "torch._dynamo"):
    sys.modules.setdefault(name, types.ModuleType(name))
sys.modules["torch._dynamo.utils"] = fake


def run(label, env, body):
    err, saved = io.StringIO(), sys.stderr
    os.environ["KOPT_COMPILE_PROGRESS"] = env
    sys.stderr = err
    try:
        with CT.measured({}, label):
            body()
        at_exit = err.getvalue()
        time.sleep(0.35)
    finally:
        sys.stderr = saved
    ok(err.getvalue() == at_exit, f"{label}, every {env} s: no progress line once the block has ended")
    return err.getvalue().splitlines()


def compiling():
    metrics.setdefault("mm_template_autotuning", []).append(1.0)
    time.sleep(0.35)
    metrics["mm_template_autotuning"].append(2.5)
    metrics["mm_template_precompiling"] = [4.0]
    time.sleep(0.35)


metrics["mm_template_autotuning"] = [7.0]  # before the compile: not its own
lines = run("m.py (default)", "0.1", compiling)
ok(len(lines) >= 4 and all(ln.startswith("kopt: compiling m.py (default): ") and " s so far; templates autotuned " in ln for ln in lines),
   f"a progress line every 0.1 s while the block runs, none after ({len(lines)})", lines)
ok(lines and "templates autotuned 1.0 s, precompiled 0.0 s" in lines[0]
   and "templates autotuned 3.5 s, precompiled 4.0 s" in lines[-1],
   "each line counts the spans finished since the block began", lines)
metrics.clear()
ok(run(None, "0.1", compiling) == [], "no label: no progress lines")
ok(run("m.py (default)", "0", compiling) == [], "KOPT_COMPILE_PROGRESS=0: no progress lines")
del os.environ["KOPT_COMPILE_PROGRESS"]
done()
