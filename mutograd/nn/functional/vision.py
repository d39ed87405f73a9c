"""Vision ops: pixel (un)shuffle and channel shuffle (reshapes and permutes), fold/unfold
(col2im / im2col as one index selection or one index sum), affine grids and grid sampling.
Every function is composed of differentiable ops, so gradients reach the input (and the grid of
:func:`grid_sample`).

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.pixel_shuffle(mg.randn([1, 8, 3, 3]), 2).shape
    [1, 2, 6, 6]
"""
import itertools

import numpy as np

from ...errors import ShapeError
from ...ops import OPS, call
from ...ops.creation import zeros
from ...tensor import _wrap
from .arguments import _pair
from .padding import pad


# ---- shuffles --------------------------------------------------------------------------------
def _need(x, ndim, name):
    if x.ndim < ndim:
        raise ShapeError(f"{name}: expected input with at least {ndim} dimensions, got shape "
                         f"{list(x.shape)}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block.

        >>> import mutograd as mg
        >>> pixel_shuffle(mg.arange(4.).reshape(1, 4, 1, 1), 2).reshape(-1).tolist()
        [0.0, 1.0, 2.0, 3.0]
    """
    _need(input, 3, "pixel_shuffle")
    r = int(upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                         f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                         f"is not divisible by {r * r}")
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of :func:`pixel_shuffle`."""
    _need(input, 3, "pixel_unshuffle")
    r = int(downscale_factor)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle expects height ({h}) and width ({w}) to be "
                         f"divisible by downscale_factor ({r})")
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input, groups):
    """(N, C, *) with C = g k: channel ``i k + j`` moves to ``j g + i`` (ShuffleNet)."""
    _need(input, 3, "channel_shuffle")
    n, c, *rest = input.shape
    if groups <= 0 or c % groups:
        raise ValueError(f"Number of channels must be divisible by groups. Got {c} channels "
                         f"and {groups} groups.")
    x = input.reshape(n, groups, c // groups, *rest).swapaxes(1, 2)
    return x.reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


# ---- fold / unfold ---------------------------------------------------------------------------
def _patch_index(size, kernel_size, dilation, padding, stride, name):
    """Flat positions in the padded (H + 2 ph, W + 2 pw) image of every kernel offset (rows)
    and every sliding position (columns), and the padded size."""
    (kh, kw), (dh, dw) = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    (ph, pw), (sh, sw) = _pair(padding, "padding"), _pair(stride, "stride")
    hp, wp = size[0] + 2 * ph, size[1] + 2 * pw
    oh, ow = (hp - dh * (kh - 1) - 1) // sh + 1, (wp - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{name}: the {kh}x{kw} kernel (dilation {(dh, dw)}) does not fit the "
                         f"padded {hp}x{wp} input")
    rows = (np.arange(kh)[:, None] * dh * wp + np.arange(kw)[None, :] * dw).reshape(-1, 1)
    cols = (np.arange(oh)[:, None] * sh * wp + np.arange(ow)[None, :] * sw).reshape(1, -1)
    return rows + cols, (hp, wp), (ph, pw)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C kh kw, L), each column one sliding block.

        >>> import mutograd as mg
        >>> unfold(mg.arange(9.).reshape(1, 1, 3, 3), 2).shape
        [1, 4, 4]
    """
    if input.ndim not in (3, 4):
        raise ShapeError(f"Input Error: Only 3D or 4D input Tensors are supported (got "
                         f"{input.ndim}D)")
    x = input if input.ndim == 4 else input.unsqueeze(0)
    n, c, h, w = x.shape
    idx, (hp, wp), (ph, pw) = _patch_index((h, w), kernel_size, dilation, padding, stride,
                                           "unfold")
    if ph or pw:
        x = pad(x, (pw, pw, ph, ph))
    cols = call(OPS["index_select"], [x.reshape(n, c, hp * wp), _wrap(idx.reshape(-1))],
                {"axis": 2})
    out = cols.reshape(n, c * idx.shape[0], idx.shape[1])
    return out if input.ndim == 4 else out.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of :func:`unfold`: (N, C kh kw, L) -> (N, C, H, W), overlapping
    blocks summed.

        >>> import mutograd as mg
        >>> fold(mg.ones([1, 4, 4]), (3, 3), 2).reshape(-1).tolist()
        [1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]
    """
    if input.ndim not in (2, 3):
        raise ShapeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are "
                         f"supported (got {input.ndim}D)")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    h, w = _pair(output_size, "output_size")
    idx, (hp, wp), (ph, pw) = _patch_index((h, w), kernel_size, dilation, padding, stride,
                                           "fold")
    n, ck, length = x.shape
    k = idx.shape[0]
    if ck % k or length != idx.shape[1]:
        raise ValueError(f"fold: expected input of shape (N, C * {k}, {idx.shape[1]}) for "
                         f"output_size {(h, w)}, got {list(input.shape)}")
    c = ck // k
    out = zeros([n, c, hp * wp], dtype=x.dtype)
    out = call(OPS["index_add"], [out, _wrap(idx.reshape(-1)), x.reshape(n, c, k * length)],
               {"axis": 2, "alpha": 1})
    out = out.reshape(n, c, hp, wp)[:, :, ph:ph + h, pw:pw + w]
    return out if input.ndim == 3 else out.squeeze(0)


