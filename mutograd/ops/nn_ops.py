"""Ops of neural-network layers: convolution, pooling, normalisation, embedding lookup.

Each is one ``defop`` declaration (forward + gradient), as in the other op modules. Windows are
strided views of the input (``sliding_window_view``): no Python loop runs over pixels; the only
loops run over the few positions of a kernel (to scatter a window gradient back) and over nothing
else. The public, PyTorch-shaped wrappers live in ``mutograd.nn.functional``.

Note [Kernel-position scatter]
    The gradient of a windowed op w.r.t. its input adds every window's gradient back into the
    (padded) input. Window element ``(i, j)`` of all windows at once is the strided slice
    ``[i*dh : i*dh + sh*(OH-1) + 1 : sh, j*dw : ... : sw]`` of the padded input, so a loop over
    the ``kh*kw`` kernel positions, each a vectorised ``+=`` on a strided view, does the scatter.
"""
import math

import numpy as np

from .. import memory
from ..errors import ShapeError
from .reduction import softmax_into
from .registry import defop


def _windows(xp, x, kernel, stride, padding, dilation, pad_value=0.0):
    """``x`` (N, C, H, W) as windows (N, C, OH, OW, kh, kw): a strided view when unpadded."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    if ph or pw:
        x = xp.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=pad_value)
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1
    if x.shape[2] < eh or x.shape[3] < ew:
        raise ShapeError(f"the (padded) input of spatial size {list(x.shape[2:])} is smaller "
                         f"than the (dilated) kernel size {[eh, ew]}")
    win = xp.lib.stride_tricks.sliding_window_view(x, (eh, ew), axis=(2, 3))
    return win[:, :, ::sh, ::sw, ::dh, ::dw]


def _scatter(xp, gwin, x_shape, kernel, stride, padding, dilation):
    """The input gradient from window gradients (N, C, OH, OW, kh, kw); Note [Kernel-position
    scatter]."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    n, c, h, w = x_shape
    oh, ow = gwin.shape[2:4]
    gx = xp.zeros((n, c, h + 2 * ph, w + 2 * pw), gwin.dtype)
    for i in range(kh):
        for j in range(kw):
            gx[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
               j * dw:j * dw + sw * (ow - 1) + 1:sw] += gwin[:, :, :, :, i, j]
    return gx[:, :, ph:ph + h, pw:pw + w]


# ---- padding -------------------------------------------------------------------------------
def _pad_source(n, left, right, mode):
    """For each position along a padded axis, the source position it copies (constant mode:
    -1 where the value is written instead)."""
    src = np.arange(-left, n + right)
    if mode == "constant":
        return np.where((src >= 0) & (src < n), src, -1)
    if mode == "replicate":
        return np.clip(src, 0, n - 1)
    if mode == "circular":
        return src % n
    period = 2 * (n - 1)                                 # reflect, the edge not repeated
    r = np.abs(src) % period if period else np.zeros_like(src)
    return np.where(r < n, r, period - r)


def _pad(xp, x, *, pads, mode, value):
    """``pads``: one (left, right) per axis from the first; negative pads crop."""
    out = x
    for a, (left, right) in enumerate(pads):
        if left or right:
            src = _pad_source(x.shape[a], left, right, mode)
            idx = xp.asarray(np.maximum(src, 0))
            out = xp.take(out, idx, axis=a)
            if mode == "constant" and (src < 0).any():
                sel = [slice(None)] * out.ndim
                sel[a] = xp.asarray(src < 0)
                out[tuple(sel)] = value
    return out.copy() if out is x else out   # never the input's own memory


def _pad_grad(g, x_shape, pads, mode, xp):
    # each axis at a time: the gradient of a source position sums those of its copies
    for a, (left, right) in enumerate(pads):
        if left or right:
            src = _pad_source(x_shape[a], left, right, mode)
            m = np.zeros((x_shape[a], src.size), g.dtype)
            keep = src >= 0
            m[src[keep], np.flatnonzero(keep)] = 1
            g = xp.moveaxis(xp.tensordot(g, xp.asarray(m.T), axes=([a], [0])), -1, a)
    return g


defop("pad", _pad, kind="other", inplace=False, method=False, grad=_pad_grad)


