"""``torch.distributions`` and ``paddle.distribution`` in the dialects: their names, signatures
and tensor types. Paddle's values are the ones its documentation prints."""
import json
import pathlib

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.torch as torch_

PD = paddle.distribution


def test_torch_namespace_gives_torch_tensors_and_sizes():
    d = torch_.distributions.Normal(torch_.zeros(2), 1.0)
    assert type(d.sample()) is torch_.Tensor
    assert type(d.batch_shape) is torch_.Size
    assert type(torch_.distributions.Normal(0.0, 1.0).rsample()) is torch_.Tensor
    assert isinstance(torch_.distributions.Chi2(3.0), torch_.distributions.Gamma)
    assert isinstance(d, mg.distributions.Normal)
    kl = torch_.distributions.kl_divergence(d, torch_.distributions.Normal(1.0, 1.0))
    assert type(kl) is torch_.Tensor and np.allclose(kl.numpy(), 0.5)
    assert torch_.distributions.constraints.positive.check(torch_.tensor(1.0)).item()


def test_torch_names_import_under_install():
    import mutograd.compat as compat
    with compat.importing_as("torch"):
        from torch.distributions import Categorical, Normal  # noqa: F401
        from torch.distributions.kl import register_kl  # noqa: F401
        from torch.distributions.transforms import ExpTransform  # noqa: F401
        import torch.distributions.constraints as C
        assert C.real.check(mg.tensor(0.0)).item()
        assert Normal is torch_.distributions.Normal


def test_paddle_constructor_spellings():
    assert float(PD.Normal(0.0, 1.0).probs(paddle.to_tensor(0.0))) == pytest.approx(0.3989423)
    u = PD.Uniform(low=0.0, high=4.0)
    assert float(u.probs(paddle.to_tensor(1.0))) == pytest.approx(0.25)
    b = PD.Beta(alpha=2.0, beta=3.0)
    assert float(b.alpha) == 2.0 and float(b.beta) == 3.0 and float(b.mean) == pytest.approx(0.4)
    assert float(b.prob(paddle.to_tensor(0.5))) == pytest.approx(1.5)
    dr = PD.Dirichlet(paddle.to_tensor([1.0, 2.0, 3.0]))
    assert dr.sample([5]).shape == [5, 3]
    assert type(dr.sample([5])) is paddle.Tensor
    ind = PD.Independent(PD.Normal(paddle.zeros([2, 3]), 1.0), reinterpreted_batch_rank=1)
    assert list(ind.event_shape) == [3]
    bern = PD.Bernoulli(probs=paddle.to_tensor([0.25]))
    assert float(bern.probs) == 0.25
    g = PD.Gamma(paddle.to_tensor(2.0), paddle.to_tensor(4.0))
    n = PD.Normal(loc=[0.0, 1.0], scale=[1.0, 2.0])   # lists, as Paddle takes them
    assert list(n.sample([4]).shape) == [4, 2]
    assert float(g.kl_divergence(PD.Gamma(paddle.to_tensor(2.0), paddle.to_tensor(4.0)))) == 0.0
    assert float(PD.kl_divergence(PD.Normal(0.0, 1.0), PD.Normal(1.0, 1.0))) == 0.5


def test_paddle_categorical_reads_its_weights_as_paddle_does():
    x = paddle.to_tensor(np.array([0.55355281, 0.20714243, 0.01162981, 0.51577556, 0.36369765,
                                   0.26091650], "float32"))
    y = paddle.to_tensor(np.array([0.77663314, 0.90824795, 0.15685187, 0.04279523, 0.34468332,
                                   0.79557180], "float32"))
    cat, cat2 = PD.Categorical(x), PD.Categorical(y)
    assert float(cat.entropy()) == pytest.approx(1.77528250, abs=1e-6)
    assert float(cat.kl_divergence(cat2)) == pytest.approx(0.07195196, abs=1e-6)
    value = paddle.to_tensor([2, 1, 3])
    np.testing.assert_allclose(cat.probs(value).numpy(), [0.00608027, 0.10829761, 0.26965630],
                               rtol=1e-5)
    np.testing.assert_allclose(cat.log_prob(value).numpy(), [-5.10271, -2.22287, -1.31061],
                               rtol=1e-5)
    s = cat.sample([2, 3])
    assert s.shape == [2, 3] and s.dtype == paddle.int64


