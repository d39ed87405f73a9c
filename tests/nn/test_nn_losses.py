"""The margin, embedding, ranking, count, Gaussian and CTC losses and the distances
(mutograd/nn/functional/margin_loss.py, ctc.py): one table; values and gradients against
PyTorch, gradients against float64 finite differences, for each reduction."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

R = np.random.default_rng(0)
X = R.standard_normal((4, 5))
Y = R.standard_normal((4, 5))
Z = R.standard_normal((4, 5))
SIGNS = np.where(R.random(4) > 0.5, 1.0, -1.0)
SIGNS5 = np.where(R.random((4, 5)) > 0.5, 1.0, -1.0)
CLASSES = np.array([1, 0, 4, 2])
MULTI = np.array([[3, 0, -1, 1, 1], [1, 2, 4, -1, 0], [0, -1, 0, 0, 0], [4, 3, 2, 1, 0]])
BITS = (R.random((4, 5)) > 0.5).astype(float)
COUNTS = R.poisson(2.0, (4, 5)).astype(float)
VAR = R.random((4, 5)) + 0.2
T_CTC, N_CTC, C_CTC = 8, 3, 5
LOGITS = R.standard_normal((T_CTC, N_CTC, C_CTC))
CTC_TARGETS = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0]])
CTC_IN, CTC_TG = np.array([8, 7, 5]), np.array([3, 2, 1])


def _const(m, a):
    return m.tensor(a)


def _log_softmax(m, x):
    return (x - x.exp().sum(-1, keepdim=True).log())


# name, f(module: mg or torch, F, *float tensors) -> tensor, float inputs
CASES = [
    ("margin_ranking", lambda m, F, a, b: F.margin_ranking_loss(a[:, 0], b[:, 0],
                                                                _const(m, SIGNS), margin=0.3),
     [X, Y]),
    ("hinge_embedding", lambda m, F, a: F.hinge_embedding_loss(a, _const(m, SIGNS5), margin=0.7),
     [X]),
    ("cosine_embedding", lambda m, F, a, b: F.cosine_embedding_loss(a, b, _const(m, SIGNS),
                                                                    margin=0.1), [X, Y]),
    ("cosine_embedding-1d", lambda m, F, a, b: F.cosine_embedding_loss(
        a[0], b[0], _const(m, np.array(1.0)), reduction="none"), [X, Y]),
    ("soft_margin", lambda m, F, a: F.soft_margin_loss(a, _const(m, SIGNS5)), [X]),
    ("multilabel_soft_margin", lambda m, F, a: F.multilabel_soft_margin_loss(
        a, _const(m, BITS), weight=_const(m, np.arange(1.0, 6.0))), [X]),
    ("multi_margin", lambda m, F, a: F.multi_margin_loss(a, _const(m, CLASSES)), [X]),
    ("multi_margin-p2-weight", lambda m, F, a: F.multi_margin_loss(
        a, _const(m, CLASSES), p=2, margin=0.5, weight=_const(m, np.arange(1.0, 6.0)),
        reduction="none"), [X]),
    ("multilabel_margin", lambda m, F, a: F.multilabel_margin_loss(a, _const(m, MULTI)), [X]),
    ("multilabel_margin-none", lambda m, F, a: F.multilabel_margin_loss(
        a, _const(m, MULTI), reduction="none"), [X]),
    ("pairwise_distance", lambda m, F, a, b: F.pairwise_distance(a, b, p=3.0), [X, Y]),
    ("pdist", lambda m, F, a: F.pdist(a), [X]),
    ("triplet_margin", lambda m, F, a, b, c: F.triplet_margin_loss(a, b, c, margin=2.0), [X, Y, Z]),
    ("triplet_margin-swap", lambda m, F, a, b, c: F.triplet_margin_loss(
        a, b, c, margin=3.0, p=1, swap=True, reduction="sum"), [X, Y, Z]),
    ("triplet_margin_with_distance", lambda m, F, a, b, c: F.triplet_margin_with_distance_loss(
        a, b, c, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5),
     [X, Y, Z]),
    ("poisson_nll", lambda m, F, a: F.poisson_nll_loss(a, _const(m, COUNTS)), [X]),
    ("poisson_nll-rate-full", lambda m, F, a: F.poisson_nll_loss(
        a.exp(), _const(m, COUNTS), log_input=False, full=True, reduction="none"), [X]),
    ("gaussian_nll", lambda m, F, a, v: F.gaussian_nll_loss(a, _const(m, Y), v), [X, VAR]),
    ("gaussian_nll-var-per-row-full", lambda m, F, a, v: F.gaussian_nll_loss(
        a, _const(m, Y), v[:, 0], full=True, reduction="sum"), [X, VAR]),
    ("ctc", lambda m, F, a: F.ctc_loss(_log_softmax(m, a), _const(m, CTC_TARGETS),
                                       _const(m, CTC_IN), _const(m, CTC_TG)), [LOGITS]),
    ("ctc-none-blank4", lambda m, F, a: F.ctc_loss(
        _log_softmax(m, a), _const(m, np.array([[1, 2, 2], [3, 1, 0], [0, 0, 0]])),
        _const(m, CTC_IN), _const(m, CTC_TG), blank=4, reduction="none"), [LOGITS]),
    ("ctc-concatenated-sum", lambda m, F, a: F.ctc_loss(
        _log_softmax(m, a), _const(m, np.array([1, 2, 2, 3, 1, 4])), [8, 7, 5], [3, 2, 1],
        reduction="sum"), [LOGITS]),
]


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn, inputs):
    F = mg.nn.functional
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    out = fn(mg, F, *ts)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    expected = numeric_grad(
        lambda *a: float((fn(mg, F, *(mg.tensor(x) for x in a)).numpy() * w).sum()),
        [a.copy() for a in inputs])
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch(name, fn, inputs):
    torch = pytest.importorskip("torch")
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    qs = [torch.tensor(a, requires_grad=True) for a in inputs]
    out, ref = fn(mg, mg.nn.functional, *ts), fn(torch, torch.nn.functional, *qs)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for t, q in zip(ts, qs):
        np.testing.assert_allclose(t.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.torch
def test_modules_match_their_functions_and_pytorch():
    torch = pytest.importorskip("torch")
    mods = [("MarginRankingLoss", {"margin": 0.2}, (X[:, 0], Y[:, 0], SIGNS)),
            ("HingeEmbeddingLoss", {"margin": 0.5}, (X, SIGNS5)),
            ("CosineEmbeddingLoss", {"margin": 0.1}, (X, Y, SIGNS)),
            ("SoftMarginLoss", {}, (X, SIGNS5)),
            ("MultiLabelSoftMarginLoss", {}, (X, BITS)),
            ("MultiMarginLoss", {"p": 2}, (X, CLASSES)),
            ("MultiLabelMarginLoss", {}, (X, MULTI)),
            ("PairwiseDistance", {"p": 1.5}, (X, Y)),
            ("TripletMarginLoss", {"margin": 1.5}, (X, Y, Z)),
            ("TripletMarginWithDistanceLoss", {"margin": 1.5}, (X, Y, Z)),
            ("PoissonNLLLoss", {"full": True}, (X, COUNTS)),
            ("GaussianNLLLoss", {"full": True}, (X, Y, VAR)),
            ("CTCLoss", {"zero_infinity": True}, (np.log(np.full((8, 3, 5), 0.2)), CTC_TARGETS,
                                                  CTC_IN, CTC_TG))]
    for name, kw, args in mods:
        ours = getattr(mg.nn, name)(**kw)(*(mg.tensor(a) for a in args))
        theirs = getattr(torch.nn, name)(**kw)(*(torch.tensor(a) for a in args))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, err_msg=name)


@pytest.mark.torch
def test_ctc_impossible_alignment_is_infinite_unless_zeroed():
    torch = pytest.importorskip("torch")
    lp = np.log(np.full((2, 1, 3), 1 / 3))        # 2 steps cannot spell "1 1" (needs 3)
    args = [np.array([[1, 1]]), np.array([2]), np.array([2])]
    for zero in (False, True):
        x = mg.tensor(lp, requires_grad=True)
        loss = mg.nn.functional.ctc_loss(x, *(mg.tensor(a) for a in args), reduction="sum",
                                         zero_infinity=zero)
        q = torch.tensor(lp, requires_grad=True)
        ref = torch.nn.functional.ctc_loss(q, *(torch.tensor(a) for a in args),
                                           reduction="sum", zero_infinity=zero)
        assert loss.item() == ref.item()
        if zero:
            loss.backward()
            ref.backward()
            np.testing.assert_array_equal(x.grad.numpy(), q.grad.numpy())


def test_bad_arguments_name_the_problem():
    F = mg.nn.functional
    with pytest.raises(ValueError, match="only p == 1 and p == 2"):
        F.multi_margin_loss(mg.tensor(X), mg.tensor(CLASSES), p=3)
    with pytest.raises(ValueError, match="var has negative"):
        F.gaussian_nll_loss(mg.tensor(X), mg.tensor(Y), mg.tensor(-VAR))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(mg.tensor(X), mg.tensor(Y), mg.tensor(VAR[:, :2]))
    with pytest.raises(mg.ShapeError, match="pdist only supports 2D"):
        F.pdist(mg.tensor(X[0]))
    with pytest.raises(ValueError, match="margin to be greater than 0"):
        mg.nn.TripletMarginLoss(margin=0.0)


@pytest.mark.torch
@pytest.mark.parametrize("name,kw", [
    ("smooth_l1_loss", {"beta": 1.0}), ("smooth_l1_loss", {"beta": 0.5}),
    ("huber_loss", {"delta": 1.0}), ("huber_loss", {"delta": 2.0})])
@pytest.mark.parametrize("g", [np.inf, -np.inf, 1.0])
def test_piecewise_losses_pass_an_infinite_gradient_as_pytorch(name, kw, g):
    # each branch's gradient reaches only its own elements: an infinite incoming gradient stays
    # infinite (it used to meet itself with the opposite sign and give NaN); at the boundaries
    # and at 0 too
    torch = pytest.importorskip("torch")
    import mutograd.compat.torch as mt
    out = []
    for lib in (torch, mt):
        x = lib.tensor([0.5, 2.0, -3.0, 0.0, 1.0, -0.5, 2.0], dtype=lib.float64,
                       requires_grad=True)
        loss = getattr(lib.nn.functional, name)(x, lib.zeros(7, dtype=lib.float64),
                                                reduction="none", **kw)
        with np.errstate(invalid="ignore"):
            loss.backward(lib.full((7,), g, dtype=lib.float64))
        out.append((loss.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(out[1][0], out[0][0])
    np.testing.assert_array_equal(out[1][1], out[0][1])
