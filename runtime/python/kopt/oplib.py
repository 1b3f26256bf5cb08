"""The torch.library namespace of koptmake's own operators (kopt::attention,
attention.py; kopt::products, products.py): one Library("kopt", "DEF") a
process, made at the first operator's registration, on which each defines
its schema and its CPU, CUDA and Meta forms (define). A second "DEF"
library of one namespace is an error in torch, and older torch (the CPU
tests' 1.13) has no "FRAGMENT" kind, so the operators share this one.
"""

from __future__ import annotations

_lib = None
_defined: set = set()


def library():
    """the process's torch.library.Library of namespace kopt"""
    global _lib
    if _lib is None:
        import torch

        _lib = torch.library.Library("kopt", "DEF")
    return _lib


def define(schema: str, cpu, cuda, meta) -> None:
    """Define the operator kopt::NAME that schema ("NAME(...) -> ...")
    declares, with its CPU, CUDA and Meta forms, once a process"""
    name = schema.split("(", 1)[0]
    if name in _defined:
        return
    lib = library()
    lib.define(schema)
    lib.impl(name, cpu, "CPU")
    lib.impl(name, cuda, "CUDA")
    lib.impl(name, meta, "Meta")
    _defined.add(name)


def op(schema: str):
    """torch.ops.kopt.NAME.default, for the schema define() took"""
    import torch

    return getattr(torch.ops.kopt, schema.split("(", 1)[0]).default
