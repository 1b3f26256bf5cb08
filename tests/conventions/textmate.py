"""tests/conventions/textmate.py: the TextMate grammar for .kopt
(tools/editors/vscode/syntaxes/kopt.tmLanguage.json) parses, its regexes
compile, the VS Code package points at it, and a small TextMate tokenizer
(below: match and begin/end rules, captures, includes from the repository,
the earliest match wins and the first listed on a tie, a rule's end before
its inner patterns on a tie, as vscode-textmate does) gives every piece of
tests/conventions/sample.kopt the class sample.expect says. The grammar's
regexes are kept to what Oniguruma and Python's re read alike. Prints TAP."""

import json
import os
import re
import sys

top = os.environ.get("top_srcdir") or os.path.join(os.path.dirname(__file__), "..", "..")
VSC = os.path.join(top, "tools", "editors", "vscode")
HERE = os.path.join(top, "tests", "conventions")
sys.path.insert(0, os.path.join(top, "tests", "runtime"))
from tap import ok, done  # noqa: E402


class Grammar:
    def __init__(self, g):
        self.repo = g.get("repository", {})
        self.root = self.flatten(g["patterns"])

    def flatten(self, patterns, seen=()):
        out = []
        for p in patterns:
            if "include" in p:
                inc = p["include"]
                if inc == "$self":
                    raise ValueError("$self is not used by this grammar")
                key = inc[1:]
                if key in seen:
                    continue
                out += self.flatten([self.repo[key]], seen + (key,))
            elif "match" in p or "begin" in p:
                r = dict(p)
                r["_re"] = re.compile(p["match"] if "match" in p else p["begin"])
                if "begin" in p:
                    r["_end"] = re.compile(p["end"])
                    r["_inner"] = self.flatten(p.get("patterns", []), seen)
                out.append(r)
            elif "patterns" in p:
                out += self.flatten(p["patterns"], seen)
        return out

    def tokenize(self, text):
        """per line, per character: the list of scopes, outermost first"""
        stack = []  # (rule, scopes of the rule)
        lines = []
        for line in text.split("\n"):
            scopes = [None] * len(line)
            pos = 0
            while True:
                base = stack[-1][1] if stack else ["source.kopt"]
                rules = stack[-1][0]["_inner"] if stack else self.root
                best, kind = None, None
                for r in rules:
                    m = r["_re"].search(line, pos)
                    if m and (best is None or m.start() < best.start()):
                        best, kind = m, r
                if stack:
                    m = stack[-1][0]["_end"].search(line, pos)
                    if m and (best is None or m.start() <= best.start()):
                        best, kind = m, "end"
                if best is None:
                    for i in range(pos, len(line)):
                        scopes[i] = base
                    break
                for i in range(pos, best.start()):
                    scopes[i] = base
                if kind == "end":
                    rule = stack.pop()[0]
                    self.paint(scopes, best, base, None, rule.get("endCaptures", {}))
                elif "_end" in kind:
                    inner = base + ([kind["name"]] if "name" in kind else [])
                    self.paint(scopes, best, inner, None, kind.get("beginCaptures", {}))
                    stack.append((kind, inner))
                else:
                    self.paint(scopes, best, base, kind.get("name"), kind.get("captures", {}))
                if best.end() == best.start() and kind != "end" and "_end" not in kind:
                    if pos < len(line):
                        scopes[pos] = base
                    pos += 1
                else:
                    pos = best.end()
                if pos >= len(line) and not (stack and stack[-1][0]["_end"].search(line, pos)):
                    break
            lines.append(scopes)
        return lines

    @staticmethod
    def paint(scopes, m, base, name, captures):
        outer = base + ([name] if name else [])
        for i in range(m.start(), m.end()):
            scopes[i] = outer
        for k in sorted(captures, key=int):
            g = int(k)
            if m.start(g) < 0:
                continue
            for i in range(m.start(g), m.end(g)):
                scopes[i] = (scopes[i] or outer) + [captures[k]["name"]]


CLASSES = [
    ("comment.", "comment"), ("constant.character.escape", "escape"), ("invalid.", "invalid"),
    ("variable.other.interpolated", "interpolation"), ("punctuation.definition.variable", "interpolation"),
    ("meta.interpolation", "interpolation"), ("punctuation.definition.string", "string"), ("string.", "string"),
    ("storage.type", "keyword"), ("keyword.control", "keyword"), ("keyword.other.default", "keyword"),
    ("entity.name", "name"), ("variable.other.property", "property"), ("support.function", "function"),
    ("constant.language.boolean", "boolean"), ("constant.numeric", "number"), ("keyword.other.unit", "unit"),
    ("variable.other.kopt", "value"),
]


def klass(scopes):
    for s in reversed(scopes or []):
        for prefix, c in CLASSES:
            if s.startswith(prefix):
                return c
    return None


def expectations():
    out = []
    with open(os.path.join(HERE, "sample.expect")) as f:
        for ln in f:
            if ln.startswith("#") or not ln.strip():
                continue
            line, text, cls = ln.rstrip("\n").split("\t")
            nth = 1
            if "@" in text and text.rsplit("@", 1)[1].isdigit():
                text, nth = text.rsplit("@", 1)[0], int(text.rsplit("@", 1)[1])
            out.append((int(line), text, nth, cls))
    return out


def locate(lines, line, text, nth):
    s, at = lines[line - 1], -1
    for _ in range(nth):
        at = s.find(text, at + 1)
    return at


def main():
    path = os.path.join(VSC, "syntaxes", "kopt.tmLanguage.json")
    with open(path) as f:
        g = json.load(f)
    ok(g.get("scopeName") == "source.kopt" and "kopt" in g.get("fileTypes", []), "the grammar parses: source.kopt")
    bad = []

    def walk(x):
        if isinstance(x, dict):
            for k in ("match", "begin", "end"):
                if k in x:
                    try:
                        re.compile(x[k])
                    except re.error as e:
                        bad.append((x[k], str(e)))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(g)
    ok(not bad, "every regex of the grammar compiles", bad)
    with open(os.path.join(VSC, "package.json")) as f:
        pkg = json.load(f)
    gr = pkg["contributes"]["grammars"][0]
    lang = pkg["contributes"]["languages"][0]
    ok(gr["scopeName"] == g["scopeName"] and os.path.exists(os.path.join(VSC, gr["path"]))
       and os.path.exists(os.path.join(VSC, lang["configuration"])) and ".kopt" in lang["extensions"]
       and "Koptfile" in lang["filenames"], "the VS Code package names the grammar, .kopt and Koptfile")
    with open(os.path.join(VSC, lang["configuration"])) as f:
        conf = json.load(f)
    ok(conf["comments"]["lineComment"] == "#", "language-configuration: '#' comments")

    with open(os.path.join(HERE, "sample.kopt")) as f:
        text = f.read()
    lines = text.split("\n")
    toks = Grammar(g).tokenize(text)
    for line, t, nth, want in expectations():
        at = locate(lines, line, t, nth)
        if at < 0:
            ok(False, f"sample line {line}: '{t}' is there")
            continue
        got = {klass(toks[line - 1][i]) for i in range(at, at + len(t))}
        ok(got == {want}, f"line {line}: '{t}' is {want}", f"got {got}: {[toks[line - 1][i] for i in range(at, at + len(t))]}")
    done()


if __name__ == "__main__":
    sys.exit(main())
