#!/usr/bin/env python3
"""bench/cost/summarize.py LOG [NULL_S WORKERS]: the cost tables of a build
log (.kopt/log, engine/blog.c's format): per step kind the count, median,
90th percentile and total seconds of the steps that ran and finished (ok or
failed), and per model the GPU-minutes by step kind (every step but propose
and report runs in a worker on a GPU). Markdown on stdout."""
import statistics
import sys
from collections import defaultdict

GPU_KINDS = ("capture", "profile", "screen", "verify", "stitch")


def pct(xs, q):
    s = sorted(xs)
    if not s:
        return 0.0
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def model_of(path: str, models: list) -> str:
    """The model a step's path belongs to: the longest stitch path (a
    model's name: "softmax", "kb/23_Softmax") that is the path or its prefix."""
    best = path.split("/")[0]
    for m in models:
        if (path == m or path.startswith(m + "/")) and len(m) > len(best):
            best = m
    return best


def main() -> int:
    by_kind = defaultdict(list)
    by_model = defaultdict(lambda: defaultdict(float))
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 5 or fields[2] == "cancelled":
                continue
            rows.append((int(fields[1]) / 1000.0, fields[3], fields[4]))
    models = sorted({p for _, k, p in rows if k == "stitch"})
    for secs, kind, path in rows:
        by_kind[kind].append(secs)
        if kind in GPU_KINDS:
            by_model[model_of(path, models)][kind] += secs
    print("| step | count | median s | p90 s | total s |\n|---|---:|---:|---:|---:|")
    for kind in sorted(by_kind):
        xs = by_kind[kind]
        print(f"| {kind} | {len(xs)} | {statistics.median(xs):.2f} | {pct(xs, 0.9):.2f} | {sum(xs):.1f} |")
    print()
    kinds = [k for k in GPU_KINDS if any(k in m for m in by_model.values())]
    print("| model | " + " | ".join(f"{k} min" for k in kinds) + " | GPU-min |")
    print("|---|" + "---:|" * (len(kinds) + 1))
    tot = []
    for model in sorted(by_model):
        m = by_model[model]
        t = sum(m.values()) / 60
        tot.append(t)
        print(f"| {model} | " + " | ".join(f"{m.get(k, 0) / 60:.2f}" for k in kinds) + f" | {t:.2f} |")
    if tot:
        print(f"\n{len(tot)} models, mean {statistics.mean(tot):.2f} GPU-minutes per model, "
              f"{sum(tot):.1f} in all")
    if len(sys.argv) > 3:
        print(f"\nnull build: {float(sys.argv[2]):.3f} s wall, workers started: {sys.argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
