"""tests/layout.py: DESIGN.md's Layout section against the files of the
repository (git ls-files). Prints TAP; exits 1 when they disagree.

    python3 tests/layout.py [--self] DESIGN.md < FILES

The section's code block lists the repository by folder. A line that
starts in column 0 with a folder (NAME/) opens that folder and names files
in it (paths relative to it, as builtin/plan.c in agents/); an indented
line names more of them; a line in column 0 that starts with a file names
files at the top; a line of folders alone (tests/ bench/) names each
folder whole. After `#`, a description. Every tracked file must be named,
each file of the code's folders (CODE) by its own name, others where their
folder is named whole; and every name must be a tracked file or folder.
--self runs the check on made-up cases with known answers instead.
"""
from __future__ import annotations

import re
import sys

CODE = ("common/", "lang/", "engine/", "rules/", "agents/", "gates/", "runtime/", "src/")


def layout_block(design: str) -> list[str]:
    """The lines of the code block under ## Layout."""
    sec = design.split("\n## Layout\n", 1)[1]
    m = re.search(r"```\n(.*?)```", sec, re.S)
    return m.group(1).splitlines() if m else []


def names(lines: list[str]) -> tuple[set, set]:
    """(files named, folders named whole)"""
    files, folders, cur = set(), set(), ""
    for line in lines:
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        if not line[0].isspace():
            if all(t.endswith("/") for t in tokens):
                folders.update(tokens)
                cur = None
                continue
            if tokens[0].endswith("/"):
                cur, tokens = tokens[0], tokens[1:]
            else:
                cur = ""
        if cur is None:
            raise ValueError(f"an indented line after a line of folders: {line.strip()}")
        for t in tokens:
            files.add(cur + t)
    return files, folders


def check(design: str, tracked: list[str]) -> list[str]:
    files, folders = names(layout_block(design))
    tracked_set = set(tracked)
    out = []
    for f in sorted(files):
        if f not in tracked_set:
            out.append(f"DESIGN.md names {f}, which is not in the repository")
    for d in sorted(folders):
        if d.startswith(CODE):
            out.append(f"DESIGN.md names {d} whole: name its files")
        elif not any(t.startswith(d) for t in tracked):
            out.append(f"DESIGN.md names the folder {d}, which is not in the repository")
    for t in tracked:
        if t in files:
            continue
        if not t.startswith(CODE) and any(t.startswith(d) for d in folders):
            continue
        out.append(f"{t} is not in DESIGN.md's layout")
    return out


def self_test() -> int:
    design = "# x\n\n## Layout\n\n```\nREADME.md\nsrc/  main.c  # the CLI\n      util.c\nlib/  a.c\n" \
             "docs/ tests/\n```\n"
    cases = [
        (["README.md", "src/main.c", "src/util.c", "lib/a.c", "docs/x.md", "tests/t.sh"], []),
        (["README.md", "src/main.c", "src/util.c", "src/new.c", "lib/a.c", "docs/x.md", "tests/t.sh"],
         ["src/new.c is not in DESIGN.md's layout"]),
        (["README.md", "src/main.c", "lib/a.c", "docs/x.md", "tests/t.sh"],
         ["DESIGN.md names src/util.c, which is not in the repository"]),
        (["README.md", "src/main.c", "src/util.c", "lib/a.c", "docs/x.md"],
         ["DESIGN.md names the folder tests/, which is not in the repository"]),
    ]
    n = bad = 0
    what = ["a layout that names everything passes", "a file it does not name is named",
            "a name without its file is named", "a folder named whole that is gone is named"]
    for (tracked, want), w in zip(cases, what):
        n += 1
        got = check(design, tracked)
        ok = got == want
        bad += not ok
        print(f"{'' if ok else 'not '}ok {n} - {w}")
        if not ok:
            print(f"# got {got}")
    n += 1
    got = check(design.replace("docs/ tests/", "docs/ tests/ src/"), ["README.md", "src/main.c", "src/util.c",
                                                                      "lib/a.c", "docs/x.md", "tests/t.sh"])
    ok = got == ["DESIGN.md names src/ whole: name its files"]
    bad += not ok
    print(f"{'' if ok else 'not '}ok {n} - a code folder named whole is refused")
    print(f"1..{n}")
    return 1 if bad else 0


def main() -> int:
    if sys.argv[1] == "--self":
        return self_test()
    design = open(sys.argv[1], encoding="utf-8").read()
    tracked = [ln for ln in sys.stdin.read().splitlines() if ln]
    problems = check(design, tracked)
    print(f"{'not ' if problems else ''}ok 1 - DESIGN.md's layout names every file of the repository "
          f"({len(tracked)}), and nothing else")
    for p in problems:
        print(f"# {p}")
    print("1..1")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
