"""Every attention module that takes an unbatched input ((L, E) rather than (L, N, E) or
(N, L, E)) treats it exactly as a batch of one, whatever ``batch_first`` says: same output, same
attention weights, same gradients of the inputs and the parameters, with its masks too (an
unbatched ``key_padding_mask`` is (S,), a per-head ``attn_mask`` (num_heads, L, S))."""
import numpy as np
import pytest

import mutograd as mg
from mutograd import nn

E, H = 6, 3          # embedding size, heads
L, S = 4, 5          # query and key lengths


def _layer(cls, batch_first, norm_first=False):
    return cls(E, H, dim_feedforward=8, dropout=0.0, batch_first=batch_first,
               norm_first=norm_first)


def _mask(rng, *shape, kind="bool"):
    if kind == "bool":        # True: may not attend; never a whole row
        m = rng.random(shape) < 0.3
        m[..., 0] = False
        return m
    return rng.standard_normal(shape)


# name, module(batch_first), unbatched positional inputs' shapes, keyword masks (name -> array
# or a function of the rng), the keyword masks that are key padding masks
CASES = {
    "MultiheadAttention": (
        lambda bf: nn.MultiheadAttention(E, H, batch_first=bf),
        [(L, E), (S, E), (S, E)], {}),
    "MultiheadAttention-masks": (
        lambda bf: nn.MultiheadAttention(E, H, batch_first=bf),
        [(L, E), (S, E), (S, E)],
        {"key_padding_mask": lambda r: _mask(r, S), "attn_mask": lambda r: _mask(r, L, S, kind="f"),
         "average_attn_weights": False}),
    "MultiheadAttention-bias_kv-zero_attn-per-head-mask": (
        lambda bf: nn.MultiheadAttention(E, H, add_bias_kv=True, add_zero_attn=True,
                                         batch_first=bf),
        [(L, E), (S, E), (S, E)],
        {"key_padding_mask": lambda r: _mask(r, S), "attn_mask": lambda r: _mask(r, H, L, S)}),
    "MultiheadAttention-kdim-vdim-no-weights": (
        lambda bf: nn.MultiheadAttention(E, H, kdim=4, vdim=2, batch_first=bf),
        [(L, E), (S, 4), (S, 2)],
        {"attn_mask": lambda r: _mask(r, L, S), "need_weights": False}),
    "TransformerEncoderLayer": (
        lambda bf: _layer(nn.TransformerEncoderLayer, bf),
        [(L, E)], {"src_mask": lambda r: _mask(r, L, L),
                   "src_key_padding_mask": lambda r: _mask(r, L)}),
    "TransformerEncoderLayer-norm_first": (
        lambda bf: _layer(nn.TransformerEncoderLayer, bf, norm_first=True),
        [(L, E)], {"src_key_padding_mask": lambda r: _mask(r, L)}),
    "TransformerEncoder": (
        lambda bf: nn.TransformerEncoder(_layer(nn.TransformerEncoderLayer, bf), 2,
                                         norm=nn.LayerNorm(E), enable_nested_tensor=False),
        [(L, E)], {"mask": lambda r: _mask(r, L, L, kind="f"),
                   "src_key_padding_mask": lambda r: _mask(r, L)}),
    "TransformerDecoderLayer": (
        lambda bf: _layer(nn.TransformerDecoderLayer, bf),
        [(L, E), (S, E)], {"tgt_mask": lambda r: _mask(r, L, L),
                           "memory_mask": lambda r: _mask(r, L, S),
                           "tgt_key_padding_mask": lambda r: _mask(r, L),
                           "memory_key_padding_mask": lambda r: _mask(r, S)}),
    "TransformerDecoder-norm_first": (
        lambda bf: nn.TransformerDecoder(_layer(nn.TransformerDecoderLayer, bf, norm_first=True),
                                         2, norm=nn.LayerNorm(E)),
        [(L, E), (S, E)], {"memory_key_padding_mask": lambda r: _mask(r, S)}),
    "Transformer": (
        lambda bf: nn.Transformer(E, H, 1, 1, 8, dropout=0.0, batch_first=bf),
        [(S, E), (L, E)], {"src_key_padding_mask": lambda r: _mask(r, S),
                           "tgt_mask": nn.Transformer.generate_square_subsequent_mask(L)
                           .numpy()}),
    "Transformer-norm_first": (
        lambda bf: nn.Transformer(E, H, 1, 1, 8, dropout=0.0, batch_first=bf, norm_first=True),
        [(S, E), (L, E)], {}),
}
KEY_PADDING_MASKS = {"key_padding_mask", "src_key_padding_mask", "tgt_key_padding_mask",
                     "memory_key_padding_mask"}


def _run(module, arrays, masks, batch_dim):
    """The module on ``arrays`` (with ``batch_dim`` inserted unless None): the outputs and the
    gradients of the inputs and parameters for a fixed cotangent of each output."""
    inputs = [mg.tensor(a if batch_dim is None else np.expand_dims(a, batch_dim),
                        requires_grad=True) for a in arrays]
    kwargs = {k: mg.tensor(v if batch_dim is None or k not in KEY_PADDING_MASKS
                           else v[None]) if isinstance(v, np.ndarray) else v
              for k, v in masks.items()}
    module.zero_grad()
    out = module(*inputs, **kwargs)
    outs = [t for t in (out if isinstance(out, tuple) else (out,)) if t is not None]
    rng = np.random.default_rng(7)   # a size-1 batch leaves the order of the elements as is
    loss = 0
    for t in outs:
        loss = loss + (t * mg.tensor(rng.standard_normal(t.numel()).reshape(t.shape))).sum()
    loss.backward()
    grads = [t.grad.numpy() for t in inputs] + \
        [p.grad.numpy() for p in module.parameters()]
    return [t.detach().numpy() for t in outs], grads


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("batch_first", [True, False], ids=["batch_first", "seq_first"])
@pytest.mark.parametrize("name", list(CASES))
def test_unbatched_input_is_a_batch_of_one(name, batch_first, training):
    build, shapes, masks = CASES[name]
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    masks = {k: v(rng) if callable(v) else v for k, v in masks.items()}
    mg.manual_seed(0)
    module = build(batch_first).double().train(training)
    outs, grads = _run(module, arrays, masks, None)
    outs_b, grads_b = _run(module, arrays, masks, 0 if batch_first else 1)
    assert len(outs) == len(outs_b)
    for i, (o, b) in enumerate(zip(outs, outs_b)):
        # the output has the batch at batch_first's place; the weights always lead with it
        b = b[0] if i or batch_first else b[:, 0]
        assert o.shape == b.shape, f"output {i}: {o.shape} unbatched, {b.shape} batched"
        np.testing.assert_allclose(o, b, rtol=1e-12, atol=1e-12, err_msg=f"output {i}")
    for i, (g, b) in enumerate(zip(grads, grads_b)):
        np.testing.assert_allclose(g, b.reshape(g.shape), rtol=1e-12, atol=1e-12,
                                   err_msg=f"gradient {i}")
