"""kopt.graphkeys: the keys of Inductor's graph cache that this process's
compiles look up, each with the hash of each of its parts.

A deployment runs the code the build measured only where its compiles are
served by the build's graph cache: a compile that misses lowers the graph
again and, under max-autotune, picks its configs again in the deploying
process (bench/results/2026-12-06g-h100-shapes-static). Which part of a
key differs says why: the float32 flags (kopt.precision), an Inductor
option, the graph's code, the inputs' layouts.

install() wraps Inductor's key function (torch 2.11:
torch._inductor.codecache.compiled_fx_graph_hash, which returns the key
and one line per part, "[HASH] PART: VALUE"), once per process; a torch
without it records nothing. The worker's profiles carry the keys its
compile looked up (profile.json, "graph_keys"), and the stitch puts the
chosen variant's in the deployment's table (substitutions.json); kopt.backend
names the parts of its own keys that differ where a compile of an
autotuning variant missed the build's graphs (parts_apart), and
tests/gpu/deploy.py prints them key by key (differing).

Nothing here imports torch at module level (the CPU tests import it).
"""

from __future__ import annotations

import re

PART = re.compile(r"^\[(\w+)\] ([^:\n]+): ")
_taken: list = []
_installed = [False]


def parts(debug_lines) -> dict:
    """{part: hash} of a key's lines (a part named twice: its first)"""
    out: dict = {}
    for line in debug_lines or []:
        m = PART.match(str(line))
        if m:
            out.setdefault(m.group(2).strip(), m.group(1))
    return out


def record(key, debug_lines) -> None:
    """one key looked up, with its parts"""
    _taken.append({"key": str(key), "parts": parts(debug_lines)})


def install() -> bool:
    """Records every key Inductor computes from now on; False where this
    torch has no key function to wrap."""
    if _installed[0]:
        return True
    try:
        from torch._inductor import codecache
    except ImportError:
        return False
    inner = getattr(codecache, "compiled_fx_graph_hash", None)
    if inner is None:
        return False

    def keyed(*args, **kwargs):
        out = inner(*args, **kwargs)
        try:
            key, lines = out
            record(key, lines)
        except (TypeError, ValueError):
            pass   # another torch's return: nothing recorded, the compile unchanged
        return out

    codecache.compiled_fx_graph_hash = keyed
    _installed[0] = True
    return True


def mark() -> int:
    """where the record stands now, for since()"""
    return len(_taken)


def since(mark_: int) -> list:
    """the keys recorded after mark() returned mark_, left recorded (a
    caller that takes() them still gets them); every key recorded where a
    take() came in between"""
    return list(_taken[mark_:] if mark_ <= len(_taken) else _taken)


def take() -> list:
    """the keys recorded since the last take, in the order looked up"""
    out = list(_taken)
    _taken.clear()
    return out


def nearest(build: list, k: dict) -> tuple[dict, list[str]]:
    """(the build's key nearest to k, the most parts equal; the parts whose
    hashes differ from it, sorted); build not empty"""
    mine = k.get("parts") or {}
    best = max(build, key=lambda b: sum((b.get("parts") or {}).get(p) == h for p, h in mine.items()))
    theirs = best.get("parts") or {}
    return best, sorted(p for p in set(mine) | set(theirs) if mine.get(p) != theirs.get(p))


def _apart(build: list, here: list) -> list:
    """(key, the build's nearest, the parts that differ) for each key
    looked up here that is none of the build's; build not empty"""
    want = {k.get("key") for k in build}
    return [(k, *nearest(build, k)) for k in here if k.get("key") not in want]


def parts_apart(build: list, here: list) -> list[str]:
    """the parts, over every key looked up here that is none of the
    build's, whose hashes differ from the build's nearest key: sorted, each
    once; empty where the build recorded none or every key here is one of
    its own"""
    return sorted({p for _, _, diff in _apart(build, here) for p in diff}) if build else []


def differing(build: list, here: list) -> list[str]:
    """For each key looked up here that is none of the build's: the parts
    whose hashes differ from the build's key nearest to it (the most parts
    equal); an empty list where every key here is one of the build's."""
    if not build:
        return [f"key {str(k.get('key'))[:12]}: the build recorded no keys" for k in here]
    out = []
    for k, best, diff in _apart(build, here):
        more = f" and {len(diff) - 12} more" if len(diff) > 12 else ""
        out.append(f"key {str(k.get('key'))[:12]} against {str(best.get('key'))[:12]}: "
                   f"{', '.join(diff[:12]) or 'no part differs'}{more}")
    return out
