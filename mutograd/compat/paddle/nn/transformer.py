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
        return x.reshape([n, s, self.num_heads, self.head_dim]).transpose([0, 2, 1, 3])

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if cache is not None:
            raise ValueError("MultiHeadAttention: incremental decoding caches are not "
                             "supported; pass the whole sequence")
        key = query if key is None else key
        value = key if value is None else value
        q = self._heads(self.q_proj(query))
        k, v = self._heads(self.k_proj(key)), self._heads(self.v_proj(value))
        scores = (q * (self.head_dim ** -0.5)).matmul(k.transpose([0, 1, 3, 2]))
        mask = _additive(attn_mask, scores.dtype)
        if mask is not None:
            scores = scores + mask
        weights = F.softmax(scores, axis=-1)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training)
        out = weights.matmul(v).transpose([0, 2, 1, 3])
        out = self.out_proj(out.reshape([out.shape[0], out.shape[1], self.embed_dim]))
        return (out, weights) if self.need_weights else out


def _activation(name):
    return {"relu": F.relu, "gelu": F.gelu}[name]


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward block, each with a residual and a LayerNorm (after
    it, or before with ``normalize_before``)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                            weight_attr=_attr(weight_attr, 0),
                                            bias_attr=_attr(bias_attr, 0))
        self.linear1 = Linear(d_model, dim_feedforward, _attr(weight_attr, 1),
                              _attr(bias_attr, 1))
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, _attr(weight_attr, 1),
                              _attr(bias_attr, 1))
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1, self.dropout2 = Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)

    def _block(self, x, norm, body, drop):
        y = norm(x) if self.normalize_before else x
        x = x + drop(body(y))
        return x if self.normalize_before else norm(x)

    def forward(self, src, src_mask=None, cache=None):
        src = self._block(src, self.norm1, lambda y: self.self_attn(y, y, y, src_mask, cache),
                          self.dropout1)
        return self._block(src, self.norm2, lambda y: self.linear2(self.dropout(
            self.activation(self.linear1(y)))), self.dropout2)


class TransformerEncoder(Layer):
    """``num_layers`` encoder layers (the first is ``encoder_layer``, the others new layers of
    its configuration), then ``norm``."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(
            **encoder_layer._config) for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        for layer in self.layers:
            src = layer(src, src_mask)
        return self.norm(src) if self.norm is not None else src


class TransformerDecoderLayer(Layer):
    """Self-attention, attention over ``memory``, then a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        super().__init__()
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward,
                            dropout=dropout, activation=activation, attn_dropout=attn_dropout,
                            act_dropout=act_dropout, normalize_before=normalize_before,
                            weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        self.self_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                            weight_attr=_attr(weight_attr, 0),
                                            bias_attr=_attr(bias_attr, 0))
        self.cross_attn = MultiHeadAttention(d_model, nhead, attn_dropout,
                                             weight_attr=_attr(weight_attr, 1),
                                             bias_attr=_attr(bias_attr, 1))
        self.linear1 = Linear(d_model, dim_feedforward, _attr(weight_attr, 2),
                              _attr(bias_attr, 2))
        self.dropout = Dropout(act_dropout)
        self.linear2 = Linear(dim_feedforward, d_model, _attr(weight_attr, 2),
                              _attr(bias_attr, 2))
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(dropout), Dropout(dropout),
                                                       Dropout(dropout))
        self.activation = _activation(activation)

    _block = TransformerEncoderLayer._block

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt = self._block(tgt, self.norm1, lambda y: self.self_attn(y, y, y, tgt_mask, cache),
                          self.dropout1)
        tgt = self._block(tgt, self.norm2, lambda y: self.cross_attn(y, memory, memory,
                                                                     memory_mask, cache),
                          self.dropout2)
        return self._block(tgt, self.norm3, lambda y: self.linear2(self.dropout(
            self.activation(self.linear1(y)))), self.dropout3)


class TransformerDecoder(Layer):
    """``num_layers`` decoder layers, then ``norm``."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(
            **decoder_layer._config) for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask, memory_mask)
        return self.norm(tgt) if self.norm is not None else tgt


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
