"""koptmake's own rewrites of a model's ATen graph: implementation choices
that no Inductor option makes, given as variant options named ``kopt.NAME``
(``options = { "kopt.conv_transpose_as_conv" = true }`` in a spec; the
implementation-space search adds them like Inductor's options).

Each rewrite is a decomposition that Inductor applies while the variant is
compiled (and while kopt.backend compiles the deployment): it returns
NotImplemented where it does not apply, and the op stays as it was. A
variant with a rewrite is checked against eager and float64 and raced like
any variant, so a rewrite that is wrong or slower is never chosen.

The rewrites, by their part:

- rewrite_ops.py: conv_transpose_as_conv, depthwise_as_pointwise,
  conv3d_as_conv2d, conv1x1_as_product, pool_as_pointwise (decompositions
  of one op);
- rewrite_fold.py: linear_reduction_fold; rewrite_slice.py:
  sliced_product; rewrite_attention.py: flash_attention;
  rewrite_products.py: tf32x3_products (FX passes on the post-grad graph,
  sharing rewrite_graph.py).

This module is their registry: the names (NAMES, the list kopt(5) and
rules/space.c are checked against by tests/lists.py), a variant's options
split into Inductor's and the rewrites', and the rewrites applied while a
compile runs. FILES are the rewrites' code, in the graph passes' cache key;
GRAPH_CODE, that and the kernel they call, in the env's graph_code
(worker.py).

Rewrites of the same op, all on, are tried in NAMES' order, and what one
makes goes through the table again.
"""

from __future__ import annotations

import contextlib
import functools
import os

from . import attention, products
from .rewrite_attention import fuse_attention
from .rewrite_fold import fold_linear_ops
from .rewrite_ops import (avg_pool, conv1x1_as_product, conv3d_as_conv2d, conv_transpose_as_conv,
                          depthwise_as_pointwise, max_pool)
from .rewrite_products import split_products
from .rewrite_slice import slice_products

# the rewrites' code, which the graph passes' cache key hashes (_source_hash)
FILES = ("rewrites.py", "rewrite_ops.py", "rewrite_graph.py", "rewrite_fold.py", "rewrite_slice.py",
         "rewrite_attention.py", "rewrite_products.py")
# the code a variant with kopt.NAME options compiles and runs: the rewrites
# and the kernel they call (every kopt module they import: tests/lists.py),
# which the env's graph_code hashes (worker.py)
GRAPH_CODE = FILES + ("attention.py", "products.py", "oplib.py")

PREFIX = "kopt."


# the FX passes among the rewrites, by name: run on the post-grad graph
# before Inductor's own passes there (config.post_grad_custom_pre_pass),
# which may split an addmm
GRAPH_PASSES = {"linear_reduction_fold": fold_linear_ops, "sliced_product": slice_products,
                "flash_attention": fuse_attention, "tf32x3_products": split_products}
# the graph passes whose graphs call an operator of koptmake's own, by name:
# its registration, done before the compile (also where Inductor's cache
# answers, the compiled graph calls it)
OPERATORS = {"flash_attention": attention.register, "tf32x3_products": products.register}


def _table():
    import torch

    aten = torch.ops.aten
    conv = aten.convolution.default
    pools = {}
    for nd, name in ((2, "avg_pool2d"), (3, "avg_pool3d")):
        if hasattr(aten, name):
            pools[getattr(aten, name).default] = avg_pool(nd)
    for nd, name in ((2, "max_pool2d_with_indices"), (3, "max_pool3d_with_indices")):
        if hasattr(aten, name):
            pools[getattr(aten, name).default] = max_pool(nd)
    return {"conv_transpose_as_conv": {conv: conv_transpose_as_conv},
            "depthwise_as_pointwise": {conv: depthwise_as_pointwise},
            "conv3d_as_conv2d": {conv: conv3d_as_conv2d},
            "conv1x1_as_product": {conv: conv1x1_as_product},
            "pool_as_pointwise": pools}


# in the order they are tried on one op: a transposed convolution's
# forward ones go through the table again, so a 3-D one can become 2-D,
# and a one-tap one a product; then the graph passes
NAMES = ("conv_transpose_as_conv", "depthwise_as_pointwise", "conv3d_as_conv2d", "conv1x1_as_product",
         "pool_as_pointwise", "linear_reduction_fold", "sliced_product", "flash_attention", "tf32x3_products")


