"""Convolutions over 1, 2 or 3 spatial dimensions and their transposes, with PyTorch's
signatures, and the padding modes of the convolution modules (Note [N-d windows from the 2-D ops]
in ``pooling.py``: the 1-D and 3-D forms reuse the 2-D ops of ``mutograd.ops.convolution``).

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.conv2d(mg.randn([1, 2, 5, 5]), mg.randn([4, 2, 3, 3]), padding=1).shape
    [1, 4, 5, 5]
"""


from ...errors import ShapeError
from ...ops import OPS, call, call_inplace
from ...ops.creation import zeros
from ...ops.shaping import stack
from .arguments import _batched, _pair, _single, _tuple
from .padding import pad


def _add_channel_bias_(out, bias):
    """Add a per-channel bias into a fresh result in place (the result is ours: no new buffer)."""
    shape = [1] * out.ndim
    shape[1 if out.ndim > 1 else 0] = -1
    return call_inplace(OPS["add"], [out, call(OPS["reshape"], [bias], {"shape": tuple(shape)})],
                        OPS["add"].defaults)


def _check_weight(name, weight, layout, groups=None):
    """Refuse a ``weight`` without the dimensions ``layout`` names and, when ``groups`` is
    given, one whose output channels the groups do not divide."""
    nd = layout.count(",") + 1
    if weight.ndim != nd:
        raise ShapeError(f"{name}: weight must be {nd}-D {layout}, got shape "
                         f"{list(weight.shape)}")
    if groups is not None and (groups < 1 or weight.shape[0] % groups):
        raise ValueError(f"{name}: out_channels {weight.shape[0]} must be divisible by "
                         f"groups={groups}")


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of (N, C, H, W) with (O, C/groups, kh, kw) weights.

    ``padding`` may be an int, a pair, ``'valid'`` or ``'same'`` (stride 1).
    """
    x, undo = _batched(x, 2, "conv2d")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            kh, kw = weight.shape[2:]
            total = (dilation[0] * (kh - 1), dilation[1] * (kw - 1))
            if total[0] % 2 or total[1] % 2:
                raise ValueError("padding='same' needs an odd (dilated) kernel size here")
            padding = (total[0] // 2, total[1] // 2)
        else:
            raise ValueError(f"padding must be an int, a pair, 'valid' or 'same', got {padding!r}")
    _check_weight("conv2d", weight, "(out, in/groups, kh, kw)", groups)
    out = call(OPS["conv2d"], [x, weight], {"stride": stride, "padding": _pair(padding, "padding"),
                                            "dilation": dilation, "groups": groups})
    if bias is not None:
        _add_channel_bias_(out, bias)
    return undo(out)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution of (N, C, L) with (O, C/groups, k) weights: a 2-D one of height 1."""
    _check_weight("conv1d", weight, "(out, in/groups, k)")
    if x.ndim not in (2, 3):
        raise ShapeError(f"conv1d: expected a 2-D (C, L) or 3-D (N, C, L) input, got shape "
                         f"{list(x.shape)}")
    pad = padding if isinstance(padding, str) else (0, _single(padding))
    out = conv2d(x.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, _single(stride)), pad,
                 (1, _single(dilation)), groups)
    return out.squeeze(-2)


