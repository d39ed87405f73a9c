"""Scaled dot-product attention, composed from declared ops (its gradient comes from theirs).

    >>> import mutograd as mg
    >>> from mutograd.nn.functional.attention import scaled_dot_product_attention
    >>> q = mg.randn([2, 4, 8])
    >>> scaled_dot_product_attention(q, q, q, is_causal=True).shape
    [2, 4, 8]
"""
import math

import numpy as np

from ...errors import DTypeError, ShapeError
from ...ops.registry import OPS, call
from ...tensor import Tensor, _wrap
from .dropouts import dropout


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q @ k^T * scale + mask) @ v over the last two dimensions.

    ``attn_mask``: a boolean mask (True = may attend) or a float mask added to the scores,
    broadcast to ``(..., L, S)``; ``is_causal=True`` masks the upper triangle (no ``attn_mask``
    then); ``dropout_p`` drops attention weights (always applied, as in PyTorch: pass 0.0 in
    eval); ``scale`` defaults to ``1/sqrt(E)``.
    """
    for n, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor) or t.ndim < 2:
            raise ShapeError(f"scaled_dot_product_attention(): {n} must be a tensor of at least "
                             f"2 dimensions")
    L, E = query.shape[-2], query.shape[-1]
    S = key.shape[-2]
    if key.shape[-1] != E:
        raise ShapeError(f"scaled_dot_product_attention(): query and key embedding sizes differ "
                         f"({E} vs {key.shape[-1]})")
    if value.shape[-2] != S:
        raise ShapeError(f"scaled_dot_product_attention(): key has {S} positions but value has "
                         f"{value.shape[-2]}")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention(): is_causal and attn_mask are exclusive")
    scale = 1.0 / math.sqrt(E) if scale is None else scale
    xp = query._place.xp
    bias = 0.0
    if is_causal:
        bias = _wrap(xp.triu(xp.full((L, S), -math.inf, query.dtype.np), 1), query)
    elif attn_mask is not None:
        if attn_mask.dtype.np == np.bool_:
            mxp = attn_mask._place.xp   # a mask on another place fails in the op, by name
            bias = _wrap(mxp.where(attn_mask._data, 0.0, -math.inf).astype(query.dtype.np),
                         attn_mask)
        elif attn_mask.dtype.np.kind == "f":
            bias = attn_mask
        else:
            raise DTypeError(f"scaled_dot_product_attention(): attn_mask must be bool or "
                             f"floating, got {attn_mask.dtype}")
    scores = query @ key.swapaxes(-2, -1)
    weights = call(OPS["attention_softmax"], [scores, bias], {"scale": scale})
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value
