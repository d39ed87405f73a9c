"""MultiheadAttention and the Transformer encoder against PyTorch on identical weights: outputs,
attention weights and every gradient, over masks, layouts and both norm placements."""
import numpy as np
import pytest

import mutograd as mg
from mutograd import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _same_weights(ours, theirs):
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})


def _masks(kind, n, L, s, heads, rng):
    if kind == "none":
        return {}
    if kind == "bool":
        return {"attn_mask": np.triu(np.ones((L, s), bool), 1)}
    if kind == "float":
        return {"attn_mask": rng.standard_normal((L, s))}
    if kind == "per-head":
        return {"attn_mask": rng.standard_normal((n * heads, L, s))}
    pad = np.zeros((n, s), bool)
    pad[0, -2:] = True
    return {"key_padding_mask": pad, "attn_mask": np.triu(np.ones((L, s), bool), 1)}


CASES = [(bf, kind, need, avg) for bf in (True, False)
         for kind in ("none", "bool", "float", "per-head", "padding")
         for need, avg in ((True, True), (True, False), (False, True))]


@pytest.mark.parametrize("batch_first,mask,need_weights,average", CASES,
                         ids=[f"{'bf' if c[0] else 'lne'}-{c[1]}-{'w' if c[2] else 'now'}"
                              f"{'' if c[3] else '-heads'}" for c in CASES])
def test_multihead_attention_matches_pytorch(batch_first, mask, need_weights, average):
    rng = np.random.default_rng(0)
    n, L, s, e, h = 2, 4, 5, 8, 2
    ours = nn.MultiheadAttention(e, h, batch_first=batch_first).double()
    theirs = torch.nn.MultiheadAttention(e, h, batch_first=batch_first).double()
    _same_weights(ours, theirs)
    shape_q, shape_kv = ((n, L, e), (n, s, e)) if batch_first else ((L, n, e), (s, n, e))
    arrays = [rng.standard_normal(shape_q), rng.standard_normal(shape_kv),
              rng.standard_normal(shape_kv)]
    masks = _masks(mask, n, L, s, h, rng)
    ts = [mg.tensor(a, requires_grad=True) for a in arrays]
    rs = [torch.tensor(a, requires_grad=True) for a in arrays]
    kw = {"need_weights": need_weights, "average_attn_weights": average}
    out, w = ours(*ts, **{k: mg.tensor(v) for k, v in masks.items()}, **kw)
    ref, rw = theirs(*rs, **{k: torch.tensor(v) for k, v in masks.items()}, **kw)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12)
    if need_weights:
        np.testing.assert_allclose(w.numpy(), rw.detach().numpy(), rtol=1e-9, atol=1e-12)
    else:
        assert w is None and rw is None
    g = rng.standard_normal(out.shape)
    (out * mg.tensor(g)).sum().backward()
    (ref * torch.tensor(g)).sum().backward()
    for t, r in zip(ts, rs):
        np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


def test_multihead_attention_unbatched_and_errors():
    ours = nn.MultiheadAttention(6, 3).double()
    theirs = torch.nn.MultiheadAttention(6, 3).double()
    _same_weights(ours, theirs)
    x = np.random.default_rng(1).standard_normal((4, 6))
    out, w = ours(mg.tensor(x), mg.tensor(x), mg.tensor(x))
    ref, rw = theirs(*(torch.tensor(x),) * 3)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), rw.detach().numpy(), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="divisible by num_heads"):
        nn.MultiheadAttention(6, 4)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        ours(mg.tensor(x), mg.tensor(x), mg.tensor(x), is_causal=True)
    with pytest.raises(mg.ShapeError, match="key_padding_mask must have shape"):
        ours(*(mg.tensor(x[:, None]),) * 3, key_padding_mask=mg.ones([2, 4], dtype="bool"))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_matches_pytorch(norm_first, activation):
    rng = np.random.default_rng(2)

    def build(m):
        layer = m.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                          activation=activation, batch_first=True,
                                          norm_first=norm_first)
        return m.TransformerEncoder(layer, 2, norm=m.LayerNorm(8), enable_nested_tensor=False)
    ours, theirs = build(nn).double(), build(torch.nn).double()
    assert [k for k in ours.state_dict()] == [k for k in theirs.state_dict()]
    _same_weights(ours, theirs)
    x = rng.standard_normal((3, 5, 8))
    causal = np.triu(np.ones((5, 5), bool), 1)
    pad = np.zeros((3, 5), bool)
    pad[1, -1] = True
    out = ours(mg.tensor(x), mask=mg.tensor(causal), src_key_padding_mask=mg.tensor(pad))
    ref = theirs(torch.tensor(x), mask=torch.tensor(causal),
                 src_key_padding_mask=torch.tensor(pad))
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-8, atol=1e-10)
    out.sum().backward()
    ref.sum().backward()
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-7, atol=1e-9,
                                   err_msg=name)
