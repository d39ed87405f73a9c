"""Paddle's attention and Transformer layers: ``MultiHeadAttention`` (``q_proj``, ``k_proj``,
``v_proj``, ``out_proj``, inputs ``[batch, seq, embed]``), ``TransformerEncoderLayer`` /
``TransformerEncoder``, ``TransformerDecoderLayer`` / ``TransformerDecoder`` and ``Transformer``,
with Paddle's parameter names, ``normalize_before`` and masks (bool: True attends; float:
added to the scores).

    >>> import mutograd.compat.paddle as paddle
    >>> layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    >>> enc = paddle.nn.TransformerEncoder(layer, num_layers=2)
    >>> list(enc(paddle.randn([3, 5, 8])).shape), len(enc.parameters())
    ([3, 5, 8], 32)
"""
import math

from .... import nn as _nn
from ....ops.creation import full
from . import functional as F
from .layers import Dropout, Layer, LayerList, LayerNorm, Linear


def _attr(attrs, i):
    """Paddle's per-component attributes: a list gives component ``i`` its own."""
    if isinstance(attrs, (list, tuple)):
        return attrs[i] if i < len(attrs) else attrs[-1]
    return attrs


def _additive(mask, dtype):
    """A bool or integer mask (True/nonzero: attend) as scores to add (-1e9 elsewhere)."""
    if mask is None or mask._data.dtype.kind == "f":
        return mask
    return (mask.astype(dtype) - 1.0) * 1e9


def _no_cache(cache):
    if cache is not None:
        raise ValueError("MultiHeadAttention: incremental decoding caches are not "
                         "supported; pass the whole sequence")


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over ``num_heads`` heads of ``embed_dim / num_heads``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None,
                 need_weights=False, weight_attr=None, bias_attr=None):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads "
                             f"({num_heads})")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.dropout, self.need_weights = dropout, need_weights
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = Linear(kdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.v_proj = Linear(vdim or embed_dim, embed_dim, weight_attr, bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        n, s = x.shape[0], x.shape[1]
        return x.reshape([n, s, self.num_heads, self.head_dim]).permute([0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        _no_cache(cache)
        key = query if key is None else key
        value = key if value is None else value
        q = self._heads(self.q_proj(query))
        k, v = self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        scores = (q * (self.head_dim ** -0.5)).matmul(k.permute([0, 1, 3, 2]))
        mask = _additive(attn_mask, scores.dtype)
        if mask is not None:
            scores = scores + mask
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training)
        out = weights.matmul(v).permute([0, 2, 1, 3])
        out = self.out_proj(out.reshape([out.shape[0], out.shape[1], self.embed_dim]))
        return (out, weights) if self.need_weights else out


def _activation(name):
    return {"relu": F.relu, "gelu": F.gelu}[name]


class _PaddleTransformerLayer(Layer):
    """What Paddle's encoder and decoder layers share: their configuration (the stacks build
    their other layers from it), the attention sublayers ``attn_names`` (component ``i`` of a
    list ``weight_attr``/``bias_attr`` for the ``i``-th, the next for the feed-forward
    block), the feed-forward block, a LayerNorm and a dropout per block. The forward pass is
    ``mutograd.nn``'s (``normalize_before`` is its ``norm_first``): the same residual blocks."""

    def _build(self, attn_names, d_model, nhead, dim_feedforward, dropout, activation,
               attn_dropout, act_dropout, normalize_before, weight_attr, bias_attr,
               layer_norm_eps):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = self.norm_first = normalize_before
        for i, name in enumerate(attn_names):
            setattr(self, name, MultiHeadAttention(d_model, nhead, attn_dropout,
                                                   weight_attr=_attr(weight_attr, i),
                                                   bias_attr=_attr(bias_attr, i)))
        ff = len(attn_names)
        self.linear1 = Linear(d_model, dim_feedforward, _attr(weight_attr, ff),
                              _attr(bias_attr, ff))
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, _attr(weight_attr, ff),
                              _attr(bias_attr, ff))
        for i in range(1, ff + 2):
            setattr(self, f"norm{i}", LayerNorm(d_model, layer_norm_eps))
        for i in range(1, ff + 2):
            setattr(self, f"dropout{i}", Dropout(dropout))
        self.activation = _activation(activation)

    def _sa_block(self, x, mask, key_padding_mask=None, is_causal=False):
        return self.dropout1(self.self_attn(x, x, x, mask))


class TransformerEncoderLayer(_PaddleTransformerLayer, _nn.TransformerEncoderLayer):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm (after
    it, or before with ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        Layer.__init__(self)        # Paddle's sublayers, not the PyTorch-named ones
        self._build(("self_attn",), d_model, nhead, dim_feedforward, dropout, activation,
                    attn_dropout, act_dropout, normalize_before, weight_attr, bias_attr,
                    layer_norm_eps)

    def forward(self, src, src_mask=None, cache=None):
        _no_cache(cache)
        return super().forward(src, src_mask)


class TransformerDecoderLayer(_PaddleTransformerLayer, _nn.TransformerDecoderLayer):
    """Self-attention, attention over ``memory``, then a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        Layer.__init__(self)
        self._build(("self_attn", "cross_attn"), d_model, nhead, dim_feedforward, dropout,
                    activation, attn_dropout, act_dropout, normalize_before, weight_attr,
                    bias_attr, layer_norm_eps)

    def _mha_block(self, x, mem, mask, key_padding_mask=None, is_causal=False):
        return self.dropout2(self.cross_attn(x, mem, mem, mask))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        _no_cache(cache)
        return super().forward(tgt, memory, tgt_mask, memory_mask)


class _Stack(Layer):
    """``num_layers`` layers (the first is ``layer``, the others new layers of its
    configuration), then ``norm``."""

    def __init__(self, layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([layer if i == 0 else type(layer)(**layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def _run(self, x, *args):
        for layer in self.layers:
            x = layer(x, *args)
        return self.norm(x) if self.norm is not None else x


class TransformerEncoder(_Stack):
    """``num_layers`` encoder layers (the first is ``encoder_layer``, the others new layers of
    its configuration), then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__(encoder_layer, num_layers, norm)

    def forward(self, src, src_mask=None, cache=None):
        return self._run(src, src_mask)


class TransformerDecoder(_Stack):
    """``num_layers`` decoder layers, then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__(decoder_layer, num_layers, norm)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        return self._run(tgt, memory, tgt_mask, memory_mask)


class Transformer(Layer):
    """An encoder and a decoder stack, each ending in a LayerNorm."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        kw = dict(dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                  act_dropout=act_dropout, normalize_before=normalize_before,
                  weight_attr=weight_attr, bias_attr=bias_attr)
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, **kw), num_encoder_layers,
            LayerNorm(d_model))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, **kw), num_decoder_layers,
            LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        memory = self.encoder(src, src_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask)

    @staticmethod
    def generate_square_subsequent_mask(length):
        """A [length, length] float mask: 0 on and below the diagonal, -inf above."""
        mask = full([length, length], -math.inf)
        return mask.triu(1)
