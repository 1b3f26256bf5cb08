"""A kernel served from Inductor's caches keeps the launch config that
coordinate descent found for it, rather than searching again.

With coordinate descent on (max-autotune's modes), Inductor times a
kernel's launch config at its first run and stores the winner in its
autotuning cache, marked as coordinate descent's. A later process that
loads the compiled graph from the graph cache reads that entry again
(CachingAutotuner.recheck_autotune_cache), but in torch 2.9 to 2.11 the
winner's mark is not carried onto the compiled kernel's config, and a
kernel with one config is skipped outright: the first run searches again
(pytorch/pytorch#172819). On a GPU that was seconds per kernel on every
warm build: a rewrite's reduction spent 2.1 s of its 2.2 s compile from
the cache on it (bench/results/2026-12-05-gpu-tests-2).

install() wraps recheck_autotune_cache: after torch's own, the cache's
entry for the configs the kernel was loaded with is read again, and where
it names one config found by coordinate descent that one of the compiled
configs matches, that compiled config is the kernel's only one and is
marked as found, so the first run uses it. Nothing else changes: a miss,
an entry that is not coordinate descent's, or a winner that none of the
compiled configs matches is left to torch, and a failure inside the
addition leaves torch's result as it was. KOPT_TUNE_CACHE=0 leaves
Inductor as it is. Workers install it before every compile, kopt.backend
before its compiles.
"""

from __future__ import annotations

import functools
import os
import sys

_said = False


def adopt(tuner, configs: list, check, hashable) -> bool:
    """Where the autotuning cache's entry for configs (check: torch's
    check_autotune_cache) is one config found by coordinate descent and a
    compile result of tuner has it (hashable: triton_config_to_hashable),
    that result alone is kept, its config marked as found; True where
    that happened"""
    if not configs or not getattr(tuner, "compile_results", None):
        return False
    cached = check(configs, tuner.filename, tuner.inductor_meta)[0]
    if len(cached) != 1 or not getattr(cached[0], "found_by_coordesc", False):
        return False
    best = hashable(cached[0])
    for result in tuner.compile_results:
        if hashable(result.config) == best:
            tuner.compile_results = [result]
            result.config.found_by_coordesc = True
            return True
    return False


def wrap(tuner_cls, check, hashable) -> bool:
    """Wraps tuner_cls.recheck_autotune_cache as the module says; True
    where it is wrapped (now or before), False where it is missing"""
    recheck = vars(tuner_cls).get("recheck_autotune_cache")
    if recheck is None:
        return False
    if getattr(recheck, "kopt_tune_cache", False):
        return True

    @functools.wraps(recheck)
    def recheck_autotune_cache(self, *args, **kwargs):
        global _said
        configs = [r.config for r in (getattr(self, "compile_results", None) or [])]
        out = recheck(self, *args, **kwargs)
        try:
            adopt(self, configs, check, hashable)
        except Exception as exc:  # torch's own result stands
            if not _said:
                _said = True
                print(f"kopt: the autotuning cache's coordinate-descent entry not adopted: {exc!r}",
                      file=sys.stderr, flush=True)
        return out

    recheck_autotune_cache.kopt_tune_cache = True
    setattr(tuner_cls, "recheck_autotune_cache", recheck_autotune_cache)
    return True


def install() -> bool:
    """Wraps Inductor's recheck (wrap) unless KOPT_TUNE_CACHE is 0; True
    where it is wrapped."""
    if os.environ.get("KOPT_TUNE_CACHE", "1").strip() == "0":
        return False
    try:
        from torch._inductor.runtime import triton_heuristics as th
    except ImportError:
        return False
    tuner = getattr(th, "CachingAutotuner", None)
    check = getattr(th, "check_autotune_cache", None)
    hashable = getattr(th, "triton_config_to_hashable", None)
    if tuner is None or check is None or hashable is None:
        return False
    return wrap(tuner, check, hashable)
