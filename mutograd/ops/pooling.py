"""Pooling: ``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d`` and ``max_unpool``, each one
``defop`` declaration (forward + gradient) over the window geometry of convolution.py: a loop over
the few offsets of a kernel, each a vectorised operation on a strided view (Note
[Kernel-position scatter]). The public wrappers live in ``mutograd.nn.functional``.

    >>> import mutograd as mg
    >>> from mutograd.ops.registry import OPS, call
    >>> x = mg.arange(16.0).reshape(1, 1, 4, 4)
    >>> call(OPS["max_pool2d"], [x], {"kernel_size": (2, 2), "stride": (2, 2),
    ...                               "padding": (0, 0), "dilation": (1, 1)}).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
"""
import math

from .. import memory
from ..errors import DTypeError
from .convolution import _Geometry, _zeros_padded
from .registry import defop


def _lowest(xp, dtype):
    if dtype.kind == "b":
        raise DTypeError('"max_pool2d" is not implemented for bool tensors (as in PyTorch)')
    return -math.inf if dtype.kind == "f" else xp.iinfo(dtype).min


def _max_pool2d(xp, x, *, kernel_size, stride, padding, dilation, keep=None):
    """The maximum of each window by ``kh*kw`` element-wise maxima of strided views. For the
    backward it keeps the kernel offset of each window's maximum (one byte per output element
    instead of the input): the first maximum, or the last NaN, as PyTorch picks."""
    geo = _Geometry(x.shape, kernel_size, stride, padding, dilation)
    xpad = geo.pad(xp, x, _lowest(xp, x.dtype))
    out = memory.empty(xp, (geo.n, geo.c, geo.oh, geo.ow), x.dtype)
    arg = None if keep is None else xp.zeros(out.shape, xp.uint8)
    for k, _, idx in geo.offsets():
        v = xpad[idx]
        if k == 0:
            out[...] = v
            continue
        if arg is not None:     # offsets grow: the latest greater one wins, branch-free
            later = xp.greater(v, out).view(xp.uint8)
            later *= k
            xp.maximum(arg, later, out=arg)
        xp.maximum(v, out, out=out)     # on a tie (-0.0 and 0.0) the earlier value stays
    if arg is not None:
        if out.dtype.kind == "f" and xp.isnan(out).any():
            for k, _, idx in geo.offsets():
                xp.copyto(arg, k, where=xp.isnan(xpad[idx]))
        keep["argmax"] = arg
    return out


def _max_pool2d_grad(g, x_shape, argmax, kernel_size, stride, padding, dilation, xp):
    geo = _Geometry(x_shape, kernel_size, stride, padding, dilation)
    gpad = _zeros_padded(xp, geo, g.dtype)
    for k, _, idx in geo.offsets():
        hit = argmax == k
        if geo.disjoint:
            xp.multiply(g, hit, out=gpad[idx])
        else:
            gpad[idx] += g * hit
    return geo.crop(xp, gpad)


defop("max_pool2d", _max_pool2d, kind="other", inplace=False, method=False,
      grad=_max_pool2d_grad, keeps=("argmax",), kink=True)


def _avg_divisor(xp, geo, count_include_pad, divisor_override, dtype):
    """What each window's sum is divided by: a number, or one per output position."""
    if divisor_override:
        return divisor_override
    if count_include_pad or not (geo.ph or geo.pw):
        return geo.kh * geo.kw
    inside = xp.zeros((1, 1, geo.hp, geo.wp), dtype)
    inside[:, :, geo.ph:geo.ph + geo.h, geo.pw:geo.pw + geo.w] = 1
    count = xp.zeros((1, 1, geo.oh, geo.ow), dtype)
    for _, _, idx in geo.offsets():
        count += inside[idx]
    return count


def _avg_pool2d(xp, x, *, kernel_size, stride, padding, count_include_pad=True,
                divisor_override=None):
    geo = _Geometry(x.shape, kernel_size, stride, padding, (1, 1))
    xpad = geo.pad(xp, x)
    dtype = x.dtype if x.dtype.kind == "f" else xp.result_type(x.dtype, xp.float32)
    out = memory.zeros(xp, (geo.n, geo.c, geo.oh, geo.ow), dtype)
    for _, _, idx in geo.offsets():
        out += xpad[idx]
    out /= _avg_divisor(xp, geo, count_include_pad, divisor_override, dtype)
    return out.astype(x.dtype, copy=False)


def _avg_pool2d_grad(g, x_shape, kernel_size, stride, padding, count_include_pad,
                     divisor_override, xp):
    geo = _Geometry(x_shape, kernel_size, stride, padding, (1, 1))
    share = g / _avg_divisor(xp, geo, count_include_pad, divisor_override, g.dtype)
    gpad = _zeros_padded(xp, geo, share.dtype)
    for _, _, idx in geo.offsets():
        if geo.disjoint:
            gpad[idx] = share
        else:
            gpad[idx] += share
    return geo.crop(xp, gpad)


defop("avg_pool2d", _avg_pool2d, kind="other", inplace=False, method=False,
      grad=_avg_pool2d_grad)


def _bins(xp, n_in, n_out, dtype):
    """The (n_out, n_in) averaging matrix of adaptive pooling: bin i spans
    [floor(i*n_in/n_out), ceil((i+1)*n_in/n_out))."""
    m = xp.zeros((n_out, n_in), dtype)
    for i in range(n_out):      # a loop over output bins (a few), not over pixels
        lo, hi = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def _adaptive_avg_pool2d(xp, x, *, output_size):
    ah = _bins(xp, x.shape[-2], output_size[0], x.dtype)
    aw = _bins(xp, x.shape[-1], output_size[1], x.dtype)
    return xp.einsum("nchw,ph,qw->ncpq", x, ah, aw, optimize=True)


def _adaptive_avg_pool2d_grad(g, x_shape, output_size, xp):
    ah = _bins(xp, x_shape[-2], output_size[0], g.dtype)
    aw = _bins(xp, x_shape[-1], output_size[1], g.dtype)
    return xp.einsum("ncpq,ph,qw->nchw", g, ah, aw, optimize=True)


defop("adaptive_avg_pool2d", _adaptive_avg_pool2d, kind="other", inplace=False, method=False,
      grad=_adaptive_avg_pool2d_grad)


def _max_unpool(xp, x, indices, *, output_size):
    """Each value of (N, C, *S) at its flat position ``indices`` in an (N, C, *output_size) of
    zeros: the inverse of a max pooling that returned those indices. A position named twice
    (overlapping windows) gets one of its values, as in PyTorch, where they are equal."""
    n, c = x.shape[:2]
    out = xp.zeros((n, c, math.prod(output_size)), x.dtype)
    xp.put_along_axis(out, indices.reshape(n, c, -1), x.reshape(n, c, -1), axis=2)
    return out.reshape((n, c) + tuple(output_size))


def _max_unpool_grad(g, indices, xp):
    # every input element reads the gradient at its position, duplicates included (PyTorch's)
    n, c = indices.shape[:2]
    return xp.take_along_axis(g.reshape(n, c, -1), indices.reshape(n, c, -1),
                              axis=2).reshape(indices.shape)


defop("max_unpool", _max_unpool, kind="other", inplace=False, method=False,
      grad=(_max_unpool_grad, None))
