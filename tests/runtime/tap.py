"""tests/runtime/tap.py: TAP for the Python tests. ok() prints one test's
line (and its diagnostics when it fails), skip() a skipped one, done()
the plan, then exits 1 if any failed."""
import sys

n = failed = 0


def ok(cond, name, diag=""):
    global n, failed
    n += 1
    print(f"{'' if cond else 'not '}ok {n} - {name}", flush=True)
    if not cond:
        failed += 1
        if diag:
            print("# " + str(diag).replace("\n", "\n# "), flush=True)
    return bool(cond)


def skip(name, why):
    global n
    n += 1
    print(f"ok {n} # SKIP {name}: {why}", flush=True)


def done():
    print(f"1..{n}")
    sys.exit(1 if failed else 0)
