"""tools/mutate_ops.py: the mutants tools/mutate runs: every mutant of a C
or Python file, their IDs, and the file of equivalence arguments.

C (a small mutator over operators and constants; comments, string and
character literals and preprocessor lines are skipped):

  rel     a relational operator negated (< and >=, > and <=, == and !=)
  bound   a boundary moved (< and <=, > and >=)
  arith   + and -, * and / (binary, spaced as the house style writes them;
          also += -= *= /=)
  logic   && and ||
  const   a number plus one, minus one, times two, halved
  ret     return 0 and return -1, return true and return false, return 1
          and return 0
  del     a statement deleted: a call of a function that returns int (a
          status, by the house style) whose value is dropped, or an
          `if (call(...) < 0) ...` check with its call

Python (from the tokenizer: strings, comments and docstrings are never
mutated), in the functions a target names or a whole file:

  rel     < and >=, > and <=, == and !=, `is` and `is not`, `in` and `not in`
  bound   < and <=, > and >=
  logic   `and` and `or`; `not` dropped
  arith   + and -, * and /, // and *, % and // (binary only; also += -=
          *= /=)
  const   an integer plus one, minus one (never below zero), times two and
          halved; a float times two and halved (not a warning's stacklevel)
  ret     return True and return False

A mutant's ID is a short hash of its file, its operator, the original and
mutated line texts and which occurrence of that pair it is in the file, so
it stays the same while the line does, wherever the line moves.

The equivalence file (tests/mutation/equivalent.txt) holds one argument a
line: `ID LINEHASH reason`, where LINEHASH is the first 8 hex digits of the
SHA-1 of the mutated line's text (stripped) when the argument was written.
An argument whose ID no mutant has any more, or whose line's hash differs,
is stale: tools/mutate names it and runs the mutant as any other.
"""

import ast
import hashlib
import io
import os
import re
import tokenize

# ---------------------------------------------------------------- scanning

PUNCT = sorted(
    """>>= <<= ... -> ++ -- << >> <= >= == != && || += -= *= /= %= &= ^= |= ##
    [ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #""".split(),
    key=len, reverse=True)

KEYWORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do",
    "double", "else", "enum", "extern", "float", "for", "goto", "if",
    "inline", "int", "long", "register", "restrict", "return", "short",
    "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "_Bool", "bool", "_Static_assert",
}

NUM_RE = re.compile(r"(0[xX][0-9a-fA-F]+|(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?)([uUlLfF]*)")
ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Tok:
    __slots__ = ("kind", "text", "start", "end")

    def __init__(self, kind, text, start):
        self.kind = kind    # 'id', 'num', 'punct', 'str' (string or char literal)
        self.text = text
        self.start = start
        self.end = start + len(text)

    def __repr__(self):
        return "%s(%r)" % (self.kind, self.text)


def scan(src):
    """Tokens of the code, without comments and preprocessor lines; string
    and character literals are kept as opaque 'str' tokens (never mutated)."""
    toks = []
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "#" and line_start:
            # a preprocessor line, with its continuations
            j = i
            while True:
                k = src.find("\n", j)
                if k < 0:
                    j = n
                    break
                # a comment may hold the newline: skip /* ... */ inside
                seg = src[j:k]
                c0 = seg.find("/*")
                if c0 >= 0 and seg.find("*/", c0) < 0:
                    e = src.find("*/", j + c0 + 2)
                    j = n if e < 0 else e + 2
                    continue
                if seg.endswith("\\"):
                    j = k + 1
                    continue
                j = k
                break
            i = j
            continue
        line_start = False
        if c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            toks.append(Tok("str", src[i:j + 1], i))
            i = j + 1
            continue
        if c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            m = NUM_RE.match(src, i)
            toks.append(Tok("num", m.group(0), i))
            i = m.end()
            continue
        m = ID_RE.match(src, i)
        if m:
            # a string prefix (L"...", u8"...") stays with its string
            toks.append(Tok("id", m.group(0), i))
            i = m.end()
            continue
        for p in PUNCT:
            if src.startswith(p, i):
                toks.append(Tok("punct", p, i))
                i += len(p)
                break
        else:
            toks.append(Tok("punct", c, i))
            i += 1
    return toks