# ---- convolution ---------------------------------------------------------------------------
def _conv2d(xp, x, weight, *, stride, padding, dilation, groups):
    n, c = x.shape[:2]
    o, cg, kh, kw = weight.shape
    if c != cg * groups:
        raise ShapeError(f"conv2d: expected input with {cg * groups} channels (weight "
                         f"{list(weight.shape)}, groups={groups}), got {c} channels")
    win = _windows(xp, x, (kh, kw), stride, padding, dilation)
    oh, ow = win.shape[2:4]
    win = win.reshape(n, groups, cg, oh, ow, kh, kw)
    w = weight.reshape(groups, o // groups, cg, kh, kw)
    out = xp.einsum("ngchwij,gocij->ngohw", win, w, optimize=True)
    return out.reshape(n, o, oh, ow)


def _conv2d_grad_x(g, x_shape, weight, stride, padding, dilation, groups, xp):
    n, c = x_shape[:2]
    o, cg, kh, kw = weight.shape
    oh, ow = g.shape[2:]
    gg = g.reshape(n, groups, o // groups, oh, ow)
    w = weight.reshape(groups, o // groups, cg, kh, kw)
    gwin = xp.einsum("ngohw,gocij->ngchwij", gg, w, optimize=True).reshape(n, c, oh, ow, kh, kw)
    return _scatter(xp, gwin, x_shape, (kh, kw), stride, padding, dilation)


def _conv2d_grad_w(g, x, weight_shape, stride, padding, dilation, groups, xp):
    n = x.shape[0]
    o, cg, kh, kw = weight_shape
    win = _windows(xp, x, (kh, kw), stride, padding, dilation)
    oh, ow = win.shape[2:4]
    win = win.reshape(n, groups, cg, oh, ow, kh, kw)
    gg = g.reshape(n, groups, o // groups, oh, ow)
    return xp.einsum("ngchwij,ngohw->gocij", win, gg, optimize=True).reshape(weight_shape)


defop("conv2d", _conv2d, kind="other", inplace=False, method=False,
      grad=(_conv2d_grad_x, _conv2d_grad_w))


def _conv_transpose2d(xp, x, weight, *, stride, padding, output_padding, dilation, groups):
    """The transposed convolution: the input gradient of a convolution whose output is ``x``,
    for an input (N, out, H, W) that ``output_padding`` lengthens past what ``stride`` fixes."""
    n, cin, h, w = x.shape
    if cin != weight.shape[0]:
        raise ShapeError(f"conv_transpose2d: expected input with {weight.shape[0]} channels "
                         f"(weight {list(weight.shape)}), got {cin} channels")
    _, cout_g, kh, kw = weight.shape
    size = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
            zip((h, w), stride, padding, dilation, (kh, kw), output_padding)]
    return _conv2d_grad_x(x, (n, cout_g * groups, *size), weight, stride, padding, dilation,
                          groups, xp)


defop("conv_transpose2d", _conv_transpose2d, kind="other", inplace=False, method=False,
      grad=(lambda g, weight, stride, padding, dilation, groups, xp: _conv2d(
          xp, g, weight, stride=stride, padding=padding, dilation=dilation, groups=groups),
            lambda g, x, weight_shape, stride, padding, dilation, groups, xp: _conv2d_grad_w(
          x, g, weight_shape, stride, padding, dilation, groups, xp)))


# ---- pooling -------------------------------------------------------------------------------
def _max_pool2d(xp, x, *, kernel_size, stride, padding, dilation):
    return _windows(xp, x, kernel_size, stride, padding, dilation, -math.inf).max(axis=(-2, -1))


def _max_pool2d_grad(g, x, kernel_size, stride, padding, dilation, xp):
    # all of a window's gradient goes to its first maximum (the element PyTorch picks)
    win = _windows(xp, x, kernel_size, stride, padding, dilation, -math.inf)
    kh, kw = kernel_size
    arg = win.reshape(win.shape[:4] + (kh * kw,)).argmax(axis=-1)
    gwin = xp.zeros(win.shape, g.dtype)
    for k in range(kh * kw):
        gwin[..., k // kw, k % kw] = xp.where(arg == k, g, 0)
    return _scatter(xp, gwin, x.shape, kernel_size, stride, padding, dilation)


defop("max_pool2d", _max_pool2d, kind="other", inplace=False, method=False,
      grad=_max_pool2d_grad)


def _avg_divisor(xp, x_shape, kernel_size, stride, padding, count_include_pad, divisor_override,
                 dtype):
    if divisor_override:
        return divisor_override
    if count_include_pad or not any(padding):
        return kernel_size[0] * kernel_size[1]
    ones = xp.ones((1, 1) + tuple(x_shape[2:]), dtype)
    return _windows(xp, ones, kernel_size, stride, padding, (1, 1)).sum(axis=(-2, -1))


def _avg_pool2d(xp, x, *, kernel_size, stride, padding, count_include_pad=True,
                divisor_override=None):
    win = _windows(xp, x, kernel_size, stride, padding, (1, 1))
    div = _avg_divisor(xp, x.shape, kernel_size, stride, padding, count_include_pad,
                       divisor_override, x.dtype)
    return (win.sum(axis=(-2, -1)) / div).astype(x.dtype, copy=False)


def _avg_pool2d_grad(g, x_shape, kernel_size, stride, padding, count_include_pad,
                     divisor_override, xp):
    div = _avg_divisor(xp, x_shape, kernel_size, stride, padding, count_include_pad,
                       divisor_override, g.dtype)
    share = g / div
    gwin = xp.broadcast_to(share[..., None, None], share.shape + tuple(kernel_size))
    return _scatter(xp, gwin, x_shape, kernel_size, stride, padding, (1, 1))


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


# ---- normalisation -------------------------------------------------------------------------
def _normalize(xp, x, *, axis, eps, keep=None):
    """``(x - mean) / sqrt(var + eps)`` over ``axis`` (biased variance), batch/layer norm's core;
    keeps the mean and the inverse deviation for backward (Note [Values kept from the forward])."""
    mean = x.mean(axis=axis, keepdims=True)
    out = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    var = xp.square(out, out=memory.empty_like(xp, out)).mean(axis=axis, keepdims=True)
    var += eps
    inv = xp.sqrt(var, out=var)
    xp.divide(1, inv, out=inv)
    out *= inv
    if keep is not None:
        keep["mean"], keep["inv"] = mean, inv
    return out


def _normalize_grad(g, x, mean, inv, axis, xp):
    xhat = xp.subtract(x, mean, out=memory.empty_like(xp, x, mean.dtype))
    xhat *= inv
    r = xp.subtract(g, g.mean(axis=axis, keepdims=True), out=memory.empty_like(xp, g))
    xhat *= xp.multiply(g, xhat, out=memory.empty_like(xp, g)).mean(axis=axis, keepdims=True)
    r -= xhat
    r *= inv
    return r


defop("normalize", _normalize, kind="other", inplace=False, method=False, grad=_normalize_grad,
      keeps=("mean", "inv"))


def _rows(x, axis):
    """``x`` as a (rows, D) matrix over its trailing ``axis`` (layer norm's), and D."""
    d = 1
    for a in axis:
        d *= x.shape[a]
    return x.reshape(-1, d), d


def _layer_norm(xp, x, weight, bias, *, axis, eps, keep=None):
    """Layer norm as row operations on (rows, D): row sums by einsum (no temporaries), then
    scale and shift by ``weight`` and ``bias`` (or None). Keeps the normalised rows and each
    row's inverse deviation instead of saving ``x`` (Note [Values kept from the forward]): the
    same memory, and the backward needs no recomputation."""
    x2, d = _rows(x, axis)
    acc = xp.result_type(x.dtype, xp.float32)   # statistics of float16 rows in float32
    dtype = x.dtype if x.dtype.kind == "f" else acc
    xhat = memory.empty(xp, x.shape, dtype)
    h2 = xhat.reshape(x2.shape)
    mean = xp.einsum("ij->i", x2, dtype=acc)[:, None]
    mean /= d
    xp.subtract(x2, mean, out=h2)
    inv = xp.einsum("ij,ij->i", h2, h2, dtype=acc)[:, None]
    inv /= d
    inv += eps
    xp.sqrt(inv, out=inv)
    xp.divide(1, inv, out=inv)
    h2 *= inv
    if keep is not None:
        keep["xhat"], keep["inv"] = xhat, inv
    if weight is not None:
        out = xp.multiply(xhat, weight, out=memory.empty(xp, x.shape, dtype))
    elif bias is not None or keep is not None:
        out = xhat.copy()       # the result is the caller's to write; the kept rows are not
    else:
        return xhat
    if bias is not None:
        out += bias
    return out


def _layer_norm_grad_x(g, weight, xhat, inv, axis, xp):
    # dx = inv * (gw - mean(gw) - xhat * mean(gw * xhat)) over each row, gw = g * weight
    if weight is not None:
        g = xp.multiply(g, weight, out=memory.empty_like(xp, g))
    g2, d = _rows(g, axis)
    h2 = _rows(xhat, axis)[0]
    a = xp.einsum("ij->i", g2)[:, None]
    a /= d
    b = xp.einsum("ij,ij->i", g2, h2)[:, None]
    b /= d
    r = memory.empty(xp, xhat.shape, xhat.dtype)
    r2 = r.reshape(h2.shape)
    xp.multiply(h2, b, out=r2)
    xp.subtract(g2, r2, out=r2)
    r2 -= a
    r2 *= inv
    return r


def _layer_norm_grad_weight(g, xhat, axis, weight_shape, xp):
    return xp.einsum("ij,ij->j", _rows(g, axis)[0], _rows(xhat, axis)[0]).reshape(weight_shape)


defop("layer_norm", _layer_norm, kind="other", inplace=False, method=False,
      grad=(_layer_norm_grad_x, _layer_norm_grad_weight, lambda g: g), keeps=("xhat", "inv"))


# ---- attention -----------------------------------------------------------------------------
def _attention_softmax(xp, scores, bias, *, scale):
    """``softmax(scores * scale + bias)`` over the last axis: attention weights from raw scores in
    one buffer; ``bias`` is an additive mask (0 or -inf from a boolean mask) or a scalar. The
    bounds of the scores, shifted by the mask's, let softmax skip the max over each row (Note
    [Softmax shift])."""
    w = xp.multiply(scores, scale, out=memory.empty_like(xp, scores, xp.result_type(scores,
                                                                                     scale)))
    bounds = (w.min(), w.max()) if w.size else None
    if getattr(bias, "ndim", 0):
        finite = bias[xp.isfinite(bias)]
        bounds = (bounds[0] + finite.min(), bounds[1] + bias.max()) if finite.size and \
            bounds else None
        if np.broadcast_shapes(w.shape, bias.shape) == w.shape:
            w += bias
        else:            # a mask with more leading dimensions than the scores
            w = w + bias
    elif bias:
        w += bias
        bounds = (bounds[0] + bias, bounds[1] + bias) if bounds else None
    return softmax_into(xp, w, -1, w, bounds)


def _softmax_grad(g, out, xp, into=None):
    """The gradient of softmax's input over the last axis: ``out * (g - sum(g * out))``."""
    s = xp.einsum("...i,...i->...", g, out)[..., None]
    r = xp.subtract(g, s, out=memory.empty_like(xp, g) if into is None else into)
    r *= out
    return r


def _attention_softmax_grad(g, out, scale, into, xp):
    r = _softmax_grad(g, out, xp, into)
    r *= scale
    return r


defop("attention_softmax", _attention_softmax, kind="other", inplace=False, method=False,
      grad=(_attention_softmax_grad, lambda g, out, xp: _softmax_grad(g, out, xp)))


# ---- embedding -----------------------------------------------------------------------------
def _embedding(xp, weight, indices, *, padding_idx=None):
    return xp.take(weight, indices, axis=0)


def _embedding_grad(g, weight_shape, indices, padding_idx, xp):
    if xp is np:
        z = _sum_rows_at(g.reshape(-1, *weight_shape[1:]), indices.reshape(-1), weight_shape)
    else:
        z = xp.zeros(weight_shape, g.dtype)
        xp.add.at(z, indices, g)      # repeated indices accumulate
    if padding_idx is not None:
        z[padding_idx] = 0
    return z


def _sum_rows_at(rows, index, shape):
    """``z[index[i]] += rows[i]`` into zeros of ``shape``: the rows sorted by index and summed
    per run with ``add.reduceat``, about 5x faster than ``np.add.at``."""
    z = np.zeros(shape, rows.dtype)
    if index.size == 0:
        return z
    order = np.argsort(index, kind="stable")
    sorted_index = index[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    z[sorted_index[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return z


defop("embedding", _embedding, kind="other", inplace=False, method=False,
      grad=(_embedding_grad, None))
