"""A TEST DOUBLE planted in the worker by tests/gpu/screen_lost.sh, through
PYTHONPATH (Python imports sitecustomize when it starts): the second launch
config that a screen loads in the build is swapped for a kernel that stores
to a wild address, a real illegal memory access that kills the worker's CUDA
context. That config is written to $KOPT_PLANT_FILE first, so that it alone
crashes: the worker started in the lost one's place does not measure it
again (koptmake resumes the screen without it), and finds every other
config as it is. Nothing happens without KOPT_PLANT_FILE."""
import importlib.abc
import importlib.util
import os
import sys

STATE = os.environ.get("KOPT_PLANT_FILE")
_wild = []


def wild_kernel():
    """a Triton kernel that stores far past its argument (imported late:
    every Python that starts here imports this file)"""
    if not _wild:
        import triton
        import triton.language as tl

        @triton.jit
        def wild(p):
            tl.store(p + (1 << 40), tl.load(p))

        _wild.append(wild)
    return _wild[0]


class Wild:
    """the loaded kernel, whose launch is the wild store"""

    def __init__(self, obj):
        self._obj = obj

    def __getattr__(self, name):
        return getattr(self._obj, name)

    def run(self, *args, **kwargs):
        import torch

        t = next(a for a in args if isinstance(a, torch.Tensor))
        wild_kernel()[(1,)](t)


def plant(K) -> None:
    orig = K.load_kernel

    def load_kernel(name, source, tag, config=None):
        obj = orig(name, source, tag, config)
        if not tag.startswith("screen "):
            return obj
        lines = open(STATE).read().splitlines() if os.path.exists(STATE) else []
        if not any(x.startswith("planted ") for x in lines):
            lines.append(tag)
            if len(lines) == 2:
                lines.append("planted " + tag)
            with open(STATE, "w") as f:
                f.write("\n".join(lines) + "\n")
        return Wild(obj) if "planted " + tag in lines else obj

    K.load_kernel = load_kernel


class Hook(importlib.abc.MetaPathFinder):
    """plants the swap in kopt.kernels once it is loaded"""

    def find_spec(self, name, path, target=None):
        if name != "kopt.kernels":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(mod):
            run(mod)
            plant(mod)

        spec.loader.exec_module = exec_module
        return spec


if STATE:
    sys.meta_path.insert(0, Hook())
