"""kopt.static_gate: gate 1 of the verification cascade.

A candidate kernel source (written by an agent) is checked against the
original kernel source (Inductor's, from the output code's
``async_compile.triton('name', '''source''')``, or a standalone Triton file)
before anything runs. Standard library only: this module must not import
torch or triton, so that koptmake and the tests run it anywhere.

``check(candidate, original) -> (ok, reason)``; the reason is one line.
``report(candidate, original) -> dict`` adds ``memcheck``: the accesses the
gate could not prove in bounds (a list of one-line reasons, empty when it
proved them all); the worker then runs the candidate under
compute-sanitizer's memcheck (kopt.memcheck) before it counts as passed.

The check is an allow-list: what is not named here is rejected, each with
its own reason. Candidate files are imported, so decorator arguments,
default values and module-level constants run at import time, and Triton
evaluates names and attributes of a kernel body when it compiles it; each
of them must pass. The parts, in the order they run:

- the text (kopt.static_text): read as Python and Triton read it, one
  reading: UTF-8 with no coding declaration but UTF-8's, no NUL, byte order
  mark or character that one reader takes for a line break and another
  does not, ASCII outside comments and strings (Python NFKC-normalizes
  names), and each function's source, as Triton gets it through
  ``inspect.getsource``, the same function the gate parsed;
- the kernels (kopt.static_checker.check_kernels): every ``@triton.jit``
  function the original defines, each once, with the same name, the same
  parameters (names, order, annotations, defaults) and decorators of the
  same kinds in the same order (``@triton_heuristics.pointwise(...)`` may
  change its arguments, not become ``@triton_heuristics.reduction``), so
  that it slots into Inductor's wrapper; other top-level functions are
  helpers decorated with ``@triton.jit`` alone, or ``@triton.jit(...)`` with
  ``noinline``, ``do_not_specialize``, ``do_not_specialize_on_alignment`` or
  ``debug`` set to literals;
- the statements, names and attributes (kopt.static_checker, with the
  lists in kopt.static_lists): module level holds only imports (from
  triton, triton.language, Inductor's runtime helpers
  ``torch._inductor.runtime.{triton_helpers, triton_heuristics, hints,
  triton_compat}`` and math), functions, constant literals (or
  ``tl.constexpr(literal)``), a docstring and Inductor's
  ``triton_helpers.set_driver_to_gpu()``; decorator arguments, defaults
  and constants are literals (constants, tuples, lists, sets and dicts of
  literals, ``__file__``, Inductor's hint enums, ``DeviceProperties(...)``,
  ``set()``, ``triton.Config(...)`` of literals and list comprehensions
  over literal tuples; ``triton_meta`` and ``inductor_meta`` equal the
  original's, passed by keyword where it passes them, and so is
  ``triton.autotune``'s ``reset_to_zero`` (the arguments it zeroes while it
  times configs: an input among them would be written), and a decorator
  passes no more positional arguments than the original's, since one
  past them binds a parameter no keyword rule sees); every name is defined in the file or a harmless builtin;
  every attribute is a path into triton.language (its functions and
  dtypes, ``tl.math``, libdevice), Inductor's helpers and hints, Python's
  math, or a tensor's own (``x.to``, ``x.dtype``, ...);
- the scopes (kopt.static_scope): no binding of any kind (parameters,
  loop targets, imports, a function's name, comprehension variables, ...)
  shadows an import, a module-level name or a builtin, so that each name
  means what the gate read it as;
- the limits (kopt.static_limits): bounded nesting, constant arithmetic,
  comprehensions, ``tl.static_range`` unrolling, loop bounds and
  compile-time integers; ``while`` conditions that the body changes; no
  recursion;
- the bounds (kopt.static_bounds): every ``tl.load``, ``tl.store`` and
  atomic keeps a mask at least as strict as the original kernel's accesses
  to the same buffer (an access without a mask where the original masks
  that buffer, a dropped or loosened bound, a pointer a constant past the
  original's: rejected, naming the access), reasoning on the values that
  reach each access in the order the kernel runs; an access is proven in
  bounds when its pointer and mask are one of the original's own, and
  listed for the memcheck otherwise. A kernel writes only the buffers
  the original writes and reads only those it reads (a store into a
  buffer the original only reads changes a weight or an input for the
  calls after; a load of one it only writes reads a previous call's
  result), and a store goes through one buffer's pointer (or the names
  one of the original's stores goes through, as out_ptr + offset): one whose
  buffer the gate cannot tell (two buffers' pointers subtracted or chosen
  between, a pointer made from an integer, one a loop or a branch sets to
  what the gate cannot follow) is rejected, since the memcheck passes a
  store into any allocated buffer, and so is a load that may read a
  buffer the original only writes; so is a store in a helper function,
  which writes whatever buffer its caller passes. Which buffers a pointer
  is made from is followed through every operation but a load
  (kopt.static_buffers): casts to an integer and back, two pointers'
  difference, a conditional expression, tuples, loops over pointers, and
  a helper's return value and the loads it makes through its arguments,
  judged at each call in the caller's buffers (a helper's parameter
  annotated ``tl.constexpr`` included: Triton makes a parameter constexpr
  by the value passed, so a pointer passes through it). A load through a pointer
  made from none of the original's buffers (an integer, a loaded address)
  or from what the gate cannot follow is rejected, as it could read an
  output's previous contents, unless the original has such a load too
  (Helion's stack tensors): then it goes to the memcheck. An atomic whose
  old value is used reads its buffer as a load does, and so does one that
  merges its value into what the buffer held (any atomic but an exchange:
  a max of -inf leaves an output what it held), its old value used or not.
  A call to one of Inductor's helpers (``triton_helpers.NAME``, whose body
  the gate does not read) loads and stores through the pointer it is given
  (``HELPER_ACCESSES``: a bucketize's offsets, a scan's scratch, a
  barrier's semaphore), or, for a helper not named there, through any
  buffer's pointer among its arguments: each a load or a store of those
  buffers under the rules above, its index for the memcheck.

What is rejected, each with its own reason: other imports; file, process,
network, stream, event and timer access (``open``, ``os``, ``torch.cuda``,
``time`` ...); ``exec``/``eval``/``compile``/``__import__``/``getattr``/
``setattr``/``globals()``/``locals()``/``vars()``/``type()``; dunder
attributes and names (``__class__``, ``__dict__``, ``__globals__``,
``__builtins__``; only ``__file__`` is allowed, Inductor's decorators pass
it); frame, code and generator attributes (``gi_frame``, ``f_globals``,
``f_builtins``, ``co_code``, ...); string subscripts (``x['__builtins__']``);
``str.format``, f-strings and ``%`` formatting; inline assembly
(``tl.inline_asm_elementwise``); device printing (``print``,
``tl.device_print``, ``tl.static_print``); assignments to attributes
(monkey-patching); module-level mutable state (lists, dicts, sets) and
``global``/``nonlocal``; ``try`` (fallbacks to the original kernel);
``with``; ``match``; classes, lambdas, nested functions, comprehensions in
code, generators, the walrus operator and async code; host-side Python that
Triton's math and libdevice modules or Inductor's helpers import or define
(``tl.math.wraps``, ``triton_helpers.set_driver_to_cpu``: HOST_NAMES),
which Triton would run while it compiles; a function passed as a value
(a reduction's combine function) that loads or stores, whose pointers no
call site shows; and what the parts above reject.

Command line: ``python3 -m kopt.static_gate CANDIDATE ORIGINAL`` prints
``pass: <reason>`` (exit 0) or ``fail: <reason>`` (exit 1; a candidate file
that is not UTF-8 fails); exit 2 on a usage error or an unreadable file.
The candidate's bytes are read as they are (no newline translation). A pass that needs the memcheck says so after the reason:
``pass: <reason>; memcheck: <why>``.
"""

