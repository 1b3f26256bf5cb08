"""kopt_build: the build backend of the kopt package (PEP 517), standard
library only, so that

    python3 -m pip install --no-build-isolation --no-index --target DIR runtime/python

works offline with any pip, whether or not setuptools and wheel are there.
It reads pyproject.toml's [project] table (name, description,
requires-python, dependencies, optional-dependencies, entry-points; the
version from kopt/__init__.py without importing it) and packs the kopt
package into a py3-none-any wheel.

`make install` uses it too, as a script: the package files are installed by
automake; `python3 kopt_build.py install-metadata SITE` then writes the
kopt-VERSION.dist-info beside them (the entry point torch reads for
backend="kopt" lives there), and `uninstall-metadata SITE` removes it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # runtime/python: pyproject.toml and kopt/


def _toml(path: str) -> dict:
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            from pip._vendor import tomli as tomllib  # type: ignore[no-redef]  # pip's copy, Python 3.10
    with open(path, "rb") as f:
        return tomllib.load(f)


def project(root: str = ROOT) -> dict:
    """pyproject's [project] table, with the version filled in."""
    p = dict(_toml(os.path.join(root, "pyproject.toml"))["project"])
    if "version" in p.get("dynamic", []):
        with open(os.path.join(root, p["name"], "__init__.py")) as f:
            m = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', f.read(), re.M)
        if not m:
            raise RuntimeError(f"no __version__ in {p['name']}/__init__.py")
        p["version"] = m.group(1)
    return p


def _dist(p: dict) -> str:
    return f"{p['name'].replace('-', '_')}-{p['version']}"


def metadata(p: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if p.get("description"):
        lines.append(f"Summary: {p['description']}")
    if p.get("requires-python"):
        lines.append(f"Requires-Python: {p['requires-python']}")
    for req in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {req}")
    for extra, reqs in sorted(p.get("optional-dependencies", {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        for req in reqs:
            lines.append(f'Requires-Dist: {req}; extra == "{extra}"')
    return "\n".join(lines) + "\n"


def entry_points(p: dict) -> str:
    out = []
    for group, eps in sorted(p.get("entry-points", {}).items()):
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in sorted(eps.items())]
        out.append("")
    return "\n".join(out)


def package_files(p: dict, root: str = ROOT) -> list[str]:
    """The package's .py files, relative to root, sorted."""
    pkg = os.path.join(root, p["name"])
    return sorted(os.path.join(p["name"], f) for f in os.listdir(pkg) if f.endswith(".py"))


def _record_line(rel: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{rel},sha256={digest},{len(data)}"


def _info_files(p: dict, installer: str | None = None) -> dict[str, bytes]:
    files = {
        "METADATA": metadata(p).encode(),
        "entry_points.txt": entry_points(p).encode(),
        "top_level.txt": f"{p['name']}\n".encode(),
        "WHEEL": b"Wheel-Version: 1.0\nGenerator: kopt_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    if installer:
        files["INSTALLER"] = f"{installer}\n".encode()
    return files


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    p = project()
    info = f"{_dist(p)}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, data in _info_files(p).items():
        with open(os.path.join(metadata_directory, info, name), "wb") as f:
            f.write(data)
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    p = project()
    info = f"{_dist(p)}.dist-info"
    name = f"{_dist(p)}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        def add(rel: str, data: bytes) -> None:
            zi = zipfile.ZipInfo(rel, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes every time
            zi.external_attr = 0o644 << 16
            z.writestr(zi, data, zipfile.ZIP_DEFLATED)
            record.append(_record_line(rel, data))

        for rel in package_files(p):
            with open(os.path.join(ROOT, rel), "rb") as f:
                add(rel.replace(os.sep, "/"), f.read())
        for fname, data in _info_files(p).items():
            add(f"{info}/{fname}", data)
        record.append(f"{info}/RECORD,,")
        zi = zipfile.ZipInfo(f"{info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0))
        zi.external_attr = 0o644 << 16
        z.writestr(zi, "\n".join(record) + "\n", zipfile.ZIP_DEFLATED)
    return name


def build_sdist(sdist_directory, config_settings=None):
    p = project()
    base = _dist(p)
    name = f"{base}.tar.gz"
    rels = ["pyproject.toml", os.path.join("_build", "kopt_build.py")] + package_files(p)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in rels:
            with open(os.path.join(ROOT, rel), "rb") as f:
                data = f.read()
            ti = tarfile.TarInfo(f"{base}/{rel}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 0
            t.addfile(ti, io.BytesIO(data))
        pkg_info = metadata(p).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size, ti.mode, ti.mtime = len(pkg_info), 0o644, 0
        t.addfile(ti, io.BytesIO(pkg_info))
    return name


# ---- make install ----

def install_metadata(site: str, installer: str = "koptmake") -> str:
    """Writes SITE/kopt-VERSION.dist-info for the package files already in
    SITE/kopt (RECORD lists them); returns the folder's path."""
    p = project()
    info = os.path.join(site, f"{_dist(p)}.dist-info")
    os.makedirs(info, exist_ok=True)
    record = []
    for rel in package_files(p, site):
        with open(os.path.join(site, rel), "rb") as f:
            record.append(_record_line(rel.replace(os.sep, "/"), f.read()))
    for fname, data in _info_files(p, installer).items():
        with open(os.path.join(info, fname), "wb") as f:
            f.write(data)
        record.append(_record_line(f"{os.path.basename(info)}/{fname}", data))
    record.append(f"{os.path.basename(info)}/RECORD,,")
    with open(os.path.join(info, "RECORD"), "w") as f:
        f.write("\n".join(record) + "\n")
    return info


def uninstall_metadata(site: str) -> None:
    p = project()
    shutil.rmtree(os.path.join(site, f"{_dist(p)}.dist-info"), ignore_errors=True)


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "install-metadata":
        print(install_metadata(argv[1]))
        return 0
    if len(argv) == 2 and argv[0] == "uninstall-metadata":
        uninstall_metadata(argv[1])
        return 0
    if len(argv) == 1 and argv[0] == "version":
        print(project()["version"])
        return 0
    print("usage: kopt_build.py install-metadata SITE | uninstall-metadata SITE | version", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
