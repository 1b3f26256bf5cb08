"""One-line deployment: a torch.compile backend that swaps in koptmake's
optimized kernels.

    model = torch.compile(model, backend=kopt.backend("kopt-out/mymodel"))

koptmake writes kopt-out/<model>/substitutions.json: the compile variant that
won (torch.compile mode and Inductor options) and, per Inductor kernel source
hash, the optimized kernel (new source and/or a pinned launch config). While
Inductor compiles, every output module it loads is searched for kernels whose
source hash is in the table; those are replaced. Wherever nothing matches
(other shapes, another torch version) Inductor's own kernel runs, and a
warning counts the misses, partial ones too.

The first call checks the swap: it runs Inductor's own kernels and the
swapped ones on copies of the same inputs and compares the outputs (atol and
rtol 1e-4, 1e-2 for half types, or the gates' tolerances the table carries).
Where they differ, each swapped kernel is tried alone; a kernel whose swap
changes the outputs goes back to Inductor's with a warning naming it.

A kernel made by source knobs (kopt.knobs: "edit" in the table) is that
edit applied to the kernel Inductor generates here; the table's source is
the text the gates passed, and a table whose source is not the edit's text
on this kernel is not trusted for it (a warning, and Inductor's kernel).
`kopt.backend(dir, check=False)` (or KOPT_DEPLOY_CHECK=0) skips the check,
for production once a deployment is trusted.

A model served at several shapes (kopt(5), shape) has one table per shape
(koptmake's deploy step joins them into one substitutions.json, each with
its inputs' shapes and dtypes). Each graph Dynamo compiles goes to the
shape whose inputs it takes (pick_shape: every tensor input of the shape
among the graph's), compiled with that shape's variant and its winners;
with torch.compile(..., dynamic=False) each shape keeps its own static
code, one compile per graph and shape as torch.compile itself does (the
backend counts them: backend.counts). A graph at a shape outside every
declared one, or with symbolic sizes (a dynamic-shape compile), is
compiled by Inductor with its defaults and the backend's options, with one
warning line: nothing is tuned at serving time. The graphs after a graph
break take the model's intermediate tensors, not its inputs: they are
outside every declared shape too.

Nothing is compiled before three checks: substitutions.json must match its
seal (kopt.seal: koptmake's HMAC of its bytes and its folder under the
machine's seal key; a table that does not raises kopt.seal.SealError,
naming the file); no other user may write Inductor's or Triton's cache
folder, whose files would stand for the table's kernels
(kopt.cachetrust: kopt.cachetrust.UntrustedCache, a SealError, naming
the folder); and each optimized kernel's source passes gate 1
(kopt.static_gate) again against the kernel Inductor generates here (one
that does not: a warning, and Inductor's kernel).

Each compile runs under the float32 flags the build's captures compiled
under (kopt.precision: TF32 off), so that it finds the build's graphs in
Inductor's graph cache, which keys on them; the caller's flags come back
after it, and the compiled code runs under them. A compile the graph cache
did not serve, of a variant that autotunes, warns: its choices are then
this process's picks, not the ones the report timed (compiled_anew).

CUDA graphs are a deployment choice, off unless asked for:
`kopt.backend(dir, cudagraphs="copy")` or `cudagraphs="static"` (by name,
options={"dir": ..., "cudagraphs": ...}; or KOPT_DEPLOY_CUDAGRAPHS). After
the first call (and its check), each compiled graph is captured once into a
CUDA graph and replayed. The contract, the caller's choice:

- "copy": each call's tensor inputs are copied into the graph's own static
  buffers before the replay (one device copy per input), so any tensors of
  the captured shapes, dtypes and devices may be passed;
- "static": the caller passes the very tensors of the first call (the same
  addresses) every time and changes them in place; nothing is copied, and a
  call with another tensor raises ValueError.

Either way the outputs are the graph's own buffers, overwritten by the next
call (clone what is kept), shapes are static (a call with other shapes,
dtypes or devices runs the compiled code without the graph), and the graph
holds its memory until the backend is dropped. A variant that runs
Inductor's own CUDA graphs (triton.cudagraphs, such as autotune-cudagraphs)
keeps them instead, with a warning: its graphs copy the inputs as "copy"
does, and nothing is refused (own_graphs). koptmake's reports never time
the deployment's own graphs (tests/gpu/cudagraphs.py measures this choice
apart, against reduce-overhead and max-autotune).
"""

