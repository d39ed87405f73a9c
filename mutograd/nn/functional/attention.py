"""Scaled dot-product attention and multi-head attention (``nn.MultiheadAttention``'s forward),
composed from declared ops (their gradients come from theirs).

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
from ...ops.shaping import cat
from ...tensor import Tensor, _wrap
from .dense import linear
from .dropouts import dropout
from .padding import pad


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
    return _attend(query, key, value, bias, dropout_p, scale)[0]


def _attend(query, key, value, bias, dropout_p, scale):
    """``(softmax(q @ k^T * scale + bias) @ v, the weights)``; ``bias`` is a float tensor
    (broadcast to the scores) or 0.0; the weights are dropped with ``dropout_p``."""
    scores = query @ key.swapaxes(-2, -1)
    weights = call(OPS["attention_softmax"], [scores, bias], {"scale": scale})
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value, weights


def _float_mask(mask, name, like):
    """A mask of multi-head attention as scores to add: a boolean one (True: may *not* attend,
    the convention of ``MultiheadAttention``) as 0 / -inf in ``like``'s dtype; a float one as
    it is."""
    if mask is None:
        return None
    if mask.dtype.np == np.bool_:
        xp = mask._place.xp
        return _wrap(xp.where(mask._data, -math.inf, 0.0).astype(like.dtype.np), mask)
    if mask.dtype.np.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported, got "
                             f"{mask.dtype}")
    return mask


def _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Whether the inputs are batched (query (L, N, E)) or not (query (L, E)); raises
    AssertionError, as PyTorch does, when the other inputs do not have the same form."""
    form = {3: "batched (3-D)", 2: "unbatched (2-D)"}.get(query.ndim)
    if form is None:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    batched = query.ndim == 3
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {form} query, expected key and value to be "
                             f"{query.ndim}-D but found {key.ndim}-D and {value.ndim}-D tensors")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {form} query, expected key_padding_mask to be None or "
                             f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {form} query, expected attn_mask to be None, 2-D or 3-D "
                                 f"but found {attn_mask.ndim}-D tensor")
        want = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != want:
            raise AssertionError(f"Expected attn_mask shape to be {want} but got "
                                 f"{tuple(attn_mask.shape)}")
    return batched