# ---------------------------------------------------------------- mutants

REL_NEG = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
REL_BOUND = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
LOGIC = {"&&": "||", "||": "&&"}


def spaced(src, t):
    """Whether a token has a blank on both sides (a binary operator in the
    house style: `a < b`, never `*p` or `-1`)."""
    return t.start > 0 and src[t.start - 1] in " \t" and t.end < len(src) and src[t.end] in " \t\n"


def num_variants(text):
    m = NUM_RE.fullmatch(text)
    if not m:
        return []
    body, suffix = text[:len(text) - len(m.group(4))], m.group(4)
    out = []
    if body.lower().startswith("0x"):
        v = int(body, 16)
        for w in (v + 1, v - 1, v * 2, v // 2):
            if w >= 0 and w != v:
                out.append("0x%x%s" % (w, suffix))
    elif re.fullmatch(r"\d+", body) and "f" not in suffix.lower():
        v = int(body)
        for w in (v + 1, v - 1, v * 2, v // 2):
            if w >= 0 and w != v:
                out.append("%d%s" % (w, suffix))
    else:
        v = float(body)
        for w in (v + 1, v - 1, v * 2, v / 2):
            if w != v:
                s = repr(w)
                if "e" not in s and "." not in s and "inf" not in s and "nan" not in s:
                    s += ".0"
                out.append(s + suffix)
    seen, res = set(), []
    for s in out:
        if s not in seen:
            seen.add(s)
            res.append(s)
    return res


def match_paren(toks, i):
    """Index of the token closing the bracket at toks[i], or -1."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    o = toks[i].text
    c = pairs[o]
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].kind != "punct":
            continue
        if toks[j].text == o:
            depth += 1
        elif toks[j].text == c:
            depth -= 1
            if depth == 0:
                return j
    return -1


def statement_end(toks, i):
    """Index of the last token of the statement starting at toks[i]."""
    t = toks[i]
    if t.kind == "punct" and t.text == "{":
        return match_paren(toks, i)
    if t.kind == "id" and t.text in ("if", "while", "for", "switch"):
        if i + 1 >= len(toks) or toks[i + 1].text != "(":
            return -1
        j = match_paren(toks, i + 1)
        if j < 0 or j + 1 >= len(toks):
            return -1
        e = statement_end(toks, j + 1)
        if t.text == "if" and e >= 0 and e + 1 < len(toks) and toks[e + 1].text == "else":
            return statement_end(toks, e + 2)
        return e
    depth = 0
    for j in range(i, len(toks)):
        x = toks[j]
        if x.kind != "punct":
            continue
        if x.text in "([{":
            depth += 1
        elif x.text in ")]}":
            depth -= 1
            if depth < 0:
                return -1
        elif x.text == ";" and depth == 0:
            return j
    return -1


def int_functions(paths):
    """Names of functions declared to return int in the given sources."""
    names = set()
    pat = re.compile(r"^(?:static\s+|extern\s+|inline\s+)*int\s+\*?\s*([a-z_][a-z0-9_]*)\s*\(", re.M)
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                names.update(pat.findall(f.read()))
        except OSError:
            pass
    return names


def mutants_of(path, src, intfns):
    """Every mutant of one file: (start, end, replacement, op)."""
    toks = scan(src)
    out = []
    for i, t in enumerate(toks):
        prev = toks[i - 1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if t.kind == "punct":
            if t.text in REL_NEG and spaced(src, t):
                out.append((t.start, t.end, REL_NEG[t.text], "rel"))
                if t.text in REL_BOUND:
                    out.append((t.start, t.end, REL_BOUND[t.text], "bound"))
            elif t.text in ARITH and spaced(src, t) and prev is not None and \
                    (prev.kind in ("id", "num", "str") or prev.text in (")", "]")) and \
                    not (prev.kind == "id" and prev.text in KEYWORDS and prev.text != "sizeof"):
                out.append((t.start, t.end, ARITH[t.text], "arith"))
            elif t.text in LOGIC:
                out.append((t.start, t.end, LOGIC[t.text], "logic"))
        elif t.kind == "num":
            # array sizes in declarations (`char buf[64]`) give nothing to test
            if prev is not None and prev.text == "[" and nxt is not None and nxt.text == "]" and i >= 3:
                a, b = toks[i - 2], toks[i - 3]
                after = toks[i + 2].text if i + 2 < len(toks) else ";"
                if a.kind == "id" and after in (",", ";", "=", "[") and \
                        (b.kind == "id" and b.text not in KEYWORDS - {"char", "int", "double", "long", "short",
                                                                      "unsigned", "signed", "float", "bool",
                                                                      "const", "static", "_Bool"} or
                         b.text == "," or b.text == "*" and not spaced(src, b)):
                    continue
            # `{ 0 }` is the zero initializer, not a value
            if prev is not None and prev.text == "{" and nxt is not None and nxt.text == "}" and t.text == "0":
                continue
            # enumerator values and bit-field widths are names, not numbers
            if prev is not None and prev.text == ":" and i >= 2 and toks[i - 2].kind == "id" and \
                    nxt is not None and nxt.text == ";":
                continue
            for v in num_variants(t.text):
                out.append((t.start, t.end, v, "const"))
        elif t.kind == "id" and t.text == "return" and nxt is not None:
            j = i + 1
            vals = {("0",): "-1", ("-", "1"): "0", ("true",): "false", ("false",): "true", ("1",): "0"}
            for k, v in vals.items():
                end = j + len(k)
                if end < len(toks) and tuple(x.text for x in toks[j:end]) == k and toks[end].text == ";":
                    out.append((toks[j].start, toks[end - 1].end, v, "ret"))
        # statement deletion: `f(...);` or `if (f(...) < 0) stmt` where f returns int
        if t.kind == "id" and prev is not None and prev.text in (";", "{", "}") and nxt is not None and nxt.text == "(":
            if t.text in intfns:
                j = match_paren(toks, i + 1)
                if j > 0 and j + 1 < len(toks) and toks[j + 1].text == ";":
                    out.append((t.start, toks[j + 1].end, ";", "del"))
            elif t.text == "if":
                j = i + 2
                neg = j < len(toks) and toks[j].text == "!"
                if neg:
                    j += 1
                if j + 1 < len(toks) and toks[j].kind == "id" and toks[j].text in intfns and toks[j + 1].text == "(":
                    k = match_paren(toks, j + 1)
                    close = match_paren(toks, i + 1)
                    ok = k > 0 and close > 0 and (
                        close == k + 1 or
                        close == k + 3 and toks[k + 1].text in ("<", "!=") and toks[k + 2].text == "0")
                    if ok:
                        e = statement_end(toks, close + 1)
                        if e > 0 and not (e + 1 < len(toks) and toks[e + 1].text == "else"):
                            out.append((t.start, toks[e].end, ";", "del"))
    return out




# ---------------------------------------------------------------- Python

PY_REL = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
PY_ARITH = {"+": "-", "-": "+", "*": "/", "/": "*", "//": "*", "%": "//",
            "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
PY_KEYWORDS = {"and", "or", "not", "in", "is", "if", "else", "elif", "return", "yield", "lambda", "for",
               "while", "assert", "del", "await", "from", "import", "with", "as", "raise", "except",
               "print"}


def py_num_variants(text):
    """Small changes of a Python number literal (no complex, no hex)."""
    t = text.replace("_", "")
    if re.fullmatch(r"\d+", t):
        v = int(t)
        ws = [v + 1, v - 1, v * 2, v // 2]
        out = [str(w) for w in ws if w >= 0 and w != v]
    elif re.fullmatch(r"(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", t):
        v = float(t)
        out = [repr(w) for w in (v * 2, v / 2) if w != v]
    else:
        return []
    seen = []
    for s in out:
        if s not in seen:
            seen.append(s)
    return seen


def py_ranges(src, names):
    """Line ranges [(first, last)] of the top-level functions and classes
    (or methods, as Class.method) named; every line when names is None."""
    if names is None:
        return None
    tree = ast.parse(src)
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name in names:
                out.append((node.lineno, node.end_lineno))
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                            "%s.%s" % (node.name, sub.name) in names:
                        out.append((sub.lineno, sub.end_lineno))
    missing = set(names) - set(n.name for n in tree.body if hasattr(n, "name")) - \
        set("%s.%s" % (n.name, s.name) for n in tree.body if isinstance(n, ast.ClassDef)
            for s in n.body if hasattr(s, "name"))
    if missing:
        raise ValueError("no such function or class: %s" % ", ".join(sorted(missing)))
    return out


def for_target(toks, i):
    """Whether the `in` at toks[i] is a for loop's or a comprehension's."""
    depth = 0
    for j in range(i - 1, -1, -1):
        t = toks[j]
        if t.type == tokenize.OP and t.string in ")]}":
            depth += 1
        elif t.type == tokenize.OP and t.string in "([{":
            if depth == 0:
                return False
            depth -= 1
        elif depth == 0 and t.type == tokenize.NAME and t.string in ("in", "if", "and", "or", "not", "return",
                                                                     "lambda", "while", "elif"):
            return False
        elif depth == 0 and t.type == tokenize.NAME and t.string == "for":
            return True
        elif depth == 0 and t.type == tokenize.OP and t.string in ("=", ":", ";"):
            return False
    return False


def py_statement_lines(src):
    """{line: [lines of its statement]}: a simple statement's lines, or a
    compound one's header (its `if`, `while`, `for`, `def` up to its
    body), since the tracer reports some line of a statement, not each."""
    out = {}
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.stmt):
            continue
        last = node.end_lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            last = max(node.lineno, body[0].lineno - 1)
        span = list(range(node.lineno, last + 1))
        for ln in span:
            if ln not in out or len(out[ln]) > len(span):
                out[ln] = span
    return out


def py_mutants_of(src, ranges=None):
    """Every mutant of a Python source: (start, end, replacement, op), as
    offsets into src; only in the line ranges given (all when None)."""
    offs = [0]
    for ln in src.splitlines(True):
        offs.append(offs[-1] + len(ln))

    def off(pos):
        return offs[pos[0] - 1] + pos[1]

    toks = [t for t in tokenize.generate_tokens(io.StringIO(src).readline)
            if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE)]
    out = []
    for i, t in enumerate(toks):
        if ranges is not None and not any(a <= t.start[0] <= b for a, b in ranges):
            continue
        prev = toks[i - 1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        s, e = off(t.start), off(t.end)
        operand = prev is not None and (
            prev.type in (tokenize.NUMBER, tokenize.STRING) or
            prev.type == tokenize.NAME and prev.string not in PY_KEYWORDS or
            prev.type == tokenize.OP and prev.string in (")", "]", "}"))
        if t.type == tokenize.OP:
            if t.string in PY_REL:
                out.append((s, e, PY_REL[t.string], "rel"))
                if t.string in REL_BOUND:
                    out.append((s, e, REL_BOUND[t.string], "bound"))
            elif t.string in PY_ARITH and operand:
                out.append((s, e, PY_ARITH[t.string], "arith"))
        elif t.type == tokenize.NAME:
            if t.string in ("and", "or"):
                out.append((s, e, "or" if t.string == "and" else "and", "logic"))
            elif t.string == "is":
                if nxt is not None and nxt.string == "not":
                    out.append((s, off(nxt.end), "is", "rel"))
                else:
                    out.append((s, e, "is not", "rel"))
            elif t.string == "in" and operand and not for_target(toks, i):
                out.append((s, e, "not in", "rel"))
            elif t.string == "not":
                if nxt is not None and nxt.string == "in":
                    out.append((s, off(nxt.end), "in", "rel"))
                elif prev is None or prev.string != "is":
                    # `not x` becomes `x`
                    out.append((s, off(nxt.start) if nxt is not None else e, "", "logic"))
            elif t.string == "return" and nxt is not None and nxt.string in ("True", "False"):
                after = toks[i + 2] if i + 2 < len(toks) else None
                if after is None or after.start[0] != nxt.start[0] or after.string in (";",):
                    out.append((off(nxt.start), off(nxt.end), "False" if nxt.string == "True" else "True", "ret"))
        elif t.type == tokenize.NUMBER:
            if prev is not None and prev.string == "=" and i >= 2 and toks[i - 2].string == "stacklevel":
                continue  # which caller a warning names, not a decision
            for v in py_num_variants(t.string):
                out.append((s, e, v, "const"))
    return out


# ---------------------------------------------------------------- all mutants

def line_bounds(src, start, end):
    a = src.rfind("\n", 0, start) + 1
    b = src.find("\n", end)
    return a, (len(src) if b < 0 else b)


def line_hash(text):
    """What an equivalence argument stores of its line."""
    return hashlib.sha1(text.strip().encode()).hexdigest()[:8]


class Mutant:
    __slots__ = ("id", "file", "line", "op", "start", "end", "repl", "old", "new", "lang")

    def apply(self, src):
        return src[:self.start] + self.repl + src[self.end:]


def intfns_of(root):
    hdrs = []
    for d, _, fs in os.walk(root):
        if "/." in d or "/_" in d or "/tree-" in d:
            continue
        hdrs += [os.path.join(d, f) for f in fs if f.endswith((".h", ".c"))]
    return int_functions(hdrs)


def enumerate_mutants(root, targets):
    """All mutants of the targets, in file order. A target is (path, names):
    a file relative to root, and for Python the functions and classes to
    mutate (None: all of the file)."""
    intfns = None
    res = []
    for rel, names in targets:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            src = f.read()
        if rel.endswith(".py"):
            lang = "py"
            raw = py_mutants_of(src, py_ranges(src, names))
        else:
            lang = "c"
            if intfns is None:
                intfns = intfns_of(root)
            raw = mutants_of(rel, src, intfns)
        seen = {}
        for start, end, repl, op in sorted(raw):
            a, b = line_bounds(src, start, end)
            old = src[a:b]
            new = src[a:start] + repl + src[end:b]
            keyb = "\0".join((rel, op, old.strip(), " ".join(new.split())))
            occ = seen.get(keyb, 0)
            seen[keyb] = occ + 1
            m = Mutant()
            m.id = hashlib.sha1(("%s\0%d" % (keyb, occ)).encode()).hexdigest()[:10]
            m.file, m.op, m.start, m.end, m.repl, m.lang = rel, op, start, end, repl, lang
            m.line = src.count("\n", 0, start) + 1
            m.old, m.new = old, new
            res.append(m)
    return res


# ---------------------------------------------------------------- equivalence

def read_equivalent(path, allm):
    """The arguments of an equivalence file that still hold, {ID: reason},
    and the stale ones, [(ID, why)]: no mutant has the ID any more (its line
    changed or went), the line's hash differs, or none was stored. An
    argument whose reason names a file (it starts "PATH: ") outside the
    files of allm (a run over some targets only) is neither."""
    by_id = {m.id: m for m in allm}
    files = {m.file for m in allm}
    ok, stale = {}, []
    with open(path, encoding="utf-8") as f:
        for n, ln in enumerate(f, 1):
            ln = ln.strip()
            if not ln or ln.startswith("#"):
                continue
            parts = ln.split(None, 2)
            mid = parts[0]
            h = parts[1] if len(parts) > 1 and re.fullmatch(r"[0-9a-f]{8}", parts[1]) else None
            reason = (parts[2] if h else " ".join(parts[1:])) if len(parts) > 1 else ""
            m = by_id.get(mid)
            named = re.match(r"([\w./-]+\.(?:c|h|py)): ", reason)
            if m is None and named and named.group(1) not in files:
                continue
            if m is None:
                stale.append((mid, "%s:%d: no such mutant any more: its line changed or went" % (path, n)))
            elif h is None:
                stale.append((mid, "%s:%d: no line hash stored with the argument" % (path, n)))
            elif h != line_hash(m.old):
                stale.append((mid, "%s:%d: %s:%d changed since the argument was written" % (path, n, m.file, m.line)))
            else:
                ok[mid] = reason
    return ok, stale
