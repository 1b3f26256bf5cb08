"""The compile caches a deployment runs from: kopt.backend compiles nothing
where another user may write Inductor's or Triton's cache folder.

What those folders hold runs in the user's process with no seal and no
gate. Inductor's code cache loads a module from the file named by its
text's hash where one is there already (torch 2.11's codecache.write
writes the file only where it is absent; PyCodeCache then compiles what
the file holds), so a file planted at the hash of a sealed kernel's text
runs in its place: kopt.kernels.load_kernel loads every swapped kernel
that way. Inductor's graph cache hands back whole output modules, and
Triton's cache compiled binaries. The seal vouches for the table, and
these folders decide what the table's kernels become.

So before anything is compiled, each cache folder and every folder above
it must belong to this user or root and be writable by no one else: a
sticky folder of root's above a cache folder (/tmp) is allowed, where
others cannot rename or delete what is in it, and so is group write where
the group is the user's own private group (a umask of 002 under user
private groups). Both the path as named and where its links lead are
checked. A cache folder that is not there yet is made here (mode 0700),
so that no one else makes it first. A folder that the user's own files
fill (a .kopt/ restored from an untrusted CI artifact) is the user's by
every mark this can read: SECURITY.md says not to point the caches there.
"""

from __future__ import annotations

import os
import stat
import tempfile

from .seal import SealError


class UntrustedCache(SealError):
    """A compile cache folder that another user may write."""


def _user() -> str:
    import pwd

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return os.environ.get("USER") or str(os.geteuid())


def inductor_dir() -> str:
    """Inductor's cache folder: $TORCHINDUCTOR_CACHE_DIR, else torch's
    default (a folder of the temporary folder named for the user)."""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env:
        return env
    try:
        from torch._inductor.runtime.runtime_utils import default_cache_dir
        return default_cache_dir()
    except (ImportError, AttributeError):
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in _user())
        return os.path.join(tempfile.gettempdir(), "torchinductor_" + name)


def triton_dir() -> str:
    """Triton's cache folder: $TRITON_CACHE_DIR, else Triton's own setting,
    else $TRITON_HOME/.triton/cache (the home folder's)."""
    env = os.environ.get("TRITON_CACHE_DIR")
    if env:
        return env
    try:
        from triton import knobs
        d = knobs.cache.dir
        if d:
            return str(d)
    except (ImportError, AttributeError):
        pass
    return os.path.join(os.environ.get("TRITON_HOME") or os.path.expanduser("~"), ".triton", "cache")


def _private_group(gid: int) -> bool:
    """whether group gid is the user's own: named as the user, with no
    other member"""
    import grp

    try:
        g = grp.getgrgid(gid)
    except KeyError:
        return False
    me = _user()
    return g.gr_name == me and set(g.gr_mem) <= {me}


def why_not(path: str, leaf: bool) -> str | None:
    """Why another user may change what folder path holds (None where no
    one but this user and root may): its owner, or its mode. leaf: the
    cache folder itself, where a sticky bit does not help (others could
    add the entries that are not there yet)."""
    st = os.stat(path)
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid not in (os.geteuid(), 0):
        return f"belongs to another user (uid {st.st_uid})"
    sticky = bool(st.st_mode & stat.S_ISVTX) and st.st_uid == 0 and not leaf
    if st.st_mode & stat.S_IWOTH and not sticky:
        return f"is writable by every user (mode {stat.S_IMODE(st.st_mode):o})"
    if st.st_mode & stat.S_IWGRP and not sticky and not _private_group(st.st_gid):
        return f"is writable by its group (gid {st.st_gid}, mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _chain(folder: str) -> list[tuple[str, bool]]:
    """(folder, is the cache folder) for the cache folder and every folder
    above it, along its path as named and along where its links lead"""
    out: list[tuple[str, bool]] = []
    for top in dict.fromkeys((os.path.abspath(folder), os.path.realpath(folder))):
        p, leaf = top, True
        while True:
            out.append((p, leaf))
            up = os.path.dirname(p)
            if up == p:
                break
            p, leaf = up, False
    return out


def check_folder(what: str, env: str, folder: str) -> None:
    """UntrustedCache where another user may write folder, the cache
    folder of what (named by variable env); made first (mode 0700) where
    it is not there."""
    if not os.path.isdir(folder):
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise UntrustedCache(f"kopt: cannot make {what}'s cache folder {folder} ({exc.strerror}); "
                                 f"nothing is compiled (set {env} to a folder of this user's)") from None
    for p, leaf in _chain(folder):
        why = why_not(p, leaf)
        if why:
            where = "it" if p in (os.path.abspath(folder), os.path.realpath(folder)) else p
            raise UntrustedCache(
                f"kopt: {what}'s cache folder {folder}: {where} {why}. What that cache holds runs in this "
                f"process with no seal or gate (a file there can stand for a sealed kernel), so nothing is "
                f"compiled; set {env} to a folder that only this user may write")


def check() -> None:
    """Inductor's and Triton's cache folders, as check_folder says."""
    check_folder("Inductor", "TORCHINDUCTOR_CACHE_DIR", inductor_dir())
    check_folder("Triton", "TRITON_CACHE_DIR", triton_dir())
