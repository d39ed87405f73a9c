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


# calls PyTorch refuses, and the class it raises: ours raises an instance of that class
ERRORS = {
    "heads-do-not-divide": lambda m, x: m.nn.MultiheadAttention(6, 4),
    "no-heads": lambda m, x: m.nn.MultiheadAttention(6, 0),
    "causal-without-mask": lambda m, x: m.nn.MultiheadAttention(6, 3)(x, x, x, is_causal=True),
    "padding-mask-shape": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x[:, None], x[:, None], x[:, None], key_padding_mask=m.ones(2, 4, dtype=m.bool)),
    "padding-mask-ndim": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x, x, x, key_padding_mask=m.ones(1, 4, dtype=m.bool)),
    "padding-mask-dtype": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x, x, x, key_padding_mask=m.ones(4, dtype=m.int64)),
    "attn-mask-2d-shape": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x, x, x, attn_mask=m.ones(3, 4, dtype=m.bool)),
    "attn-mask-3d-shape": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x[:, None], x[:, None], x[:, None], attn_mask=m.ones(2, 4, 4, dtype=m.bool)),
    "unbatched-attn-mask-3d-shape": lambda m, x: m.nn.MultiheadAttention(6, 3)(
        x, x, x, attn_mask=m.ones(2, 4, 4, dtype=m.bool)),
    "key-not-batched": lambda m, x: m.nn.MultiheadAttention(6, 3)(x[:, None], x, x),
    "query-1d": lambda m, x: m.nn.MultiheadAttention(6, 3)(x[0], x[0], x[0]),
    "embed-dim": lambda m, x: m.nn.MultiheadAttention(6, 3)(x[:, :4], x, x),
    "key-value-lengths": lambda m, x: m.nn.MultiheadAttention(6, 3)(x, x, x[:3]),
    "transformer-feature-size": lambda m, x: m.nn.Transformer(4, 2, 1, 1, 8)(x, x),
    "transformer-batches": lambda m, x: m.nn.Transformer(6, 3, 1, 1, 8)(
        m.ones(4, 2, 6), m.ones(4, 3, 6)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_attention_refuses_what_pytorch_refuses(name):
    import mutograd.compat.torch as mt
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    with pytest.raises(Exception) as want:
        ERRORS[name](torch, torch.tensor(x))
    with pytest.raises(want.type):
        ERRORS[name](mt, mt.tensor(x))


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


# MultiheadAttention's options, each against PyTorch with keys shorter than, as long as and
# longer than the queries, batched and unbatched, with masks and weights of every form
VARIANTS = {"plain": {}, "bias_kv": {"add_bias_kv": True}, "zero_attn": {"add_zero_attn": True},
            "kdim-vdim": {"kdim": 4, "vdim": 2},
            "all": {"add_bias_kv": True, "add_zero_attn": True, "kdim": 5}}
CALLS = {   # name -> (batched, keyword arguments made from (rng, n, L, s, heads))
    "no-mask": (True, lambda r, n, L, s, h: {}),
    "masks-per-head-weights": (True, lambda r, n, L, s, h: {
        "key_padding_mask": _padding(n, s), "attn_mask": r.standard_normal((n * h, L, s)),
        "average_attn_weights": False}),
    "bool-mask-no-weights": (True, lambda r, n, L, s, h: {
        "attn_mask": np.triu(np.ones((L, s), bool), 1), "need_weights": False}),
    "causal-hint": (True, lambda r, n, L, s, h: {
        "attn_mask": np.triu(np.full((L, s), -np.inf), 1), "is_causal": True,
        "need_weights": False}),
    "causal-hint-padding": (True, lambda r, n, L, s, h: {
        "attn_mask": np.triu(np.ones((L, s), bool), 1), "is_causal": True,
        "key_padding_mask": _padding(n, s)}),
    "unbatched-masks": (False, lambda r, n, L, s, h: {
        "key_padding_mask": _padding(1, s)[0], "attn_mask": r.standard_normal((h, L, s))}),
    "unbatched-per-head-weights": (False, lambda r, n, L, s, h: {"average_attn_weights": False}),
}


def _padding(n, s):
    pad = np.zeros((n, s), bool)
    pad[0, -1] = True
    return pad


OPTION_CASES = [pytest.param(variant, call, bf, id=f"{variant}-{call}-{'bf' if bf else 'lne'}",
                             marks=() if variant == "all" else pytest.mark.slow)
                for variant in VARIANTS for call in CALLS for bf in (True, False)]


@pytest.mark.parametrize("variant, call, batch_first", OPTION_CASES)
def test_multihead_attention_options_match_pytorch(variant, call, batch_first):
    """The fast part takes every option at once ("all"); the others one by one are slow."""
    import mutograd.compat.torch as mt
    rng = np.random.default_rng(3)
    e, h, n, L = 6, 3, 2, 4
    kw = dict(embed_dim=e, num_heads=h, batch_first=batch_first, **VARIANTS[variant])
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(**kw).double()
    ours = mt.nn.MultiheadAttention(**kw).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _same_weights(ours, theirs)
    batched, make_kwargs = CALLS[call]
    for s in (2, 4, 7):
        if "causal" in call and s != L:
            continue
        dims = (e, kw.get("kdim", e), kw.get("vdim", e))
        shapes = [((n, length, d) if batch_first else (length, n, d)) if batched else (length, d)
                  for length, d in zip((L, s, s), dims)]
        arrays = [rng.standard_normal(shape) for shape in shapes]
        kwargs = make_kwargs(rng, n, L, s, h)
        ts = [mt.tensor(a, requires_grad=True) for a in arrays]
        rs = [torch.tensor(a, requires_grad=True) for a in arrays]
        out, w = ours(*ts, **{k: mt.tensor(v) if isinstance(v, np.ndarray) else v
                              for k, v in kwargs.items()})
        ref, rw = theirs(*rs, **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                                 for k, v in kwargs.items()})
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-9,
                                   atol=1e-12)
        assert (w is None) == (rw is None)
        if rw is not None:
            assert tuple(w.shape) == tuple(rw.shape)
            np.testing.assert_allclose(w.detach().numpy(), rw.detach().numpy(), rtol=1e-9,
                                       atol=1e-12)
        g = rng.standard_normal(tuple(ref.shape))
        ours.zero_grad()
        theirs.zero_grad()
        (out * mt.tensor(g)).sum().backward()
        (ref * torch.tensor(g)).sum().backward()
        for t, r in zip(ts, rs):
            np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-8, atol=1e-10)
        for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                       err_msg=name)


