"""Poolings over 1, 2 or 3 spatial dimensions (max, average, power-average, adaptive, fractional,
and max unpooling), with PyTorch's signatures.

They, and the convolutions of ``conv.py``, reuse the 2-D machinery of ``mutograd.ops.convolution``
and ``mutograd.ops.pooling`` (Note [Convolution as im2col + matrix products]) instead of a second
copy of it:

Note [N-d windows from the 2-D ops]
    A 1-D op is the 2-D op on a height-1 image. A 3-D convolution is one 2-D convolution: the
    ``kd`` depth slices a depth kernel reaches (strided views of the depth-padded input) become
    extra input channels, ordered (group, kd, channel) so that grouping still holds, and the
    weight (O, C/g, kd, kh, kw) becomes (O, kd*C/g, kh, kw). A transposed 3-D convolution is,
    likewise, one transposed 2-D convolution whose output channels carry the depth offset; each
    offset's part is then added into its strided depth slice of the result (an in-place ``+=`` on
    a view, which autograd follows). Average pooling is separable: a sum over window offsets
    along one axis at a time, each divided by that axis's share of the divisor (the count of a
    box window is the product of its per-axis counts, ceil_mode and padding included).

Note [Max pooling as argmax + gather]
    Every max pooling (fixed windows, ceil_mode, dilation, adaptive bins, fractional regions)
    is the same two steps: find each window's argmax as a flat index into the spatial dims of
    the input (PyTorch's ``indices``), by a loop over window offsets of vectorised comparisons
    (no loop over windows); then the values are ``gather(x, indices)``, whose gradient, a
    scatter-add into the argmax positions, is max pooling's. As in PyTorch the first maximum of
    a window wins, and a NaN beats every number (the last NaN, since each NaN replaces it). The
    2-D op ``max_pool2d`` (no indices, no ceil_mode) stays the fast path for that common case.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> y, idx = F.max_pool1d(mg.tensor([[[1.0, 3.0, 2.0, 5.0]]]), 2, return_indices=True)
    >>> y.tolist(), idx.tolist()
    ([[[3.0, 5.0]]], [[[1, 3]]])
"""
import functools
import math

import numpy as np

from ...autograd.grad_mode import no_grad
from ...errors import ArgumentError, DTypeError, IndexRangeError, ShapeError
from ...ops import OPS, call
from ...ops.creation import rand, tensor
from ...ops.indexing import gather
from ...tensor import Tensor, of_type_of
from .arguments import _batched, _tuple
from .padding import pad


# ---- window geometry -----------------------------------------------------------------------
def _out_len(length, k, s, p, d, ceil_mode):
    """PyTorch's pooling output length (ceil_mode: the last window must start inside the input
    or its left padding)."""
    span = length + 2 * p - d * (k - 1) - 1
    if span < 0:
        raise ShapeError(f"the (padded) input of size {length + 2 * p} is smaller than the "
                         f"(dilated) kernel size {d * (k - 1) + 1}")
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= length + p:
        out -= 1
    return out


