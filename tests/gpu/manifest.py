#!/usr/bin/env python3
"""tests/gpu/manifest.py: the provenance of the GPU outputs the CPU tests
replay (tests/fixtures/gpu/MANIFEST).

    manifest.py check FIXDIR
    manifest.py write FIXDIR COMMIT DATE FILE=RECIPE...

The manifest, written by tests/gpu/record-fixtures.sh after a run whose
checks all passed:

    # koptmake GPU fixtures 1
    gpu NVIDIA H200
    cc 9.0
    driver 580.159.04
    cuda 13.0
    torch 2.11.0+cu130
    triton 3.6.0
    SHA256  FILE  COMMIT  DATE  RECIPE...

the recording machine (from the worker's hello, hello.json), then one line
per file: its SHA-256, the commit whose worker recorded it, the date (UTC)
and the recipe, the record-fixtures.sh step that makes it (smoke, smoke2,
cheats, vendor or modules, then free text).

check fails (exit 1, one line per problem) when a file of FIXDIR is not in
the manifest or a listed file is missing, a hash differs (a fixture edited
without re-recording), the machine lines disagree with hello.json, a
recipe is unknown, or record-fixtures.sh does not name a listed file. The
CPU tests that read the fixtures run it first. Standard library only.
"""

import hashlib
import json
import os
import re
import sys

HEADER = "# koptmake GPU fixtures 1"
FIELDS = ("gpu", "cc", "driver", "cuda", "torch", "triton")
RECIPES = ("smoke", "smoke2", "cheats", "vendor", "modules")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 16), b""):
            h.update(b)
    return h.hexdigest()


def env_of(fixdir):
    with open(os.path.join(fixdir, "hello.json")) as f:
        env = json.load(f).get("env", {})
    return {k: str(env.get(k, "")) for k in FIELDS}


def files_of(fixdir):
    return sorted(f for f in os.listdir(fixdir) if f != "MANIFEST" and os.path.isfile(os.path.join(fixdir, f)))


def parse(path):
    """(machine fields, [(sha, file, commit, date, recipe)], problems)"""
    fields, rows, bad = {}, [], []
    with open(path) as f:
        lines = f.read().split("\n")
    if not lines or lines[0] != HEADER:
        return fields, rows, [f"{path}:1: not a manifest of version 1 (want '{HEADER}')"]
    for i, ln in enumerate(lines[1:], 2):
        if not ln.strip() or ln.startswith("#"):
            continue
        w = ln.split(None, 1)
        if w[0] in FIELDS:
            fields[w[0]] = w[1].strip() if len(w) > 1 else ""
            continue
        p = ln.split(None, 4)
        if len(p) < 5 or not re.fullmatch(r"[0-9a-f]{64}", p[0]):
            bad.append(f"{path}:{i}: want SHA256 FILE COMMIT DATE RECIPE")
            continue
        rows.append((p[0], p[1], p[2], p[3], p[4]))
    return fields, rows, bad


def check(fixdir):
    mpath = os.path.join(fixdir, "MANIFEST")
    if not os.path.exists(mpath):
        return [f"{mpath}: missing"]
    fields, rows, bad = parse(mpath)
    env = env_of(fixdir)
    for k in FIELDS:
        if fields.get(k) != env[k]:
            bad.append(f"{mpath}: {k} is '{fields.get(k)}', hello.json says '{env[k]}'")
    listed = [r[1] for r in rows]
    for f in files_of(fixdir):
        if f not in listed:
            bad.append(f"{mpath}: {f} is not in the manifest (recorded by hand?)")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "record-fixtures.sh")
    text = open(script).read() if os.path.exists(script) else ""
    for sha, f, commit, date, recipe in rows:
        p = os.path.join(fixdir, f)
        if listed.count(f) > 1:
            bad.append(f"{mpath}: {f} is listed {listed.count(f)} times")
        if not os.path.isfile(p):
            bad.append(f"{mpath}: {f} is listed but missing")
            continue
        if sha256(p) != sha:
            bad.append(f"{mpath}: {f} differs from what was recorded (edited without re-recording?)")
        if not re.fullmatch(r"[0-9a-f]{7,40}", commit):
            bad.append(f"{mpath}: {f}: commit '{commit}' is not a commit id")
        if not re.fullmatch(r"\d{4}-\d\d-\d\d", date):
            bad.append(f"{mpath}: {f}: date '{date}' is not YYYY-MM-DD")
        if recipe.split()[0].rstrip(":") not in RECIPES:
            bad.append(f"{mpath}: {f}: unknown recipe '{recipe}'")
        if text and f not in text:
            bad.append(f"{mpath}: {f}: record-fixtures.sh does not record it")
    return bad


def write(fixdir, commit, date, recipes):
    env = env_of(fixdir)
    out = [HEADER] + [f"{k} {env[k]}" for k in FIELDS]
    files = files_of(fixdir)
    missing = [f for f in files if f not in recipes]
    if missing:
        sys.exit("manifest: no recipe for " + " ".join(missing))
    for f in files:
        out.append(f"{sha256(os.path.join(fixdir, f))}  {f}  {commit}  {date}  {recipes[f]}")
    with open(os.path.join(fixdir, "MANIFEST.tmp"), "w") as fh:
        fh.write("\n".join(out) + "\n")
    os.replace(os.path.join(fixdir, "MANIFEST.tmp"), os.path.join(fixdir, "MANIFEST"))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        bad = check(sys.argv[2])
        for b in bad:
            print(b)
        return 1 if bad else 0
    if len(sys.argv) >= 5 and sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], dict(a.split("=", 1) for a in sys.argv[5:]))
        return 0
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
