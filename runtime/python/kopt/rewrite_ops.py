"""koptmake's rewrites that decompose one ATen op (rewrites.py puts them
in Inductor's decomposition tables; each returns NotImplemented where it
does not apply, and the op stays as it was).

- conv_transpose_as_conv: a transposed convolution as ordinary
  convolutions: its weights' two channel axes swapped within each group,
  and for each phase of the output (the positions o = q*stride + r along
  each axis) the taps that reach it, flipped, as a forward convolution of
  the input (zero-padded or cropped to the window it reads) whose results
  are interleaved; with stride 1, one forward convolution with the whole
  kernel. No multiplication by an inserted zero. cuDNN runs transposed
  convolutions as the data gradient of a convolution, and for 3-D ones it
  often has only a generic engine for that (the beyond benchmark's
  profiles, bench/beyond/README.md: 185 ms for a problem whose FLOPs take
  27 ms at the FP32 peak); the forward convolution has implicit-GEMM
  kernels, and Inductor's convolution templates.
- depthwise_as_pointwise: a depthwise convolution (groups = input
  channels, any channel multiplier, 1-3 D, at most 64 kernel elements) as
  the sum over the kernel's taps of the input's shifted window times that
  tap's weights: pointwise arithmetic that Inductor fuses into one kernel
  reading the input once (the taps hit the caches) and writing the output
  once. Under max-autotune a depthwise convolution ran as a transpose to
  channels-last, cuDNN's kernel and a transpose back, 3.3x its bytes'
  time at the copy bandwidth (bench/beyond/README.md).
- conv3d_as_conv2d: a 3-D convolution as 2-D ones, one per tap of its
  kernel's depth: the input's depth slices that tap reads, moved into the
  batch, convolved with that tap's 2-D weights, the results summed. cuDNN
  has implicit-GEMM kernels for 2-D convolutions in float32; for 3-D it
  ran its generic implicit_convolveNd_sgemm (bench/beyond/README.md).
- conv1x1_as_product: a convolution whose kernel is one tap (1x1, 1-3 D,
  one group, no padding, any stride) as the matrix product it is: the
  input's positions (every stride-th, where strided) as rows and its
  channels as columns, times the weights transposed, the bias added by
  addmm; the result channels-last. cuDNN ran a 1x1 convolution in float32
  at 21 TFLOP/s where cuBLAS's product of the same sizes ran at 40
  (bench/results/2026-12-06c-h100-level3-slices), and max-autotune left
  one whose input was the model's NCHW as Triton's convolution template,
  slower still, with conv_1x1_as_mm on; made a product here, before
  Inductor's lowering, it is one (cuBLAS's, or a template of
  max-autotune's GEMMs).
- pool_as_pointwise: average and max pooling (2-D and 3-D; 1-D runs as
  2-D) as pointwise arithmetic over the same shifted windows: the sum
  over the taps divided by their count, or the running maximum with the
  first maximum's index (a NaN wins), as ATen's kernels give them. Where
  Inductor falls back to ATen's pooling kernel (3-D average pooling ran
  at 3.7x its bytes' time at the copy bandwidth, bench/beyond/README.md)
  this makes one fused kernel; where Inductor lowers the pooling itself
  the race says which is faster. An average over more than 64 taps is
  summed one axis at a time (k + k taps, not k * k). Not for ceil_mode,
  nor for an average without the padding in its count (its divisor
  changes at the borders).
"""

from __future__ import annotations

import math
from typing import NamedTuple


def _out_len(size, k, s, p, d):
    """positions along an axis of a window k (stride s, padding p each
    side, dilation d) over size inputs"""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _pad_both(x, p, value=0.0):
    """x padded by p[i] on both sides of each of its last len(p) axes"""
    import torch

    return torch.ops.aten.constant_pad_nd.default(x, [v for i in reversed(range(len(p))) for v in (p[i], p[i])],
                                                  value)


class _Phase(NamedTuple):
    """One axis of a transposed convolution's output positions o = q*s + r."""
    tap: int       # the first kernel tap that reaches them
    step: int      # between the taps that do
    taps: int      # how many do
    dilation: int  # input positions between consecutive taps: the forward convolution's dilation
    start: int     # the lowest input index they read (the last tap's)
    count: int     # how many such positions the output has

    @property
    def end(self) -> int:
        """the highest input index they read"""
        return self.start + self.count - 1 + (self.taps - 1) * self.dilation


