#!/usr/bin/env python3
"""bench/beyond/summarize.py KOPT-OUT/all/report.json [REPORT.json...]: the
benchmark's judgement (README.md) from a build's report, as Markdown.
Several reports (a benchmark built in parts, each part's problems to the
end in one session) are judged as one: their problems together (a problem
in two of them is an error, exit 2), their GPU-minutes per step summed.

Per level (the model group: l1, l2, l3): geomean over max-autotune and over
torch.compile's defaults, problems below 0.97 against either; over the
problems whose ceiling over max-autotune (its time over the bound) is 1.25x
or more: geomean over max-autotune and the share of the room captured, in
log terms (log speedup over max-autotune / log ceiling), on average. Per
win (gamma, 1.03x, or more over max-autotune: a problem where
max-autotune's own code was chosen is none): the winning variant and the
strategies of its deployed kernels (substitutions.json).
A problem without a figure (failed, no max-autotune variant, wrong
baseline) is listed and counted nowhere.
"""
import json
import math
import os
import sys


WIN = 1.03  # over max-autotune, the gates' gamma: a win of the benchmark


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def x(v: float) -> str:
    """a speedup as the tables print it; "-" for none (no problem to take it over)"""
    return "-" if math.isnan(v) else f"{v:.3f}x"


def load(paths: list) -> tuple:
    """The reports' problems by level, where each came from (its kopt-out
    folder, by id of its row) and their GPU-minutes per step, summed; a
    problem in two reports is an error (ValueError, naming both)."""
    levels: dict = {}
    out_dir: dict = {}
    seen: dict = {}
    minutes: dict = {}
    for path in paths:
        try:
            rep = json.load(open(path))
        except ValueError as e:
            raise ValueError(f"{path}: not JSON ({e})") from None
        if not isinstance(rep, dict) or not isinstance(rep.get("models"), list):
            raise ValueError(f"{path}: not a report (no list of models)")
        for m in rep["models"]:
            if m["model"] in seen:
                raise ValueError(f"{m['model']} is in both {seen[m['model']]} and {path}")
            seen[m["model"]] = path
            out_dir[id(m)] = os.path.dirname(os.path.dirname(os.path.abspath(path)))
            # a models group's prefix (l1/...); a model of its own counts in
            # its report's target (the example networks: "networks")
            lv = m["model"].split("/")[0] if "/" in m["model"] else rep.get("target", "all")
            levels.setdefault(lv, []).append(m)
        for step, v in (rep.get("gpu_minutes_by_step") or {}).items():
            minutes[step] = minutes.get(step, 0.0) + v
    return levels, out_dir, minutes


def main() -> int:
    if len(sys.argv) < 2:
        print("usage: summarize.py REPORT.json [REPORT.json...]", file=sys.stderr)
        return 2
    try:
        levels, out_dir, minutes = load(sys.argv[1:])
    except (OSError, ValueError) as e:
        print(f"summarize.py: {e}", file=sys.stderr)
        return 2
    print("| level | problems | with figures | geomean vs torch.compile | geomean vs max-autotune | below 0.97 | "
          "with room (ceiling >= 1.25) | their geomean vs max-autotune | room captured (log, mean) |")
    print("| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |")
    rows, wins, missing = [], [], []
    for lv in sorted(levels):
        ms = levels[lv]
        fig = [m for m in ms if m.get("speedup") and m.get("speedup_vs_max_autotune")]
        missing += [f"{m['model']} ({m.get('verdict')})" for m in ms if m not in fig]
        low = [m["model"].split("/")[-1] for m in fig if min(m["speedup"], m["speedup_vs_max_autotune"]) < 0.97]
        room = [m for m in fig if (m.get("max_autotune_over_bound") or 0) >= 1.25]
        cap = [math.log(m["speedup_vs_max_autotune"]) / math.log(m["max_autotune_over_bound"]) for m in room]
        print(f"| {lv} | {len(ms)} | {len(fig)} | {x(geomean([m['speedup'] for m in fig]))} | "
              f"{x(geomean([m['speedup_vs_max_autotune'] for m in fig]))} | {', '.join(low) or 'none'} | "
              f"{len(room)} | {x(geomean([m['speedup_vs_max_autotune'] for m in room]))} | "
              f"{f'{sum(cap) / len(cap):.2f}' if cap else '-'} |")
        for m in fig:
            rows.append(m)
            if m.get("verdict") == "optimized" and m["speedup_vs_max_autotune"] >= WIN:
                wins.append(m)  # over max-autotune: not a problem where max-autotune's own code won
    print("\n| problem | verdict | variant | vs torch.compile | vs max-autotune | bound (us) | max-autotune over bound | optimized over bound |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for m in rows:
        b = m.get("bound_ns")
        print(f"| {m['model']} | {m.get('verdict')} | {m.get('variant')} | {m['speedup']:.3f}x | "
              f"{m['speedup_vs_max_autotune']:.3f}x | {b / 1e3 if b else float('nan'):.1f} | "
              f"{m.get('max_autotune_over_bound') or float('nan'):.2f} | {m.get('optimized_over_bound') or float('nan'):.2f} |")
    print("\n## Wins over max-autotune and their strategies\n")
    for m in wins:
        # a shape of a model (MODEL@SHAPE, kopt(5) shape): its folder is MODEL/SHAPE
        folder = os.path.join(m["of"], m["shape"]) if m.get("of") else m["model"]
        sub = os.path.join(out_dir[id(m)], folder, "substitutions.json")
        try:
            ks = json.load(open(sub)).get("kernels", {}).values()
        except (OSError, ValueError):
            ks = []
        what = "; ".join(f"{k.get('kernel')}: {k.get('strategy')} ({k.get('speedup') or 0:.3f}x alone)" for k in ks)
        print(f"- {m['model']} ({m['speedup_vs_max_autotune']:.3f}x over max-autotune, variant {m.get('variant')}): "
              f"{what or 'the variant alone'}")
    hosty = [m for m in rows if m.get("host_bound")]
    if hosty:
        print("\n## Host-bound problems\n\nA fifth or more of torch.compile's call or of the chosen variant's is the "
              "host's: the speedup per call moves with the host's speed from process to process, the speedup in "
              "device time (each call queued behind a GPU spin, its kernels back to back) does not (the deployment "
              "check takes that figure for these).\n")
        print("| problem | host, torch.compile | host, chosen | vs torch.compile | in device time | "
              "vs max-autotune in device time |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        pct = lambda x: "-" if x is None else f"{100 * x:.0f}%"
        for m in hosty:
            d, da = m.get("device_speedup"), m.get("device_speedup_vs_max_autotune")
            print(f"| {m['model']} | {pct(m.get('host_share'))} | {pct(m.get('chosen_host_share'))} | "
                  f"{m['speedup']:.3f}x | {'-' if d is None else f'{d:.3f}x'} | {'-' if da is None else f'{da:.3f}x'} |")
    if missing:
        print("\nWithout figures: " + ", ".join(missing))
    total = sum(minutes.values())
    if total > 0:
        print("\n## GPU time\n\nGPU-minutes the workers spent, by kind of step"
              + (f", summed over {len(sys.argv) - 1} reports" if len(sys.argv) > 2 else "") + ":\n")
        print("| " + " | ".join(sorted(minutes)) + " | all | capture's share |")
        print("| " + " | ".join("---:" for _ in range(len(minutes) + 2)) + " |")
        print("| " + " | ".join(f"{minutes[k]:.1f}" for k in sorted(minutes))
              + f" | {total:.1f} | {100 * minutes.get('capture', 0.0) / total:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
