#!/bin/sh
# tests/runtime/worker_reads.sh: what the real kopt-worker may read, on the
# CPU. The worker is started with a stand-in kopt package (KOPT_PYTHONPATH,
# a TEST DOUBLE whose kopt.preflight.problem() tries reads and says what
# each gave), a home folder holding a .netrc with a canary, and a spec's
# folder in KOPT_SANDBOX_READ, as koptmake names it. Its Python starts and
# imports under the sandbox (the install and sys.path that python_reads
# asked of it), reads the spec's folder and its own standard library, and
# ~/.netrc fails with PermissionError; the canary is printed nowhere.
# Skips where kopt-worker is not built, where this kernel has no Landlock,
# and where the worker starts (a GPU machine: tests/gpu/sandbox.sh).
set -eu
W=$top_builddir/kopt-worker
if [ ! -x "$W" ]; then
	echo "1..0 # SKIP kopt-worker is not built here"
	exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kopt-reads-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; sed 's/^/# /' "$tmp/err"; fi; }
canary=netrc-canary-5b1d
mkdir -p "$tmp/home" "$tmp/spec" "$tmp/pkg/kopt"
printf 'machine cache login me password %s\n' "$canary" >"$tmp/home/.netrc"
chmod 600 "$tmp/home/.netrc"
echo 'class Model: pass' >"$tmp/spec/model.py"
: >"$tmp/pkg/kopt/__init__.py"
cat >"$tmp/pkg/kopt/preflight.py" <<'PY'
"""A TEST DOUBLE of kopt.preflight: problem() tries reads and names what each gave."""
import os


def problem(driver):
    said = []
    for p in (os.path.expanduser("~/.netrc"), os.path.join(os.environ["KOPT_SANDBOX_READ"], "model.py"), os.__file__):
        try:
            with open(p) as f:
                f.read(1)
            said.append("read")
        except OSError as exc:
            said.append(type(exc).__name__)
    return "reads: " + " ".join(said)
PY
rc=0
(cd "$tmp" && env HOME="$tmp/home" KOPT_PYTHONPATH="$tmp/pkg" KOPT_SANDBOX_READ="$tmp/spec" KOPT_SCRATCH="$tmp/scratch/0" \
	"$W" </dev/null >"$tmp/out" 2>"$tmp/err") || rc=$?
if grep -q 'has no Landlock' "$tmp/err"; then
	echo "1..0 # SKIP this kernel has no Landlock: reads are not confined here"
	exit 0
fi
if ! grep -q 'cannot start: reads:' "$tmp/err"; then
	echo "1..0 # SKIP the worker did not stop at its preflight here (rc $rc): $(head -c 200 "$tmp/err" | tr '\n' ' ')"
	exit 0
fi
check "the worker's Python starts and imports under the sandbox" "[ $rc -eq 2 ] && grep -q 'cannot start: reads: ' '$tmp/err'"
check "~/.netrc: PermissionError; the spec's folder and Python's own library are read" \
	"grep -q 'cannot start: reads: PermissionError read read\$' '$tmp/err'"
check "the canary is printed nowhere" "! grep -q '$canary' '$tmp/err' '$tmp/out'"
echo "1..$n"
