"""tests/conventions/classes.py DUMP MAPPING: checks an editor's per-character
highlighting of sample.kopt against sample.expect. DUMP has one line per
character, 'LINE COL NAME' (1-based; NAME is the editor's syntax group or
face, empty where none), and may have a line 'filetype NAME'. MAPPING is
'NAME=class,NAME=class,...' from the editor's names to sample.expect's
classes. Prints TAP lines, no plan (the caller counts); exits 1 on a
failure."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main(dump, mapping, start):
    names = dict(kv.split("=", 1) for kv in mapping.split(",") if kv)
    got = {}
    with open(dump) as f:
        for ln in f:
            parts = ln.rstrip("\n").split(" ", 2)
            if len(parts) >= 2 and parts[0].isdigit():
                got[(int(parts[0]), int(parts[1]))] = parts[2] if len(parts) > 2 else ""
    with open(os.path.join(HERE, "sample.kopt")) as f:
        lines = f.read().split("\n")
    n, failed = start, 0
    with open(os.path.join(HERE, "sample.expect")) as f:
        for ln in f:
            if ln.startswith("#") or not ln.strip():
                continue
            line, text, want = ln.rstrip("\n").split("\t")
            nth = 1
            if "@" in text and text.rsplit("@", 1)[1].isdigit():
                text, nth = text.rsplit("@", 1)[0], int(text.rsplit("@", 1)[1])
            at = -1
            for _ in range(nth):
                at = lines[int(line) - 1].find(text, at + 1)
            cols = range(at + 1, at + 1 + len(text))
            seen = [got.get((int(line), c), "?") for c in cols]
            classes = {names.get(s, "none:" + s) for s in seen}
            n += 1
            good = at >= 0 and classes == {want}
            failed += not good
            print(f"{'' if good else 'not '}ok {n} - line {line}: '{text}' is {want}")
            if not good:
                print(f"# got {seen}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0))