def _pad_key(mask):
    """A mask with one more key position, which every query may attend (the added bias_k or
    zero key)."""
    return None if mask is None else pad(mask, (0, 1))


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention with its weights passed in (``nn.MultiheadAttention``'s forward).

    ``query`` (L, N, E) and ``key``/``value`` (S, N, kdim/vdim), or unbatched (L, E) and
    (S, kdim/vdim), which behave as a batch of one. The projections are ``in_proj_weight``
    (3E, E) split in three, or ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` with
    ``use_separate_proj_weight=True``; ``bias_k``/``bias_v`` (1, 1, E) add a key and value,
    ``add_zero_attn`` a zero one; ``static_k``/``static_v`` (N * num_heads, S, E / num_heads)
    replace the projected keys and values. Masks: ``key_padding_mask`` (N, S) or (S,) and
    ``attn_mask`` (L, S) or (N * num_heads, L, S); a boolean True means "may not attend", a
    float is added to the scores. ``is_causal`` is a hint that ``attn_mask`` is the causal mask.
    Returns ``(output, weights)``: output (L, N, E) or (L, E); weights (N, L, S) averaged over
    the heads, (N, num_heads, L, S) with ``average_attn_weights=False``, without the N for an
    unbatched query, or None with ``need_weights=False``.

        >>> import mutograd as mg
        >>> import mutograd.nn.functional as F
        >>> x, w, wo = mg.randn([4, 2, 6]), mg.randn([18, 6]), mg.randn([6, 6])
        >>> out, weights = F.multi_head_attention_forward(
        ...     x, x, x, 6, 2, w, None, None, None, False, 0.0, wo, None)
        >>> out.shape, weights.shape
        ([4, 2, 6], [2, 4, 4])
    """
    batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (t.unsqueeze(1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, n, e = query.shape
    s = key.shape[0]
    key_padding_mask = _float_mask(key_padding_mask, "key_padding_mask", query)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None         # the hint taken: the causal mask is made below, as PyTorch does
    else:
        attn_mask = _float_mask(attn_mask, "attn_mask", query)
        is_causal = False        # the mask given is used
    if e != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {e}")
    head_dim = e // num_heads
    if head_dim * num_heads != e:
        raise AssertionError(f"embed_dim {e} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not "
                                 f"match value's {tuple(value.shape[:2])}")
        weights = (q_proj_weight, k_proj_weight, v_proj_weight)
        if any(w is None for w in weights):
            raise AssertionError("use_separate_proj_weight is True but q_proj_weight, "
                                 "k_proj_weight or v_proj_weight is None")
    else:
        if tuple(key.shape) != tuple(value.shape):
            raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape "
                                 f"{tuple(value.shape)}")
        weights = tuple(in_proj_weight[i * e:(i + 1) * e] for i in range(3))
    biases = (None,) * 3 if in_proj_bias is None else \
        tuple(in_proj_bias[i * e:(i + 1) * e] for i in range(3))
    q, k, v = (linear(t, w, b) for t, w, b in zip((query, key, value), weights, biases))

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (L, s):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, "
                                   f"but should be {(L, s)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (n * num_heads, L, s):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, "
                                   f"but should be {(n * num_heads, L, s)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v are given together or not at all")
    if bias_k is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = cat([k, bias_k.expand(1, n, e)])
        v = cat([v, bias_v.expand(1, n, e)])
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)

    # the heads: (N * num_heads, length, head_dim), batch-major as PyTorch's 3-D masks are
    q = q.reshape(L, n * num_heads, head_dim).swapaxes(0, 1)
    k, v = (_static_heads(static, name, n * num_heads, head_dim) if static is not None
            else t.reshape(t.shape[0], n * num_heads, head_dim).swapaxes(0, 1)
            for t, static, name in ((k, static_k, "static_k"), (v, static_v, "static_v")))
    if add_zero_attn:
        k, v = (cat([t, t.new_zeros([n * num_heads, 1, head_dim])], 1) for t in (k, v))
        attn_mask, key_padding_mask = _pad_key(attn_mask), _pad_key(key_padding_mask)
    s = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (n, s):
            raise AssertionError(f"expecting key_padding_mask shape of {(n, s)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        pad_mask = key_padding_mask.reshape(n, 1, 1, s).expand(n, num_heads, 1, s) \
            .reshape(n * num_heads, 1, s)
        attn_mask = pad_mask if attn_mask is None else attn_mask + pad_mask
    if not training:
        dropout_p = 0.0

    q, k, v = (t.reshape(n, num_heads, t.shape[1], head_dim) for t in (q, k, v))
    if attn_mask is not None:   # (1, L, S) for every head, or one per batch and head
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
            attn_mask.reshape(n, num_heads, -1, s)
    if need_weights:
        out, weights = _attend(q, k, v, 0.0 if attn_mask is None else attn_mask, dropout_p,
                               1.0 / math.sqrt(head_dim))
        if average_attn_weights:
            weights = weights.mean(dim=1)
    else:
        out = scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p,
                                           is_causal=is_causal)
        weights = None
    out = linear(out.permute(2, 0, 1, 3).reshape(L, n, e), out_proj_weight, out_proj_bias)
    if not batched:
        out = out.squeeze(1)
        weights = None if weights is None else weights.squeeze(0)
    return out, weights


def _static_heads(static, name, batch_heads, head_dim):
    """``static_k`` or ``static_v``, checked: (N * num_heads, S, head_dim)."""
    if static.shape[0] != batch_heads or static.shape[2] != head_dim:
        raise AssertionError(f"expecting {name} of shape ({batch_heads}, S, {head_dim}), but got "
                             f"{tuple(static.shape)}")
    return static
