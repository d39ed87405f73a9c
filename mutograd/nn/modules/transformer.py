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

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ...ops.creation import empty, zeros
from .. import functional as F
from .. import init
from ..module import Module, Parameter
from .activation import GELU, ReLU
from .containers import ModuleList
from .dropout import Dropout
from .linear import Linear, NonDynamicallyQuantizableLinear
from .normalization import LayerNorm


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads``, PyTorch's
    ``nn.MultiheadAttention``. The projections of query, key and value are ``in_proj_weight``
    (3E, E), or ``q_proj_weight`` (E, E), ``k_proj_weight`` (E, kdim) and ``v_proj_weight``
    (E, vdim) when ``kdim``/``vdim`` differ from ``embed_dim``; ``in_proj_bias`` (3E);
    ``out_proj`` joins the heads; ``add_bias_kv`` learns one more key and value (``bias_k``,
    ``bias_v``), ``add_zero_attn`` adds a zero one. Inputs are (L, N, E), or (N, L, E) with
    ``batch_first=True``, or unbatched (L, E), which behaves as a batch of one whatever
    ``batch_first`` says. Masks and results: :func:`mutograd.nn.functional.
    multi_head_attention_forward`.

        >>> import mutograd as mg
        >>> from mutograd import nn
        >>> attn = nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True)
        >>> out, weights = attn(mg.randn([2, 4, 8]), mg.randn([2, 6, 5]), mg.randn([2, 6, 3]))
        >>> out.shape, weights.shape
        ([2, 4, 8], [2, 4, 6])
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout, self.batch_first = dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty([3 * embed_dim, embed_dim], dtype=dtype))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(empty([embed_dim, embed_dim], dtype=dtype))
            self.k_proj_weight = Parameter(empty([embed_dim, self.kdim], dtype=dtype))
            self.v_proj_weight = Parameter(empty([embed_dim, self.vdim], dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(zeros([3 * embed_dim], dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(empty([1, 1, embed_dim], dtype=dtype))
            self.bias_v = Parameter(empty([1, 1, embed_dim], dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()
        if device is not None:
            self.to(device)

    def _reset_parameters(self):
        """Xavier-uniform projections, zero biases, Xavier-normal ``bias_k``/``bias_v``."""
        for w in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight,
                  self.v_proj_weight):
            if w is not None:
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        batched = query.ndim == 3
        if self.batch_first and batched:   # the functional form takes (L, N, E)
            query, key, value = (t.swapaxes(0, 1) for t in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            out = out.swapaxes(0, 1)
        return out, weights


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
    """``num_layers`` deep copies of ``encoder_layer`` in a row, then ``norm`` if given.

    Note [Padded positions of the encoder's nested path]
        With ``enable_nested_tensor`` (the default) PyTorch runs a batch whose padding is
        given (``src_key_padding_mask``, padding only at the end of each row) as a nested
        tensor of the unpadded rows when nothing needs a gradient and the model is in eval
        mode, for a batch-first layer with bias, an even number of heads, ReLU or GELU and
        ``norm_first=False``: the padded positions then come out as 0 (before ``norm``). The
        other positions have the same values on either path; so here the same conditions
        zero the padded positions, and nothing else changes.
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = enable_nested_tensor and _nested_path_layer(encoder_layer)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        padded = self._nested_padding(src, mask, src_key_padding_mask)
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                      is_causal=bool(is_causal))
        if padded is not None:
            x = x.masked_fill(padded.unsqueeze(-1), 0.0)
        return x if self.norm is None else self.norm(x)

    def _nested_padding(self, src, mask, key_padding_mask):
        """The padded positions (N, S) that PyTorch's nested path leaves at 0, or None when it
        would not take that path (Note [Padded positions of the encoder's nested path])."""
        first = self.layers[0] if len(self.layers) else None
        if not self.use_nested_tensor or first is None or first.training or src.ndim != 3 \
                or key_padding_mask is None or mask is not None:
            return None
        watched = (src, first.self_attn.in_proj_weight, first.self_attn.in_proj_bias,
                   first.self_attn.out_proj.weight, first.self_attn.out_proj.bias,
                   first.norm1.weight, first.norm1.bias, first.norm2.weight, first.norm2.bias,
                   first.linear1.weight, first.linear1.bias, first.linear2.weight,
                   first.linear2.bias)
        if is_grad_enabled() and any(t is not None and t.requires_grad for t in watched):
            return None
        padded = key_padding_mask if key_padding_mask.dtype.np == np.bool_ else \
            key_padding_mask != 0
        if self.mask_check and bool((padded[:, :-1] & ~padded[:, 1:]).any()):
            return None           # padding not only at the end of each row: no nested path
        return padded


def _nested_path_layer(layer):
    """Whether PyTorch's nested path can run ``layer`` (Note [Padded positions of the
    encoder's nested path])."""
    if not isinstance(layer, TransformerEncoderLayer):
        return False
    attn = layer.self_attn
    activation = layer.activation
    relu_or_gelu = isinstance(activation, (ReLU, GELU)) or (
        getattr(activation, "__name__", None) in ("relu", "gelu")
        and getattr(activation, "__module__", "").startswith("mutograd."))
    return (not layer.norm_first and attn.batch_first and attn._qkv_same_embed_dim
            and attn.in_proj_bias is not None and relu_or_gelu
            and layer.norm1.eps == layer.norm2.eps and attn.num_heads % 2 == 0)


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
