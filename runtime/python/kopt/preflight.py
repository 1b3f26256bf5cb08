"""What the GPU path needs, checked before anything imports torch.

kopt-worker asks ``problem()`` before it imports kopt.worker, so a machine
without torch, triton or a GPU gets one line that names what is missing and
how to get it, instead of a traceback. configure runs this file as a script
(``python3 preflight.py --packages``) for its summary. Standard library only,
at import and as a script.
"""

from __future__ import annotations

import importlib
import sys

TORCH_MIN = (2, 6)
HOW = ("the GPU path needs an NVIDIA GPU with its driver, and torch >= 2.6 with triton "
       "(pip install 'torch>=2.6' triton)")


def version_tuple(v: str) -> tuple[int, int]:
    """(major, minor) of a version string such as '2.11.0+cu130'."""
    out = []
    for part in str(v).split("+")[0].split(".")[:2]:
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        out.append(int(digits or 0))
    while len(out) < 2:
        out.append(0)
    return (out[0], out[1])


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def missing(gpu: bool = True, python: str | None = None) -> list[str]:
    """Short phrases for what is missing, [] when the GPU path can run.
    gpu=False checks the packages only (configure, on a build machine that
    need not have a GPU)."""
    who = python or sys.executable or "python"
    out: list[str] = []
    absent: list[str] = []
    torch = None
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        absent.append("torch")
    except Exception as e:  # an install that is there but broken: say what it said
        out.append(f"torch does not import in {who} ({_first_line(e)})")
    try:
        importlib.import_module("triton")
    except ImportError:
        absent.append("triton")
    except Exception as e:
        out.append(f"triton does not import in {who} ({_first_line(e)})")
    if absent:
        out.insert(0, f"{who} has no {' and no '.join(absent)}")
    if torch is None:
        return out
    v = str(getattr(torch, "__version__", "0"))
    if version_tuple(v) < TORCH_MIN:
        out.append(f"its torch {v} is older than {TORCH_MIN[0]}.{TORCH_MIN[1]}")
    elif gpu:
        if not getattr(getattr(torch, "version", None), "cuda", None):
            out.append(f"its torch {v} is built without CUDA")
        elif not torch.cuda.is_available():
            out.append(f"torch {v} sees no CUDA GPU")
    return out


def problem(driver: str = "", python: str | None = None) -> str | None:
    """The sentence kopt-worker prints after 'kopt-worker: cannot start: ',
    or None when nothing is missing. driver: what the worker found missing
    below Python ('no NVIDIA driver (...)'), '' when the driver and a GPU
    are there; the GPU is then not asked of torch again."""
    parts = [driver] if driver else []
    parts += missing(gpu=not driver, python=python)
    if not parts:
        return None
    return "; ".join(parts) + ": " + HOW


def main(argv: list[str]) -> int:
    """--packages: configure's check (torch >= 2.6 and triton, no GPU
    asked); prints what is missing, one line, and exits 1, else prints
    nothing and exits 0. Without it, the GPU is asked too."""
    gpu = "--packages" not in argv
    who = None
    if "--as" in argv and argv.index("--as") + 1 < len(argv):
        who = argv[argv.index("--as") + 1]
    found = missing(gpu=gpu, python=who)
    if found:
        print("; ".join(found))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