from __future__ import annotations

import json
import os
import warnings

from . import cachetrust
from . import graphcopy
from . import graphkeys as GK
from . import kernels as K
from . import knobs as N
from . import precision as P
from . import seal as S
from . import tplcut
from . import tplthreads
from . import tunecache


class NotBuiltError(FileNotFoundError):
    """koptmake has not built the model whose output folder was named."""


def not_built(outdir: str, what: str = "substitutions.json") -> NotBuiltError:
    """The error for an output folder without its file what, saying what to
    run."""
    run = f"run koptmake in the spec's folder first; it writes kopt-out/MODEL/{what}"
    if not os.path.exists(outdir):
        why = f"kopt: no {outdir!r} here: koptmake has not built this model yet ({run})"
    elif os.path.isdir(outdir):
        why = (f"kopt: {outdir!r} has no {what}: its model's build has not finished ({run}; "
               "`koptmake -t why stitch MODEL` says why a build failed)")
    else:
        why = f"kopt: {outdir!r} is neither koptmake's output folder of a model (kopt-out/MODEL) nor its {what}"
    return NotBuiltError(why)


def read_table(path: str) -> tuple[str, dict]:
    """(the file's path, its JSON) of a substitutions.json or the folder
    that holds it, its seal checked first: nothing in a table koptmake did
    not write as it is gets compiled (kopt.seal; SealError names the file).
    NotBuiltError where koptmake has not written it."""
    outdir = path
    if os.path.isdir(path):
        path = os.path.join(path, "substitutions.json")
    try:
        data = S.read_sealed(path)
    except (FileNotFoundError, NotADirectoryError):
        raise not_built(outdir) from None
    return path, json.loads(data.decode("utf-8"))


class Table:
    """One table: a model's, or one shape's of a model served at several
    (then shape is its name and inputs its inputs' (shape, dtype))."""

    def __init__(self, path: str, data: dict | None = None):
        if data is None:
            path, data = read_table(path)
        self.path = path
        self.shape = data.get("shape")
        self.inputs = [(tuple(x.get("shape") or ()), str(x.get("dtype"))) for x in data.get("inputs") or []]
        self.variant = data.get("variant") or {}
        self.kernels: dict = data.get("kernels") or {}
        self.gates: dict = data.get("gates") or {}
        self.graph_keys: list = data.get("graph_keys") or []   # the build's (kopt.graphkeys)
        self.hits: set = set()
        self.seen = 0
        self.swaps: list = []          # Swapped, in the order they were made
        self.reverted: list = []       # kernel names put back by the check

    @property
    def where(self) -> str:
        """the table's file, and its shape where it has one, for warnings"""
        return f"{self.path} (shape {self.shape})" if self.shape else self.path


def load_tables(outdir: str) -> tuple[Table | None, list[Table]]:
    """(the model's table, []) for a model built at its own inputs; (None,
    each shape's table) for one served at several shapes (koptmake's
    deploy step joins them: its substitutions.json has "shapes")."""
    path, data = read_table(outdir)
    if "shapes" not in data:
        return Table(path, data), []
    return None, [Table(path, e) for e in data.get("shapes") or []]


def signature(example_inputs) -> list | None:
    """(shape, dtype) of each tensor a compiled graph takes, as the
    capture names them ("float32"); None where a size is symbolic (a
    dynamic-shape compile: no declared shape's static code applies)."""
    sig = []
    for x in example_inputs:
        if getattr(x, "_is_param", False) or type(x).__name__ == "Parameter":
            continue   # the model's own, where Dynamo says so: the same at every shape
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            if isinstance(x, (bool, int, float)) or x is None:
                continue
            return None   # a SymInt, a SymFloat: the graph is dynamic
        dims = tuple(x.shape)
        if any(type(d) is not int for d in dims):
            return None
        sig.append((dims, str(x.dtype).removeprefix("torch.")))
    return sig


