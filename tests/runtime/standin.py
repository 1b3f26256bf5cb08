"""tests/runtime/standin.py: a stand-in package (a TEST DOUBLE of the
modules a kopt module imports, torch's for one) written into a folder,
and code run in a child that imports it before the real one and the kopt
package from the source tree."""
import os
import subprocess
import sys


def package(top: str, files: dict) -> str:
    """Writes files ({relative path: text}) under top, each folder's
    __init__.py made empty where not given; the PYTHONPATH that puts top
    before the kopt package of the source tree"""
    for rel, text in files.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            init = os.path.join(top, *parts[:i], "__init__.py")
            if not os.path.exists(init) and "/".join(parts[:i] + ["__init__.py"]) not in files:
                open(init, "w").close()
        with open(path, "w") as f:
            f.write(text)
    return os.pathsep.join([top, os.path.join(os.environ.get("top_srcdir", "."), "runtime", "python")])


def child(path: str, code: str, env: dict | None = None, drop: tuple = ()) -> str:
    """code run by this interpreter with PYTHONPATH path, the variables in
    drop removed and env's set: its stripped stdout, or the end of its
    stderr where it printed nothing"""
    e = dict(os.environ, PYTHONPATH=path)
    for k in drop:
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)
    return p.stdout.strip() or p.stderr.strip()[-300:]
