"""CUPTI kernel records: assigning them to timed calls and summing them.

A record is (name, start_ns, end_ns, stream, correlation, grid, block, regs)
as kopt-worker's _kopt_cupti.take() returns it. Plain Python, no torch: the
CPU tests run it on records recorded on the GPU machine.
"""

from __future__ import annotations


def assign(windows: list[tuple[int, int]], records: list) -> list[list]:
    """Per window (t0, t1), the records that start inside it, in start order."""
    out: list[list] = [[] for _ in windows]
    order = sorted(range(len(windows)), key=lambda i: windows[i][0])
    recs = sorted(records, key=lambda r: r[1])
    j = 0
    for i in order:
        t0, t1 = windows[i]
        while j < len(recs) and recs[j][1] < t0:
            j += 1
        k = j
        while k < len(recs) and recs[k][1] <= t1:
            out[i].append(recs[k])
            k += 1
    return out


def span_ns(records: list) -> float:
    if not records:
        return 0.0
    return float(max(r[2] for r in records) - min(r[1] for r in records))


def busy_ns(records: list) -> float:
    return float(sum(r[2] - r[1] for r in records))


def per_kernel(calls: list[list]) -> tuple[list[str], dict]:
    """Kernel names in first-seen order, and per name: total ns and launches
    over all calls."""
    order: list[str] = []
    per: dict = {}
    for recs in calls:
        for r in recs:
            e = per.get(r[0])
            if e is None:
                e = per[r[0]] = {"ns": 0.0, "launches": 0}
                order.append(r[0])
            e["ns"] += r[2] - r[1]
            e["launches"] += 1
    return order, per
