"""PyTorch's ``mode``, ``nanmedian``, ``nanquantile``, ``gradient`` (finite differences),
``histogramdd``, ``nonzero_static`` and ``as_strided_scatter``. Which element answers is chosen
on the host; the values are then picked from the tensor with differentiable ops
(``take_along_dim``, slicing), so they carry gradients as PyTorch's do.

    >>> import mutograd.compat.torch as torch
    >>> torch.mode(torch.tensor([1., 3., 3., 2.])).values.item()
    3.0
    >>> torch.nanmedian(torch.tensor([1., float('nan'), 3., 2.])).item()
    2.0
    >>> torch.gradient(torch.tensor([1., 2., 4., 7.]))[0].tolist()
    [1.0, 1.5, 2.5, 3.0]
"""
import builtins
import collections

import numpy as np

import mutograd as _mg

from ...tensor import Tensor as _Tensor
from ...tensor import _wrap

_ValuesIndices = collections.namedtuple("values_indices", ["values", "indices"])
_HistDD = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _pick(input, idx, dim, keepdim):
    """Values of ``input`` at the (keepdim) indices ``idx`` along ``dim``, and the indices."""
    i = _wrap(idx.astype(np.int64), input)
    values = _mg.take_along_dim(input, i, dim)
    if not keepdim:
        values, i = values.squeeze(dim), i.squeeze(dim)
    return _ValuesIndices(values, i)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones) and the
    index of its last occurrence."""
    if input.ndim == 0:
        return _ValuesIndices(input * 1, _wrap(np.zeros((), np.int64), input))
    dim = dim % input.ndim
    a = np.moveaxis(input.detach().numpy(), dim, -1)
    rows = a.reshape(-1, a.shape[-1])
    idx = np.empty(len(rows), np.int64)
    for r, row in enumerate(rows):
        vals, counts = np.unique(row, return_counts=True)
        best = vals[np.argmax(counts)]         # unique sorts: the first maximum is the smallest
        idx[r] = len(row) - 1 - np.flatnonzero(row[::-1] == best)[0]
    idx = np.moveaxis(idx.reshape(a.shape[:-1] + (1,)), -1, dim)
    return _pick(input, idx, dim, keepdim)


def nanmedian(input, dim=None, keepdim=False):
    """The lower median of the values that are not NaN (NaN when all are): over everything (a
    value), or along ``dim`` (values and indices)."""
    if dim is None:
        return nanmedian(input.reshape(-1), 0).values
    if input.ndim == 0:
        return _ValuesIndices(input * 1, _wrap(np.zeros((), np.int64), input))
    dim = dim % input.ndim
    a = input.detach().numpy()
    order = np.argsort(a, axis=dim, kind="stable")            # NaNs sort last
    count = (~np.isnan(a)).sum(axis=dim, keepdims=True)
    pos = np.maximum(count - 1, 0) // 2
    return _pick(input, np.take_along_axis(order, pos, dim), dim, keepdim)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` of the values that are not NaN (NaN where all are)."""
    if not any(np.isnan(input.detach().numpy()).ravel()):
        return _mg.quantile(input, q, dim, keepdim, interpolation)
    qs = np.atleast_1d(q.detach().numpy() if isinstance(q, _Tensor) else np.asarray(q))
    scalar = np.ndim(q.detach().numpy() if isinstance(q, _Tensor) else q) == 0
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else dim % input.ndim
    sorted_ = _mg.sort(x, d)[0]
    count = (~np.isnan(x.detach().numpy())).sum(axis=d, keepdims=True)
    outs = []
    for qv in qs.astype(np.float64):
        pos = qv * (count - 1)
        lo, hi = np.floor(pos), np.ceil(pos)
        if interpolation == "lower":
            hi = lo
        elif interpolation == "higher":
            lo = hi
        elif interpolation == "nearest":
            lo = hi = np.round(pos)
        elif interpolation != "linear" and interpolation != "midpoint":
            raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, "
                             f"midpoint, nearest, got '{interpolation}'")
        frac = np.where(hi > lo, 0.5, 0.0) if interpolation == "midpoint" else pos - lo
        a = _mg.take_along_dim(sorted_, _wrap(np.maximum(lo, 0).astype(np.int64), x), d)
        b = _mg.take_along_dim(sorted_, _wrap(np.maximum(hi, 0).astype(np.int64), x), d)
        nan_rows = _wrap(np.where(count == 0, np.nan, 0.0).astype(x.dtype.np), x)
        v = a + (b - a) * _wrap(frac.astype(x.dtype.np), x) + nan_rows
        if dim is None:
            v = v.reshape([1] * input.ndim if keepdim else [])
        elif not keepdim:
            v = v.squeeze(d)
        outs.append(v)
    return outs[0] if scalar else _mg.stack(outs, 0)


