"""kopt.static_forms: gate 1's comparisons of linear forms (kopt.static_bounds:
((canonical term, count), ...), constant) and of the mask atoms made of
them ((index, bound) for each `index < bound` a mask implies): how a
subscript that adds dimensions places a value's axes, whether a mask atom
is looser than the original's, by how much a pointer is shifted from the
original's. Standard library only.
"""

from __future__ import annotations

import ast


def broadcast_only(sl: ast.AST) -> bool:
    """x[:, None]: a subscript that only adds dimensions."""
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    return all((isinstance(e, ast.Constant) and e.value is None) or
               (isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None)
               for e in elts)


def axes(sl: ast.AST) -> str:
    """How a subscript that only adds dimensions places its value's axes,
    as broadcasting reads them (from the last): "" where it only adds
    leading ones (x[None, :] broadcasts as x does), else its pattern
    (x[:, None] varies along another axis than x: an index and a mask of
    one value on different axes bound different elements)."""
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    marks = ["N" if isinstance(e, ast.Constant) else ":" for e in elts]
    return "" if ":" not in marks or "N" not in marks[marks.index(":"):] else "".join(marks)


def one_axis(operand: str) -> bool:
    """May a subscript that places axes (x[:, None]) be read as placing a
    value of one axis? operand: its operand's canonical form. x[:, None]
    puts x's first axis before a new one and keeps its others after it: on
    a value given leading axes by a subscript or a broadcast_to, which the
    forms drop (x[None, :][:, None], tl.broadcast_to(x, [1, B])[:, None]),
    x's axis stays last, where x[:, None] of a one-axis x is not. Such a
    subscript is a term of its own."""
    return "Subscript(" not in operand and "broadcast_to" not in operand


def placed(form: tuple, pattern: str) -> tuple:
    """A linear form's terms placed as pattern (axes) says; its constant stays."""
    if not pattern:
        return form
    return tuple(sorted((f"Axes[{pattern}]({t})", c) for t, c in form[0])), form[1]


def looser(have: tuple, want: tuple) -> bool | None:
    """Is the mask atom have looser than want? Each is (index, bound), both
    linear forms; `i + c < b + d` reads `i < b + (d - c)`. True when provably
    looser, False when provably as strict, None when the gate cannot tell."""
    (hi, hb), (wi, wb) = have, want
    if hi[0] != wi[0] or hb[0] != wb[0]:
        return None
    return (hb[1] - hi[1]) > (wb[1] - wi[1])


def keeps(have: set, want: tuple) -> str:
    """'same' when an atom of have is as strict as want; 'other' when one
    compares another index with the same bound (the memcheck decides);
    'looser' when the only ones with that index and bound are looser;
    'none' when no atom compares with that bound."""
    best = "none"
    for atom in have:
        r = looser(atom, want)
        if r is False:
            return "same"
        if r is None and atom[1][0] == want[1][0]:
            best = "other"
        elif r is True and best == "none":
            best = "looser"
    return best


def shift(have: tuple, ptrs: set) -> int | None:
    """0 when the pointer is one of the original's; the constant by which it
    differs from one of them when that is all that differs; else None."""
    shifts = [have[1] - c for key, c in ptrs if key == have[0]]
    if not shifts:
        return None
    return 0 if 0 in shifts else min(shifts, key=abs)