def pick_shape(tables: list, sig: list) -> Table | None:
    """The declared shape a graph of inputs sig serves: one whose every
    tensor input is among the graph's (as a multiset: with Dynamo lifting
    the model's parameters, the graph takes those too); of several, the
    one with the most inputs, then the first declared; None when the
    inputs are outside every declared shape. A parameter of the sizes and
    dtype of a declared shape's input, where Dynamo does not mark it as
    one, can make a graph look like that shape: its winners then match no
    kernel (a warning) and Inductor's kernels run."""
    best, most = None, -1
    for t in tables:
        if not t.inputs:
            continue
        left = list(sig)
        for i in t.inputs:
            if i not in left:
                break
            left.remove(i)
        else:
            if len(t.inputs) > most:
                best, most = t, len(t.inputs)
    return best


def describe(sig: list | None) -> str:
    if sig is None:
        return "of symbolic sizes"
    return ", ".join("x".join(str(d) for d in dims) + f" {dt}" for dims, dt in sig) or "without tensors"


class Swapped:
    """One kernel swapped into one output module, and what it replaced."""

    def __init__(self, mod, var: str, name: str, old, new):
        self.mod, self.var, self.name, self.old, self.new = mod, var, name, old, new

    def use(self, new: bool) -> None:
        self.mod.__dict__[self.var] = self.new if new else self.old


def swap_into(mod, table: Table) -> None:
    path = getattr(mod, "__file__", None)
    if not path:
        return
    with open(path) as f:
        code = f.read()
    for d in K.split(code):
        table.seen += 1
        sub = table.kernels.get(d.hash)
        if sub is None or d.var not in mod.__dict__:
            continue
        source = edited_source(d, sub)
        if source is False or not gate_one(d, source):
            continue
        obj = K.load_kernel(d.name, source, f"kopt {d.hash}", sub.get("config") or None)
        table.swaps.append(Swapped(mod, d.var, d.name, mod.__dict__[d.var], obj))
        mod.__dict__[d.var] = obj
        table.hits.add(d.hash)


def gate_one(d, source: str) -> bool:
    """Gate 1 (kopt.static_gate) once more on the source about to be
    compiled here, against the kernel Inductor generated here: the seal
    says koptmake's gates passed these bytes, and this says they still
    pass this gate on this kernel. False, with a warning, where they do
    not: Inductor's kernel runs instead. (What gate 1 sends to memcheck
    ran there at the build.)"""
    if source == d.source:
        return True
    from . import static_gate

    try:
        r = static_gate.report(source, d.source)
        ok, why = bool(r["ok"]), str(r["reason"])
    except Exception as exc:  # a gate that cannot read it passes nothing
        ok, why = False, f"{type(exc).__name__}: {exc}"
    if not ok:
        warnings.warn(f"kopt: the optimized {d.name} fails gate 1 here ({why[:300]}); Inductor's kernel runs instead",
                      stacklevel=3)
    return ok


def edited_source(d, sub: dict):
    """The source to load for kernel declaration d from its table entry: the
    entry's source; with "edit", the edit applied to d's source, which must
    be the entry's source where it has one; False (with a warning) when the
    edit does not apply or gives other text."""
    source = sub.get("source")
    edit = sub.get("edit")
    if not edit:
        return source or d.source
    try:
        text = N.apply(d.source, edit)
    except N.KnobError as exc:
        warnings.warn(f"kopt: the source knobs {edit} do not apply to {d.name} here ({exc}); "
                      f"Inductor's kernel runs instead", stacklevel=3)
        return False
    if source and text != source:
        warnings.warn(f"kopt: the source knobs {edit} give {d.name} another text than the table's; "
                      f"Inductor's kernel runs instead", stacklevel=3)
        return False
    return text


def _flat(out) -> list:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flat(o)]
    return []