def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 2-D convolution of (N, C_in, H, W) with (C_in, C_out/groups, kh, kw)
    weights (the gradient of ``conv2d`` with respect to its input)."""
    x, undo = _batched(x, 2, "conv_transpose2d")
    _check_weight("conv_transpose2d", weight, "(in, out/groups, kh, kw)")
    stride, padding = _pair(stride, "stride"), _pair(padding, "padding")
    output_padding, dilation = _pair(output_padding, "output_padding"), _pair(dilation,
                                                                             "dilation")
    if any(op >= max(s, d) for op, s, d in zip(output_padding, stride, dilation)):
        raise ValueError(f"conv_transpose2d: output_padding {output_padding} must be smaller "
                         f"than stride {stride} or dilation {dilation}")
    out = call(OPS["conv_transpose2d"], [x, weight],
               {"stride": stride, "padding": padding, "output_padding": output_padding,
                "dilation": dilation, "groups": groups})
    if bias is not None:
        _add_channel_bias_(out, bias)
    return undo(out)


def _same_padding(padding, stride, dilation, kernel, name):
    """Numeric padding for ``padding`` given as 'valid' or 'same' (per axis (left, right))."""
    if padding == "valid":
        return [(0, 0)] * len(kernel)
    if padding != "same":
        raise ValueError(f"{name}: padding must be an int, a tuple, 'valid' or 'same', got "
                         f"{padding!r}")
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    # PyTorch puts the odd element of an even total on the right
    return [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dilation, kernel)]


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def check_padding_mode(padding_mode):
    if padding_mode not in _PADDING_MODES:
        raise ValueError(f"padding_mode must be one of {list(_PADDING_MODES)}, got "
                         f"{padding_mode!r}")
    return padding_mode


def pad_by_mode(x, padding, padding_mode, kernel_size, dilation):
    """A convolution module's input padded by ``padding_mode`` ('reflect', 'replicate',
    'circular'; PyTorch's ``_reversed_padding_repeated_twice``), for a convolution with padding
    0 after it."""
    n = len(kernel_size)
    if isinstance(padding, str):
        pads = _same_padding(padding, (1,) * n, dilation, kernel_size, "conv")
    else:
        pads = [(p, p) for p in _tuple(padding, n, "padding")]
    return pad(x, tuple(v for pair in reversed(pads) for v in pair), mode=padding_mode)


# ---- convolutions --------------------------------------------------------------------------
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation) of (N, C, D, H, W) with (O, C/groups, kd, kh, kw)
    weights (Note [N-d windows from the 2-D ops]). ``padding``: an int, a triple, 'valid' or
    'same'."""
    x, undo = _batched(input, 3, "conv3d")
    _check_weight("conv3d", weight, "(out, in/groups, kd, kh, kw)", groups)
    o, cg, kd, kh, kw = weight.shape
    n, c, d = x.shape[:3]
    if c != cg * groups:
        raise ShapeError(f"conv3d: expected input with {cg * groups} channels (weight "
                         f"{list(weight.shape)}, groups={groups}), got {c} channels")
    stride, dilation = _tuple(stride, 3, "stride"), _tuple(dilation, 3, "dilation")
    if isinstance(padding, str):
        pads = _same_padding(padding, stride, dilation, (kd, kh, kw), "conv3d")
    else:
        pads = [(p, p) for p in _tuple(padding, 3, "padding")]
    if any(left != right for left, right in pads[1:]):    # 'same' with an even kernel
        x = pad(x, (pads[2][0], pads[2][1], pads[1][0], pads[1][1]))
        pads = [pads[0], (0, 0), (0, 0)]
    if pads[0] != (0, 0):
        x = pad(x, (0, 0, 0, 0, *pads[0]))
    sd, dd = stride[0], dilation[0]
    dp = x.shape[2]
    if dp < dd * (kd - 1) + 1:
        raise ShapeError(f"conv3d: the (padded) input depth {dp} is smaller than the (dilated) "
                         f"kernel depth {dd * (kd - 1) + 1}")
    od = (dp - dd * (kd - 1) - 1) // sd + 1
    h, w = x.shape[3:]
    # (N, kd, C, OD, H, W): the depth slices each kernel depth offset reaches
    cols = stack([x[:, :, i * dd:i * dd + sd * (od - 1) + 1:sd] for i in range(kd)], axis=1)
    cols = cols.reshape([n, kd, groups, cg, od, h, w]).permute(0, 4, 2, 1, 3, 5, 6)
    cols = cols.reshape([n * od, groups * kd * cg, h, w])
    w2 = weight.permute(0, 2, 1, 3, 4).reshape([o, kd * cg, kh, kw])
    out = conv2d(cols, w2, None, stride[1:], (pads[1][0], pads[2][0]), dilation[1:], groups)
    out = out.reshape([n, od, o, *out.shape[2:]]).permute(0, 2, 1, 3, 4)
    if bias is not None:
        out = out + bias.reshape([1, o, 1, 1, 1])
    return undo(out)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 1-D convolution of (N, C_in, L) with (C_in, C_out/groups, k) weights: the
    2-D one of height 1."""
    x, undo = _batched(input, 1, "conv_transpose1d")
    if weight.ndim != 3:
        raise ShapeError(f"conv_transpose1d: weight must be 3-D (in, out/groups, k), got shape "
                         f"{list(weight.shape)}")

    def one(v, name):
        return (1,) + _tuple(v, 1, name)
    out = conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, one(stride, "stride"),
                             (0,) + _tuple(padding, 1, "padding"),
                             (0,) + _tuple(output_padding, 1, "output_padding"), groups,
                             one(dilation, "dilation"))
    return undo(out.squeeze(2))


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transposed 3-D convolution of (N, C_in, D, H, W) with (C_in, C_out/groups, kd, kh,
    kw) weights (Note [N-d windows from the 2-D ops])."""
    x, undo = _batched(input, 3, "conv_transpose3d")
    if weight.ndim != 5:
        raise ShapeError(f"conv_transpose3d: weight must be 5-D (in, out/groups, kd, kh, kw), "
                         f"got shape {list(weight.shape)}")
    cin, og, kd, kh, kw = weight.shape
    n, c, d, h, w = x.shape
    if c != cin:
        raise ShapeError(f"conv_transpose3d: expected input with {cin} channels (weight "
                         f"{list(weight.shape)}), got {c} channels")
    if groups < 1 or cin % groups:
        raise ValueError(f"conv_transpose3d: in_channels {cin} must be divisible by "
                         f"groups={groups}")
    stride, padding = _tuple(stride, 3, "stride"), _tuple(padding, 3, "padding")
    output_padding = _tuple(output_padding, 3, "output_padding")
    dilation = _tuple(dilation, 3, "dilation")
    if any(op >= max(s, dl) for op, s, dl in zip(output_padding, stride, dilation)):
        raise ValueError(f"conv_transpose3d: output_padding {output_padding} must be smaller "
                         f"than stride {stride} or dilation {dilation}")
    # output channels (group, kd, out/groups): one transposed 2-D convolution for all offsets
    w2 = weight.permute(0, 2, 1, 3, 4).reshape([cin, kd * og, kh, kw])
    planes = x.permute(0, 2, 1, 3, 4).reshape([n * d, cin, h, w])
    y = conv_transpose2d(planes, w2, None, stride[1:], padding[1:], output_padding[1:], groups,
                           dilation[1:])
    oh, ow = y.shape[2:]
    y = y.reshape([n, d, groups, kd, og, oh, ow]).permute(3, 0, 2, 4, 1, 5, 6)
    y = y.reshape([kd, n, groups * og, d, oh, ow])
    sd, pd, dd = stride[0], padding[0], dilation[0]
    full = (d - 1) * sd + dd * (kd - 1) + 1 + output_padding[0]
    out = zeros([n, groups * og, full, oh, ow], dtype=y.dtype, place=y._place)
    for i in range(kd):
        view = out[:, :, i * dd:i * dd + sd * (d - 1) + 1:sd]
        view += y[i]
    out = out[:, :, pd:full - pd]
    if bias is not None:
        out = out + bias.reshape([1, -1, 1, 1, 1])
    return undo(out)


def output_padding_for(x, output_size, output_padding, stride, padding, dilation, kernel_size):
    """The ``output_padding`` of a transposed convolution that gives ``output_size`` (PyTorch's
    ``ConvTranspose*.forward(input, output_size)``): within a stride past the shortest output."""
    if output_size is None:
        return output_padding
    n = len(stride)
    size = [int(v) for v in output_size][-n:]
    if len(size) != n:
        raise ShapeError(f"output_size must have {n} or {n + 2} elements, got "
                         f"{list(output_size)}")
    least = [(i - 1) * s - 2 * p + d * (k - 1) + 1 for i, s, p, d, k in zip(
        x.shape[-n:], stride, padding, dilation, kernel_size)]
    for want, lo, s in zip(size, least, stride):
        if not lo <= want < lo + s:
            most = [a + b - 1 for a, b in zip(least, stride)]
            raise ShapeError(f"requested an output size of {size}, but valid sizes range "
                             f"from {least} to {most}")
    return tuple(w - lo for w, lo in zip(size, least))
