"""Ops of neural-network layers: convolution, pooling, normalisation, embedding lookup.

Each is one ``defop`` declaration (forward + gradient), as in the other op modules. No Python loop
runs over pixels or windows: the only loops run over the few offsets of a kernel and over blocks
of the batch. The public, PyTorch-shaped wrappers live in ``mutograd.nn.functional``.

Note [Convolution as im2col + matrix products]
    A convolution is a matrix product once each window is a column: for a block of images, the
    columns ``cols[n, c, i, j, oh, ow] = xpad[n, c, oh*sh + i*dh, ow*sw + j*dw]`` are copied
    into one contiguous buffer (``kh*kw`` strided copies, one per kernel offset), and then

        out[n]    = W        (O x C*kh*kw)  @ cols[n] (C*kh*kw x OH*OW)      forward
        gW       += g[n]     (O x OH*OW)    @ cols[n].T                      weight gradient
        gcols[n]  = W.T      (C*kh*kw x O)  @ g[n]    (O x OH*OW)            input gradient

    each a batched BLAS product over the images of the block (with a group axis for grouped
    convolutions). The input gradient then adds the columns back into the padded input, one
    vectorised ``+=`` per kernel offset (Note [Kernel-position scatter]). With stride 1 and a
    finite kernel it is instead computed as what it equals, the convolution of the output
    gradient with the flipped kernel (input and output channels swapped) and padding
    ``d*(k-1) - p``: its im2col copies cost less than those adds, which run over rows only OW
    long. (An infinite weight times that padding would give NaN where no product reaches.)

    The batch goes through in blocks whose columns take about ``_BLOCK_BYTES``: the buffer
    stays in cache and the memory a convolution needs beyond its input and output is bounded
    (PyTorch's im2col path keeps the columns of the whole batch). When the whole batch was one
    block, the forward keeps its columns for the weight gradient (at most ``_BLOCK_BYTES``);
    otherwise the weight gradient copies them again from the saved input.

Note [Kernel-position scatter]
    The gradient of a windowed op w.r.t. its input adds every window's gradient back into the
    (padded) input. Window element ``(i, j)`` of all windows at once is the strided slice
    ``[i*dh : i*dh + sh*(OH-1) + 1 : sh, j*dw : ... : sw]`` of the padded input, so a loop over
    the ``kh*kw`` kernel positions, each a vectorised ``+=`` on a strided view, does the scatter.
    When windows do not overlap (stride at least the dilated kernel), the slices are disjoint
    and each is written once instead of added to.
"""
import math

import numpy as np

from .. import memory
from ..errors import DTypeError, ShapeError
from .reduction import softmax_into
from .registry import defop

# bytes of im2col columns per block of the batch (Note [Convolution as im2col + matrix products])
_BLOCK_BYTES = 1 << 21