def _pool_args(n, kernel_size, stride, padding, dilation, name):
    k = _tuple(kernel_size, n, "kernel_size")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else \
        _tuple(stride, n, "stride")
    p, d = _tuple(padding, n, "padding"), _tuple(dilation, n, "dilation")
    if any(pi > ki // 2 for pi, ki in zip(p, k)):
        raise ArgumentError(f"{name}: pad should be at most half of effective kernel size, "
                            f"got padding={p} and kernel_size={k}")
    if any(v <= 0 for v in k + s + d):
        raise ArgumentError(f"{name}: kernel_size, stride and dilation must be positive, "
                            f"got {k}, {s}, {d}")
    return k, s, p, d


def _window_positions(length, k, s, p, d, ceil_mode):
    """(O, k) input positions of each window's elements; -1 where they fall in padding."""
    out = _out_len(length, k, s, p, d, ceil_mode)
    pos = np.arange(out)[:, None] * s + np.arange(k)[None, :] * d - p
    return np.where((pos >= 0) & (pos < length), pos, -1)


def _adaptive_positions(length, out):
    """(O, longest bin) positions of adaptive pooling's bins ``[floor(i*L/O), ceil((i+1)*L/O))``;
    a shorter bin repeats its last position (which changes neither its maximum nor argmax)."""
    start = (np.arange(out) * length) // out
    end = -((-(np.arange(out) + 1) * length) // out)
    longest = int((end - start).max()) if out else 1
    return np.minimum(start[:, None] + np.arange(longest)[None, :], end[:, None] - 1)


def _argmax_windows(x, positions):
    """Note [Max pooling as argmax + gather]: the flat spatial index of each window's maximum.

    ``x``: array (N, C, *S). ``positions``: one array per spatial axis, (O_a, K_a) or, for
    windows that differ per plane, (N, C, O_a, K_a); -1 marks padding. Returns (N, C, *O)."""
    n, c, *size = x.shape
    nd = len(size)
    x = x.reshape(n * c, *size)
    planes = np.arange(n * c).reshape((n * c,) + (1,) * nd)
    pos = []
    for a, p in enumerate(positions):
        p = np.asarray(p).reshape(-1, *p.shape[-2:]) if p.ndim == 4 else p[None]
        shape = [p.shape[0]] + [1] * nd + [p.shape[-1]]
        shape[1 + a] = p.shape[1]
        pos.append(p.reshape(shape))
    out_shape = tuple(p.shape[1 + a] for a, p in enumerate(pos))
    best = np.full((n * c,) + out_shape, -np.inf if x.dtype.kind == "f" else 0, x.dtype)
    arg = np.full((n * c,) + out_shape, -1, np.int64)
    strides = [math.prod(size[a + 1:]) for a in range(nd)]
    for offs in np.ndindex(*[p.shape[-1] for p in pos]):
        at = [p[..., j] for p, j in zip(pos, offs)]
        valid = functools.reduce(np.logical_and, [q >= 0 for q in at])
        v = x[(planes, *[np.maximum(q, 0) for q in at])]
        flat = sum(np.maximum(q, 0) * st for q, st in zip(at, strides))
        take = valid & ((arg < 0) | (v > best) | (np.isnan(v) if v.dtype.kind == "f" else False))
        take = np.broadcast_to(take, arg.shape)
        best = np.where(take, v, best)
        arg = np.where(take, flat, arg)
    return arg.reshape(n, c, *out_shape)


def _like_place(x, array):
    """``array`` as a tensor on ``x``'s place and of its result type (a dialect's input gives
    that dialect's tensor: Note [Tensor types of the dialects] in tensor.py)."""
    return of_type_of(tensor(array, place=x._place), x)


def _gather_max(x, indices):
    """The values at ``indices`` (flat spatial positions per plane), with gather's gradient."""
    n, c = x.shape[:2]
    # (sizes spelled out: -1 is ambiguous for an empty batch)
    flat = gather(x.reshape([n, c, math.prod(x.shape[2:])]), 2,
                  indices.reshape([n, c, math.prod(indices.shape[2:])]))
    return flat.reshape(list(indices.shape))


def _max_by_positions(x, positions, name):
    if x.dtype.np.kind == "b":
        raise DTypeError(f'"{name}" is not implemented for bool tensors (as in PyTorch)')
    with no_grad():
        idx = _argmax_windows(x.detach().cpu().numpy(), positions)   # (a copy when on a device)
    indices = _like_place(x, idx)
    return _gather_max(x, indices), indices


# ---- max pooling ---------------------------------------------------------------------------
def _max_pool(n, name, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x, undo = _batched(input, n, name)
    k, s, p, d = _pool_args(n, kernel_size, stride, padding, dilation, name)
    if n == 2 and not (ceil_mode or return_indices):      # the fast 2-D op
        return undo(call(OPS["max_pool2d"], [x], {"kernel_size": k, "stride": s, "padding": p,
                                                  "dilation": d}))
    positions = [_window_positions(length, *a, ceil_mode)
                 for length, a in zip(x.shape[2:], zip(k, s, p, d))]
    out, indices = _max_by_positions(x, positions, name)
    return (undo(out), undo(indices)) if return_indices else undo(out)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over windows of (N, C, L); ``return_indices``: also each maximum's position."""
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over windows of (N, C, H, W); ``return_indices``: also each maximum's flat
    position in H*W (as PyTorch)."""
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over windows of (N, C, D, H, W); ``return_indices``: also flat positions."""
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """:func:`max_pool1d` returning (values, indices)."""
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """:func:`max_pool2d` returning (values, indices)."""
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """:func:`max_pool3d` returning (values, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def _adaptive_size(output_size, x, n):
    size = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
    if len(size) == 1 and n > 1:
        size = size * n
    if len(size) != n:
        raise ValueError(f"output_size must be an int or {n} ints (or None), got {output_size}")
    return tuple(x.shape[2 + i] if v is None else int(v) for i, v in enumerate(size))


def _adaptive_max(n, name, input, output_size, return_indices):
    x, undo = _batched(input, n, name)
    size = _adaptive_size(output_size, x, n)
    positions = [_adaptive_positions(length, o) for length, o in zip(x.shape[2:], size)]
    out, indices = _max_by_positions(x, positions, name)
    return (undo(out), undo(indices)) if return_indices else undo(out)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maximum over the bins that divide L into ``output_size``."""
    return _adaptive_max(1, "adaptive_max_pool1d", input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maximum over the bins that divide H and W into ``output_size`` (None keeps a size)."""
    return _adaptive_max(2, "adaptive_max_pool2d", input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Maximum over the bins that divide D, H and W into ``output_size``."""
    return _adaptive_max(3, "adaptive_max_pool3d", input, output_size, return_indices)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """:func:`adaptive_max_pool1d` returning (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """:func:`adaptive_max_pool2d` returning (values, indices)."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """:func:`adaptive_max_pool3d` returning (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)


def _fractional_starts(sample, length, out, k):
    """PyTorch's pseudo-random window starts for each plane: ``sample`` (N, C) in [0, 1)."""
    if out == 1:
        return np.full(sample.shape + (1,), length - k, np.int64)
    alpha = (length - k) / (out - 1)
    i = np.arange(out - 1)
    starts = ((i + sample[..., None]) * alpha).astype(np.int64) - \
        (sample[..., None] * alpha).astype(np.int64)
    last = np.full(sample.shape + (1,), length - k, np.int64)
    return np.concatenate([starts, last], axis=-1)


def _fractional(n, name, input, kernel_size, output_size, output_ratio, return_indices,
                _random_samples):
    x, undo = _batched(input, n, name)
    k = _tuple(kernel_size, n, "kernel_size")
    size = x.shape[2:]
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             f"output_ratio")
        ratio = (output_ratio,) * n if isinstance(output_ratio, (int, float)) else \
            tuple(output_ratio)
        out = tuple(int(length * r) for length, r in zip(size, ratio))
    else:
        out = _tuple(output_size, n, "output_size")
    for length, o, kk in zip(size, out, k):
        if o + kk - 1 > length:
            raise ShapeError(f"{name}: output_size {out} with kernel_size {k} is too large for "
                             f"the input size {list(size)}")
    b, c = x.shape[:2]
    if _random_samples is None:
        samples = rand([b, c, n], dtype=np.float64, place=x._place).cpu().numpy()
    else:
        samples = np.asarray(_random_samples.cpu().numpy() if isinstance(_random_samples, Tensor)
                             else _random_samples)
        if samples.ndim == 2:
            samples = samples[None]
        # as PyTorch: a batch of samples at least as long as the input's, whose first ones
        # are used (an unbatched input takes the first)
        if samples.ndim != 3 or samples.shape[0] < b or samples.shape[1:] != (c, n):
            raise ShapeError(f"{name}: _random_samples must have shape [N, {c}, {n}] with N at "
                             f"least the batch size {b}, got {list(samples.shape)}")
        samples = samples[:b]
    # PyTorch's sample order: (W, H) for 2-D, (T, H, W) for 3-D
    order = [1, 0] if n == 2 else list(range(n))
    positions = []
    for a in range(n):
        starts = _fractional_starts(samples[..., order[a]].astype(np.float64), size[a], out[a],
                                    k[a])
        positions.append(starts[..., None] + np.arange(k[a]))
    values, indices = _max_by_positions(x, positions, name)
    return (undo(values), undo(indices)) if return_indices else undo(values)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling over (N, C, H, W): ``kernel_size`` windows at pseudo-random
    starts (from mutograd's RNG, or ``_random_samples`` (N, C, 2) in [0, 1))."""
    return _fractional(2, "fractional_max_pool2d", input, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling over (N, C, D, H, W) (``_random_samples``: (N, C, 3))."""
    return _fractional(3, "fractional_max_pool3d", input, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    """:func:`fractional_max_pool2d` returning (values, indices)."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=True, _random_samples=None):
    """:func:`fractional_max_pool3d` returning (values, indices)."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True,
                                 _random_samples)


# ---- max unpooling -------------------------------------------------------------------------
def _max_unpool(n, name, input, indices, kernel_size, stride, padding, output_size):
    x, undo = _batched(input, n, name)
    idx = indices if indices.ndim == x.ndim else indices.unsqueeze(0)
    if list(idx.shape) != list(x.shape):
        raise ShapeError(f"{name}: indices of shape {list(indices.shape)} do not match the "
                         f"input's {list(input.shape)}")
    k = _tuple(kernel_size, n, "kernel_size")
    s = k if stride is None else _tuple(stride, n, "stride")
    p = _tuple(padding, n, "padding")
    default = tuple((i - 1) * si - 2 * pi + ki for i, si, pi, ki in zip(x.shape[2:], s, p, k))
    if output_size is None:
        size = default
    else:
        size = tuple(int(v) for v in output_size)[-n:]
        if len(size) != n:
            raise ShapeError(f"{name}: output_size must have {n} elements, got {output_size}")
        for v, dv, si in zip(size, default, s):
            if not dv - si < v < dv + si:
                raise ShapeError(f"{name}: invalid output_size {list(output_size)} (it must "
                                 f"be within a stride of {list(default)})")
    b, c = x.shape[:2]
    total = math.prod(size)
    flat = idx.reshape([b, c, math.prod(idx.shape[2:])])
    with no_grad():
        lo, hi = (flat.min().item(), flat.max().item()) if flat.numel() else (0, 0)
    if lo < 0 or hi >= total:
        raise IndexRangeError(f"{name}: found an index {hi if hi >= total else lo} out of bounds "
                         f"for an output of {total} positions per plane")
    return undo(call(OPS["max_unpool"], [x, idx], {"output_size": size}))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of :func:`max_pool1d`: each value at its index, zeros elsewhere."""
    return _max_unpool(1, "max_unpool1d", input, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of :func:`max_pool2d`: each value at its flat H*W index, zeros elsewhere."""
    return _max_unpool(2, "max_unpool2d", input, indices, kernel_size, stride, padding,
                       output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of :func:`max_pool3d`."""
    return _max_unpool(3, "max_unpool3d", input, indices, kernel_size, stride, padding,
                       output_size)


# ---- average pooling -----------------------------------------------------------------------
def _axis_sum_pool(x, axis, length, k, s, p, ceil_mode, count_include_pad):
    """Note [N-d windows from the 2-D ops]: window sums along ``axis``, and this axis's share of
    each window's count (broadcastable to the sums)."""
    out = _out_len(length, k, s, p, 1, ceil_mode)
    right = max(0, (out - 1) * s + k - length - p)
    if p or right:
        pads = [0, 0] * (x.ndim - 1 - axis) + [p, right]
        x = pad(x, tuple(pads))
    index = [slice(None)] * x.ndim
    total = None
    for i in range(k):
        index[axis] = slice(i, i + s * (out - 1) + 1, s)
        v = x[tuple(index)]
        total = v if total is None else total + v
    start = np.arange(out) * s - p
    end = np.minimum(start + k, length + p)       # the ceil_mode overhang is not counted
    if not count_include_pad:
        start, end = np.maximum(start, 0), np.minimum(end, length)
    shape = [1] * x.ndim
    shape[axis] = out
    return total, (end - start).reshape(shape)


def _avg_pool(n, name, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    x, undo = _batched(input, n, name)
    k, s, p, _ = _pool_args(n, kernel_size, stride, padding, 1, name)
    if x.dtype.np.kind == "b":
        raise DTypeError(f'"{name}" is not implemented for bool tensors (as in PyTorch)')
    if n == 2 and not ceil_mode:       # the fast 2-D op
        return undo(call(OPS["avg_pool2d"], [x], {
            "kernel_size": k, "stride": s, "padding": p, "count_include_pad": count_include_pad,
            "divisor_override": divisor_override}))
    if divisor_override is not None and divisor_override == 0:
        raise ValueError(f"{name}: divisor_override must be non-zero")
    dtype = x.dtype
    if not dtype.is_floating_point:      # integers: the sum's quotient truncated, as PyTorch's
        x = x.to(np.float64)
    count = 1
    for a in range(n):
        x, c = _axis_sum_pool(x, 2 + a, x.shape[2 + a], k[a], s[a], p[a], ceil_mode,
                              count_include_pad)
        count = count * c
    if divisor_override is not None:
        count = divisor_override
    x = x / _like_place(x, np.asarray(count, x.dtype.np))
    return undo(x if dtype.is_floating_point else x.trunc().to(dtype))


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over windows of (N, C, L) (zero padding counted unless ``count_include_pad=False``)."""
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over windows of (N, C, H, W); ``divisor_override`` replaces the window size."""
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over windows of (N, C, D, H, W)."""
    return _avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def adaptive_avg_pool1d(input, output_size):
    """Mean over the bins that divide L into ``output_size``: the 2-D op on a height-1 input."""
    x, undo = _batched(input, 1, "adaptive_avg_pool1d")
    size = _adaptive_size(output_size, x, 1)
    return undo(adaptive_avg_pool2d(x.unsqueeze(2), (1, size[0])).squeeze(2))


def adaptive_avg_pool3d(input, output_size):
    """Mean over the bins that divide D, H and W: the 2-D op over (H, W), then over D (bins
    are separable)."""
    x, undo = _batched(input, 3, "adaptive_avg_pool3d")
    od, oh, ow = _adaptive_size(output_size, x, 3)
    n, c, d, h, w = x.shape
    y = adaptive_avg_pool2d(x.reshape([n, c * d, h, w]), (oh, ow))
    y = adaptive_avg_pool2d(y.reshape([n, c, d, oh * ow]), (od, oh * ow))
    return undo(y.reshape([n, c, od, oh, ow]))


# ---- power-average pooling -----------------------------------------------------------------
def _lp_pool(n, name, input, norm_type, kernel_size, stride, ceil_mode):
    k = _tuple(kernel_size, n, "kernel_size")
    avg = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[n]
    out = avg(input.pow(norm_type), k, stride, 0, ceil_mode)
    # as PyTorch: the sign keeps negative sums of odd powers from a NaN root only where relu
    # zeroes them
    out = out.sign() * out.abs().relu()
    return (out * math.prod(k)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling: ``(sum over each window of x**p) ** (1/p)``."""
    return _lp_pool(1, "lp_pool1d", input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (N, C, H, W)."""
    return _lp_pool(2, "lp_pool2d", input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (N, C, D, H, W)."""
    return _lp_pool(3, "lp_pool3d", input, norm_type, kernel_size, stride, ceil_mode)


def adaptive_avg_pool2d(x, output_size):
    """Mean over the bins that divide H and W into ``output_size`` (None keeps a size)."""
    x, undo = _batched(x, 2, "adaptive_avg_pool2d")
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    size = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(output_size))
    return undo(call(OPS["adaptive_avg_pool2d"], [x], {"output_size": size}))