def test_multihead_attention_second_order_matches_finite_differences():
    import mutograd.compat.torch as mt
    mt.manual_seed(0)
    attn = mt.nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True, kdim=3,
                                    vdim=5).double()
    q = mt.randn(3, 4, dtype=mt.float64, requires_grad=True)
    k = mt.randn(2, 3, dtype=mt.float64, requires_grad=True)
    v = mt.randn(2, 5, dtype=mt.float64, requires_grad=True)
    pad = mt.tensor([False, True])
    for need_weights in (True, False):
        def f(q, k, v):
            return attn(q, k, v, key_padding_mask=pad, need_weights=need_weights)[0]
        assert mt.autograd.gradcheck(f, (q, k, v))
        assert mt.autograd.gradgradcheck(f, (q, k, v))


def test_functional_multi_head_attention_with_separate_and_static_weights():
    import mutograd.compat.torch as mt
    rng = np.random.default_rng(4)
    L, s, n, e, h = 3, 5, 2, 6, 2
    arrays = {"q": (L, n, e), "k": (s, n, 4), "v": (s, n, 4), "wq": (e, e), "wk": (e, 4),
              "wv": (e, 4), "b": (3 * e,), "wo": (e, e), "bo": (e,),
              "static_v": (n * h, s + 1, e // h)}
    arrays = {k: rng.standard_normal(shape) for k, shape in arrays.items()}
    outs = []
    for lib in (mt, torch):
        t = {k: lib.tensor(a) for k, a in arrays.items()}
        outs.append(lib.nn.functional.multi_head_attention_forward(
            t["q"], t["k"], t["v"], e, h, None, t["b"], None, None, False, 0.0, t["wo"],
            t["bo"], use_separate_proj_weight=True, q_proj_weight=t["wq"],
            k_proj_weight=t["wk"], v_proj_weight=t["wv"], average_attn_weights=False,
            static_k=lib.tensor(arrays["static_v"][::-1].copy()), static_v=t["static_v"]))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_unbatched_batch_first_matches_pytorch(norm_first):
    # the issue's case: an unbatched (S, E) input of a batch_first model
    import mutograd.compat.torch as mt
    rng = np.random.default_rng(5)
    kw = dict(d_model=4, nhead=2, dim_feedforward=8, num_encoder_layers=1,
              num_decoder_layers=1, dropout=0.0, batch_first=True, norm_first=norm_first)
    torch.manual_seed(0)
    theirs, ours = torch.nn.Transformer(**kw).double(), mt.nn.Transformer(**kw).double()
    _same_weights(ours, theirs)
    src, tgt = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    pad = np.array([False, False, True])
    out = ours(mt.tensor(src), mt.tensor(tgt), src_key_padding_mask=mt.tensor(pad))
    ref = theirs(torch.tensor(src), torch.tensor(tgt), src_key_padding_mask=torch.tensor(pad))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls", ["TransformerEncoderLayer", "TransformerDecoderLayer",
                                 "Transformer", "MultiheadAttention"])