def split(options: dict) -> tuple[dict, dict]:
    """(Inductor's options, the rewrites turned on by name) from a variant's
    options; an unknown kopt.NAME is an error that names it."""
    inductor = {k: v for k, v in options.items() if not k.startswith(PREFIX)}
    own = {k[len(PREFIX):]: v for k, v in options.items() if k.startswith(PREFIX)}
    unknown = sorted(k for k in own if k not in NAMES)
    if unknown:
        raise ValueError("unknown koptmake rewrite(s) " + ", ".join(PREFIX + k for k in unknown) +
                         " (known: " + ", ".join(PREFIX + k for k in NAMES) + ")")
    return inductor, {k: v for k, v in own.items() if v}


@functools.lru_cache(maxsize=1)
def _source_hash() -> str:
    """the hash of FILES, the rewrites' code, in the graph passes' cache key
    (read once a process: each compile asks the pass's uuid)"""
    import hashlib

    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    for name in FILES:
        with open(os.path.join(here, name), "rb") as f:
            h.update(name.encode() + b"\0" + f.read())
    return h.hexdigest()


def _graph_pass(before, passes, names=()):
    """(Inductor's post-grad custom pass: the one set before (a user's), then
    ours, on the graph; whether Inductor's graph cache keys on it). Where
    torch has CustomGraphPass, the pass is one, its uuid the rewrites'
    names, this file's hash and the pass before's uuid, so that the cache
    keys on what it does; a pass before that has no uuid makes it None,
    and Inductor then compiles without the cache. Without the class the
    pass is a plain function and the cache must be off."""
    def run(graph):
        if before is not None:
            before(graph)
        for p in passes:
            p(graph)
    try:
        from torch._inductor.custom_graph_pass import CustomGraphPass
    except ImportError:
        return run, False

    class RewritePass(CustomGraphPass):
        def __call__(self, graph):
            run(graph)

        def uuid(self):
            prior = None
            if before is not None:
                prior = before.uuid() if isinstance(before, CustomGraphPass) else None
                if prior is None:
                    return None
            return ("kopt.rewrites", tuple(names), _source_hash(), prior)
    return RewritePass(), True


def _first(fns):
    """The decomposition that tries fns in turn: the first result that is
    not NotImplemented."""
    if len(fns) == 1:
        return fns[0]

    def chained(*args, **kwargs):
        for fn in fns:
            r = fn(*args, **kwargs)
            if r is not NotImplemented:
                return r
        return NotImplemented
    return chained


@contextlib.contextmanager
def applied(rewrites: dict):
    """The rewrites in Inductor's decomposition tables, and the graph passes
    as its post-grad custom pass, while the context lasts (compile inside
    it). AOTAutograd's cache is off: it keys on the graph before the
    decompositions. Inductor's graph cache stays on: it keys on the graph
    after them, where the rewrites show, and on the custom pass's uuid
    (_graph_pass; off where the pass has none): a fresh worker compiling a
    rewrite's variant again (a stitch, a later build) finds it there.""" 
    if not rewrites:
        yield
        return
    from torch._functorch import config as fconfig
    from torch._inductor import config
    from torch._inductor import decomposition as idecomp

    tables = [idecomp.decompositions]
    sel = idecomp.select_decomp_table()
    if sel is not idecomp.decompositions:
        tables.append(sel)
    saved = []
    stack = contextlib.ExitStack()
    if hasattr(fconfig, "enable_autograd_cache"):
        stack.enter_context(fconfig.patch(enable_autograd_cache=False))
    try:
        chains: dict = {}
        table = _table()
        for name in NAMES:
            if name in rewrites and name in table:
                for op, fn in table[name].items():
                    chains.setdefault(op, []).append(fn)
        names = [name for name in NAMES if name in rewrites and name in GRAPH_PASSES]
        for name in names:
            if name in OPERATORS:
                OPERATORS[name]()
        keyed = True
        if names:
            pass_, keyed = _graph_pass(config.post_grad_custom_pre_pass, [GRAPH_PASSES[n] for n in names], names)
            stack.enter_context(config.patch(post_grad_custom_pre_pass=pass_))
        if not keyed:
            stack.enter_context(config.patch(fx_graph_cache=False, fx_graph_remote_cache=False))
        for op, fns in chains.items():
            for t in tables:
                saved.append((t, op, t.get(op)))
                t[op] = _first(fns)
        yield
    finally:
        stack.close()
        for t, op, fn in reversed(saved):
            if fn is None:
                t.pop(op, None)
            else:
                t[op] = fn
