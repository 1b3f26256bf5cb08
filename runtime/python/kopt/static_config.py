"""kopt.static_config: gate 1 for a candidate's launch config.

A candidate may carry a launch config beside (or instead of) a source: a
dict of the kernel's constexpr block sizes, num_warps and num_stages for
an Inductor kernel, a helion.Config's keys for a Helion kernel. The
worker pins it without Inductor's own checks (kopt.kernels.force_config
builds the launcher from it directly), so what those checks hold, and
what the kernel's code assumes, is checked here:

- an Inductor kernel's config names the kernel's parameters, its block
  sizes (a persistent reduction's R0_BLOCK is a constant of its body,
  and Inductor passes on no key that is not a parameter) and the launch
  keywords alone (static_lists.CONFIG_KEYWORDS), each a whole number within its
  limit; and each block size (XBLOCK, YBLOCK, ZBLOCK, R0_BLOCK,
  R1_BLOCK) is a power of two that divides Inductor's largest block for
  its axis (torch 2.11's TRITON_MAX_BLOCK, what its check_config
  asserts). Inductor drops an axis's mask where the axis's length is a
  multiple of that largest block (`ymask = tl.full([YBLOCK], True, ...)`
  for ynumel = 1024), so a YBLOCK of 2048 there has the first program
  read and write a second 1024 rows past each tensor: no mask stops it
  and gate 1, which proves the source, never sees the config;
- a Helion config sets only the keys of the kernel's own config, each a
  value of the same kind (a whole number, a flag, a list of them, or a
  plain word where Helion's is a string), and no PTXAS controls file:
  Helion writes some values into the host code it generates as they are
  (`num_warps={...}`, any `_triton_config_NAME` key), so a string there
  is Python that the launch runs, and `advanced_controls_file` is
  handed to ptxas as options.

Standard library only.
"""

from __future__ import annotations

import ast
import re

from .static_limits import LAUNCH_LIMITS
from .static_lists import CONFIG_KEYWORDS, INDUCTOR_RUNTIME, Aliases, Reject, decorator_kind, kernels

# torch 2.11's torch._inductor.runtime.hints.TRITON_MAX_BLOCK on CUDA
# (copied, not read: this module imports no torch; check-gpu's gate_reading
# holds it against the installed torch, and tests/lists.py against
# agents/features.h's AGENT_LAUNCH_ORDER, whose MAX the agents move within)
INDUCTOR_MAX_BLOCK = {"XBLOCK": 4096, "YBLOCK": 1024, "ZBLOCK": 1024, "R0_BLOCK": 65536, "R1_BLOCK": 32768}
# launch keywords beyond LAUNCH_LIMITS': a register budget per thread
CONFIG_LIMITS = {**LAUNCH_LIMITS, "maxnreg": 256}
# what a string of a Helion config may hold: a word (indexing='pointer',
# pid_type='flat'), nothing Python reads as more than a name
_WORD = re.compile(r"[A-Za-z0-9_]*\Z")
# Helion config keys never taken from a candidate
HELION_REFUSED = ("advanced_controls_file",)
HELION_RAW_PREFIX = "_triton_config_"
# helion.Config's own keys (Helion 1.x): a candidate may set one the
# kernel's own config lacks (normalized configs differ in the optional
# ones), as a plain value; whole numbers where Helion writes them raw
HELION_KEYS = {"block_sizes", "num_threads", "loop_orders", "flatten_loops", "l2_groupings",
               "reduction_loops", "range_unroll_factors", "range_warp_specializes", "range_num_stages",
               "range_multi_buffers", "range_flattens", "static_ranges", "pallas_load_buffer_count",
               "load_eviction_policies", "load_cache_modifiers", "store_cache_modifiers", "num_warps",
               "num_stages", "pid_type", "num_sm_multiplier", "maxnreg", "indexing", "atomic_indexing",
               "epilogue_subtile", "xcd_remap"}
HELION_WHOLE = {"num_warps", "num_stages", "num_sm_multiplier", "maxnreg", "epilogue_subtile"}


