"""Attention layers: ``MultiheadAttention``, the encoder and decoder layers and stacks, and
``Transformer`` (encoder-decoder), with PyTorch's parameter names, layouts, masks and defaults.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32,
    ...                                    batch_first=True)
    >>> nn.TransformerEncoder(layer, num_layers=2)(mg.randn([3, 5, 16])).shape
    [3, 5, 16]
"""
import copy
import math

import numpy as np

from ...errors import DTypeError, ShapeError
from ...ops.creation import empty, zeros
from ...tensor import _wrap
from .. import functional as F
from .. import init
from ..functional.attention import scaled_dot_product_attention
from ..module import Module, Parameter
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear, NonDynamicallyQuantizableLinear
from .normalization import LayerNorm


def _additive(mask, like, name):
    """A boolean mask (True: may *not* attend, PyTorch's convention here) or a float one as a
    float tensor to add to the attention scores."""
    if mask is None:
        return None
    if mask.dtype.np == np.bool_:
        xp = mask._place.xp
        return _wrap(xp.where(mask._data, -math.inf, 0.0).astype(like.dtype.np), mask)
    if mask.dtype.np.kind != "f":
        raise DTypeError(f"MultiheadAttention: {name} must be bool or floating, got "
                         f"{mask.dtype}")
    return mask


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads``: ``in_proj_weight``
    (3E, E) and ``in_proj_bias`` project query, key and value, ``out_proj`` joins the heads.
    Inputs are (L, N, E), or (N, L, E) with ``batch_first=True``, or unbatched (L, E).
    ``attn_mask``: (L, S) or (N * num_heads, L, S); ``key_padding_mask``: (N, S); for both a
    boolean True means "do not attend". Returns ``(output, weights)``, the weights averaged
    over heads unless ``average_attn_weights=False``, or None with ``need_weights=False``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise ValueError("MultiheadAttention: add_bias_kv and add_zero_attn are not "
                             "supported")
        if kdim not in (None, embed_dim) or vdim not in (None, embed_dim):
            raise ValueError("MultiheadAttention: kdim and vdim must equal embed_dim")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.batch_first = dropout, batch_first
        self.in_proj_weight = Parameter(empty([3 * embed_dim, embed_dim], dtype=dtype))
        if bias:
            self.in_proj_bias = Parameter(zeros([3 * embed_dim], dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        init.xavier_uniform_(self.in_proj_weight)
        if bias:
            init.constant_(self.out_proj.bias, 0.0)
        if device is not None:
            self.to(device)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        if not self.batch_first:
            query, key, value = (t.swapaxes(0, 1) for t in (query, key, value))
        n, L, e = query.shape
        s = key.shape[1]
        if e != self.embed_dim:
            raise ShapeError(f"MultiheadAttention: expected embed_dim {self.embed_dim}, got "
                             f"query of shape {list(query.shape)}")
        w, b = self.in_proj_weight, self.in_proj_bias
        heads = []
        for i, t in enumerate((query, key, value)):
            part = F.linear(t, w[i * e:(i + 1) * e], None if b is None else b[i * e:(i + 1) * e])
            heads.append(part.reshape(n, t.shape[1], self.num_heads, self.head_dim)
                         .swapaxes(1, 2))
        q, k, v = heads
        mask = self._mask(attn_mask, key_padding_mask, is_causal, q, n, L, s)
        p = self.dropout if self.training else 0.0
        if need_weights:
            scores = (q @ k.swapaxes(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
            if mask is not None:
                scores = scores + mask
            weights = F.softmax(scores, dim=-1)
            out = F.dropout(weights, p, training=True) @ v if p > 0 else weights @ v
        else:
            out = scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
            weights = None
        out = self.out_proj(out.swapaxes(1, 2).reshape(n, L, e))
        if not self.batch_first:
            out = out.swapaxes(0, 1)
        if weights is not None and average_attn_weights:
            weights = weights.mean(dim=1)
        if unbatched:
            out = out.squeeze(1)
            weights = None if weights is None else weights.squeeze(0)
        return out, weights

    def _mask(self, attn_mask, key_padding_mask, is_causal, q, n, L, s):
        """One float mask (N, H, L, S) or broadcastable, from the two PyTorch takes."""
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint (a float mask "
                               "with -inf above the diagonal, or a boolean one with True there)")
        mask = _additive(attn_mask, q, "attn_mask")
        if mask is not None and mask.ndim == 3:       # (N * H, L, S)
            mask = mask.reshape(n, self.num_heads, L, s)
        pad = _additive(key_padding_mask, q, "key_padding_mask")
        if pad is not None:
            if tuple(pad.shape) != (n, s):
                raise ShapeError(f"MultiheadAttention: key_padding_mask must have shape "
                                 f"{[n, s]}, got {list(pad.shape)}")
            pad = pad.reshape(n, 1, 1, s)
            mask = pad if mask is None else mask + pad
        return mask


_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    """The feed-forward activation: ``'relu'``, ``'gelu'`` or a callable."""
    if not isinstance(activation, str):
        return activation
    if activation not in _ACTIVATIONS:
        raise ValueError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


class _Layer(Module):
    """What the encoder and decoder layers share: ``_attentions`` attention blocks
    (``self_attn``, then ``multihead_attn``) and a feed-forward block, each with its own layer
    norm and dropout (``norm1``..., ``dropout1``...), registered in PyTorch's order."""

    _attentions = 1

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        activation = _activation(activation)
        for name in ("self_attn", "multihead_attn")[:self._attentions]:
            setattr(self, name, MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                   batch_first=batch_first, dtype=dtype))
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        blocks = range(1, self._attentions + 2)
        for i in blocks:
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        for i in blocks:
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = activation
        if device is not None:
            self.to(device)

    def _residual(self, x, *blocks):
        """Each block with a residual connection and its layer norm (``norm1``, ...): after the
        sum, or before the block with ``norm_first=True``; the feed-forward block comes last."""
        for i, block in enumerate(blocks + (self._ff_block,), 1):
            norm = getattr(self, f"norm{i}")
            x = x + block(norm(x)) if self.norm_first else norm(x + block(x))
        return x

    def _sa_block(self, x, mask, key_padding_mask, is_causal):
        out = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=key_padding_mask,
                             need_weights=False, is_causal=bool(is_causal))[0]
        return self.dropout1(out)

    def _ff_block(self, x):
        out = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, f"dropout{self._attentions + 1}")(out)


class TransformerEncoderLayer(_Layer):
    """Self-attention and a feed-forward block, each with dropout, a residual connection and
    layer norm: after each block (``norm_first=False``, the default) or before it."""

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        return self._residual(
            src, lambda x: self._sa_block(x, src_mask, src_key_padding_mask, is_causal))


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` in a row, then ``norm`` if given."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        return x if self.norm is None else self.norm(x)


class TransformerDecoderLayer(_Layer):
    """Self-attention over the target, attention over the encoder's output (``memory``) and a
    feed-forward block, each with dropout, a residual connection and layer norm (after each
    block, or before it with ``norm_first=True``); PyTorch's parameter names."""

    _attentions = 2

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        return self._residual(
            tgt, lambda x: self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal),
            lambda x: self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                      memory_is_causal))

    def _mha_block(self, x, mem, mask, key_padding_mask, is_causal):
        out = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=key_padding_mask,
                                  need_weights=False, is_causal=bool(is_causal))[0]
        return self.dropout2(out)


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` in a row, then ``norm`` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return x if self.norm is None else self.norm(x)


class Transformer(Module):
    """The encoder-decoder model of "Attention Is All You Need", with PyTorch's signature,
    parameter names (``encoder.layers.0.self_attn.in_proj_weight``, ..., ``decoder.norm.bias``),
    masks and initialisation (Xavier-uniform for every matrix).

        >>> import mutograd as mg
        >>> from mutograd import nn
        >>> model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1,
        ...                        num_decoder_layers=1, dim_feedforward=16, batch_first=True)
        >>> tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
        >>> model(mg.randn([2, 5, 8]), mg.randn([2, 4, 8]), tgt_mask=tgt_mask).shape
        [2, 4, 8]
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        kw = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                  layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first,
                  bias=bias, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(d_model, nhead, **kw), num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(d_model, nhead, **kw), num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batched = src.ndim == 3
        b = 0 if self.batch_first else 1
        if batched and src.shape[b] != tgt.shape[b]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if not batched and tgt.ndim != 2:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A float (sz, sz) mask: -inf above the diagonal (a position sees only the earlier
        ones), 0 elsewhere."""
        from ...ops.creation import tensor
        m = np.triu(np.full((sz, sz), -np.inf), 1)
        return tensor(m, dtype=dtype or "float32", device=device)
