"""koptmake's own rewrites of a model's ATen graph: implementation choices
that no Inductor option makes, given as variant options named ``kopt.NAME``
(``options = { "kopt.conv_transpose_as_conv" = true }`` in a spec; the
implementation-space search adds them like Inductor's options).

Each rewrite is a decomposition that Inductor applies while the variant is
compiled (and while kopt.backend compiles the deployment): it returns
NotImplemented where it does not apply, and the op stays as it was. A
variant with a rewrite is checked against eager and float64 and raced like
any variant, so a rewrite that is wrong or slower is never chosen.

- conv_transpose_as_conv: a transposed convolution of stride 1 as the
  ordinary convolution it equals: the weights' spatial axes flipped and
  their two channel axes swapped within each group, the input padded by
  dilation * (kernel - 1) - padding on each side (plus output_padding on
  the far side). cuDNN runs transposed convolutions as the data gradient
  of a convolution, and for 3-D ones it often has only a generic engine
  for that (bench/results/2026-12-01-h200-beyond: 185 ms for a problem
  whose FLOPs take 27 ms at the FP32 peak); the forward convolution has
  implicit-GEMM kernels, and Inductor's convolution templates.
"""

from __future__ import annotations

import contextlib

PREFIX = "kopt."


def conv_transpose_as_conv(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    if not transposed or nd < 1 or any(int(s) != 1 for s in stride):
        return NotImplemented
    k = [int(v) for v in weight.shape[2:]]
    lo = [int(dilation[i]) * (k[i] - 1) - int(padding[i]) for i in range(nd)]
    hi = [lo[i] + int(output_padding[i]) for i in range(nd)]
    if min(lo + hi) < 0:
        return NotImplemented  # padding wider than the kernel reaches: not a plain padding
    cin, cout_g = int(weight.shape[0]), int(weight.shape[1])
    w = weight.reshape(groups, cin // groups, cout_g, *k).transpose(1, 2).reshape(groups * cout_g, cin // groups, *k)
    w = aten.flip.default(w, list(range(2, 2 + nd)))
    if lo == hi:
        pad = lo
    else:
        # constant_pad_nd takes the last axis first, (low, high) for each
        x = aten.constant_pad_nd.default(x, [p for i in reversed(range(nd)) for p in (lo[i], hi[i])], 0.0)
        pad = [0] * nd
    return aten.convolution.default(x, w, bias, [1] * nd, pad, [int(d) for d in dilation], False, [0] * nd, groups)


def _table():
    import torch

    return {"conv_transpose_as_conv": {torch.ops.aten.convolution.default: conv_transpose_as_conv}}


NAMES = ("conv_transpose_as_conv",)


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


@contextlib.contextmanager
def applied(rewrites: dict):
    """The rewrites in Inductor's decomposition tables while the context
    lasts (compile inside it); its graph caches off, since they do not key
    on the tables."""
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
    stack.enter_context(config.patch(fx_graph_cache=False, fx_graph_remote_cache=False))
    if hasattr(fconfig, "enable_autograd_cache"):
        stack.enter_context(fconfig.patch(enable_autograd_cache=False))
    try:
        for name in rewrites:
            for op, fn in _table()[name].items():
                for t in tables:
                    saved.append((t, op, t.get(op)))
                    t[op] = fn
        yield
    finally:
        stack.close()
        for t, op, fn in reversed(saved):
            if fn is None:
                t.pop(op, None)
            else:
                t[op] = fn