from __future__ import annotations

import ast
import sys

from .static_checker import Checker, check_kernels
from .static_limits import check_compile, check_depth, check_recursion
from .static_lists import Aliases, Reject, decorator_kind, is_jit, kernels
from .static_scope import check_scopes
from .static_text import check_text, check_triton_reading

__all__ = ["Reject", "check", "helion_sources", "main", "memcheck_text", "report", "report_helion", "run_pair"]


def _parse(source: str, what: str) -> ast.Module:
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        where = f"line {e.lineno}: " if e.lineno else ""
        raise Reject(f"{what} does not parse: {where}{e.msg}") from None
    except (ValueError, MemoryError) as e:  # NUL bytes; too deep for the parser
        raise Reject(f"{what} does not parse: {e}") from None
    check_depth(tree)
    return tree


def _check(candidate: str, cand: ast.Module, orig: ast.Module, orig_aliases: Aliases,
           orig_kernels: list[ast.FunctionDef]) -> list[str]:
    """Every check, in order; returns the memcheck list."""
    check_triton_reading(candidate, cand)
    aliases = Aliases(cand)
    check_kernels(cand, aliases, orig_kernels, orig_aliases)
    own = {decorator_kind(d, orig_aliases).split(".")[-1] for k in orig_kernels for d in k.decorator_list}
    by_name = {k.name: k for k in orig_kernels}
    checker = Checker(cand, aliases, own, by_name, orig_aliases, orig)
    checker.check_structure()
    check_scopes(candidate, cand, {k.name: {a.arg for a in ast.walk(k.args) if isinstance(a, ast.arg)}
                                   for k in orig_kernels})
    check_recursion(cand)
    check_compile(cand, aliases, by_name)
    checker.check_functions()
    checker.check_values()
    return checker.memcheck


