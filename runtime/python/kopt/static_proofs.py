"""kopt.static_proofs: what the original kernel's accesses give gate 1 to
judge a candidate's by (kopt.static_bounds): for each buffer and kind of
access, whether the original always masks it and the bounds every one of
its masks keeps; and the accesses that prove a candidate's in bounds, each
a buffer, a linear pointer, its mask's bounds and its boundary_check (an
access inside a loop also at the loop's first iteration). A candidate's
access is proven by one with the same pointer and a mask at least as
strict. Standard library only.
"""

from __future__ import annotations

import ast

from .static_forms import keeps
from .static_lists import excerpt


class _Need:
    """What the original kernel does with one buffer, for one kind of access."""

    def __init__(self):
        self.masked = True   # every access masks it
        self.atoms: set | None = None  # the bounds every access keeps
        self.example = ""    # one of the original's masks, for messages


def needs_of(flow: Flow) -> tuple[dict, dict]:
    """{(buffer, kind): _Need} and {buffer: {linear pointers}} of the original."""
    needs: dict[tuple[str, str], _Need] = {}
    ptrs: dict[str, set] = {}
    for a in flow.accesses:
        bases = flow.bases(a.ptr, a.env) if a.ptr is not None else set()
        if len(bases) != 1:
            continue
        b = next(iter(bases))
        need = needs.setdefault((b, a.kind), _Need())
        need.masked = need.masked and a.masked
        atoms = flow.atoms(a.mask, a.env) if a.mask is not None else set()
        need.atoms = atoms if need.atoms is None else need.atoms & atoms
        if a.mask is not None and not need.example:
            need.example = excerpt(a.mask, 40)
        ptrs.setdefault(b, set()).add(flow.lin_exact(a.ptr, a.env))
    return needs, ptrs


def _boundary(a: Access) -> str:
    return ast.dump(a.boundary) if a.boundary is not None else ""


def proofs_of(flow: Flow) -> list[tuple]:
    """The original's accesses that run whenever the kernel runs (not under
    an if or a while): (buffer, linear pointer, mask atoms, boundary_check)
    each; and each again with a loop variable at its first value, where the
    loop provably runs (the access at the first iteration)."""
    firsts = {}
    for d in flow.fors:
        v = flow.first_value(d)
        if v is not None:
            firsts[id(d)] = v
    out: list[tuple] = []
    for a in flow.accesses:
        if a.conditional or a.ptr is None:
            continue
        for subst in [{}] + [{id(d): firsts[id(d)]} for d in a.loops if id(d) in firsts]:
            flow.subst = subst
            try:
                bases = flow.bases(a.ptr, a.env)
                if len(bases) != 1:
                    break
                form = (next(iter(bases)), flow.lin(a.ptr, a.env),
                        flow.atoms(a.mask, a.env) if a.mask is not None else set(), _boundary(a))
            finally:
                flow.subst = {}
            if form not in out:
                out.append(form)
    return out


def proven(flow: Flow, a: Access, buffer: str, proofs: list[tuple]) -> bool:
    """The same pointer as one of the original's accesses, with a mask at
    least as strict as that access's own."""
    ptr = flow.lin(a.ptr, a.env)
    have = flow.atoms(a.mask, a.env) if a.mask is not None else set()
    return any(b == buffer and p == ptr and bnd == _boundary(a) and all(keeps(have, atom) == "same" for atom in atoms)
               for b, p, atoms, bnd in proofs)