def _clone(args: list) -> list:
    import torch

    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def same_outputs(ref: list, out: list, gates: dict) -> bool:
    import torch

    if len(ref) != len(out):
        return False
    for r, o in zip(ref, out):
        if r.shape != o.shape or r.dtype != o.dtype:
            return False
        if not r.is_floating_point():
            if not torch.equal(r, o):
                return False
            continue
        half = r.dtype in (torch.float16, torch.bfloat16)
        atol = float(gates.get("atol_half" if half else "atol", 1e-2 if half else 1e-4))
        rtol = float(gates.get("rtol_half" if half else "rtol", 1e-2 if half else 1e-4))
        if not torch.allclose(o.double(), r.double(), atol=atol, rtol=rtol, equal_nan=True):
            return False
    return True


def check_swaps(table: Table, run, args: list) -> None:
    """Inductor's kernels against the swapped ones on copies of args; the
    swaps that change the outputs go back to Inductor's kernels."""
    import torch

    swaps = [s for s in table.swaps if s.name not in table.reverted]
    if not swaps:
        return

    def outputs(on: set) -> list:
        for s in swaps:
            s.use(s in on)
        with torch.no_grad():
            out = [t.clone() for t in _flat(run(_clone(args)))]
        torch.cuda.synchronize()
        return out

    ref = outputs(set())
    if same_outputs(ref, outputs(set(swaps)), table.gates):
        for s in swaps:
            s.use(True)
        return
    bad = [s for s in swaps if not same_outputs(ref, outputs({s}), table.gates)]
    if not bad:  # only together: trust none of them
        bad = swaps
    keep = set(swaps) - set(bad)
    for s in swaps:
        s.use(s in keep)
    for s in bad:
        table.reverted.append(s.name)
        warnings.warn(f"kopt: the optimized {s.name} from {table.path} changed the outputs here "
                      f"(beyond atol/rtol against Inductor's own on the same inputs); Inductor's kernel runs instead",
                      stacklevel=3)


def swapping(table: Table):
    from .inductor import on_output_module

    return on_output_module(lambda mod: swap_into(mod, table))


def inductor_options(variant: dict) -> tuple[dict, dict]:
    """(Inductor's options, koptmake's rewrites) of a variant: its mode's
    options with its own on top, the kopt.NAME ones apart (rewrites.py)."""
    import torch._inductor

    from . import rewrites

    opts = {}
    if variant.get("mode"):
        opts.update(torch._inductor.list_mode_options(variant["mode"]))
    opts.update(variant.get("options") or {})
    return rewrites.split(opts)


CUDAGRAPHS = ("copy", "static")


class Graphed:
    """A compiled graph replayed through one CUDA graph, under the contract
    named (module docstring). run takes the inputs as a list."""

    def __init__(self, run, contract: str, warmup: int = 3):
        if contract not in CUDAGRAPHS:
            raise ValueError(f"kopt: cudagraphs={contract!r}: one of {', '.join(CUDAGRAPHS)}")
        self.run, self.contract, self.warmup = run, contract, warmup
        self.graph = None
        self.static: list = []
        self.sig = None
        self.outputs = None
        self.replays = 0

    @staticmethod
    def signature(args: list):
        import torch

        return tuple((tuple(a.shape), a.dtype, a.device, a.stride()) if isinstance(a, torch.Tensor) else ("v", a)
                     for a in args)

    def capture(self, args: list) -> None:
        import torch

        self.sig = self.signature(args)
        self.static = [a if self.contract == "static" or not isinstance(a, torch.Tensor) else a.clone()
                       for a in args]
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(self.warmup):
                self.run(list(self.static))
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g), torch.no_grad():
            self.outputs = self.run(list(self.static))
        self.graph = g

    def __call__(self, args: list):
        import torch

        if self.graph is None:
            self.capture(args)
        elif self.signature(args) != self.sig:
            return self.run(args)   # other shapes: no graph (static shapes only)
        for s, a in zip(self.static, args):
            if not isinstance(a, torch.Tensor) or s is a:
                continue   # the parameters, Dynamo's inputs too, are the same tensors
            if self.contract == "static":
                if a.data_ptr() == s.data_ptr():
                    continue
                raise ValueError("kopt: cudagraphs='static' was promised the first call's input tensors "
                                 "(the same addresses) on every call; pass them, or use cudagraphs='copy'")
            s.copy_(a)
        self.graph.replay()
        self.replays += 1
        return self.outputs