def report(candidate: str, original: str) -> dict:
    """Gate 1: {"ok", "reason", "memcheck": [accesses to check on the GPU]}."""
    try:
        orig = _parse(original, "original")
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    orig_aliases = Aliases(orig)
    orig_kernels = kernels(orig, orig_aliases)
    if not orig_kernels:
        return {"ok": False, "reason": "original defines no @triton.jit kernel", "memcheck": []}
    try:
        check_text(candidate)
        cand = _parse(candidate, "candidate")
        memcheck = _check(candidate, cand, orig, orig_aliases, orig_kernels)
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    except RecursionError:
        return {"ok": False, "reason": "candidate is nested too deeply", "memcheck": []}
    names = ", ".join(f"'{k.name}'" for k in orig_kernels)
    noun = "kernel" if len(orig_kernels) == 1 else "kernels"
    reason = f"{noun} {names} keep{'s' if len(orig_kernels) == 1 else ''} name, signature and decorators"
    return {"ok": True, "reason": reason, "memcheck": memcheck}


def _helion_host(node: ast.stmt, aliases: Aliases) -> bool:
    """Whether a top-level statement of Helion's generated module is its
    host code (what the gate does not judge, and an edit must not change):
    the host function, and the imports of torch, helion and __future__ it
    needs."""
    if isinstance(node, ast.FunctionDef):
        return not is_jit(node, aliases)
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in ("torch", "helion") for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] in ("helion", "__future__")
    return False


