"""PyTorch's remaining losses, distances and simple layers (mutograd/nn/functional/ and
mutograd/nn/modules/) through ``mutograd.compat.torch`` and real PyTorch on the same data:
values and the gradients of every floating input must agree."""
import numpy as np
import pytest

import mutograd.compat.torch as mt

pytestmark = pytest.mark.torch
R = np.random.default_rng(0)
X = R.standard_normal((4, 5))
Y = R.standard_normal((4, 5))
Z = R.standard_normal((4, 5))
SIGN = np.array([1.0, -1.0, 1.0, -1.0])
IMG = R.standard_normal((2, 8, 3, 3))
VOL = R.standard_normal((2, 4, 3, 3, 3))
LBL = np.array([1, 0, 4, 2])
ML = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, -1, 2, 2, 2], [4, 3, 2, 1, 0]])
W = R.standard_normal((3, 5, 4))
X4 = R.standard_normal((4, 4))
POS = np.abs(R.standard_normal((4, 5))) + 0.1
COUNTS = np.array([[0., 1., 3., 2., 5.]] * 4)

def _pad_case(kind, d):
    def f(T, a):
        args = ((1, 2) * d,) + ((0.5,) if kind == "Constant" else ())
        return (getattr(T.nn, f"{kind}Pad{d}d")(*args)(a) * 1.5).exp()
    return f


