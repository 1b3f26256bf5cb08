"""tools/mutate_cover.py: which test runs which line, for tools/mutate.

A mutant can be killed only by a test that runs its line, so tools/mutate
runs each mutant against those tests alone. The map comes from one run of
the whole suite in a tree built with gcc's --coverage (C) and with a
sitecustomize.py that traces the kopt package's lines (Python), each test
writing its counts under a folder of its own (GCOV_PREFIX, and
KOPT_MUTATE_PYCOV for Python), then read back with gcov's JSON. That run
is the unmutated suite's (tools/mutate says what it does with a test that
fails there).

For a line gcov knows nothing of (a declaration's initializer, a statement
continued over lines) the tests that ran any line of its function count,
and outside any function those that ran any line of its file. A Python
line is taken as it is traced (the first line of a statement continued
over lines is the one traced, and counts for the rest of it).

The map is saved as coverage.json in the output folder, keyed by a hash
of every file of the tree, and used again while the tree is the same.
"""

import json
import os
import subprocess

SITECUSTOMIZE = r'''# written by tools/mutate: records the kopt package's lines each Python
# process runs, into $KOPT_MUTATE_PYCOV/<pid>.lines
import atexit, os, sys, threading
_dir = os.environ.get("KOPT_MUTATE_PYCOV")
if _dir:
    _seen = set()
    _mark = os.sep + os.path.join("runtime", "python", "kopt") + os.sep

    def _local(frame, event, arg):
        if event == "line":
            _seen.add((frame.f_code.co_filename, frame.f_lineno))
        return _local

    def _global(frame, event, arg):
        if _mark in frame.f_code.co_filename:
            _seen.add((frame.f_code.co_filename, frame.f_lineno))
            return _local
        return None

    def _dump():
        try:
            os.makedirs(_dir, exist_ok=True)
            with open(os.path.join(_dir, "%d.lines" % os.getpid()), "a") as f:
                for fn, ln in list(_seen):
                    f.write("%s\t%d\n" % (fn, ln))
        except OSError:
            pass
        _seen.clear()

    _exit = os._exit

    def _os_exit(code):
        _dump()
        _exit(code)
    os._exit = _os_exit
    atexit.register(_dump)
    sys.settrace(_global)
    threading.settrace(_global)
'''


def gcov_lines(tree, gcdas):
    """{file: ({line: hit}, [(first, last, hit)])} from gcov over the
    gcda files (paths under a prefix folder mirroring tree); hit is whether
    the count is above zero."""
    out = {}
    if not gcdas:
        return out
    # gcov finds each .gcno beside its .gcda
    for g in gcdas:
        rel = g[1]
        note = os.path.join(tree, rel[:-5] + ".gcno")
        link = g[0][:-5] + ".gcno"
        if os.path.exists(note) and not os.path.lexists(link):
            os.symlink(note, link)
    for k in range(0, len(gcdas), 64):
        batch = [g[0] for g in gcdas[k:k + 64]]
        p = subprocess.run(["gcov", "--json-format", "--stdout"] + batch, cwd=tree,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        for ln in p.stdout.decode("utf-8", "replace").splitlines():
            ln = ln.strip()
            if not ln.startswith("{"):
                continue
            doc = json.loads(ln)
            for f in doc.get("files", []):
                name = os.path.normpath(f["file"])
                if os.path.isabs(name):
                    name = os.path.relpath(name, tree)
                lines, funcs = out.setdefault(name, ({}, []))
                for x in f.get("lines", []):
                    lines[x["line_number"]] = lines.get(x["line_number"], False) or x["count"] > 0
                for x in f.get("functions", []):
                    funcs.append((x["start_line"], x["end_line"], x["execution_count"] > 0))
    return out


def py_lines(tree, folder):
    """{file: {line: True}} from the .lines files a test's Python wrote."""
    out = {}
    if not os.path.isdir(folder):
        return out
    mark = os.path.join("runtime", "python", "kopt") + os.sep
    for fn in os.listdir(folder):
        with open(os.path.join(folder, fn), errors="replace") as f:
            for ln in f:
                path, _, num = ln.rstrip("\n").rpartition("\t")
                i = path.find(mark)
                if i < 0 or not num.isdigit():
                    continue
                out.setdefault(path[i:], {})[int(num)] = True
    return out


def after_flush(src, line):
    """The line of the KOPT_COVER_FLUSH() call just before line (1-based)
    in the C source src, blank lines between them skipped, or None. A
    child that flushes its counts and then ends with _exit never counts the
    _exit itself: its tests are the flush's."""
    lines = src.split("\n")
    k = line - 2
    while k >= 0 and not lines[k].strip():
        k -= 1
    if k >= 0 and lines[k].strip() == "KOPT_COVER_FLUSH();":
        return k + 1
    return None


class Coverage:
    """tests(file, line, lang): the tests that run a line."""

    def __init__(self, data=None):
        # file -> {"lines": {line: [test...]}, "known": [line...] (gcov's
        # executable lines), "funcs": [[first, last, test]] (run by the
        # test), "spans": [[first, last]] (every function), "any": [test...]}
        self.files = data or {}
        self.failed = []  # tests that failed in the coverage build
        self._b = {}

    def add(self, test, per_file):
        for name, (lines, funcs) in per_file.items():
            e = self._b.setdefault(name, {"lines": {}, "known": set(), "funcs": set(), "spans": set(),
                                          "any": set()})
            for ln, hit in lines.items():
                e["known"].add(ln)
                if hit:
                    e["lines"].setdefault(ln, set()).add(test)
                    e["any"].add(test)
            for a, b, hit in funcs:
                e["spans"].add((a, b))
                if hit:
                    e["funcs"].add((a, b, test))
                    e["any"].add(test)

    def finish(self):
        for name, e in self._b.items():
            self.files[name] = {
                "lines": {str(k): sorted(v) for k, v in e["lines"].items()},
                "known": set(e["known"]),
                "funcs": sorted(list(x) for x in e["funcs"]),
                "spans": sorted(list(x) for x in e["spans"]),
                "any": sorted(e["any"]),
            }
        self._b = {}

    def tests(self, file, line, lang):
        e = self.files.get(file)
        if not e:
            return []
        if lang == "py" or line in e["known"]:
            return sorted(set(e["lines"].get(str(line), [])))
        inside = [f for f in e["funcs"] if f[0] <= line <= f[1]]
        if inside:
            return sorted(set(f[2] for f in inside))
        if any(a <= line <= b for a, b in e["spans"]):
            return []  # in a function no test runs
        return list(e["any"])  # a file-level declaration

    def save(self, path, key):
        with open(path, "w") as f:
            json.dump({"key": key, "files": self.files, "failed": self.failed}, f, default=sorted)

    @staticmethod
    def load(path, key):
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError):
            return None
        if d.get("key") != key:
            return None
        c = Coverage(d["files"])
        c.failed = d.get("failed", [])
        for e in c.files.values():
            e["known"] = set(e["known"])
        return c
