"""The seals on kopt-out/: what koptmake vouches for, checked before any of
it is loaded.

koptmake writes kopt-out/<model>/seal.json beside the files that
kopt.backend and kopt.helion_config load (substitutions.json, helion.json):

    {"version": 2, "key": "<first 16 hex digits of the key's SHA-256>",
     "folder": "<the model's folder below kopt-out/: MODEL, MODEL/SHAPE>",
     "files": {"substitutions.json": "<64 hex digits>", ...}}

each seal the HMAC-SHA256 of b"koptmake seal 1\\0output\\0" + folder + b"/" +
name + b"\\0" + the file's bytes under the seal key (engine/seal.h):
$KOPT_SEAL_KEY (64 hex digits), else the key file
$XDG_CONFIG_HOME/koptmake/seal.key (or ~/.config/koptmake/seal.key),
which koptmake made at its first build. A
file whose bytes are not the ones koptmake sealed (edited, or put there by
someone else: a shared folder, a forged cache record) raises SealError
before anything in it is compiled or run; so does a missing seal or key.
A seal holds for its model's folder alone: the folder it names must end
the path of the folder it is read from (as the caller names it, links not
followed), so that another model's table, or one shape's, copied with its
seal into this folder is refused (a copy of kopt-out/MODEL deploys from a
folder named MODEL). This module never makes a key.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat

HEAD = b"koptmake seal 1\0"
SEAL_FILE = "seal.json"
VERSION = 2   # engine/seal.h's SEAL_OUTPUT_VERSION


class SealError(RuntimeError):
    """A file of kopt-out/ that koptmake did not seal as it is."""


def key_path() -> str | None:
    x = os.environ.get("XDG_CONFIG_HOME")
    if x and x.startswith("/"):
        return os.path.join(x, "koptmake", "seal.key")
    home = os.environ.get("HOME")
    return os.path.join(home, ".config", "koptmake", "seal.key") if home else None


def _parse(text: str, where: str) -> bytes:
    t = text.strip()
    if len(t) != 64:
        raise SealError(f"kopt: the seal key ({where}) does not hold 64 hex digits")
    try:
        return bytes.fromhex(t)
    except ValueError:
        raise SealError(f"kopt: the seal key ({where}) does not hold 64 hex digits") from None


def key() -> tuple[bytes, str]:
    """The seal key and where it came from; SealError where there is none
    usable (the key file is refused when others may read it, as koptmake
    refuses it)."""
    env = os.environ.get("KOPT_SEAL_KEY")
    if env:
        return _parse(env, "$KOPT_SEAL_KEY"), "$KOPT_SEAL_KEY"
    path = key_path()
    if path is None:
        raise SealError("kopt: no seal key: neither KOPT_SEAL_KEY, XDG_CONFIG_HOME nor HOME is set")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise SealError(f"kopt: no seal key at {path} ({exc.strerror}): koptmake makes it at its first build "
                        f"on this machine; on another machine, set KOPT_SEAL_KEY to that one's key") from None
    with os.fdopen(fd) as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o077:
            raise SealError(f"kopt: the seal key {path} is not a file of this user's that only they may read")
        return _parse(f.read(100), path), path


def key_id(k: bytes) -> str:
    return hashlib.sha256(k).hexdigest()[:16]


def mac(k: bytes, domain: str, name: str, data: bytes) -> str:
    msg = HEAD + domain.encode() + b"\0" + name.encode() + b"\0" + data
    return hmac.new(k, msg, hashlib.sha256).hexdigest()


def sealed_for(folder: str, rel) -> bool:
    """Whether rel, the folder below kopt-out/ that a seal.json names
    (MODEL, MODEL/SHAPE), is where folder is: the last parts of its
    absolute path (links not resolved: the path the caller named, not
    where a link someone put in kopt-out/ leads)."""
    if not isinstance(rel, str):
        return False
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return False
    have = os.path.abspath(folder).split(os.sep)
    return have[-len(parts):] == parts


def read_sealed(path: str) -> bytes:
    """The bytes of path (a file of kopt-out/<model>/), once its seal in
    the same folder's seal.json holds for them and for that folder;
    SealError otherwise."""
    folder, name = os.path.split(os.path.abspath(path))
    with open(path, "rb") as f:
        data = f.read()
    seals = os.path.join(folder, SEAL_FILE)
    again = "run koptmake again to write it from its cache"
    try:
        with open(seals, encoding="utf-8") as f:
            doc = json.load(f)
        want = doc["files"][name]
    except (OSError, ValueError, KeyError, TypeError):
        raise SealError(f"kopt: {path} has no seal in {seals}: koptmake did not write it, or not as it is; "
                        f"nothing from it is loaded ({again})") from None
    if doc.get("version") != VERSION:
        raise SealError(f"kopt: {seals} is a seal of version {doc.get('version')!r}, not {VERSION} (an older "
                        f"koptmake's, which did not bind a seal to its model's folder); nothing from {path} is "
                        f"loaded ({again})")
    rel = doc.get("folder")
    k, where = key()
    if not isinstance(want, str) or not isinstance(rel, str) or \
            not hmac.compare_digest(mac(k, "output", f"{rel}/{name}", data), want):
        other = doc.get("key") not in (None, key_id(k))
        why = (f"it was sealed with another key than this machine's ({where}): set KOPT_SEAL_KEY to the key "
               "of the machine that built it" if other else
               "its bytes are not the ones koptmake sealed (changed after the build, or not written by koptmake)")
        raise SealError(f"kopt: {path} does not match its seal in {seals}: {why}; nothing from it is loaded "
                        f"({again})")
    # the seal holds, so rel is koptmake's word: the folder it built this for
    if not sealed_for(folder, rel):
        raise SealError(f"kopt: {path} was sealed for kopt-out/{rel}, not for {folder}: another model's or "
                        f"shape's table and seal copied here; nothing from it is loaded (deploy from "
                        f"kopt-out/{rel}, or a copy of it under the same name)")
    return data


def write(folder: str, names: list[str], k: bytes, rel: str | None = None) -> None:
    """seal.json for the files names of folder, under key k, as koptmake
    writes it (rules/stitch_out.c), for tests that make a kopt-out/ by
    hand: rel is the folder below kopt-out/ it is sealed for (its own
    name by default)."""
    rel = rel or os.path.basename(os.path.abspath(folder))
    files = {}
    for n in names:
        with open(os.path.join(folder, n), "rb") as f:
            files[n] = mac(k, "output", f"{rel}/{n}", f.read())
    with open(os.path.join(folder, SEAL_FILE), "w", encoding="utf-8") as f:
        json.dump({"version": VERSION, "key": key_id(k), "folder": rel, "files": files}, f, indent=2,
                  sort_keys=True)
