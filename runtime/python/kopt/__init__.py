"""kopt: the runtime side of koptmake.

The GPU worker (kopt-worker) embeds Python and imports kopt.worker; users
import kopt to run the optimized kernels that koptmake found, in one line:

    torch.compile(model, backend=kopt.backend("kopt-out/mymodel"))

or by name, without importing kopt (an installed kopt registers the name
through torch's `torch_dynamo_backends` entry point):

    torch.compile(model, backend="kopt", options={"dir": "kopt-out/mymodel"})

(KOPT_DEPLOY_DIR=kopt-out/mymodel stands for options={"dir": ...}). For a
Helion kernel file, kopt.helion_config() reads the config koptmake chose.
Importing kopt imports no torch.
"""

import os
import sys

__version__ = "0.2.0"

BACKEND_NAME = "kopt"


def backend(outdir: str, **options):
    """A torch.compile backend that swaps in koptmake's optimized kernels."""
    from .deploy import make_backend

    return make_backend(outdir, **options)


def helion_config(outdir: str, name: str):
    """The helion.Config koptmake chose for the @helion.kernel `name` of a
    Helion kernel file (OUTDIR/helion.json), or None where none beat the
    kernel's own config (keep that one then: with config=None and no
    configs, Helion autotunes on the first call):

        @helion.kernel(config=kopt.helion_config("kopt-out/softmax", "softmax"))

    Imports helion. A helion.json that does not match its seal raises
    kopt.seal.SealError (kopt.seal)."""
    import json

    from .seal import read_sealed

    try:
        entry = (json.loads(read_sealed(os.path.join(outdir, "helion.json"))).get("kernels") or {}).get(name)
    except (FileNotFoundError, NotADirectoryError):
        from .deploy import not_built

        raise not_built(outdir, "helion.json") from None
    if entry is None:
        return None
    import helion

    return helion.Config(**entry["config"])


# the backends made for backend="kopt", one per table and options: the
# graphs of one model (graph breaks) share one table, so that its warning
# counts the kernels no graph matched
_named: dict = {}


def backend_for(options: dict | None = None, mode: str | None = None):
    """The backend that backend="kopt" with these torch.compile options
    stands for: options["dir"] (else $KOPT_DEPLOY_DIR) is koptmake's output
    folder of the model; options["check"] and options["cudagraphs"] as in
    backend() (kopt.deploy says the CUDA graphs' contract); the other
    options are Inductor config settings."""
    opts = dict(options or {})
    outdir = opts.pop("dir", None) or os.environ.get("KOPT_DEPLOY_DIR")
    if not outdir:
        raise ValueError('kopt: which model\'s kernels? torch.compile(model, backend="kopt", '
                         'options={"dir": "kopt-out/MODEL"}), or KOPT_DEPLOY_DIR=kopt-out/MODEL')
    if mode not in (None, "default"):
        raise ValueError(f"kopt: mode={mode!r}: the compile mode is the one of the variant koptmake chose "
                         "(its substitutions.json); leave mode unset")
    check = opts.pop("check", None)
    graphs = opts.pop("cudagraphs", None)
    key = (os.path.abspath(outdir), check, graphs, repr(sorted(opts.items())))
    made = _named.get(key)
    if made is None:
        made = _named[key] = backend(outdir, check=check, cudagraphs=graphs, **opts)
    return made


def dynamo_backend(gm, example_inputs, options: dict | None = None, mode: str | None = None):
    """backend="kopt": what torch.compile calls for each graph, with the
    options (and mode) given to torch.compile."""
    return backend_for(options, mode)(gm, example_inputs)


def _torch_compile(what: str) -> None:
    """Imports torch's torch.compile (torch._dynamo), or raises an
    ImportError that says what this Python lacks and how to get it, with
    no traceback of its own."""
    import importlib

    from .preflight import TORCH_MIN, version_tuple

    need = (f"kopt: {what} needs torch >= {TORCH_MIN[0]}.{TORCH_MIN[1]} (torch.compile): "
            f"pip install 'torch>={TORCH_MIN[0]}.{TORCH_MIN[1]}' triton")
    try:
        import torch
    except ImportError:
        raise ModuleNotFoundError(f"{need}; {sys.executable} has no torch", name="torch") from None
    v = str(getattr(torch, "__version__", "0"))
    if version_tuple(v) < TORCH_MIN:
        raise ImportError(f"{need}; {sys.executable} has torch {v}", name="torch") from None
    try:
        importlib.import_module("torch._dynamo")
    except ImportError as e:
        raise ImportError(f"{need}; the torch {v} of {sys.executable} has no torch._dynamo ({e})",
                          name="torch") from None


def register() -> bool:
    """Registers backend="kopt" with torch._dynamo, for a kopt that is on
    the path without being installed (an installed one is found through its
    entry point). Imports torch, and says what is missing where there is no
    torch >= 2.6. Returns whether this call registered it."""
    _torch_compile("kopt.register()")
    import torch._dynamo

    try:
        torch._dynamo.register_backend(compiler_fn=dynamo_backend, name=BACKEND_NAME)
    except AssertionError:  # there already: by its entry point, or an earlier call
        return False
    return True


def _installed() -> bool:
    """whether an installed kopt's entry point names the backend: torch then
    registers it when it meets the name (loading that entry point imports
    kopt, and a second registration would be refused)"""
    from importlib.metadata import entry_points

    return BACKEND_NAME in entry_points(group="torch_dynamo_backends").names


# torch imported already, and no entry point to find the name: registering
# it now costs nothing
if "torch._dynamo" in sys.modules and not _installed():
    register()
