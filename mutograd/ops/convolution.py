"""Convolution: ``conv2d``, ``conv_transpose2d`` and ``pad``, each one ``defop`` declaration
(forward + gradient), and the window geometry that pooling.py shares. No Python loop runs over
pixels or windows: the only loops run over the few offsets of a kernel and over blocks of the
batch. The public, PyTorch-shaped wrappers live in ``mutograd.nn.functional``.

    >>> import mutograd as mg
    >>> from mutograd.ops.registry import OPS, call
    >>> x, w = mg.ones([1, 1, 3, 3]), mg.ones([1, 1, 2, 2])
    >>> call(OPS["conv2d"], [x, w], {"stride": (1, 1), "padding": (0, 0), "dilation": (1, 1),
    ...                              "groups": 1}).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]

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
import numpy as np

from .. import memory
from ..autograd.graph_arrays import graph_mode
from ..errors import ArgumentError, ShapeError
from .registry import defop

# bytes of im2col columns per block of the batch (Note [Convolution as im2col + matrix products])
_BLOCK_BYTES = 1 << 21


class _Geometry:
    """Sizes of a windowed op over (N, C, H, W): kernel, stride, padding, dilation, the padded
    input and the output."""

    def __init__(self, x_shape, kernel, stride, padding, dilation):
        if min(stride) <= 0:
            raise ArgumentError(f"non-positive stride is not supported (stride={list(stride)})")
        if min(dilation) <= 0:
            raise ArgumentError(f"dilation should be greater than zero, but got {list(dilation)}")
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
    """``cols``: the forward's columns when the batch was one block (else empty or None). In
    graph mode they are copied again from ``x``: the kept ones are constants there, and the
    weight gradient must carry its dependence on ``x`` (Note [Values kept from the forward])."""
    geo = _conv_setup(x.shape, weight_shape, stride, padding, dilation, groups)
    geo.oh, geo.ow = g.shape[2:]    # fewer than x reaches after a transposed output_padding
    o, cg, kh, kw = weight_shape
    n, ck, hw = geo.n, cg * kh * kw, geo.oh * geo.ow
    gw = xp.zeros((groups, o // groups, ck), xp.result_type(g.dtype, x.dtype))
    g4 = g.reshape(n, groups, o // groups, hw)
    if cols is not None and cols.size and not graph_mode(xp):
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


defop("conv2d", _conv2d, kind="other", inplace=False, method=False, same_dtype=True,
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


defop("conv_transpose2d", _conv_transpose2d, kind="other", inplace=False, same_dtype=True,
      method=False,
      grad=(_conv_transpose2d_grad_x,
            lambda g, x, weight_shape, stride, padding, dilation, groups, xp: _conv2d_grad_w(
          x, g, weight_shape, stride, padding, dilation, groups, xp)))