def helion_sources(candidate: str, generated: str) -> tuple[str, str]:
    """Gate 1 for an edit of the Triton module Helion generated: the
    module's host code (the host function that launches the kernels, and
    its torch and helion imports) is Helion's and must come back unchanged,
    statement for statement; the rest (the @triton.jit kernels, their
    constants and Triton imports) is what check() judges, as for any
    kernel. Returns (candidate, original) without the host code. Reject
    when the edit changes it."""
    cand, gen = _parse(candidate, "candidate"), _parse(generated, "original")
    ac, ag = Aliases(cand), Aliases(gen)
    host_c = [ast.dump(n) for n in cand.body if _helion_host(n, ac)]
    host_g = [ast.dump(n) for n in gen.body if _helion_host(n, ag)]
    if host_c != host_g:
        raise Reject("a Helion edit changes only the @triton.jit kernels: its host code (the launching "
                     "function and the torch and helion imports) differs from Helion's")

    def rest(m: ast.Module, al: Aliases) -> str:
        return ast.unparse(ast.Module(body=[n for n in m.body if not _helion_host(n, al)], type_ignores=[]))
    return rest(cand, ac), rest(gen, ag)


def report_helion(candidate: str, generated: str) -> dict:
    """report() for an edit of Helion's generated module (helion_sources).
    The edit's own text is what runs (kopt.helion loads it whole when it
    defines every function), so it is read as Python and Triton read it
    before its host code is set apart."""
    try:
        check_text(candidate)
        check_triton_reading(candidate, _parse(candidate, "candidate"))
        cand, orig = helion_sources(candidate, generated)
    except Reject as e:
        return {"ok": False, "reason": str(e), "memcheck": []}
    return report(cand, orig)


def check(candidate: str, original: str) -> tuple[bool, str]:
    """Gate 1: (True, reason) when the candidate may run in place of the original
    (after the memcheck, where report() lists accesses for it)."""
    r = report(candidate, original)
    return r["ok"], r["reason"]


def memcheck_text(memcheck: list[str], limit: int = 3) -> str:
    """The memcheck list in one line."""
    more = len(memcheck) - limit
    return "; ".join(memcheck[:limit]) + (f"; and {more} more" if more > 0 else "")


def run_pair(candidate: str, original: str) -> tuple[int, str]:
    """The command's exit status and line for the files CANDIDATE and
    ORIGINAL: 0 and "pass: ...", 1 and "fail: ...", 2 and "static_gate: ..."
    when a file cannot be read."""
    try:
        with open(candidate, "rb") as f:
            data = f.read()
        with open(original, encoding="utf-8", newline="") as f:
            orig = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return 2, f"static_gate: {e}"
    try:
        cand = data.decode("utf-8")  # as it is: no newline translation, no BOM removed
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        return 1, f"fail: candidate is not UTF-8 (byte 0x{data[e.start]:02x} on line {line})"
    r = report(cand, orig)
    extra = f"; memcheck: {memcheck_text(r['memcheck'])}" if r["ok"] and r["memcheck"] else ""
    return (0 if r["ok"] else 1), f"{'pass' if r['ok'] else 'fail'}: {r['reason']}{extra}"


def main(argv: list[str]) -> int:
    """CANDIDATE ORIGINAL: the pair's line, and its status as the exit
    status. --each: pairs from stdin, CANDIDATE<TAB>ORIGINAL a line, and for
    each the line STATUS<TAB>LINE, in one process (a corpus of hundreds of
    pairs, each read as the two-file command reads it); status 3 when the
    gate itself raised."""
    if len(argv) == 2 and argv[1] == "--each":
        for pair in sys.stdin:
            names = pair.rstrip("\n").split("\t")
            if len(names) != 2:
                print(f"2\tstatic_gate: want CANDIDATE<TAB>ORIGINAL, got {pair.rstrip()!r}", flush=True)
                continue
            try:
                rc, text = run_pair(*names)
            except Exception as e:  # a bug of the gate's, said and not read as a verdict
                rc, text = 3, f"static_gate: {type(e).__name__}: {e}".replace("\n", " ")
            print(f"{rc}\t{text}", flush=True)
        return 0
    if len(argv) != 3:
        print("usage: python3 -m kopt.static_gate CANDIDATE ORIGINAL | --each", file=sys.stderr)
        return 2
    rc, text = run_pair(argv[1], argv[2])
    print(text, file=sys.stderr if rc == 2 else sys.stdout)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
