"""kopt.static_text: gate 1 reads a candidate the way Python and Triton do.

A candidate's text is read three times where it runs: Python compiles the
module (Inductor writes it to a .py file and compiles what ``open(path)``
reads: the locale's decoding, universal newlines, the coding declaration
ignored; ``kopt.kernels.load_jit`` compiles the string), and Triton reads
each @triton.jit function's source again through ``inspect.getsourcelines``:
linecache's lines of the file (``tokenize.open``: the coding declaration or
a byte order mark decides the decoding), the block ``inspect.getblock``
finds from the code's first line, dedented and cut at the first line that
starts with ``def NAME(``. What Triton compiles is that second reading.

The gate checks one text, so it makes the readings agree or rejects:

- the text is UTF-8 with no byte order mark and no coding declaration but
  UTF-8's in what any reader takes for its first two lines (the text up to
  the second newline: every reader splits at least there);
- no NUL, no lone surrogate, and no character that some reader takes for a
  line break and another does not: carriage return, form feed, vertical
  tab, the file, group and record separators, NEL, U+2028 and U+2029
  (``str.splitlines`` breaks at all of them, Python's tokenizer at none but
  the carriage return), so every reader numbers the lines alike; no other
  control character, and no invisible format character (bidirectional
  overrides, zero-width spaces), which show a reviewer other code than the
  tokenizer reads;
- outside comments and string literals every character is ASCII (Python
  NFKC-normalizes identifiers: a full-width ``ｔｌ`` is ``tl``), and the
  tokenizer reads what the parser reads;
- for each top-level function, Triton's reading (``triton_source``) parses
  to the same function as the gate's, decorators aside.

``source_lines(text)`` is the line list linecache would hold for the file
(kopt.kernels registers it for a candidate it compiles from a string).
Standard library only.
"""

from __future__ import annotations

import ast
import copy
import inspect
import io
import re
import textwrap
import tokenize
import unicodedata

from .static_lists import Reject

MAX_SOURCE = 1 << 20  # characters of a candidate
# characters that one reader of the text takes for a line break and another does not
_BREAKS = {"\r": "carriage return", "\x0b": "vertical tab", "\x0c": "form feed",
           "\x1c": "file separator", "\x1d": "group separator", "\x1e": "record separator",
           "\x85": "next line (NEL)", "\u2028": "line separator", "\u2029": "paragraph separator"}
_CONTROL = re.compile(r"[\x01-\x08\x0e-\x1b\x1f\x7f]")  # other ASCII controls than tab and line breaks
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# the coding declaration, loosely: any reader's is found by this
_CODING = re.compile(r"coding[:=][ \t]*([-\w.]+)")
# Triton's cut of a function's source (triton/runtime/jit.py, JITFunction.__init__)
_TRITON_DEF = re.compile(r"^def\s+\w+\s*\(", re.MULTILINE)
# tokens whose text may hold any character
_FREE_TOKENS = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE,
                tokenize.ENDMARKER} | {getattr(tokenize, n) for n in ("FSTRING_MIDDLE",)
                                       if hasattr(tokenize, n)}


def _line_of(source: str, index: int) -> int:
    return source.count("\n", 0, index) + 1


def _check_characters(source: str) -> None:
    """NUL, surrogates, byte order marks and ambiguous line breaks."""
    if len(source) > MAX_SOURCE:
        raise Reject(f"candidate is {len(source)} characters (at most {MAX_SOURCE})")
    i = source.find("\x00")
    if i >= 0:
        raise Reject(f"NUL character on line {_line_of(source, i)} is not allowed")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as e:
        raise Reject(f"character on line {_line_of(source, e.start)} is not valid UTF-8 "
                     f"(a lone surrogate)") from None
    i = source.find("\ufeff")
    if i >= 0:
        raise Reject(f"byte order mark on line {_line_of(source, i)} is not allowed "
                     "(it decides the decoding for Triton's reader, not for Python's)")
    for ch, what in _BREAKS.items():
        i = source.find(ch)
        if i >= 0:
            raise Reject(f"{what} (U+{ord(ch):04X}) on line {_line_of(source, i)} is not allowed: "
                         "readers of the source disagree on where its lines break")
    m = _CONTROL.search(source)
    if m:
        raise Reject(f"control character U+{ord(m.group()):04X} on line {_line_of(source, m.start())} "
                     "is not allowed")
    for m in _NON_ASCII.finditer(source):
        if unicodedata.category(m.group()) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            raise Reject(f"invisible or control character U+{ord(m.group()):04X} on line "
                         f"{_line_of(source, m.start())} is not allowed (it shows a reader other text "
                         "than the tokenizer reads)")