class _Geometry:
    """Sizes of a windowed op over (N, C, H, W): kernel, stride, padding, dilation, the padded
    input and the output."""

    def __init__(self, x_shape, kernel, stride, padding, dilation):
        (self.kh, self.kw), (self.sh, self.sw) = kernel, stride
        (self.ph, self.pw), (self.dh, self.dw) = padding, dilation
        self.n, self.c, self.h, self.w = x_shape
        self.hp, self.wp = self.h + 2 * self.ph, self.w + 2 * self.pw
        eh, ew = self.dh * (self.kh - 1) + 1, self.dw * (self.kw - 1) + 1
        if self.hp < eh or self.wp < ew:
            raise ShapeError(f"the (padded) input of spatial size {[self.hp, self.wp]} is "
                             f"smaller than the (dilated) kernel size {[eh, ew]}")
        self.oh, self.ow = (self.hp - eh) // self.sh + 1, (self.wp - ew) // self.sw + 1
        self.disjoint = self.sh >= eh and self.sw >= ew    # no two windows share an element
        self._offsets = None

    def offsets(self):
        """``(k, (i, j), index)`` for each kernel offset: ``index`` selects window element
        ``(i, j)`` of every window in the padded input (Note [Kernel-position scatter])."""
        oh, ow, sh, sw = self.oh, self.ow, self.sh, self.sw
        key = (oh, ow)
        if self._offsets is None or self._offsets[0] != key:   # (oh, ow may be set later)
            rows = [slice(i * self.dh, i * self.dh + sh * (oh - 1) + 1, sh)
                    for i in range(self.kh)]
            cols = [slice(j * self.dw, j * self.dw + sw * (ow - 1) + 1, sw)
                    for j in range(self.kw)]
            self._offsets = key, [(i * self.kw + j, (i, j), (slice(None), slice(None), r, c))
                                  for i, r in enumerate(rows) for j, c in enumerate(cols)]
        return self._offsets[1]

    def pad(self, xp, x, value=0):
        """``x`` with ``value`` around it (``x`` itself when there is no padding)."""
        ph, pw = self.ph, self.pw
        if not (ph or pw):
            return x
        r = memory.empty(xp, x.shape[:2] + (self.hp, self.wp), x.dtype)
        r.fill(value)     # (two calls: cheaper than filling the four borders for small images)
        r[:, :, ph:ph + self.h, pw:pw + self.w] = x
        return r

    def crop(self, xp, gpad):
        """The input's part of a gradient of the padded input, as a new C-ordered array."""
        if not (self.ph or self.pw):
            return gpad
        r = memory.empty(xp, (gpad.shape[0], self.c, self.h, self.w), gpad.dtype)
        r[...] = gpad[:, :, self.ph:self.ph + self.h, self.pw:self.pw + self.w]
        return r

    def blocks(self, per_item):
        """Slices of the batch whose buffers of ``per_item`` bytes per image take about
        ``_BLOCK_BYTES`` together."""
        n = self.n
        k = min(n, max(1, -(-n * per_item // _BLOCK_BYTES)))
        b = -(-n // k) if n else 0
        return [slice(i, min(i + b, n)) for i in range(0, n, b or 1)], b

    def im2col(self, xpad, cols):
        """Copy the windows of ``xpad`` (b, C, Hp, Wp) into ``cols`` (b, C, kh, kw, OH, OW)."""
        for _, (i, j), idx in self.offsets():
            cols[:, :, i, j] = xpad[idx]

    def col2im(self, cols, gpad):
        """Add the columns ``cols`` (b, C, kh, kw, OH, OW) back into ``gpad`` (b, C, Hp, Wp),
        which holds zeros (Note [Kernel-position scatter])."""
        for _, (i, j), idx in self.offsets():
            if self.disjoint:
                gpad[idx] = cols[:, :, i, j]
            else:
                gpad[idx] += cols[:, :, i, j]


def _zeros_padded(xp, geo, dtype):
    """A zero gradient of the padded input (``empty`` when disjoint windows cover all of it)."""
    shape = (geo.n, geo.c, geo.hp, geo.wp)
    covered = (geo.disjoint and geo.sh == geo.kh and geo.sw == geo.kw and geo.dh == geo.dw == 1
               and geo.oh * geo.sh == geo.hp and geo.ow * geo.sw == geo.wp)
    return memory.empty(xp, shape, dtype) if covered else memory.zeros(xp, shape, dtype)


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
def _conv_setup(x_shape, weight_shape, stride, padding, dilation, groups):
    o, cg, kh, kw = weight_shape
    if x_shape[1] != cg * groups:
        raise ShapeError(f"conv2d: expected input with {cg * groups} channels (weight "
                         f"{list(weight_shape)}, groups={groups}), got {x_shape[1]} channels")
    return _Geometry(x_shape, (kh, kw), stride, padding, dilation)


def _flipped_padding(geo):
    """For a convolution of stride 1 whose input gradient is itself a convolution (of the
    output gradient with the flipped, transposed kernel), that convolution's padding; else
    None."""
    pads = (geo.dh * (geo.kh - 1) - geo.ph, geo.dw * (geo.kw - 1) - geo.pw)
    if (geo.sh, geo.sw) == (1, 1) and min(pads) >= 0:
        return pads
    return None


def _conv2d(xp, x, weight, *, stride, padding, dilation, groups, keep=None):
    """Note [Convolution as im2col + matrix products]."""
    geo = _conv_setup(x.shape, weight.shape, stride, padding, dilation, groups)
    o, cg, kh, kw = weight.shape
    n, ck, hw = geo.n, cg * kh * kw, geo.oh * geo.ow
    dtype = xp.result_type(x.dtype, weight.dtype)
    out = memory.empty(xp, (n, o, geo.oh, geo.ow), dtype)
    w = weight.reshape(groups, o // groups, ck)
    out4 = out.reshape(n, groups, o // groups, hw)
    xpad = geo.pad(xp, x)
    blocks, b = geo.blocks(geo.c * kh * kw * hw * x.dtype.itemsize)
    cols = memory.empty(xp, (b, geo.c, kh, kw, geo.oh, geo.ow), x.dtype)
    for blk in blocks:
        c = cols[:blk.stop - blk.start]
        geo.im2col(xpad[blk], c)
        xp.matmul(w, c.reshape(len(c), groups, ck, hw), out=out4[blk])
    if keep is not None:   # one block's columns are the whole batch's: the weight gradient's
        keep["cols"] = cols if len(blocks) == 1 else cols[:0]
    return out


def _conv2d_grad_x(g, x_shape, weight, stride, padding, dilation, groups, xp):
    geo = _conv_setup(x_shape, weight.shape, stride, padding, dilation, groups)
    o, cg, kh, kw = weight.shape
    # a transposed convolution's output_padding asks for an input longer than the output
    # reaches: those rows and columns get no gradient
    exact = (geo.oh, geo.ow) == g.shape[2:]
    geo.oh, geo.ow = g.shape[2:]
    flipped = _flipped_padding(geo) if exact else None
    # Note [Convolution as im2col + matrix products]: with a finite kernel
    if flipped is not None and xp.isfinite(weight).all():
        wf = weight.reshape(groups, o // groups, cg, kh, kw)[..., ::-1, ::-1]
        wf = wf.transpose(0, 2, 1, 3, 4).reshape(groups * cg, o // groups, kh, kw)
        return _conv2d(xp, g, wf, stride=(1, 1), padding=flipped, dilation=dilation,
                       groups=groups)
    n, ck, hw = geo.n, cg * kh * kw, geo.oh * geo.ow
    dtype = xp.result_type(g.dtype, weight.dtype)
    wt = weight.reshape(groups, o // groups, ck).transpose(0, 2, 1)
    g4 = g.reshape(n, groups, o // groups, hw)
    gpad = _zeros_padded(xp, geo, dtype)
    blocks, b = geo.blocks(geo.c * kh * kw * hw * dtype.itemsize)
    cols = memory.empty(xp, (b, groups, ck, hw), dtype)
    for blk in blocks:
        c = xp.matmul(wt, g4[blk], out=cols[:blk.stop - blk.start])
        geo.col2im(c.reshape(len(c), geo.c, kh, kw, geo.oh, geo.ow), gpad[blk])
    return geo.crop(xp, gpad)


def _conv2d_grad_w(g, x, weight_shape, stride, padding, dilation, groups, xp, cols=None):
    """``cols``: the forward's columns when the batch was one block (else empty or None)."""
    geo = _conv_setup(x.shape, weight_shape, stride, padding, dilation, groups)
    geo.oh, geo.ow = g.shape[2:]    # fewer than x reaches after a transposed output_padding
    o, cg, kh, kw = weight_shape
    n, ck, hw = geo.n, cg * kh * kw, geo.oh * geo.ow
    gw = xp.zeros((groups, o // groups, ck), xp.result_type(g.dtype, x.dtype))
    g4 = g.reshape(n, groups, o // groups, hw)
    if cols is not None and cols.size:
        blocks, xpad = [slice(0, n)], None
    else:
        xpad = geo.pad(xp, x)
        blocks, b = geo.blocks(geo.c * kh * kw * hw * x.dtype.itemsize)
        cols = memory.empty(xp, (b, geo.c, kh, kw, geo.oh, geo.ow), x.dtype)
    for blk in blocks:
        c = cols[:blk.stop - blk.start]
        if xpad is not None:
            geo.im2col(xpad[blk], c)
        c = c.reshape(len(c), groups, ck, hw).transpose(0, 1, 3, 2)
        gw += xp.matmul(g4[blk], c).sum(axis=0)
    return gw.reshape(weight_shape)


defop("conv2d", _conv2d, kind="other", inplace=False, method=False,
      grad=(_conv2d_grad_x, _conv2d_grad_w), keeps=("cols",))


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


def _conv_transpose2d_grad_x(g, x_shape, weight, stride, padding, dilation, groups, xp):
    gx = _conv2d(xp, g, weight, stride=stride, padding=padding, dilation=dilation,
                 groups=groups)
    h, w = x_shape[2:]
    if gx.shape[2:] == (h, w):
        return gx
    # stride 1 and output_padding: the convolution of the longer output reaches past the input
    return xp.ascontiguousarray(gx[:, :, :h, :w])


defop("conv_transpose2d", _conv_transpose2d, kind="other", inplace=False, method=False,
      grad=(_conv_transpose2d_grad_x,
            lambda g, x, weight_shape, stride, padding, dilation, groups, xp: _conv2d_grad_w(
          x, g, weight_shape, stride, padding, dilation, groups, xp)))


# ---- pooling -------------------------------------------------------------------------------
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
      grad=_max_pool2d_grad, keeps=("argmax",))


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
