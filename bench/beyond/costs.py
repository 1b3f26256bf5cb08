#!/usr/bin/env python3
"""bench/beyond/costs.py KOPT_DIR [SINCE_MS]: where a benchmark slice's
device time went, as Markdown, from koptmake's own records in KOPT_DIR
(the .kopt folder): its log (one line per step run: when, milliseconds,
status, kind, path) and its actions (each step's result).

- per kind of step: how many ran, their seconds in all and on average;
- the screens: configs tried per second, for the variants that compile
  with max-autotune ("autotune" and the agents' "autotune-*") and for the
  others, and the share of points the compile children had compiled
  ahead (kopt.precompile), and how many of those Triton's cache answered;
- the verifies: where their seconds went (the model's compile, the
  candidates' builds, the gates);
- the profiles: how many counted their kernels' DRAM bytes, and the
  seconds the counters took;
- the captures: per variant, where its compile's seconds went (Dynamo,
  Inductor, Triton, autotuning, the first run; kopt.compile_time) and how
  long its timings waited for other workers' on the GPU (kopt.gpulock),
  and the wall time that the captures, run side by side, took together;
- Inductor's autotuning as the workers' logs (KOPT_DIR/workers) tell it,
  finished captures or not (a capture stopped by SIGINT has no phases):
  the operators max-autotune timed, the seconds it says it spent
  benchmarking and precompiling, the operators timed more than once, and
  the slowest; and each compile's last progress line (kopt.compile_time:
  its seconds so far and what its finished spans held), which is all an
  unfinished compile leaves.

SINCE_MS: only the steps the log records from that time on (ms since the
epoch, the log's first column), e.g. one slice's.
"""
import glob
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime", "python"))
from kopt.compile_time import parse_progress  # noqa: E402 (the progress lines' format, written there)


def log_rows(path: str, since: int) -> list:
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            p = line.rstrip("\n").split("\t")
            if len(p) < 5 or not p[0].isdigit() or int(p[0]) < since:
                continue
            rows.append({"at": int(p[0]), "ms": int(p[1]), "status": p[2], "kind": p[3], "path": p[4]})
    return rows


def latest(path: str, kind: str) -> list:
    """each step of that kind (a screen, a verify): its latest result in the
    actions file, (path, its measurements)"""
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            parts = line.split(" ", 2)
            if len(parts) < 3 or not parts[2].startswith("{"):
                continue
            try:
                j = json.loads(parts[2].rstrip("\n").rsplit(" ", 1)[0])
            except ValueError:
                continue
            if isinstance(j, dict) and j.get("kind") == kind:
                out.append((j.get("path", ""), j.get("meas") or {}))
    last = dict(out)  # a step run again: its latest result
    return list(last.items())


def tunes(path: str) -> bool:
    """whether the screen's variant compiles with max-autotune"""
    parts = path.split("/")
    return len(parts) > 2 and (parts[-2] == "autotune" or parts[-2].startswith("autotune-"))