def compile_plain(gm, example_inputs, options: dict):
    """Inductor's code: its defaults and the backend's options, no table."""
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx

    with config.patch(dict(options)), P.capture_flags():
        return compile_fx(gm, example_inputs)


# Inductor's options under which a compile times choices in its process
AUTOTUNING = ("max_autotune", "max_autotune_gemm", "max_autotune_pointwise", "coordinate_descent_tuning")


def graph_counts() -> tuple[int, int]:
    """(hits, misses) of Inductor's graph cache in this process so far
    ((0, 0) where this torch does not count them)"""
    try:
        from torch._dynamo.utils import counters
    except ImportError:
        return 0, 0
    c = counters["inductor"]
    return int(c.get("fxgraph_cache_hit", 0)), int(c.get("fxgraph_cache_miss", 0))


def graph_misses() -> int:
    """Inductor's graph-cache misses in this process so far"""
    return graph_counts()[1]


def compiled_anew(table: Table, opts: dict, misses: int, keys: list | None = None) -> str | None:
    """The warning for a compile of table's variant that missed the graph
    cache (misses: the count before it) where the variant autotunes: its
    choices are then this process's picks, not the ones the report timed
    (bench/results/2026-12-06h-h100-graph-cache); None otherwise. keys:
    the graph-cache keys the compile looked up (kopt.graphkeys): where
    they differ from the build's (the table's graph_keys), the warning
    names the parts that do (bench/results/2026-12-06k-h200-shapes: the
    C++ compiler, cpp.cxx, which Inductor reads from CXX)."""
    if graph_misses() <= misses or not any(opts.get(k) for k in AUTOTUNING):
        return None
    apart = GK.parts_apart(table.graph_keys, keys or [])
    why = (f"; its key differs from the build's in {', '.join(apart[:6])}{' and more' if len(apart) > 6 else ''}"
           f" (Inductor's options, the environment such as CXX, or torch differ from the build's)" if apart else "")
    return (f"kopt: {table.where}: Inductor compiled a graph of variant {table.variant.get('name', '?')} anew here "
            f"(the build's was not in its graph cache{why}), so its autotuned choices are this process's, not the "
            f"ones the report timed; TORCHINDUCTOR_CACHE_DIR=.kopt/compile/inductor and "
            f"TRITON_CACHE_DIR=.kopt/compile/triton, from the spec's folder, find the build's")


def own_graphs(table: Table, opts: dict, cudagraphs: str | None) -> tuple[str | None, str | None]:
    """(the contract of the CUDA graphs the deployment adds, a warning) for
    a compile of table's variant under Inductor's options opts. A variant
    that runs Inductor's own CUDA graphs (triton.cudagraphs, as its race
    timed it) keeps them, and the deployment adds none: a graph cannot be
    captured around another's replay. Its graphs copy each call's inputs
    into their own buffers, as "copy" does, and take any tensors."""
    if not cudagraphs or not opts.get("triton.cudagraphs"):
        return cudagraphs, None
    return None, (f"kopt: {table.where}: variant {table.variant.get('name', '?')} runs Inductor's own CUDA graphs "
                  f"(triton.cudagraphs, as its race timed it), so cudagraphs={cudagraphs!r} adds none; "
                  f"they copy each call's inputs, as 'copy' does, and take any tensors")