# ---- affine grids and grid sampling ----------------------------------------------------------
def _base_coords(n, align_corners):
    if n <= 1:
        return np.zeros(max(n, 1))
    c = np.linspace(-1.0, 1.0, n)
    return c if align_corners else c * (n - 1) / n


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps: ``theta`` (N, 2, 3) with ``size``
    (N, C, H, W) gives (N, H, W, 2); (N, 3, 4) with (N, C, D, H, W) gives (N, D, H, W, 3).
    The last axis holds (x, y[, z]) in [-1, 1].

        >>> import mutograd as mg
        >>> eye = mg.tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> affine_grid(eye, [1, 1, 1, 2], align_corners=True)[0, 0].tolist()
        [[-1.0, 0.0], [1.0, 0.0]]
    """
    size = [int(s) for s in size]
    d = len(size) - 2
    if d not in (2, 3) or tuple(theta.shape) != (size[0], d, d + 1):
        raise ValueError(f"affine_grid: expected theta of shape (N, 2, 3) with a 4-D size or "
                         f"(N, 3, 4) with a 5-D size, got theta {list(theta.shape)} and size "
                         f"{size}")
    spatial = size[2:]
    axes = [_base_coords(s, bool(align_corners)) for s in spatial[::-1]]   # x, y[, z]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial)], axis=-1).reshape(1, -1, d + 1)
    grid = _wrap(base.astype(theta.dtype.np)) @ theta.swapaxes(1, 2)
    return grid.reshape(size[0], *spatial, d)


def _reflect(coord, low2, high2):
    """Reflect coordinates into [low2/2, high2/2] (PyTorch's reflect_coordinates): the
    fold count is a constant, so the gradient is +-1."""
    if low2 == high2:
        return coord * 0
    lo, span = low2 / 2, (high2 - low2) / 2
    dist = (coord - lo).abs()
    flips = np.floor(dist._data / span)
    odd = flips % 2
    extra = dist - _wrap(flips * span)
    return _wrap(lo + odd * span) + extra * _wrap(1 - 2 * odd)


def _source_coord(g, size, padding_mode, align_corners):
    if align_corners:
        c = (g + 1) * ((size - 1) / 2)
    else:
        c = ((g + 1) * size - 1) / 2
    if padding_mode == "reflection":
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        c = c.clamp(0, size - 1)
    return c


_GRID_MODES, _GRID_PADDING = ("bilinear", "nearest"), ("zeros", "border", "reflection")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) at the points of ``grid`` (N, Ho, Wo, 2), (x, y) in [-1, 1]
    ('bilinear' or 'nearest'; outside: 'zeros', 'border' or 'reflection'), or 5-D input with
    a (N, Do, Ho, Wo, 3) grid (trilinear). Gradients reach ``input`` and, for bilinear,
    ``grid``.

        >>> import mutograd as mg
        >>> img = mg.arange(4.).reshape(1, 1, 2, 2)
        >>> grid_sample(img, mg.zeros([1, 1, 1, 2]), align_corners=True).item()
        1.5
    """
    if mode not in _GRID_MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear' or "
                         f"'nearest', but got: '{mode}'")
    if padding_mode not in _GRID_PADDING:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    d = input.ndim - 2
    if d not in (2, 3) or grid.ndim != d + 2 or grid.shape[-1] != d or \
            grid.shape[0] != input.shape[0]:
        raise ShapeError(f"grid_sample: expected 4-D input with a (N, Ho, Wo, 2) grid or 5-D "
                         f"input with a (N, Do, Ho, Wo, 3) grid, got input "
                         f"{list(input.shape)} and grid {list(grid.shape)}")
    n, c, *sizes = input.shape
    out_spatial = list(grid.shape[1:-1])
    pts = grid.reshape(n, -1, d)
    # grid's last axis is (x, y[, z]): coordinate k indexes spatial axis d - 1 - k
    coords = [_source_coord(pts[:, :, d - 1 - a], sizes[a], padding_mode, bool(align_corners))
              for a in range(d)]
    strides = [int(np.prod(sizes[a + 1:])) for a in range(d)]
    flat = input.reshape(n, c, -1)

    def pick(idx_list):
        inside = np.ones(idx_list[0].shape, bool)
        pos = np.zeros(idx_list[0].shape, np.int64)
        for a, i in enumerate(idx_list):
            inside &= (i >= 0) & (i < sizes[a])
            pos += np.clip(i, 0, sizes[a] - 1).astype(np.int64) * strides[a]
        index = _wrap(np.broadcast_to(pos[:, None, :], (n, c, pos.shape[1])).copy())
        return call(OPS["gather"], [flat, index], {"axis": 2}), inside

    if mode == "nearest":
        vals, inside = pick([np.rint(k._data) for k in coords])
        out = vals * _wrap(inside[:, None, :].astype(input.dtype.np))
    else:
        lows = [np.floor(k._data) for k in coords]
        fracs = [k - _wrap(lo) for k, lo in zip(coords, lows)]
        out = None
        for corner in itertools.product((0, 1), repeat=d):
            vals, inside = pick([lo + o for lo, o in zip(lows, corner)])
            w = _wrap(inside.astype(input.dtype.np))
            for f, o in zip(fracs, corner):
                w = w * (f if o else 1 - f)
            term = vals * w.unsqueeze(1)
            out = term if out is None else out + term
    return out.reshape(n, c, *out_spatial)