# (id, inputs (arrays; floats get gradients), f(T, *inputs))
CASES = [
    ("pairwise_distance", [X, Y], lambda T, a, b: T.nn.functional.pairwise_distance(a, b)),
    ("pairwise_distance_p1", [X, Y],
     lambda T, a, b: T.nn.functional.pairwise_distance(a, b, p=1.0, keepdim=True)),
    ("PairwiseDistance", [X, Y], lambda T, a, b: T.nn.PairwiseDistance(p=3)(a, b)),
    ("pdist", [X], lambda T, a: T.nn.functional.pdist(a)),
    ("margin_ranking_loss", [X[:, 0], Y[:, 0]],
     lambda T, a, b: T.nn.functional.margin_ranking_loss(a, b, T.tensor(SIGN), margin=0.3)),
    ("soft_margin_loss", [X[:, 0]],
     lambda T, a: T.nn.SoftMarginLoss(reduction="sum")(a, T.tensor(SIGN))),
    ("hinge_embedding_loss", [X[:, 0]],
     lambda T, a: T.nn.functional.hinge_embedding_loss(a, T.tensor(SIGN), margin=0.5,
                                                       reduction="none")),
    ("cosine_embedding_loss", [X, Y],
     lambda T, a, b: T.nn.CosineEmbeddingLoss(margin=0.1)(a, b, T.tensor(SIGN))),
    ("multilabel_soft_margin_loss", [X],
     lambda T, a: T.nn.MultiLabelSoftMarginLoss(weight=T.tensor(POS[0]))(
         a, T.tensor((Y > 0).astype(np.float64)))),
    ("multi_margin_loss", [X],
     lambda T, a: T.nn.functional.multi_margin_loss(a, T.tensor(LBL), margin=0.7)),
    ("multi_margin_loss_p2_weight", [X],
     lambda T, a: T.nn.MultiMarginLoss(p=2, weight=T.tensor(POS[0]), reduction="none")(
         a, T.tensor(LBL))),
    ("multilabel_margin_loss", [X],
     lambda T, a: T.nn.MultiLabelMarginLoss()(a, T.tensor(ML))),
    ("triplet_margin_loss", [X, Y, Z],
     lambda T, a, b, c: T.nn.functional.triplet_margin_loss(a, b, c, margin=2.0)),
    ("triplet_margin_loss_swap", [X, Y, Z],
     lambda T, a, b, c: T.nn.TripletMarginLoss(p=1, swap=True, reduction="sum")(a, b, c)),
    ("triplet_with_distance", [X, Y, Z],
     lambda T, a, b, c: T.nn.TripletMarginWithDistanceLoss(
         distance_function=lambda u, v: 1 - T.nn.functional.cosine_similarity(u, v))(a, b, c)),
    ("gaussian_nll_loss", [X, Y, POS],
     lambda T, a, b, v: T.nn.GaussianNLLLoss(full=True)(a, b, v)),
    ("gaussian_nll_loss_vec_var", [X, Y, POS[:, 0]],
     lambda T, a, b, v: T.nn.functional.gaussian_nll_loss(a, b, v, reduction="sum")),
    ("poisson_nll_loss", [X], lambda T, a: T.nn.PoissonNLLLoss()(a, T.tensor(COUNTS))),
    ("poisson_nll_loss_full", [POS],
     lambda T, a: T.nn.functional.poisson_nll_loss(a, T.tensor(COUNTS), log_input=False,
                                                   full=True)),
    ("pixel_shuffle", [IMG], lambda T, a: T.nn.PixelShuffle(2)(a) * T.arange(36.).reshape(6, 6)),
    ("pixel_unshuffle", [IMG[:, :2, :2, :2].copy()],
     lambda T, a: T.nn.functional.pixel_unshuffle(a, 2) * T.arange(8.).reshape(8, 1, 1)),
    ("channel_shuffle", [IMG],
     lambda T, a: T.nn.ChannelShuffle(4)(a) * T.arange(8.).reshape(8, 1, 1)),
    ("softmin", [X], lambda T, a: T.nn.Softmin(dim=1)(a) * T.tensor(Y)),
    ("softmax2d", [IMG], lambda T, a: T.nn.Softmax2d()(a) * T.tensor(IMG)),
    ("threshold", [X], lambda T, a: T.nn.Threshold(0.1, -2.0)(a)),
    ("glu", [X4], lambda T, a: T.nn.GLU()(a) * T.tensor(X4[:, :2])),
    ("unflatten", [X4], lambda T, a: T.nn.Unflatten(1, (2, 2))(a) * T.arange(4.).reshape(2, 2)),
    ("bilinear", [X[:, :5], Y[:, :4], W],
     lambda T, a, b, w: T.nn.functional.bilinear(a, b, w, T.ones(3, dtype=T.float64))),
    ("instance_norm", [IMG], lambda T, a: T.nn.functional.instance_norm(a) * T.tensor(IMG)),
    ("instance_norm_affine", [VOL],
     lambda T, a: T.nn.InstanceNorm3d(4, affine=True).double()(a) * T.tensor(VOL)),
    ("local_response_norm", [IMG],
     lambda T, a: T.nn.LocalResponseNorm(3, alpha=0.1, k=2.0)(a) * T.tensor(IMG)),
    ("upsample_nearest", [IMG], lambda T, a: T.nn.UpsamplingNearest2d(scale_factor=2)(a)),
    ("upsample_bilinear", [IMG], lambda T, a: T.nn.UpsamplingBilinear2d(size=(5, 4))(a)
     * T.arange(20.).reshape(5, 4)),
    *[(f"{kind}Pad{d}d", [VOL[(slice(None), slice(None)) + (0,) * (3 - d)]], _pad_case(kind, d))
      for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular") for d in (1, 2, 3)],
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_values_and_gradients_as_pytorch(case):
    torch = pytest.importorskip("torch")
    _, arrays, f = case
    res = []
    for T in (torch, mt):
        ts = [T.tensor(a, requires_grad=True) for a in arrays]
        out = f(T, *ts)
        (out * T.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))).sum() \
            .backward()
        res.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for want, got in zip(*res):
        assert want.shape == got.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_bilinear_module_and_instance_norm_running_stats_like_pytorch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ref = torch.nn.Bilinear(5, 4, 3).double()
    ours = mt.nn.Bilinear(5, 4, 3, dtype=mt.float64)
    assert [(n, list(p.shape)) for n, p in ours.named_parameters()] == \
        [(n, list(p.shape)) for n, p in ref.named_parameters()]
    ours.load_state_dict({k: mt.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    np.testing.assert_allclose(ours(mt.tensor(X), mt.tensor(Y[:, :4])).detach().numpy(),
                               ref(torch.tensor(X), torch.tensor(Y[:, :4])).detach().numpy())
    stats = []
    for T in (torch, mt):
        m = T.nn.InstanceNorm2d(8, track_running_stats=True).double()
        m(T.tensor(IMG))
        m.eval()
        out = m(T.tensor(IMG))
        stats.append([m.running_mean.numpy(), m.running_var.numpy(), out.detach().numpy()])
    for want, got in zip(*stats):
        np.testing.assert_allclose(got, want, rtol=1e-7)


def test_new_modules_reach_the_torch_namespace_and_train():
    for name in ("Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "RReLU"):
        m = getattr(mt.nn, name)()
        x = mt.ones(2, 3, 4, 4, 4) if name == "Dropout3d" else mt.ones(2, 3, 4)
        assert m(x).shape == x.shape
        m.eval()
        if name != "RReLU":
            assert m(x) is x or m(x).tolist() == x.tolist()
    with pytest.raises(ValueError, match="dropout probability"):
        mt.nn.Dropout1d(1.5)
