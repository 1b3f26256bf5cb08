"""tests/runtime/test_static_config.py: gate 1 for a candidate's launch
config (kopt.static_config), which the worker pins without Inductor's
checks. An Inductor kernel's block sizes stay within Inductor's largest
for their axis: poi_conv0's ymask is all true (ynumel = 1024, a multiple
of the largest YBLOCK), so YBLOCK = 2048 had its one program along y read
and write 1024 rows past each tensor, with no mask and no memcheck; a
key that is no parameter nor launch keyword, a value that is not a whole
number, or past its limit, is refused. A Helion config sets helion.Config
keys of plain values of the kinds of the kernel's own: Helion writes
num_warps and any `_triton_config_NAME` into the host code it generates
as they are, and hands `advanced_controls_file` to ptxas. Prints TAP.
Needs python3 alone (no torch, no triton)."""
import os
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

from kopt import static_config as C  # noqa: E402
from kopt.static_lists import Reject  # noqa: E402

static = os.path.join(top, "tests", "static", "orig")


def verdict(fn, *args):
    try:
        fn(*args)
        return None
    except Reject as e:
        return str(e)


poi = open(os.path.join(static, "poi_conv0.py")).read()        # pointwise, YBLOCK and XBLOCK
per = open(os.path.join(static, "per_softmax4.py")).read()     # persistent reduction, XBLOCK
tem = open(os.path.join(static, "tem_mm.py")).read()           # template: blocks in its body
rowsum = open(os.path.join(static, "standalone_rowsum.py")).read()

for cfg in ({"XBLOCK": 64, "YBLOCK": 16, "num_warps": 4, "num_stages": 1},
            {"XBLOCK": 4096, "YBLOCK": 1024, "num_warps": 32, "num_stages": 4, "maxnreg": 128},
            {"XBLOCK": 1, "YBLOCK": 1, "num_warps": 1, "maxnreg": None}):
    why = verdict(C.check_config, cfg, poi)
    ok(why is None, f"an honest config of a pointwise kernel passes: {cfg}", why)
ok(verdict(C.check_config, {"XBLOCK": 8, "R0_BLOCK": 64, "num_warps": 8}, per) is None,
   "a persistent reduction's config may carry R0_BLOCK, a constant of its body (Inductor passes it on to nothing)")
ok(verdict(C.check_config, {"num_warps": 8, "num_stages": 3}, tem) is None, "a template's warps and stages pass")

# the escape: a block past Inductor's largest, where the kernel has no mask for its axis
why = verdict(C.check_config, {"XBLOCK": 64, "YBLOCK": 2048, "num_warps": 4}, poi)
ok(why and "YBLOCK=2048" in why and "1024" in why and "\n" not in why,
   "YBLOCK = 2048 on a kernel whose ymask is all true is refused, naming Inductor's largest", why)
# after the fix, the same class on another axis and spelled otherwise
why = verdict(C.check_config, {"XBLOCK": 8192}, per)
ok(why and "XBLOCK=8192" in why, "XBLOCK = 8192 (past 4096) on a persistent reduction is refused", why)
why = verdict(C.check_config, {"XBLOCK": 48, "YBLOCK": 16}, poi)
ok(why and "XBLOCK=48" in why, "a block that is no power of two is refused", why)
why = verdict(C.check_config, {"R0_BLOCK": 2 ** 17}, per)
ok(why and "R0_BLOCK" in why, "R0_BLOCK past 65536 is refused", why)
for cfg, word in (({"XBLOCK": 64, "extern_libs": 1}, "extern_libs"), ({"XBLOCK": 64, "ir_override": 1}, "ir_override"),
                  ({"XBLOCK": "64"}, "whole number"), ({"XBLOCK": True}, "whole number"),
                  ({"num_warps": 128}, "num_warps=128"), ({"num_stages": 64}, "num_stages=64"),
                  ({"maxnreg": 4096}, "maxnreg=4096")):
    why = verdict(C.check_config, cfg, poi)
    ok(why and word in why, f"refused: {cfg}", why)
ok(verdict(C.check_config, [("XBLOCK", 64)], poi), "a config that is not a dict is refused")
# a standalone kernel's config: its parameters, no Inductor block rule
ok(verdict(C.check_config, {"BLOCK": 8192, "num_warps": 8}, rowsum) is None,
   "a standalone kernel's own constexpr past 4096 is not Inductor's block and passes")
ok(verdict(C.check_config, {"XBLOCK": 64}, rowsum), "a key the standalone kernel does not take is refused")

# Helion configs
own = {"block_sizes": [4], "num_warps": 8, "num_stages": 1, "indexing": "pointer", "pid_type": "flat",
       "load_eviction_policies": ["first"], "range_flattens": [None], "advanced_controls_file": ""}
for cfg in ({"block_sizes": [8], "num_warps": 4}, {"indexing": "block_ptr", "load_eviction_policies": ["last"]},
            {"range_flattens": [True]}, {"l2_groupings": [4]}, {"advanced_controls_file": ""}):
    why = verdict(C.check_helion_config, cfg, own)
    ok(why is None, f"an honest Helion config passes: {cfg}", why)
for cfg, word in (({"_triton_config_num_ctas": "__import__('os').system('id')"}, "_triton_config_num_ctas"),
                  ({"num_warps": "4, launch_cooperative_grid=True"}, "num_warps"),
                  ({"advanced_controls_file": "/tmp/x --output-file /tmp/y"}, "ptxas"),
                  ({"indexing": "pointer'); import os; ('"}, "indexing"),
                  ({"block_sizes": ["4 + 0"]}, "block_sizes"),
                  ({"some_key": 1}, "some_key"),
                  ({"l2_groupings": ["x y"]}, "l2_groupings"),
                  ({"num_stages": [1]}, "num_stages"),
                  # a flag where the kernel's is a word
                  ({"pid_type": True}, "pid_type")):
    why = verdict(C.check_helion_config, cfg, own)
    ok(why and word in why and "\n" not in why, f"refused: {cfg}", why)
# flags and whole numbers are kinds apart: a number where the kernel's
# config has a flag, a flag where it has a number
flags = {"range_flattens": [False], "range_unroll_factors": [0]}
ok(verdict(C.check_helion_config, {"range_flattens": [True], "range_unroll_factors": [2]}, flags) is None,
   "a flag for a flag and a number for a number pass")
for cfg in ({"range_flattens": [1]}, {"range_unroll_factors": [True]}):
    why = verdict(C.check_helion_config, cfg, flags)
    ok(why and "\n" not in why, f"refused, another kind than the kernel's: {cfg}", why)
done()