def main() -> int:
    top = sys.argv[1]
    since = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rows = log_rows(os.path.join(top, "log"), since)
    kinds: dict = {}
    for r in rows:
        k = kinds.setdefault(r["kind"], [0, 0])
        k[0] += 1
        k[1] += r["ms"]
    total = sum(v[1] for v in kinds.values())
    print(f"Steps: {len(rows)}, {total / 1000:.0f} s in all.\n")
    print("| step | ran | seconds | mean s | share |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind, (n, ms) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
        print(f"| {kind} | {n} | {ms / 1000:.1f} | {ms / 1000 / n:.2f} | {ms / total * 100 if total else 0:.0f}% |")
    ran = {r["path"] for r in rows if r["kind"] == "screen"}
    rate = {True: [], False: []}
    ahead = points = told = hits = 0
    for path, m in latest(os.path.join(top, "actions"), "screen"):
        if path not in ran or not m.get("elapsed_s") or not isinstance(m.get("compiles"), (int, float)):
            continue
        rate[tunes(path)].append(m["compiles"] / m["elapsed_s"])
        ahead += int(m.get("prefetched") or 0)
        points += int(m["compiles"])
        # the points compiled ahead whose load says whether Triton's cache
        # answered it (its compilation listener)
        for r in m.get("tried") or []:
            hit = (r.get("load_parts") or {}).get("cache_hit") if isinstance(r, dict) and r.get("prefetched") else None
            if isinstance(hit, bool):
                told += 1
                hits += hit
    print("\n| screens of variants | screens | configs per second (median) |")
    print("| --- | ---: | ---: |")
    for t, name in ((True, "max-autotune"), (False, "the others")):
        xs = rate[t]
        print(f"| {name} | {len(xs)} | {statistics.median(xs):.2f} |" if xs else f"| {name} | 0 | - |")
    if points:
        print(f"\nPoints compiled ahead by the compile children: {ahead} of {points} ({ahead / points * 100:.0f}%).")
    if told:
        print(f"Of those whose load says, Triton's cache answered {hits} of {told}.")
    # the verifies' seconds by part (kopt-worker's phases): the model
    # compiled for the request or kept from an earlier one, gate 1 (with
    # its memcheck, compute-sanitizer running the model in a child), the
    # candidate's build, the other gates
    ran = {r["path"] for r in rows if r["kind"] == "verify"}
    ph = [m["phases"] for path, m in latest(os.path.join(top, "actions"), "verify")
          if path in ran and isinstance(m.get("phases"), dict)]
    if ph:
        compiled = [p for p in ph if p.get("compiled")]
        total = lambda key, xs=ph: sum(float(p.get(key) or 0) for p in xs)  # noqa: E731
        print(f"\nVerifies that say where their time went: {len(ph)}; the model compiled in {len(compiled)} of them "
              f"({total('model_s', compiled):.1f} s), kept in the rest; gate 1 {total('static_s'):.1f} s; "
              f"candidates built {total('build_s'):.1f} s; the other gates {total('gates_s'):.1f} s.")
    # the profiles' DRAM byte counts (the GPU's counters, one more call)
    ran = {r["path"] for r in rows if r["kind"] == "profile"}
    ph = [m["phases"] for path, m in latest(os.path.join(top, "actions"), "profile")
          if path in ran and isinstance(m.get("phases"), dict)]
    cs = [float(p["counters_s"]) for p in ph if isinstance(p.get("counters_s"), (int, float))]
    if ph:
        print(f"\nProfiles that counted DRAM bytes: {len(cs)} of {len(ph)}"
              + (f"; the counters took {sum(cs):.1f} s (median {statistics.median(cs):.2f} s)." if cs else "."))
    captures(top, rows)
    logs = worker_logs(top)
    autotuning(logs)
    progress(logs)
    return 0


def worker_logs(top: str) -> list:
    """(file name, text) of each worker's log under KOPT_DIR/workers"""
    out = []
    for path in sorted(glob.glob(os.path.join(top, "workers", "*.log"))):
        with open(path, errors="replace") as f:
            out.append((os.path.basename(path), f.read()))
    return out


def progress(logs: list) -> None:
    """each compile's last progress line in the workers' logs (a worker
    compiles one variant at a time: a log's lines of one label are one
    compile, the last the furthest)"""
    last = {}
    for name, text in logs:
        for line in text.splitlines():
            p = parse_progress(line)
            if p:
                last[(name, p[0])] = p[1]
    if not last:
        return
    print("\n| compile (worker's log, its last progress line) | seconds so far | templates autotuned | precompiled | "
          "Triton waits | launch configs tuned |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (log, label), v in sorted(last.items()):
        print(f"| {label} ({log}) | " + " | ".join(v) + " |")


_TUNED = re.compile(r"^AUTOTUNE (\S.*\))\s*$")
_TOOK = re.compile(r"AUTOTUNE benchmarking takes ([0-9.]+) seconds and ([0-9.]+) seconds precompiling for (\d+) choices")


def tuned_ops(text: str) -> list:
    """(operator with its shapes, benchmarking s, precompiling s, choices)
    for each autotuning Inductor logged: its "AUTOTUNE op(shapes)" line,
    then the line that says what it took"""
    out, op = [], None
    for line in text.splitlines():
        m = _TUNED.match(line)
        if m:
            op = m.group(1)
            continue
        m = _TOOK.search(line)
        if m and op is not None:
            out.append((op, float(m.group(1)), float(m.group(2)), int(m.group(3))))
            op = None
    return out


def autotuning(logs: list) -> None:
    ops = [op for _, text in logs for op in tuned_ops(text)]
    if not ops:
        return
    bench = sum(o[1] for o in ops)
    pre = sum(o[2] for o in ops)
    seen: dict = {}
    for o in ops:
        seen[o[0]] = seen.get(o[0], 0) + 1
    again = sum(n - 1 for n in seen.values())
    slow = max(ops, key=lambda o: o[1] + o[2])
    print(f"\nInductor's autotuning (the workers' logs): {len(ops)} operators timed ({len(seen)} distinct, "
          f"{again} timed again), {bench:.1f} s benchmarking and {pre:.1f} s precompiling by its own count; "
          f"the slowest {slow[0]}: {slow[1]:.1f} s and {slow[2]:.1f} s for {slow[3]} choices.")


PHASES = ("dynamo_s", "inductor_s", "triton_s", "autotune_s", "run_s", "gpu_lock_wait_s")
OTHERS = ("load_s", "around_s", "after_s", "outside_s")


def other_parts(parts: dict, step_s: float) -> dict:
    """A capture's seconds besides its compile, from the worker's
    capture_parts and the step's seconds, as rules/report_capture.c
    reads them: the model loaded, what ran around the compile's spans
    (Inductor's imports in a fresh worker), what ran after the compile,
    and what was outside the worker's handling of the request"""
    num = lambda k: parts[k] if isinstance(parts.get(k), (int, float)) else None  # noqa: E731
    out = {k: num(k) for k in ("load_s", "around_s", "after_s")}
    total = num("total_s")
    out["outside_s"] = step_s - total if total is not None and step_s >= total else None
    return out


def union_ms(spans: list) -> int:
    """milliseconds covered by (start, end) spans, overlaps counted once"""
    total, end = 0, None
    for s, e in sorted(spans):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def captures(top: str, rows: list) -> None:
    ran = {r["path"]: r for r in rows if r["kind"] == "capture"}
    meas = dict(latest(os.path.join(top, "actions"), "capture"))
    if not ran:
        return
    print("\n| capture | seconds | Dynamo | Inductor | Triton | autotuning | first run | waited for the GPU "
          "| model loaded | around the compile | after the compile | outside the request |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in sorted(ran):
        m = meas.get(path) or {}
        ph = dict(m.get("compile_phases") or {})
        ph.update(other_parts(m.get("capture_parts") or {}, ran[path]["ms"] / 1000))
        cells = " | ".join(f"{float(ph[k]):.1f}" if isinstance(ph.get(k), (int, float)) else "-"
                           for k in PHASES + OTHERS)
        print(f"| {path} | {ran[path]['ms'] / 1000:.1f} | {cells} |")
    spans = [(r["at"], r["at"] + r["ms"]) for r in ran.values()]
    work = sum(e - s for s, e in spans)
    wall = union_ms(spans)
    print(f"\nCaptures: {len(ran)}, {work / 1000:.1f} s of worker time in {wall / 1000:.1f} s of wall time "
          f"({work / wall if wall else 0:.2f} at once on average).")


if __name__ == "__main__":
    sys.exit(main())
