"""tests/runtime/test_counters.py: the profile's DRAM bytes on the CPU
(kopt.measure.dram_bytes, kopt.worker.dram_rows), kopt-worker's
_kopt_counters replaced by a recording TEST DOUBLE that answers as CUPTI's
range profiler does on the H200 (automatic ranges numbered "0", "1", ...
in launch order). Checked: the call runs once, after the L2 flush, under
the DRAM metrics, with room for every launch; numbered ranges take the
names of a timed call's launches in start order, and a kernel launched
twice sums its bytes; a count of launches that differs is an error; named
ranges keep their names; a row gets its bytes per launch and their rate,
and the account names what no row has; the host's time to enqueue a
call is the median over calls, each after a synchronize; the CUDA-event
times per call, from an idle GPU or queued behind a spin (the device
time of the report's device speedups); which profiles count at all
(none over CUDA graphs, with the reason). Needs torch
(CPU is enough).
Prints TAP."""
import os
import sys
import types

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(top, "runtime", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import ok, done  # noqa: E402

try:
    import torch
except ImportError:
    print("# no torch: nothing checked")
    done()
    sys.exit(0)

# the test double, in place before kopt.measure looks for it
calls = []
answer = {}


def collect(fn, metrics, device, max_ranges=4096):
    calls.append({"metrics": list(metrics), "device": device, "max_ranges": max_ranges, "events": list(events)})
    fn()
    return dict(answer)


sys.modules["_kopt_counters"] = types.SimpleNamespace(collect=collect)
torch.cuda.synchronize = lambda *a, **k: None   # no GPU here
torch.cuda.current_device = lambda: 0

from kopt import measure as M  # noqa: E402
from kopt import worker as W  # noqa: E402

events = []


def flush():
    events.append("flush")


def run():
    events.append("run")


answer.update(ranges=[("0", [10.0, 5.0]), ("1", [1.0, 1.0]), ("2", [20.0, 0.0])], passes=1, dropped=0,
              setup_s=0.5, run_s=0.01, decode_s=0.02)
got, acct = M.dram_bytes(run, flush, ["k_a", "k_b", "k_a"])
c = calls[-1]
ok(events == ["flush", "run"] and c["events"] == ["flush"], "the L2 is flushed, then the call runs once under the counters", events)
ok(c["metrics"] == ["dram__bytes_read.sum", "dram__bytes_write.sum"] and c["device"] == 0,
   "the DRAM bytes read and written, on the current device", c)
ok(c["max_ranges"] == 64, "room for every launch: at least 64 ranges", c["max_ranges"])
ok(got["k_a"] == (2, 35.0) and got["k_b"] == (1, 2.0),
   "numbered ranges take the launches' names in order; a kernel launched twice sums its bytes", got)
ok(acct == {"passes": 1, "dropped": 0, "setup_s": 0.5, "run_s": 0.01, "decode_s": 0.02},
   "the collection's account beside the kernels", acct)
try:
    M.dram_bytes(run, flush, ["k_a", "k_b"])
    ok(False, "three numbered ranges for two launches: an error")
except RuntimeError as exc:
    ok("the counters saw 3 kernel launches, a timed call 2" in str(exc), "three numbered ranges for two launches: an error", exc)
answer.update(ranges=[("void gemm<...>", [4.0, 4.0])])
got, _ = M.dram_bytes(run, flush, [])
ok(got.get("void gemm<...>") == (1, 8.0), "a named range keeps its name, whatever the launches", got)
answer.update(ranges=[(str(i), [1.0, 0.0]) for i in range(100)])
M.dram_bytes(run, flush, [f"k{i}" for i in range(100)])
ok(calls[-1]["max_ranges"] == 116, "a call of 100 launches gets room for 116 ranges", calls[-1]["max_ranges"])

rows = [{"name": "k_a", "ns_per_call": 100.0, "launches_per_call": 2.0},
        {"name": "k_c", "ns_per_call": 50.0, "launches_per_call": 1.0},
        {"name": "k_z", "ns_per_call": 0.0, "launches_per_call": 1.0}]
acct = W.dram_rows(rows, {"k_a": (2, 35.0), "k_z": (1, 4.0), "k_other": (1, 9.0)}, {"passes": 1, "dropped": 0})
ok(rows[0]["dram_bytes"] == 17.5 and rows[0]["dram_gbps"] == 0.35,
   "a row gets its DRAM bytes per launch and their rate over its time", rows[0])
ok("dram_bytes" not in rows[1], "a row the counters did not see gets none", rows[1])
ok(rows[2]["dram_bytes"] == 4.0 and rows[2]["dram_gbps"] is None, "a row of no time gets bytes and no rate", rows[2])
ok(acct["rows"] == 2 and acct["unmatched"] == ["k_other"] and acct["passes"] == 1 and
   acct["metrics"] == list(M.DRAM_METRICS), "the account: rows matched, names no row has, the passes", acct)

# the host's time to enqueue a call (measure.enqueue_seconds): a
# synchronize before each call and none inside, the median of n; the
# clock a stand-in that advances 1, 5, 2, 9, 3 units across the calls
import time  # noqa: E402

seq = []
steps = iter([0, 1, 10, 15, 20, 22, 30, 39, 40, 43])
real_clock = time.perf_counter
torch.cuda.synchronize = lambda *a, **k: seq.append("sync")
time.perf_counter = lambda: next(steps)
try:
    got = M.enqueue_seconds(lambda: seq.append("call"), 5)
finally:
    time.perf_counter = real_clock
    torch.cuda.synchronize = lambda *a, **k: None
ok(got == 3, "enqueue time: the median of the calls' host times (1, 5, 2, 9, 3 -> 3)", got)
ok(seq == ["sync", "call"] * 5 + ["sync"], "enqueue time: a synchronize before each call, none inside, one after", seq)

# CUDA-event times per call (measure.event_medians), from an idle GPU and
# queued behind a spin: CUDA's events and torch.cuda._sleep are test
# doubles that record what is asked of them; each elapsed_time answers the
# next of a script (ms)
seq.clear()
script = iter([1.0, 7.0, 3.0, 8.0, 2.0, 9.0])


class Event:
    def __init__(self, enable_timing=False):
        self.name = "event"

    def record(self):
        seq.append("record")

    def elapsed_time(self, end):
        return next(script)


real = (torch.cuda.Event, getattr(torch.cuda, "_sleep", None), M.enqueue_seconds)
torch.cuda.Event = Event
torch.cuda._sleep = lambda cycles: seq.append(("spin", cycles))
torch.cuda.synchronize = lambda *a, **k: seq.append("sync")


def fa():
    seq.append("a")


def fb():
    seq.append("b")


M.enqueue_seconds = lambda fn, n=5: {fa: 1e-3, fb: 1e-5}[fn]
try:
    got = M.event_medians([fa, fb], 3, lambda: seq.append("flush"), queued=True)
    queued_seq = list(seq)
    seq.clear()
    script = iter([1.0, 7.0, 3.0, 8.0, 2.0, 9.0])
    idle = M.event_medians([fa, fb], 3, lambda: seq.append("flush"))
    idle_seq = list(seq)
finally:
    torch.cuda.Event, torch.cuda._sleep, M.enqueue_seconds = real
    torch.cuda.synchronize = lambda *a, **k: None
ok(got == [2e6, 8e6], "event times: per fn the median of its calls, in ns (a: 1, 3, 2 ms; b: 7, 8, 9 ms)", got)
one = lambda f, cycles: ["flush", "sync", ("spin", cycles), "record", f, "record", "sync"]
ok(queued_seq == (one("a", 8000000) + one("b", 400000)) * 3,
   "queued: the fns interleaved, each call after a flush and a synchronize, behind a spin of four times the "
   "host's enqueue time at 2 GHz (1 ms: 8e6 cycles) or at least 200 us (4e5 cycles), its events around the call alone",
   queued_seq)
ok(idle == got and idle_seq == [x for x in queued_seq if not isinstance(x, tuple)],
   "from an idle GPU: the same calls and events, no spin", idle_seq)

# which profiles count DRAM bytes: not where the request or KOPT_COUNTERS
# says no, nor for Helion or vendor kernels alone; over CUDA graphs, none,
# with the reason the report prints
NS = types.SimpleNamespace
triton_rows, vendor_rows = [{"kind": "triton"}, {"kind": "vendor"}], [{"kind": "vendor"}]


def compiled(kind="torch", graphs=False):
    """a TEST DOUBLE of a compiled model: its problem's kind and its graphs"""
    return NS(problem=NS(kind=kind), graphs=graphs)


ok(W.counters_wanted({}, compiled(), triton_rows) is True and
   W.counters_wanted({"counters": True}, compiled(), triton_rows) is True,
   "counters: a profile with a Triton kernel counts its DRAM bytes")
ok(W.counters_wanted({"counters": False}, compiled(), triton_rows) is False and
   W.counters_wanted({}, compiled("helion"), triton_rows) is False and
   W.counters_wanted({}, compiled(), vendor_rows) is False,
   "counters: none where the request says no, for a Helion kernel, or with vendor kernels alone")
os.environ["KOPT_COUNTERS"] = "0"
off = W.counters_wanted({}, compiled(), triton_rows)
del os.environ["KOPT_COUNTERS"]
ok(off is False, "counters: KOPT_COUNTERS=0 turns them off whatever the request says", off)
why = W.counters_wanted({}, compiled(graphs=True), triton_rows)
ok(isinstance(why, str) and why.startswith("over CUDA graphs' replays") and
   W.counters_wanted({"counters": False}, compiled(graphs=True), triton_rows) is False,
   "counters: over CUDA graphs none, with the reason (the range profiler loses the context there)", why)
done()