def compile_with(table: Table, gm, example_inputs, options: dict, check: bool, cudagraphs: str | None, graphs: list):
    """gm compiled with table's variant and its winners swapped in (checked
    on the first call where check)."""
    import torch
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx

    opts, own = inductor_options(table.variant)
    opts.update(options)
    cudagraphs, why = own_graphs(table, opts, cudagraphs)
    if why:
        warnings.warn(why, stacklevel=2)
    tplthreads.for_options(opts)
    tplcut.for_options(opts)
    tunecache.install()  # a warm start keeps coordinate descent's cached configs
    graphcopy.install()  # CUDA graphs' inputs copied as the race timed them
    if table.variant.get("cudnn_benchmark"):
        torch.backends.cudnn.benchmark = True
    from . import rewrites
    from .inductor import aten_fallbacks

    before, misses = len(table.swaps), graph_misses()
    fallbacks = list(table.variant.get("aten_fallback") or [])
    GK.install()
    mark = GK.mark()   # the keys of this compile alone, left for the caller's own take()
    with config.patch(opts), aten_fallbacks(fallbacks), rewrites.applied(own), swapping(table), \
            P.capture_flags():
        compiled = compile_fx(gm, example_inputs)
    anew = compiled_anew(table, opts, misses, GK.since(mark))
    if anew:
        warnings.warn(anew, stacklevel=2)
    missed = len(table.kernels) - len(table.hits)
    if missed > 0:
        warnings.warn(f"kopt: {missed} of {len(table.kernels)} optimized kernels in {table.where} "
                      f"matched no kernel Inductor generated here; Inductor's kernels run in their place",
                      stacklevel=2)
    check_now = check and len(table.swaps) > before
    if not check_now and cudagraphs is None:
        return compiled
    boxed = getattr(compiled, "_boxed_call", False)
    checked = [not check_now]
    # the caller's convention, not the attribute, says how compiled is
    # called: Dynamo (torch 2.11) calls a backend's result with the
    # inputs as arguments even where compile_fx's marks it boxed (one
    # list, which the callee empties)
    seen_boxed = [boxed]

    def plain(a):
        return compiled(a) if seen_boxed[0] else compiled(*a)

    graphed = Graphed(plain, cudagraphs) if cudagraphs else None
    if graphed:
        graphs.append(graphed)

    def call(*args):
        seen_boxed[0] = len(args) == 1 and isinstance(args[0], list)
        real = list(args[0]) if seen_boxed[0] else list(args)
        if not checked[0]:
            # the check runs without the graph, and before it is captured:
            # a replay would not see the kernels it puts back
            checked[0] = True
            check_swaps(table, plain, real)
            return plain(real)
        if graphed:
            return graphed(real)
        return compiled(*args)

    if boxed:
        call._boxed_call = True
    return call


def make_backend(outdir: str, check: bool | None = None, cudagraphs: str | None = None, **options):
    table, tables = load_tables(outdir)
    # what Inductor's and Triton's caches hold becomes the table's kernels:
    # none that another user may write (kopt.cachetrust)
    cachetrust.check()
    if check is None:
        check = os.environ.get("KOPT_DEPLOY_CHECK", "1") != "0"
    if cudagraphs is None:
        cudagraphs = os.environ.get("KOPT_DEPLOY_CUDAGRAPHS") or None
    if cudagraphs is not None and cudagraphs not in CUDAGRAPHS:
        raise ValueError(f"kopt: cudagraphs={cudagraphs!r}: one of {', '.join(CUDAGRAPHS)}, or leave it unset")
    graphs: list = []
    counts = {"compiles": 0, "outside": 0}
    how = (options, check, cudagraphs, graphs)

    def backend(gm, example_inputs):
        counts["compiles"] += 1
        if not tables:
            return compile_with(table, gm, example_inputs, *how)
        sig = signature(example_inputs)
        chosen = pick_shape(tables, sig) if sig is not None else None
        if chosen is not None:
            return compile_with(chosen, gm, example_inputs, *how)
        counts["outside"] += 1
        names = ", ".join(t.shape or "?" for t in tables)
        why = ("a dynamic-shape compile (torch.compile(..., dynamic=False) keeps each declared shape's own code)"
               if sig is None else f"inputs {describe(sig)} are outside every declared shape ({names})")
        warnings.warn(f"kopt: {why} of {tables[0].path}; Inductor's code runs for them", stacklevel=2)
        return compile_plain(gm, example_inputs, options)

    backend.table = table          # a model served at several shapes: None
    backend.tables = tables or [table]
    backend.counts = counts        # compiles: the backend's calls (one per graph and shape);
    backend.graphs = graphs        # outside: those at a shape no table serves
    return backend
