"""Resizing: ``interpolate`` (nearest, linear, bilinear, trilinear, area) and its ``upsample``
spellings, each a gather or a weighted sum along one axis at a time.

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.interpolate(mg.ones([1, 1, 2, 2]), scale_factor=2).shape
    [1, 1, 4, 4]
"""
import math

import numpy as np

from ...errors import ShapeError
from ...ops import OPS, call
from ...tensor import _wrap

_INTERP_MODES = ("nearest", "nearest-exact", "linear", "bilinear", "trilinear", "area")


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dimensions of (N, C, ...) to ``size`` or by ``scale_factor``:
    'nearest' (and 'nearest-exact'), 'linear'/'bilinear'/'trilinear' (one axis after another,
    ``align_corners`` as PyTorch), or 'area' (averages over the covered input cells). Each
    result is made of index selections, weights and sums, so it has their gradients."""
    if mode not in _INTERP_MODES:
        raise ValueError(f"interpolate: mode must be one of {', '.join(_INTERP_MODES)}, got "
                         f"{mode!r}")
    if antialias:
        raise ValueError("interpolate: antialias=True is not supported")
    spatial = x.ndim - 2
    if spatial < 1:
        raise ShapeError(f"interpolate: expected (N, C, ...) input, got shape {list(x.shape)}")
    want = {"linear": 1, "bilinear": 2, "trilinear": 3}.get(mode)
    if want is not None and spatial != want:
        raise ValueError(f"interpolate: mode {mode!r} needs {want} spatial dimension(s), got "
                         f"input of shape {list(x.shape)}")
    if align_corners is not None and want is None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    in_sizes = list(x.shape[2:])
    if size is not None:
        sizes = [size] * spatial if isinstance(size, int) else list(size)
        scales = [i / o for i, o in zip(in_sizes, sizes)]
    else:
        factors = [scale_factor] * spatial if isinstance(scale_factor, (int, float)) else list(
            scale_factor)
        sizes = [int(math.floor(i * f)) for i, f in zip(in_sizes, factors)]
        scales = ([i / o for i, o in zip(in_sizes, sizes)] if recompute_scale_factor
                  else [1.0 / f for f in factors])
    if len(sizes) != spatial:
        raise ValueError(f"interpolate: expected {spatial} sizes, got {sizes}")
    for a, (n_in, n_out, scale) in enumerate(zip(in_sizes, sizes, scales)):
        axis = a + 2
        if mode == "area":
            x = _area_axis(x, axis, n_in, n_out)
        elif want is None:
            x = _pick_rows(x, axis, _nearest_index(n_in, n_out, scale, mode == "nearest-exact"))
        else:
            x = _linear_axis(x, axis, n_in, n_out, scale, bool(align_corners))
    return x


def _pick_rows(x, axis, idx):
    return call(OPS["index_select"], [x, _wrap(idx.astype(np.int64))], {"axis": axis})


def _nearest_index(n_in, n_out, scale, exact):
    dst = np.arange(n_out, dtype=np.float64)
    src = np.floor((dst + 0.5) * scale) if exact else np.floor(dst * scale)
    return np.minimum(src, n_in - 1)


def _linear_axis(x, axis, n_in, n_out, scale, align_corners):
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = dst * ((n_in - 1) / (n_out - 1)) if n_out > 1 else dst * 0
    else:
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
    lo = np.minimum(np.floor(src), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    w = (src - lo).astype(x.dtype.np)
    shape = [1] * x.ndim
    shape[axis] = n_out
    w = _wrap(w.reshape(shape))
    a, b = _pick_rows(x, axis, lo), _pick_rows(x, axis, hi)
    return a + (b - a) * w


def _area_axis(x, axis, n_in, n_out):
    """Each output cell the mean of input cells ``floor(i * n_in / n_out)`` to
    ``ceil((i + 1) * n_in / n_out)`` (adaptive average pooling), as one matrix product."""
    m = np.zeros((n_in, n_out), x.dtype.np)
    for i in range(n_out):
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[lo:hi, i] = 1.0 / (hi - lo)
    moved = x.movedim(axis, -1)
    return (moved @ _wrap(m)).movedim(-1, axis)


# ---- upsampling --------------------------------------------------------------------------
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """The old name of ``interpolate``."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate`` with mode 'nearest'."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate`` with mode 'bilinear' and ``align_corners=True``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