def _coefficients(coords, edge_order):
    """numpy.gradient's weights of the values ``f[i-1], f[i], f[i+1]`` inside, and of the first
    and last two or three values at the edges, for points at ``coords``."""
    dx = np.diff(coords)
    d1, d2 = dx[:-1], dx[1:]
    inner = (-d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2)))
    if edge_order == 1:
        return inner, (-1 / dx[0], 1 / dx[0]), (-1 / dx[-1], 1 / dx[-1])
    a, b = dx[0], dx[1]
    first = (-(2 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b)))
    a, b = dx[-2], dx[-1]
    last = (b / (a * (a + b)), -(a + b) / (a * b), (2 * b + a) / (b * (a + b)))
    return inner, first, last


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of ``input`` sampled on a grid, along each of ``dim`` (all dimensions by
    default): central differences inside, one-sided ones of ``edge_order`` at the ends.
    ``spacing`` is the step (a number, one per dimension) or the coordinates (1-D tensors)."""
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(spacings) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length {len(dims)}, got a list of length {len(spacings)}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    out = []
    for d, h in zip(dims, spacings):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(f"torch.gradient expected each dimension size to be at least "
                               f"edge_order+1, got {n} along dim {d}")
        coords = (h.detach().numpy().astype(np.float64) if isinstance(h, _Tensor)
                  else np.arange(n) * float(h))
        inner, first, last = _coefficients(coords, edge_order)
        f = input.movedim(d, 0)
        col = [-1] + [1] * (f.ndim - 1)
        dt = f.dtype.np if f.dtype.is_floating_point else _mg.get_default_dtype().np

        def w(c):
            return _wrap(np.asarray(c, dt).reshape(col), f)
        k = len(first)
        mid = w(inner[0]) * f[:-2] + w(inner[1]) * f[1:-1] + w(inner[2]) * f[2:]
        head = sum(float(c) * f[i:i + 1] for i, c in enumerate(first))
        tail = sum(float(c) * f[n - k + i:n - k + i + 1] for i, c in enumerate(last))
        out.append(_mg.cat([head, mid, tail], 0).movedim(0, d))
    return tuple(out)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The ``D``-dimensional histogram of the points in the rows of ``input`` (``..., D``):
    ``bins`` a count for all dimensions, one per dimension, or each dimension's edges."""
    pts = input.detach().numpy().reshape(-1, input.shape[-1])
    d = pts.shape[1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], _Tensor):
        b = [e.detach().numpy() for e in bins]
    else:
        b = bins
    rng = None if range is None else [tuple(range[2 * i:2 * i + 2]) for i in builtins.range(d)]
    w = None if weight is None else weight.detach().numpy().reshape(-1)
    hist, edges = np.histogramdd(pts, b, range=rng, weights=w, density=density)
    dt = input.dtype.np
    return _HistDD(_wrap(hist.astype(dt), input), tuple(_wrap(e.astype(dt), input) for e in edges))


def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the non-zero elements (as ``nonzero``), exactly ``size`` rows: cut short,
    or filled with ``fill_value``."""
    idx = np.argwhere(input.detach().numpy())[:size]
    out = np.full((size, input.ndim), fill_value, np.int64)
    out[:len(idx)] = idx
    return _wrap(out, input)


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its ``as_strided(size, stride,
    storage_offset)`` view; gradients flow to both."""
    out = input.clone()
    out.as_strided(size, stride, storage_offset or 0).copy_(src)
    return out


NAMES = ["mode", "nanmedian", "nanquantile", "gradient", "histogramdd", "nonzero_static",
         "as_strided_scatter"]