def test_paddle_register_kl_and_transforms():
    class MyNormal(PD.Normal):
        pass

    @PD.register_kl(MyNormal, MyNormal)
    def _kl(p, q):
        return paddle.to_tensor(7.0)

    assert float(PD.kl_divergence(MyNormal(0.0, 1.0), MyNormal(0.0, 1.0))) == 7.0
    t = PD.ChainTransform([PD.AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0)),
                           PD.ExpTransform()])
    x = paddle.to_tensor([0.0, 0.5])
    y = t.forward(x)
    np.testing.assert_allclose(y.numpy(), np.exp(1 + 2 * np.array([0.0, 0.5])), rtol=1e-6)
    np.testing.assert_allclose(t.inverse(y).numpy(), x.numpy(), atol=1e-6)
    np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(),
                               np.log(2) + 1 + 2 * np.array([0.0, 0.5]), rtol=1e-6)
    assert PD.PowerTransform(power=2.0).power == 2.0
    g = PD.Gumbel(paddle.to_tensor(0.0), paddle.to_tensor(1.0))
    assert float(g.mean) == pytest.approx(0.5772157)
    td = PD.TransformedDistribution(PD.Normal(0.0, 1.0), [PD.ExpTransform()])
    assert float(td.log_prob(paddle.to_tensor(1.0))) == pytest.approx(-0.9189385)


# ---- the newer names, against values Paddle 3.3.1 gave (make_paddle_reference.py) ----------

REF = json.loads((pathlib.Path(__file__).with_name("paddle_reference.json")).read_text())


def _f64(v):
    return paddle.to_tensor(np.asarray(v, dtype="float64"))


def test_paddle_continuous_bernoulli_matches_paddle():
    r = REF["ContinuousBernoulli"]
    d, value = PD.ContinuousBernoulli(_f64(r["probs"])), _f64(r["value"])
    other = PD.ContinuousBernoulli(probs=_f64([0.3, 0.6, 0.2, 0.5]))
    got = {"log_prob": d.log_prob(value), "prob": d.prob(value), "mean": d.mean,
           "variance": d.variance, "entropy": d.entropy(), "cdf": d.cdf(value),
           "icdf": d.icdf(value), "kl": d.kl_divergence(other)}
    for k, v in got.items():
        np.testing.assert_allclose(v.numpy(), r[k], rtol=1e-7, atol=1e-12, err_msg=k)
    assert type(d.rsample([2])) is paddle.Tensor and list(d.sample([2]).shape) == [2, 4]


def test_paddle_lkj_cholesky_and_multinomial_match_paddle():
    r = REF["LKJCholesky"]
    d = PD.LKJCholesky(r["dim"], _f64(r["concentration"]))
    np.testing.assert_allclose(d.log_prob(_f64(r["value"])).numpy(), r["log_prob"], rtol=1e-7)
    assert list(PD.LKJCholesky().sample([4]).shape) == [4, 2, 2]   # Paddle's defaults
    r = REF["Multinomial"]
    m, counts = PD.Multinomial(r["total_count"], _f64(r["probs"])), _f64(r["value"])
    for k, v in {"log_prob": m.log_prob(counts), "mean": m.mean, "variance": m.variance,
                 "entropy": m.entropy()}.items():
        np.testing.assert_allclose(v.numpy(), r[k], rtol=1e-7, err_msg=k)
    assert (m.sample([5]).numpy().sum(-1) == 6).all()


def test_paddle_new_transforms_match_paddle():
    r = REF["transforms"]
    x = _f64(r["x"])
    made = {"IndependentTransform": PD.IndependentTransform(PD.ExpTransform(), 1),
            "ReshapeTransform": PD.ReshapeTransform((6,), (2, 3)),
            "StackTransform": PD.StackTransform([PD.ExpTransform(), PD.SigmoidTransform()],
                                                axis=0)}
    for name, t in made.items():
        want = r[name]
        y = t.forward(x)
        np.testing.assert_allclose(y.numpy(), want["forward"], rtol=1e-7, err_msg=name)
        np.testing.assert_allclose(t.inverse(y).numpy(), want["inverse"], rtol=1e-7,
                                   atol=1e-12, err_msg=name)
        np.testing.assert_allclose(t.forward_log_det_jacobian(x).numpy(),
                                   want["forward_log_det_jacobian"], rtol=1e-7, err_msg=name)
        assert list(t.forward_shape([2, 6])) == want["forward_shape"]
    assert made["ReshapeTransform"].out_event_shape == (2, 3)
    assert made["StackTransform"].axis == 0


@pytest.mark.torch
def test_torch_distributions_has_pytorchs_names():
    """Every class and function of torch.distributions (and of its transforms, constraints,
    kl and constraint_registry modules) is in the torch dialect; only PyTorch's per-family
    submodules (torch.distributions.normal ...) are not."""
    torch = pytest.importorskip("torch")
    TD, ours = torch.distributions, torch_.distributions
    import types
    missing = [n for n in dir(TD) if not n.startswith("_") and not isinstance(
        getattr(TD, n), types.ModuleType) and not hasattr(ours, n)]
    assert missing == []
    for sub in ("transforms", "constraints", "kl", "constraint_registry"):
        names = getattr(getattr(TD, sub), "__all__")
        assert [n for n in names if not hasattr(getattr(ours, sub), n)] == [], sub
