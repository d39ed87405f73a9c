"""Padding of the last axes: constant, reflect, replicate or circular (``pad``).

    >>> import mutograd as mg
    >>> import mutograd.nn.functional as F
    >>> F.pad(mg.tensor([[1.0, 2.0]]), (1, 1)).tolist()
    [[0.0, 1.0, 2.0, 0.0]]
"""


from ...ops import OPS, call

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def pad(x, pad, mode="constant", value=None):
    """Pad (or, with negative sizes, crop) the last axes: ``pad`` is (left, right) for the last
    axis, then for the one before, ... as in PyTorch; ``mode`` is 'constant' (``value``, default
    0), 'reflect', 'replicate' or 'circular'."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > x.ndim:
        raise ValueError(f"pad: expected an even number of sizes, at most 2 per dimension of "
                         f"the {x.ndim}-D input, got {len(pad)}")
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {', '.join(_PAD_MODES)}, got {mode!r}")
    k = len(pad) // 2
    pads = [(0, 0)] * (x.ndim - k) + [(pad[2 * i], pad[2 * i + 1]) for i in range(k)][::-1]
    for a, (left, right) in enumerate(pads):
        n = x.shape[a]
        if mode != "constant" and (left or right):
            if min(left, right) < 0:
                raise ValueError(f"pad: negative padding needs mode='constant', got {mode!r}")
            if mode == "reflect" and max(left, right) >= n:
                raise ValueError(f"pad: reflect padding of {max(left, right)} must be smaller "
                                 f"than the dimension it pads ({n}, dimension {a})")
            if n == 0:
                raise ValueError(f"pad: {mode} padding of an empty dimension {a}")
        if n + left + right < 0:
            raise ValueError(f"pad: the padded size of dimension {a} would be "
                             f"{n + left + right}")
    if mode != "constant" and value:
        raise ValueError(f"pad: value is only for mode='constant', got mode={mode!r}")
    return call(OPS["pad"], [x], {"pads": tuple(pads), "mode": mode,
                                  "value": 0.0 if value is None else value})