def test_constructors_take_device_and_dtype(cls):
    import mutograd.compat.torch as mt
    args = (4, 2) if cls != "Transformer" else (4, 2, 1, 1, 8)
    m = getattr(mt.nn, cls)(*args, device="cpu", dtype=mt.float64)
    want = getattr(torch.nn, cls)(*args, device="cpu", dtype=torch.float64)
    assert {str(p.dtype) for p in m.parameters()} == {"torch.float64"}
    assert [k for k, _ in m.named_parameters()] == [k for k, _ in want.named_parameters()]


# TransformerEncoder in eval mode without gradients, where PyTorch takes its nested path for
# some configurations (the padded positions come out as 0) and not for others
NESTED = {   # name -> (layer keywords, encoder keywords, padding rows, with an attn mask)
    "nested": ({}, {}, [[0, 0, 1, 1], [0, 0, 0, 0]], False),
    "nested-gelu-norm": ({"activation": "gelu"}, {"norm": True}, [[0, 0, 0, 1]] * 2, False),
    "not-left-aligned": ({}, {}, [[0, 1, 0, 0], [0, 0, 0, 1]], False),
    "mask-check-off": ({}, {"mask_check": False}, [[0, 0, 1, 1]] * 2, False),
    "with-mask": ({}, {}, [[0, 0, 1, 1], [0, 0, 0, 0]], True),
    "norm-first": ({"norm_first": True}, {}, [[0, 0, 1, 1], [0, 0, 0, 0]], False),
    "seq-first": ({"batch_first": False}, {}, [[0, 0, 1, 1], [0, 0, 0, 0]], False),
    "nested-disabled": ({}, {"enable_nested_tensor": False}, [[0, 0, 1, 1]] * 2, False),
    "odd-heads": ({"nhead": 1}, {}, [[0, 0, 1, 1]] * 2, False),
}


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize("name", list(NESTED))
def test_transformer_encoder_eval_without_gradients_matches_pytorch(name):
    import mutograd.compat.torch as mt
    layer_kw, enc_kw, pad, with_mask = NESTED[name]
    layer_kw = {"nhead": 2, "batch_first": True, **layer_kw}
    enc_kw = dict(enc_kw)

    def build(m):
        kw = dict(enc_kw, norm=m.nn.LayerNorm(4) if enc_kw.get("norm") else None)
        return m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(
            4, dim_feedforward=8, dropout=0.0, **layer_kw), 2, **kw).double().eval()
    torch.manual_seed(0)
    theirs, ours = build(torch), build(mt)
    _same_weights(ours, theirs)
    x = np.random.default_rng(6).standard_normal((2, 4, 4))
    if not layer_kw["batch_first"]:
        x = x.swapaxes(0, 1).copy()
    kw = {"src_key_padding_mask": np.array(pad, bool)}
    if with_mask:
        kw["mask"] = np.zeros((4, 4), bool)
    with torch.no_grad():
        ref = theirs(torch.tensor(x), **{k: torch.tensor(v) for k, v in kw.items()})
    with mt.no_grad():
        out = ours(mt.tensor(x), **{k: mt.tensor(v) for k, v in kw.items()})
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-9, atol=1e-12)
    # with gradients PyTorch takes the ordinary path: no position is zeroed
    xt = torch.tensor(x, requires_grad=True)
    ref = theirs(xt, **{k: torch.tensor(v) for k, v in kw.items()})
    out = ours(mt.tensor(x, requires_grad=True), **{k: mt.tensor(v) for k, v in kw.items()})
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