def _phase(r, s, p, d, k, out_len):
    """The phase r of an axis (stride s, padding p, dilation d, kernel k,
    out_len outputs), or None where no tap reaches it or it has no position."""
    taps = [j for j in range(k) if (r + p - j * d) % s == 0]
    count = (out_len - r + s - 1) // s if r < out_len else 0
    if not taps or count == 0:
        return None
    step = taps[1] - taps[0] if len(taps) > 1 else 1
    return _Phase(taps[0], step, len(taps), step * d // s if len(taps) > 1 else 1, (r + p - taps[-1] * d) // s,
                  count)


def conv_transpose_as_conv(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import itertools

    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    if not transposed or nd < 1:
        return NotImplemented
    s, p, d = [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in dilation]
    op, k = [int(v) for v in output_padding], [int(v) for v in weight.shape[2:]]
    size = [int(v) for v in x.shape[2:]]
    out = [(size[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1 for i in range(nd)]
    if min(out) < 1:
        return NotImplemented
    cin, cout_g = int(weight.shape[0]), int(weight.shape[1])
    cout = groups * cout_g
    # a forward convolution's weights: the two channel axes swapped within each group
    w = weight.reshape(groups, cin // groups, cout_g, *k).transpose(1, 2).reshape(cout, cin // groups, *k)
    phases = math.prod(s)
    result = None
    for r in itertools.product(*(range(v) for v in s)):
        axes = [_phase(r[i], s[i], p[i], d[i], k[i], out[i]) for i in range(nd)]
        if any(a is None for a in axes):
            continue  # nothing reaches these positions: zero, then the bias
        if any(a.start > size[i] - 1 or a.end < 0 for i, a in enumerate(axes)):
            continue  # they read only padding: zero
        # the input window the phase reads, padded with zeros where it
        # reaches past the input (a negative padding crops), last axis first
        pads = [v for i in reversed(range(nd)) for v in (-axes[i].start, axes[i].end - (size[i] - 1))]
        ws = w
        for i, a in enumerate(axes):
            ws = aten.slice.Tensor(ws, 2 + i, a.tap, a.tap + (a.taps - 1) * a.step + 1, a.step)
        ws = aten.flip.default(ws, list(range(2, 2 + nd)))
        xs = x
        if all(pads[2 * j] == pads[2 * j + 1] >= 0 for j in range(nd)):
            conv_pad = [pads[2 * (nd - 1 - i)] for i in range(nd)]
        else:
            xs = aten.constant_pad_nd.default(xs, pads, 0.0)
            conv_pad = [0] * nd
        y = aten.convolution.default(xs, ws, bias if phases == 1 else None, [1] * nd, conv_pad,
                                     [a.dilation for a in axes], False, [0] * nd, groups)
        if phases == 1:
            return y
        if result is None:
            result = aten.new_zeros.default(x, [int(x.shape[0]), cout] + out)
        result = _place(result, y, r, s, 2)
    if result is None:
        result = aten.new_zeros.default(x, [int(x.shape[0]), cout] + out)
    if bias is not None:
        result = aten.add.Tensor(result, aten.reshape.default(bias, [1, cout] + [1] * nd))
    return result


def conv3d_as_conv2d(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    if transposed or weight.dim() != 5:
        return NotImplemented
    s, p, d = [int(v) for v in stride], [int(v) for v in padding], [int(v) for v in dilation]
    n, c, depth = int(x.shape[0]), int(x.shape[1]), int(x.shape[2])
    kd, cout = int(weight.shape[2]), int(weight.shape[0])
    dout = _out_len(depth, kd, s[0], p[0], d[0])
    if dout < 1:
        return NotImplemented
    if p[0]:
        x = _pad_both(x, [p[0], 0, 0])
    # depth next to the batch, once: each tap's slices are then a batch of 2-D images
    xd = aten.permute.default(x, [0, 2, 1, 3, 4])
    acc = None
    for t in range(kd):
        xt = aten.slice.Tensor(xd, 1, t * d[0], t * d[0] + (dout - 1) * s[0] + 1, s[0])
        xt = aten.reshape.default(aten.clone.default(xt, memory_format=torch.contiguous_format),
                                  [n * dout, c] + [int(v) for v in x.shape[3:]])
        wt = aten.select.int(weight, 2, t)
        y = aten.convolution.default(xt, wt, None, s[1:], p[1:], d[1:], False, [0, 0], groups)
        acc = y if acc is None else aten.add.Tensor(acc, y)
    ho, wo = int(acc.shape[2]), int(acc.shape[3])
    out = aten.permute.default(aten.reshape.default(acc, [n, dout, cout, ho, wo]), [0, 2, 1, 3, 4])
    if bias is not None:
        out = aten.add.Tensor(out, aten.reshape.default(bias, [1, cout, 1, 1, 1]))
    return aten.clone.default(out, memory_format=torch.contiguous_format)


def conv1x1_as_product(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    if transposed or groups != 1 or x.dim() != nd + 2 or any(int(v) != 1 for v in weight.shape[2:]) \
            or any(int(v) for v in padding):
        return NotImplemented
    for i, si in enumerate(stride):  # every si-th position (all of them at stride 1): those alone
        x = aten.slice.Tensor(x, 2 + i, 0, int(x.shape[2 + i]), int(si))
    n, c, cout = int(x.shape[0]), int(x.shape[1]), int(weight.shape[0])
    size = [int(v) for v in x.shape[2:]]
    rows = aten.reshape.default(aten.permute.default(x, [0] + list(range(2, nd + 2)) + [1]), [n * math.prod(size), c])
    wt = aten.permute.default(aten.reshape.default(weight, [cout, c]), [1, 0])
    y = aten.mm.default(rows, wt) if bias is None else aten.addmm.default(bias, rows, wt)
    return aten.permute.default(aten.reshape.default(y, [n] + size + [cout]), [0, nd + 1] + list(range(1, nd + 1)))


def _place(base, y, r, s, dim):
    """base with y written at positions r[i] + j*s[i] of its axes dim, dim+1, ..."""
    import torch

    aten = torch.ops.aten
    if not r:
        return y
    length = int(base.shape[dim])
    sub = aten.slice.Tensor(base, dim, r[0], length, s[0])
    return aten.slice_scatter.default(base, _place(sub, y, r[1:], s[1:], dim + 1), dim, r[0], length, s[0])


DEPTHWISE_MAX_TAPS = 64  # kernel elements at most: each is one load of the fused kernel


def depthwise_as_pointwise(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    import torch

    aten = torch.ops.aten
    nd = weight.dim() - 2
    cin = int(x.shape[1])
    if transposed or nd < 1 or groups != cin or groups == 1 or int(weight.shape[1]) != 1:
        return NotImplemented
    cout = int(weight.shape[0])
    k = [int(v) for v in weight.shape[2:]]
    if cout % cin or math.prod(k) > DEPTHWISE_MAX_TAPS:
        return NotImplemented
    s, d, p = [int(v) for v in stride], [int(v) for v in dilation], [int(v) for v in padding]
    size = [int(v) for v in x.shape[2:]]
    out = [_out_len(size[i], k[i], s[i], p[i], d[i]) for i in range(nd)]
    if min(out) < 1:
        return NotImplemented
    mult = cout // cin
    if mult > 1:  # output channel c * mult + j reads input channel c (a static shape, unlike repeat_interleave)
        n = int(x.shape[0])
        x = aten.unsqueeze.default(x, 2)
        x = aten.expand.default(x, [n, cin, mult] + size)
        x = aten.reshape.default(x, [n, cin * mult] + size)
    if any(p):
        x = _pad_both(x, p)
    acc = None
    for tap, win in _windows(x, k, s, d, out):
        w = aten.reshape.default(weight[(slice(None), 0) + tap], [1, cout] + [1] * nd)
        term = aten.mul.Tensor(win, w)
        acc = term if acc is None else aten.add.Tensor(acc, term)
    if bias is not None:
        acc = aten.add.Tensor(acc, aten.reshape.default(bias, [1, cout] + [1] * nd))
    return acc


def _windows(x, k, s, d, out):
    """(tap, the input's window for it) for each tap of a kernel k over the
    last len(k) axes of x (already padded), stride s, dilation d, out
    positions per axis: x's shifted, strided views."""
    import itertools

    import torch

    aten = torch.ops.aten
    nd = len(k)
    lead = x.dim() - nd
    for tap in itertools.product(*(range(v) for v in k)):
        win = x
        for i, t in enumerate(tap):
            start = t * d[i]
            win = aten.slice.Tensor(win, lead + i, start, start + (out[i] - 1) * s[i] + 1, s[i])
        yield tap, win


def _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nd, per_axis=False):
    """(k, s, p, d, out) of a pooling over x's last nd axes in ATen's
    conventions (an empty stride is the kernel; one number is every axis),
    or None where it is not a plain window (ceil_mode, too many taps: in
    all, or per_axis, on one axis)."""
    def each(v, default):
        if isinstance(v, int):
            v = [v]
        v = [int(e) for e in (v if v else default)]
        return v * nd if len(v) == 1 else v
    k = each(kernel_size, [1])
    s, p, d = each(stride, k), each(padding, [0]), each(dilation, [1])
    if ceil_mode or len(k) != nd:
        return None
    size = [int(v) for v in x.shape[x.dim() - nd:]]
    out = [_out_len(size[i], k[i], s[i], p[i], d[i]) for i in range(nd)]
    if (max(k) if per_axis else math.prod(k)) > DEPTHWISE_MAX_TAPS or min(out) < 1:
        return None
    return k, s, p, d, out


def avg_pool(nd):
    def avg_pool_as_pointwise(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True,
                              divisor_override=None):
        import torch

        aten = torch.ops.aten
        g = _pool_geometry(x, kernel_size, stride, padding, [1], ceil_mode, nd, per_axis=True)
        if g is None or (not count_include_pad and any(g[2])):
            return NotImplemented  # a divisor that changes with the position at the borders
        k, s, p, d, out = g
        if any(p):
            x = _pad_both(x, p)
        taps = math.prod(k)
        if taps <= DEPTHWISE_MAX_TAPS:
            passes = [(k, s, out)]
        else:  # a sum is separable: one axis at a time, k[0] + k[1] + ... taps, not their product
            cur = [int(v) for v in x.shape[x.dim() - nd:]]
            passes = []
            for i in range(nd):
                kk, ss = [1] * nd, [1] * nd
                kk[i], ss[i] = k[i], s[i]
                cur = cur[:i] + [out[i]] + cur[i + 1:]
                passes.append((kk, ss, list(cur)))
        acc = x
        for kk, ss, oo in passes:
            part = None
            for _, win in _windows(acc, kk, ss, d, oo):
                part = win if part is None else aten.add.Tensor(part, win)
            acc = part
        return aten.div.Tensor(acc, float(divisor_override or taps))
    return avg_pool_as_pointwise


def max_pool(nd):
    def max_pool_as_pointwise(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        """(values, indices) as max_pool*_with_indices gives them: the first
        maximum in the window's scan order (a NaN wins, the last one),
        indices into the unpadded input's flattened spatial axes."""
        import torch

        aten = torch.ops.aten
        g = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode, nd)
        if g is None or not x.dtype.is_floating_point:
            return NotImplemented
        k, s, p, d, out = g
        size = [int(v) for v in x.shape[x.dim() - nd:]]
        if any(p):
            x = _pad_both(x, p, float("-inf"))
        # each output position's first input coordinate, per axis, broadcast
        base = []
        for i in range(nd):
            shape = [1] * (x.dim() - nd) + [1] * nd
            shape[x.dim() - nd + i] = out[i]
            base.append(aten.reshape.default(aten.mul.Tensor(aten.arange.default(out[i], dtype=torch.int64,
                                                                                device=x.device), s[i]), shape))
        best = idx = None
        for tap, win in _windows(x, k, s, d, out):
            flat = None  # the tap's index into the unpadded input, row-major over the spatial axes
            for i in range(nd):
                coord = aten.add.Tensor(base[i], tap[i] * d[i] - p[i])
                flat = coord if flat is None else aten.add.Tensor(aten.mul.Tensor(flat, size[i]), coord)
            if best is None:
                best, idx = win, aten.expand.default(flat, list(win.shape))
                continue
            # ATen's rule: a greater value or a NaN takes the place (so the last NaN's index)
            take = aten.logical_or.default(aten.gt.Tensor(win, best), aten.isnan.default(win))
            best = aten.where.self(take, win, best)
            idx = aten.where.self(take, flat, idx)
        return best, idx
    return max_pool_as_pointwise
