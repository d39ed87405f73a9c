"""``nn.Transformer`` (encoder-decoder) and its decoder layers against PyTorch: the same
parameter names in the same order, and with PyTorch's weights the same outputs and gradients,
with every kind of mask."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

pytestmark = pytest.mark.torch

D, H, FF = 8, 2, 16


def _pair(torch, **kw):
    torch.manual_seed(0)
    ref = torch.nn.Transformer(d_model=D, nhead=H, num_encoder_layers=2, num_decoder_layers=2,
                               dim_feedforward=FF, **kw).double().eval()
    ours = mt.nn.Transformer(d_model=D, nhead=H, num_encoder_layers=2, num_decoder_layers=2,
                             dim_feedforward=FF, dtype=mt.float64, **kw).eval()
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return ref, ours


def test_parameter_names_and_order_match_pytorch():
    torch = pytest.importorskip("torch")
    for kw in ({}, {"norm_first": True, "bias": False}):
        ref, ours = _pair(torch, **kw)
        assert [(n, list(p.shape)) for n, p in ours.named_parameters()] == \
               [(n, list(p.shape)) for n, p in ref.named_parameters()]


@pytest.mark.parametrize("kw, masks", [
    ({}, {}),
    ({"batch_first": True}, {"tgt_mask": "causal"}),
    ({"norm_first": True}, {"tgt_mask": "causal", "src_key_padding_mask": "pad",
                            "memory_key_padding_mask": "pad"}),
    ({"activation": "gelu", "batch_first": True},
     {"tgt_key_padding_mask": "tpad", "memory_mask": "bool", "src_mask": "float"}),
])
def test_outputs_and_gradients_match_pytorch(kw, masks):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    S, T_, N = 5, 4, 3
    bf = kw.get("batch_first", False)
    src = rng.standard_normal((N, S, D) if bf else (S, N, D))
    tgt = rng.standard_normal((N, T_, D) if bf else (T_, N, D))
    pad = np.zeros((N, S), bool)
    pad[0, -2:] = True
    tpad = np.zeros((N, T_), bool)
    tpad[1, -1] = True
    mem_bool = np.zeros((T_, S), bool)
    mem_bool[:, 0] = True
    src_float = rng.standard_normal((S, S)) * 0.1

    def make(T, name):
        kind = masks[name]
        if kind == "causal":
            return T.nn.Transformer.generate_square_subsequent_mask(T_, dtype=T.float64)
        return T.tensor({"pad": pad, "tpad": tpad, "bool": mem_bool, "float": src_float}[kind])

    ref, ours = _pair(torch, **kw)
    res = []
    for T, model in ((torch, ref), (mt, ours)):
        s = T.tensor(src, requires_grad=True)
        t = T.tensor(tgt, requires_grad=True)
        out = model(s, t, **{k: make(T, k) for k in masks})
        (out * T.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        res.append([out.detach().numpy(), s.grad.numpy(), t.grad.numpy()]
                   + [p.grad.numpy() for _, p in model.named_parameters()])
    for want, got in zip(*res):
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_square_subsequent_mask_and_checks():
    m = mt.nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == mt.float32 and np.isinf(m.numpy()[0, 1]) and m.numpy()[1, 0] == 0
    model = mt.nn.Transformer(d_model=D, nhead=H, num_encoder_layers=1, num_decoder_layers=1,
                              dim_feedforward=FF)
    with pytest.raises(RuntimeError, match="batch number of src and tgt"):
        model(mt.randn(5, 2, D), mt.randn(4, 3, D))
    with pytest.raises(RuntimeError, match="equal to d_model"):
        model(mt.randn(5, 2, D + 1), mt.randn(4, 2, D + 1))