def _check_coding(source: str) -> None:
    """No coding declaration but UTF-8's, for any reader's first two lines."""
    end = source.find("\n", source.find("\n") + 1)
    head = source if end < 0 else source[:end]
    for m in _CODING.finditer(head):
        name = m.group(1).lower().replace("_", "-")
        if name not in ("utf-8", "utf8"):
            raise Reject(f"coding declaration '{m.group(1)}' on line {_line_of(source, m.start())} "
                         "is not allowed (UTF-8 only)")
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(source.encode("utf-8")).readline)
    except SyntaxError as e:
        raise Reject(f"coding declaration is not allowed: {e.msg}") from None
    if enc != "utf-8":
        raise Reject(f"the source reads as '{enc}' to Python's tokenizer (UTF-8 only)")


def _check_tokens(source: str) -> None:
    """ASCII outside comments and strings; the tokenizer reads the whole text."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in _FREE_TOKENS or tok.string.isascii():
                continue
            if tok.type == tokenize.NAME:
                raise Reject(f"non-ASCII name '{tok.string}' on line {tok.start[0]} is not allowed "
                             "(Python reads it NFKC-normalized)")
            raise Reject(f"non-ASCII character {tok.string!r} on line {tok.start[0]} is not allowed "
                         "outside comments and strings")
    except (tokenize.TokenError, SyntaxError) as e:
        raise Reject(f"Python's tokenizer cannot read the candidate: {e}") from None


def check_text(source: str) -> None:
    """Everything about the text before it is parsed (see the module's docstring)."""
    _check_characters(source)
    _check_coding(source)
    _check_tokens(source)


def source_lines(text: str) -> list[str]:
    """The lines linecache holds for a file of this text: tokenize.open's
    reading (the declared or detected encoding, universal newlines)."""
    data = text.encode("utf-8")
    buf = io.BytesIO(data)
    enc, _ = tokenize.detect_encoding(buf.readline)
    buf.seek(0)
    return io.TextIOWrapper(buf, enc, newline=None).readlines()


def triton_source(lines: list[str], fn: ast.FunctionDef) -> str:
    """What Triton compiles for fn: inspect.getsourcelines from the code's
    first line (the first decorator's), dedented and cut at the first
    ``def NAME(`` at the start of a line (JITFunction.__init__)."""
    first = fn.decorator_list[0].lineno if fn.decorator_list else fn.lineno
    if fn.decorator_list and not lines[first - 1].lstrip(" \t").startswith("@"):
        # Python 3.13 starts the block at the code's first line, 3.11 and
        # 3.12 at the nearest line above it that starts with '@' or 'def'
        raise Reject(f"the first decorator of '{fn.name}' must start its line with '@' "
                     f"(line {first}): Pythons disagree on where its source starts")
    block = inspect.getblock(lines[first - 1:])
    src = textwrap.dedent("".join(block))
    m = _TRITON_DEF.search(src)
    if m is None:
        raise Reject(f"Triton would find no 'def' in the source of function '{fn.name}'")
    return src[m.start():]


def _bare(fn: ast.FunctionDef) -> str:
    """The function without its decorators, as ast.dump gives it."""
    c = copy.copy(fn)
    c.decorator_list = []
    return ast.dump(c)


def check_triton_reading(source: str, tree: ast.Module) -> None:
    """Each top-level function reads the same to Triton as to the gate."""
    lines = source_lines(source)
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        try:
            src = triton_source(lines, fn)
            theirs = ast.parse(src)
        except Exception as e:  # noqa: BLE001 - whatever stops Triton's reading
            if isinstance(e, Reject):
                raise
            raise Reject(f"Triton would not read function '{fn.name}' as Python does: "
                         f"its source from line {fn.lineno} does not parse alone ({e})") from None
        body = theirs.body
        if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or _bare(body[0]) != _bare(fn):
            raise Reject(f"Triton would read function '{fn.name}' differently from Python: "
                         f"its source as inspect.getsource gives it (line {fn.lineno}) is another function")