def check_launch(config: dict, params: set[str], inductor: bool) -> None:
    """Reject a launch config for a kernel of these parameters that names
    another key, gives a value that is not a whole number within its
    limit, or (inductor) a block past Inductor's largest for its axis."""
    if not isinstance(config, dict):
        raise Reject("a launch config is a dict of the kernel's block sizes and launch keywords")
    for key, value in config.items():
        if key not in params and key not in CONFIG_KEYWORDS and not (inductor and key in INDUCTOR_MAX_BLOCK):
            raise Reject(f"launch config key '{key}' is neither a parameter of the kernel nor one of "
                         f"{', '.join(sorted(CONFIG_KEYWORDS))}: others reach Triton's compile as options")
        if key == "maxnreg" and value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise Reject(f"launch config {key}={value!r} is not a whole number")
        if key in CONFIG_LIMITS and not 0 <= value <= CONFIG_LIMITS[key]:
            raise Reject(f"launch config {key}={value} is out of range (at most {CONFIG_LIMITS[key]})")
        most = INDUCTOR_MAX_BLOCK.get(key) if inductor else None
        if most is not None and not (0 < value <= most and most % value == 0):
            raise Reject(f"launch config {key}={value} is not a power of two of at most {most}, Inductor's "
                         f"largest for the axis: where the length is a multiple of it the kernel has no mask")


def check_config(config: dict, original: str) -> None:
    """check_launch for the original's kernels: their parameters, and
    Inductor's block rule where a kernel is Inductor's (a
    triton_heuristics decorator)."""
    try:
        tree = ast.parse(original)
    except (SyntaxError, ValueError) as e:
        raise Reject(f"original does not parse: {e}") from None
    aliases = Aliases(tree)
    ks = kernels(tree, aliases)
    params = {a.arg for k in ks for a in k.args.posonlyargs + k.args.args + k.args.kwonlyargs}
    inductor = any(decorator_kind(d, aliases).startswith(INDUCTOR_RUNTIME + ".triton_heuristics.")
                   for k in ks for d in k.decorator_list)
    check_launch(config, params, inductor)


def _same_kind(value, own) -> bool:
    """Whether a Helion config value is of the own config value's kind."""
    if own is None:
        return value is None
    if isinstance(own, bool) or isinstance(value, bool):
        return isinstance(own, bool) and isinstance(value, bool)
    if isinstance(own, int):
        return isinstance(value, int)
    if isinstance(own, str):
        return isinstance(value, str) and bool(_WORD.match(value))
    if isinstance(own, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            return False
        kinds = [e for e in own if e is not None]
        return all(e is None or any(_same_kind(e, k) for k in kinds) or (not kinds and _plain(e)) for e in value)
    return False


def _plain(value) -> bool:
    """A whole number, a flag, a word, or a list of them."""
    if value is None or isinstance(value, (bool, int)):
        return True
    if isinstance(value, str):
        return bool(_WORD.match(value))
    return isinstance(value, (list, tuple)) and all(_plain(e) for e in value)


def check_helion_config(config: dict, own: dict) -> None:
    """Reject a Helion config that sets a key neither the kernel's own
    config (own) nor helion.Config has, a PTXAS controls file, or a value
    of another kind than own's (a plain one where own lacks the key)."""
    if not isinstance(config, dict):
        raise Reject("a Helion candidate's config is a dict of helion.Config keys")
    for key, value in config.items():
        if not isinstance(key, str) or key.startswith(HELION_RAW_PREFIX) or (
                key not in own and key not in HELION_KEYS):
            raise Reject(f"Helion config key '{key}' is not one of helion.Config's: Helion writes such keys "
                         f"into the host code it generates as they are")
        if key in HELION_REFUSED and value:
            raise Reject(f"Helion config key '{key}' is not allowed: Helion hands it to ptxas as options")
        whole = key in HELION_WHOLE and not (value is None or (isinstance(value, int) and not isinstance(value, bool)))
        if whole or not (_same_kind(value, own[key]) if key in own else _plain(value)):
            raise Reject(f"Helion config {key}={value!r} is not of the kind of the kernel's own "
                         f"({own.get(key)!r}): Helion writes values into the host code it generates")
