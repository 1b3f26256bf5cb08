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
done()
