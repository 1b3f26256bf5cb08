"""The torch.library namespace of koptmake's own operators (kopt::attention,
attention.py; kopt::products, products.py): one Library("kopt", "DEF") a
process, made at the first operator's registration, on which each defines
its schema and its CPU, CUDA and Meta forms. A second "DEF" library of one
namespace is an error in torch, and older torch (the CPU tests' 1.13) has
no "FRAGMENT" kind, so the operators share this one.
"""

from __future__ import annotations

_lib = None


def library():
    """the process's torch.library.Library of namespace kopt"""
    global _lib
    if _lib is None:
        import torch

        _lib = torch.library.Library("kopt", "DEF")
    return _lib
