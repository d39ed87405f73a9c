"""Argument forms shared by the convolutions and poolings: a size given as an int or a
tuple, and an unbatched input handled as a batch of one.

    >>> from mutograd.nn.functional.arguments import _tuple
    >>> _tuple(3, 2, "kernel_size"), _tuple((2, 1, 1), 3, "stride")
    ((3, 3), (2, 1, 1))
"""

import numpy as np

from ...errors import ShapeError


def _pair(v, name):
    if isinstance(v, int):
        return (v, v)
    v = tuple(int(a) for a in v)
    if len(v) != 2:
        raise ValueError(f"{name} must be an int or a pair of ints, got {v}")
    return v


def _batched(x, n, name):
    """``x`` with a batch axis (an unbatched (C, *spatial) input gets one), and its undo."""
    if x.ndim == n + 2:
        return x, lambda y: y
    if x.ndim == n + 1:
        return x.unsqueeze(0), lambda y: y.squeeze(0)
    dims = ", ".join("DHW"[3 - n:] if n > 1 else "L")
    raise ShapeError(f"{name}: expected a {n + 1}-D (C, {dims}) or {n + 2}-D (N, C, {dims}) "
                     f"input, got shape {list(x.shape)}")


def _single(v):
    """A 1-D size given as an int or a one-element sequence."""
    return v if isinstance(v, int) else v[0]


def _tuple(v, n, name):
    """``v`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints."""
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(int(a) for a in v)
    if len(v) == 1 and n > 1:
        v = v * n
    if len(v) != n:
        raise ValueError(f"{name} must be an int or a sequence of {n} ints, got {v}")
    return v
