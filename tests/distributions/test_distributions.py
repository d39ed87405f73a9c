"""mutograd.distributions against PyTorch 2.13: one table of (distribution, parameters) cases
drives values (log_prob, entropy, moments, cdf), gradients of log_prob and entropy, the gradient
of rsample (per sample through the CDF held fixed, or through the mean over many samples),
shapes, argument and support validation, and sample statistics; a second table drives the KL
divergences."""
import numpy as np
import pytest

import mutograd as mg
import mutograd.distributions as D

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch
TD = torch.distributions

R = np.random.default_rng(0)
_pos = lambda *s: R.uniform(0.5, 3.0, s)                        # noqa: E731
_real = lambda *s: R.normal(0.0, 1.0, s)                        # noqa: E731
_prob = lambda *s: R.uniform(0.1, 0.9, s)                       # noqa: E731
_simplex = lambda *s: (lambda a: a / a.sum(-1, keepdims=True))(R.uniform(0.2, 1.0, s))  # noqa


def _spd(n):
    a = R.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


_TRIL = np.linalg.cholesky(_spd(3))
_CORR = (lambda c: c / np.sqrt(np.outer(np.diag(c), np.diag(c))))(_spd(3))


class Case:
    """One distribution with its parameters: ``build(lib, **tensors)`` makes it from either
    library; ``value`` is a point of its support for log_prob and cdf; ``bad``: parameters
    outside their constraint; ``outside``: a value outside the support."""

    def __init__(self, name, params, value, build=None, bad=None, outside=None, grad=None,
                 cdf=False, implicit=False, stats=True, fixed=(), rtol=1e-6):
        self.name, self.params, self.value = name, params, value
        self.rtol = rtol   # looser where PyTorch computes in float32
        self.build = build or (lambda lib, **p: getattr(lib, name)(**p))
        self.bad, self.outside, self.cdf, self.implicit = bad, outside, cdf, implicit
        self.grad = list(params) if grad is None else grad   # params that take a gradient
        self.stats, self.fixed = stats, fixed

    def make(self, lib, params=None, requires_grad=True):
        params = self.params if params is None else params
        tensors = {}
        for k, v in params.items():
            if isinstance(v, (int, float)) or k in self.fixed:
                tensors[k] = v if isinstance(v, (int, float)) else \
                    (mg.tensor(v) if lib is D else torch.tensor(v))
                continue
            rg = requires_grad and k in self.grad
            tensors[k] = mg.tensor(np.asarray(v, dtype=np.float64), requires_grad=rg) \
                if lib is D else torch.tensor(np.asarray(v, dtype=np.float64), requires_grad=rg)
        return self.build(lib, **tensors), tensors

    def __repr__(self):
        return self.name


CASES = [
    Case("Normal", {"loc": _real(2, 3), "scale": _pos(2, 3)}, _real(2, 3),
         bad={"loc": _real(2, 3), "scale": -_pos(2, 3)}, cdf=True, implicit=True),
    Case("Laplace", {"loc": _real(3), "scale": _pos(3)}, _real(3), cdf=True, implicit=True,
         bad={"loc": _real(3), "scale": -_pos(3)}),
    Case("Cauchy", {"loc": _real(3), "scale": _pos(3)}, _real(3), cdf=True, implicit=True,
         stats=False, bad={"loc": _real(3), "scale": -_pos(3)}),
    Case("Uniform", {"low": -_pos(3), "high": _pos(3)}, _real(3) * 0.2, cdf=True, implicit=True,
         bad={"low": _pos(3), "high": -_pos(3)}, outside=np.array([9.0, 0.0, 0.0])),
    Case("Exponential", {"rate": _pos(4)}, _pos(4), cdf=True, implicit=True,
         bad={"rate": -_pos(4)}, outside=-_pos(4)),
    Case("Gamma", {"concentration": _pos(4), "rate": _pos(4)}, _pos(4),
         bad={"concentration": -_pos(4), "rate": _pos(4)}, outside=-_pos(4)),
    Case("Chi2", {"df": _pos(3) * 2}, _pos(3)),
    Case("Beta", {"concentration1": _pos(3), "concentration0": _pos(3)}, _prob(3),
         bad={"concentration1": -_pos(3), "concentration0": _pos(3)}, outside=_pos(3) + 1),
    Case("Dirichlet", {"concentration": _pos(2, 4)}, _simplex(2, 4),
         bad={"concentration": -_pos(2, 4)}),
    Case("StudentT", {"df": _pos(3) + 2.5, "loc": _real(3), "scale": _pos(3)}, _real(3)),
    Case("LogNormal", {"loc": _real(3) * 0.3, "scale": _pos(3) * 0.3}, _pos(3), cdf=True,
         implicit=True),
    Case("HalfNormal", {"scale": _pos(3)}, _pos(3), cdf=True, implicit=True,
         bad={"scale": -_pos(3)}, outside=-_pos(3)),
    Case("HalfCauchy", {"scale": _pos(3)}, _pos(3), cdf=True, implicit=True, stats=False),
    Case("Gumbel", {"loc": _real(3), "scale": _pos(3)}, _real(3), cdf=True, implicit=True),
    Case("Bernoulli", {"probs": _prob(2, 3)}, R.integers(0, 2, (2, 3)).astype(float),
         bad={"probs": _prob(2, 3) + 1}, outside=np.full((2, 3), 0.5)),
    Case("Bernoulli/logits", {"logits": _real(4)}, np.array([0.0, 1, 1, 0]),
         build=lambda lib, **p: lib.Bernoulli(**p)),
    Case("Geometric", {"probs": _prob(3)}, np.array([0.0, 2, 5])),
    Case("Binomial", {"total_count": 6.0, "probs": _prob(3)}, np.array([0.0, 2, 6])),
    Case("Poisson", {"rate": _pos(4)}, np.array([0.0, 1, 3, 7]), bad={"rate": -_pos(4)},
         outside=np.array([0.5, 1, 3, 7])),
    Case("Categorical", {"probs": _simplex(2, 5)}, np.array([0.0, 4]),
         bad={"probs": np.array([[-0.2, 0.6, 0.3, 0.2, 0.1]] * 2)}),
    Case("Categorical/logits", {"logits": _real(2, 5)}, np.array([1.0, 3]),
         build=lambda lib, **p: lib.Categorical(**p)),
    Case("OneHotCategorical", {"probs": _simplex(3, 4)}, np.eye(4)[[0, 3, 1]]),
    Case("MultivariateNormal", {"loc": _real(2, 3), "covariance_matrix": _spd(3)}, _real(2, 3),
         bad={"loc": _real(3), "covariance_matrix": -_spd(3)}),
    Case("MultivariateNormal/scale_tril", {"loc": _real(3), "scale_tril": _TRIL}, _real(4, 3),
         build=lambda lib, **p: lib.MultivariateNormal(**p)),
    Case("MultivariateNormal/precision", {"loc": _real(3), "precision_matrix": _spd(3)},
         _real(3), build=lambda lib, **p: lib.MultivariateNormal(**p), stats=False),
    Case("Independent", {"loc": _real(2, 3), "scale": _pos(2, 3)}, _real(2, 3),
         build=lambda lib, **p: lib.Independent(lib.Normal(**p), 1)),
    Case("TransformedDistribution", {"loc": _real(3), "scale": _pos(3)}, _real(3) * 0.5,
         build=lambda lib, **p: lib.TransformedDistribution(
             lib.Normal(**p), [lib.transforms.AffineTransform(1.0, 2.0),
                               lib.transforms.TanhTransform()]), stats=False),
    Case("RelaxedBernoulli", {"probs": _prob(3)}, _prob(3),
         build=lambda lib, **p: lib.RelaxedBernoulli(mg.tensor(0.7) if lib is D
                                                     else torch.tensor(0.7), **p), stats=False),
    Case("Weibull", {"scale": _pos(3), "concentration": _pos(3) + 0.5}, _pos(3), cdf=True,
         implicit=True, bad={"scale": -_pos(3), "concentration": _pos(3)}, outside=-_pos(3)),
    Case("Pareto", {"scale": _pos(3), "alpha": _pos(3) + 4.5}, _pos(3) + 3.0, cdf=True,
         implicit=True, bad={"scale": _pos(3), "alpha": -_pos(3)},
         outside=np.array([0.1, 0.2, 0.3])),
    # b < 1 everywhere: PyTorch 2.13's mode is NaN wherever b > 1 (see test_kumaraswamy_mode)
    Case("Kumaraswamy", {"concentration1": _pos(3) + 1.0, "concentration0": _prob(3) + 0.05},
         _prob(3), cdf=True, implicit=True, outside=_pos(3) + 1.0),
    Case("InverseGamma", {"concentration": _pos(3) + 4.5, "rate": _pos(3)}, _pos(3),
         bad={"concentration": -_pos(3), "rate": _pos(3)}),
    Case("LogisticNormal", {"loc": _real(3) * 0.5, "scale": _pos(3) * 0.5}, _simplex(4),
         stats=False),
    Case("RelaxedOneHotCategorical", {"probs": _simplex(2, 4)}, _simplex(2, 4),
         build=lambda lib, **p: lib.RelaxedOneHotCategorical(
             mg.tensor(0.6, dtype=mg.float64) if lib is D else
             torch.tensor(0.6, dtype=torch.float64), **p), stats=False),
    Case("ContinuousBernoulli", {"probs": np.array([0.15, 0.3, 0.7, 0.93])}, _prob(4),
         cdf=True, implicit=True, outside=np.array([0.5, 1.5, 0.5, 0.5])),
    Case("ContinuousBernoulli/logits", {"logits": np.array([-2.0, -0.6, 0.8, 3.0])}, _prob(4),
         build=lambda lib, **p: lib.ContinuousBernoulli(**p), cdf=True),
    # inside lims around 1/2 the normaliser and moments are Taylor series, and the inverse CDF
    # (so rsample) does not depend on probs, as in PyTorch: no sample statistics here
    Case("ContinuousBernoulli/near_half", {"probs": np.array([0.4995, 0.5, 0.5008])}, _prob(3),
         build=lambda lib, **p: lib.ContinuousBernoulli(**p), cdf=True, stats=False),
    Case("VonMises", {"loc": _real(3), "concentration": _pos(3)}, _real(3), stats=False,
         bad={"loc": _real(3), "concentration": -_pos(3)}),
    # PyTorch 2.13's GeneralizedPareto takes float32 parameters only
    Case("GeneralizedPareto", {"loc": np.array([0.1, -0.2, 0.3]),
                               "scale": np.array([1.0, 2, 0.5]),
                               "concentration": np.array([-0.3, 0.05, 0.15])},
         np.array([0.8, 0.5, 1.0]), cdf=True, implicit=True, rtol=2e-5,
         build=lambda lib, **p: lib.GeneralizedPareto(
             **(p if lib is D else {k: v.float() for k, v in p.items()})),
         bad={"loc": _real(3), "scale": -_pos(3), "concentration": _real(3)}),
    # concentration 0 takes the exponential forms (no gradient to it there, as in PyTorch)
    Case("GeneralizedPareto/exponential", {"loc": _real(2), "scale": _pos(2),
                                           "concentration": np.zeros(2)}, _pos(2) + 1.5,
         cdf=True, stats=False, rtol=2e-5,
         build=lambda lib, **p: lib.GeneralizedPareto(
             **(p if lib is D else {k: v.float() for k, v in p.items()}))),
    Case("FisherSnedecor", {"df1": _pos(3) * 2 + 3, "df2": _pos(3) + 9}, _pos(3),
         bad={"df1": -_pos(3), "df2": _pos(3)}, outside=-_pos(3)),
    Case("Multinomial", {"probs": _simplex(2, 3)}, np.array([[1.0, 0, 5], [2, 2, 2]]),
         build=lambda lib, **p: lib.Multinomial(6, **p),
         outside=np.array([[1.0, 0, 6], [2, 2, 2]])),
    Case("NegativeBinomial", {"total_count": _pos(3) + 1, "probs": _prob(3)},
         np.array([0.0, 3, 7]), bad={"total_count": _pos(3), "probs": _prob(3) + 1},
         outside=np.array([0.5, 1, 2])),
    Case("NegativeBinomial/logits", {"total_count": _pos(3) + 1, "logits": _real(3)},
         np.array([0.0, 3, 7]), build=lambda lib, **p: lib.NegativeBinomial(**p)),
    Case("OneHotCategoricalStraightThrough", {"probs": _simplex(3, 4)}, np.eye(4)[[0, 3, 1]]),
    Case("LowRankMultivariateNormal", {"loc": _real(2, 3), "cov_factor": _real(3, 2),
                                       "cov_diag": _pos(3)}, _real(2, 3),
         bad={"loc": _real(3), "cov_factor": _real(3, 2),
              "cov_diag": np.array([1.0, 2.0, -1e6])}),
    Case("MixtureSameFamily", {"probs": _simplex(2, 3), "loc": _real(2, 3) * 2,
                               "scale": _pos(2, 3)}, _real(2), cdf=True,
         build=lambda lib, probs, loc, scale: lib.MixtureSameFamily(
             lib.Categorical(probs=probs), lib.Normal(loc, scale))),
    Case("MixtureSameFamily/vectors", {"logits": _real(3), "loc": _real(3, 2),
                                       "scale": _pos(3, 2)}, _real(4, 2),
         build=lambda lib, logits, loc, scale: lib.MixtureSameFamily(
             lib.Categorical(logits=logits), lib.Independent(lib.Normal(loc, scale), 1))),
    Case("LKJCholesky", {"concentration": _pos(2)}, np.linalg.cholesky(_CORR),
         build=lambda lib, **p: lib.LKJCholesky(3, **p), stats=False,
         bad={"concentration": -_pos(2)}),
    Case("Wishart", {"df": _pos(2) + 4, "covariance_matrix": _spd(3)}, _spd(3),
         bad={"df": _pos(2) * 0.1, "covariance_matrix": _spd(3)}),
    # (PyTorch's gradient reaches the unused upper triangle of scale_tril; only df's compared)
    Case("Wishart/scale_tril", {"df": _pos(2) + 4, "scale_tril": _TRIL}, _spd(3),
         build=lambda lib, **p: lib.Wishart(**p), grad=["df"]),
]


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(np.asarray(_np(a), dtype=float), np.asarray(_np(b), dtype=float),
                               rtol=rtol, atol=atol, equal_nan=True)


def _grads(params, out):
    keys = [k for k, v in params.items() if getattr(v, "requires_grad", False)]
    if not keys:
        return {}
    gs = (mg.autograd.grad if isinstance(out, mg.Tensor) else torch.autograd.grad)(
        out.sum(), [params[k] for k in keys], allow_unused=True)
    return dict(zip(keys, gs))


def _compare_with_grads(case, method):
    d, p = case.make(D)
    dt, pt = case.make(TD)
    try:
        want = method(dt, pt)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            method(d, p)
        return
    got = method(d, p)
    _close(got, want, rtol=case.rtol)
    gw, gg = _grads(pt, want), _grads(p, got)
    for k in gw:
        if gw[k] is not None:
            _close(gg[k], gw[k], rtol=max(1e-5, case.rtol), atol=1e-7)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_log_prob_and_its_gradient(case):
    _compare_with_grads(case, lambda d, p: d.log_prob(
        (mg.tensor if isinstance(d, D.Distribution) else torch.tensor)(case.value)))


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_entropy_and_its_gradient(case):
    _compare_with_grads(case, lambda d, p: d.entropy())


@pytest.mark.parametrize("case", [c for c in CASES if c.cdf], ids=repr)
def test_cdf_and_icdf(case):
    _compare_with_grads(case, lambda d, p: d.cdf(
        (mg.tensor if isinstance(d, D.Distribution) else torch.tensor)(case.value)))
    u = np.linspace(0.1, 0.9, case.value.size).reshape(case.value.shape)
    _compare_with_grads(case, lambda d, p: d.icdf(
        (mg.tensor if isinstance(d, D.Distribution) else torch.tensor)(u)))


@pytest.mark.parametrize("moment", ["mean", "variance", "stddev", "mode"])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_moments(case, moment):
    d, _ = case.make(D, requires_grad=False)
    dt, _ = case.make(TD, requires_grad=False)
    try:
        want = getattr(dt, moment)
    except NotImplementedError:
        return
    _close(getattr(d, moment), want)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_shapes_of_samples_and_expand(case):
    d, _ = case.make(D, requires_grad=False)
    dt, _ = case.make(TD, requires_grad=False)
    assert tuple(d.batch_shape) == tuple(dt.batch_shape)
    assert tuple(d.event_shape) == tuple(dt.event_shape)
    assert d.has_rsample == dt.has_rsample
    for shape in [(), (5,), (2, 4)]:
        assert tuple(d.sample(shape).shape) == tuple(dt.sample(shape).shape)
    big = (4,) + tuple(d.batch_shape)
    e, et = d.expand(big), dt.expand(big)
    assert tuple(e.batch_shape) == tuple(et.batch_shape)
    v = case.value
    _close(e.log_prob(mg.tensor(v)), et.log_prob(torch.tensor(v)))
    assert tuple(e.sample((2,)).shape) == tuple(et.sample((2,)).shape)


@pytest.mark.parametrize("case", [c for c in CASES if c.stats], ids=repr)
def test_sample_statistics(case):
    mg.seed(1)
    d, _ = case.make(D, requires_grad=False)
    x = _np(d.sample((20000,)))
    mean, var = _np(d.mean), _np(d.variance)
    if np.isnan(mean).any():   # Categorical: its indices have no mean; check frequencies
        freq = np.stack([(x == k).mean(0) for k in range(d.probs.shape[-1])], -1)
        np.testing.assert_allclose(freq, _np(d.probs), atol=0.02)
        return
    sd = np.sqrt(var)
    np.testing.assert_allclose(x.mean(0), mean, atol=float(np.max(6 * sd / np.sqrt(20000))))
    np.testing.assert_allclose(x.var(0), var, rtol=0.1, atol=1e-3)
    assert (_np(d.support.check(mg.tensor(x[:50]))) == 1).all()


def test_seed_makes_samples_reproducible():
    for case in CASES:
        d, _ = case.make(D, requires_grad=False)
        mg.seed(3)
        a = _np(d.sample((3,)))
        mg.seed(3)
        np.testing.assert_array_equal(a, _np(d.sample((3,))), err_msg=case.name)


@pytest.mark.parametrize("case", [c for c in CASES if c.implicit], ids=repr)
def test_rsample_gradient_holds_the_cdf_fixed(case):
    """For x = rsample, F(x; theta) is the fixed noise u: dx/dtheta = -dF/dtheta / f(x)."""
    mg.seed(2)
    d, p = case.make(D)
    x = d.rsample((3,))
    got = _grads(p, x)
    dt, pt = case.make(TD)
    xt = torch.tensor(_np(x))
    dF = _grads(pt, dt.cdf(xt))
    density = dt.log_prob(xt).exp().detach()
    for k in got:
        # d(sum x)/dtheta = sum over samples of -dF/dtheta / f, per parameter element (a
        # fresh distribution: some keep parameter-derived tensors whose graph a grad frees)
        dt, pt = case.make(TD)
        F_k = torch.autograd.grad(dt.cdf(xt), pt[k], grad_outputs=1 / density)[0]
        _close(got[k], -F_k, rtol=1e-4, atol=1e-6)
    assert set(got) == set(dF)


@pytest.mark.parametrize("case", [c for c in CASES if c.stats and
                                  getattr(TD, c.name.split("/")[0]).has_rsample], ids=repr)
def test_rsample_gradient_of_the_mean(case):
    """The mean of many reparameterised samples has the gradient of the distribution's mean."""
    mg.seed(4)
    d, p = case.make(D)
    got = _grads(p, d.rsample((20000,)).mean(0))
    dt, pt = case.make(TD)
    want = _grads(pt, dt.mean)
    for k in want:   # None: the mean does not depend on it
        expected = np.zeros(p[k].shape) if want[k] is None else want[k]
        _close(got[k], expected, rtol=0.06, atol=0.03)


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "StudentT", "Laplace"])
def test_second_order_of_log_prob(name):
    """Hessian-vector products of log_prob in the parameters (create_graph) match PyTorch's."""
    case = next(c for c in CASES if c.name == name)
    results = []
    for lib, grad in ((D, mg.autograd.grad), (TD, torch.autograd.grad)):
        d, p = case.make(lib)
        value = (mg.tensor if lib is D else torch.tensor)(case.value)
        ps = list(p.values())
        gs = grad(d.log_prob(value).sum(), ps, create_graph=True)
        total = sum((g * g).sum() for g in gs)
        results.append([_np(h) for h in grad(total, ps)])
    for got, want in zip(*results):
        _close(got, want, rtol=1e-5, atol=1e-8)


def test_standard_gamma_gradient_matches_pytorch():
    from mutograd.ops import OPS
    mg.seed(5)
    alpha = mg.tensor(np.array([0.05, 0.3, 1.0, 2.5, 10.0, 200.0] * 4), requires_grad=True)
    x = OPS["standard_gamma"].function(alpha)
    x.sum().backward()
    want = torch._standard_gamma_grad(torch.tensor(_np(alpha)), torch.tensor(_np(x)))
    _close(alpha.grad, want, rtol=1e-3)


@pytest.mark.parametrize("case", [c for c in CASES if c.bad is not None], ids=repr)
def test_invalid_parameters_raise_as_in_pytorch(case):
    with pytest.raises(ValueError) as want:
        case.make(TD, case.bad)
    with pytest.raises(type(want.value)):
        case.make(D, case.bad)
    # not checked when asked not to (a covariance matrix still has to factorise)
    params = {k: np.asarray(v, dtype=np.float64) for k, v in case.bad.items()}
    try:
        getattr(TD, case.name)(**{k: torch.tensor(v) for k, v in params.items()},
                               validate_args=False)
    except ValueError:
        pass   # a check PyTorch makes whatever validate_args says (FisherSnedecor's Gammas)
    except Exception as e:
        with pytest.raises(type(e).__name__ == "_LinAlgError" and mg.errors.LinAlgError or
                           type(e)):
            getattr(D, case.name)(**{k: mg.tensor(v) for k, v in params.items()},
                                  validate_args=False)
    else:
        getattr(D, case.name)(**{k: mg.tensor(v) for k, v in params.items()},
                              validate_args=False)


@pytest.mark.parametrize("case", [c for c in CASES if c.outside is not None], ids=repr)
def test_values_outside_the_support_raise_as_in_pytorch(case):
    dt, _ = case.make(TD)
    with pytest.raises(ValueError) as want:
        dt.log_prob(torch.tensor(case.outside))
    d, _ = case.make(D)
    with pytest.raises(type(want.value)):
        d.log_prob(mg.tensor(case.outside))


def test_argument_errors():
    for lib in (D, TD):
        with pytest.raises(ValueError):
            lib.Bernoulli(probs=(mg.tensor if lib is D else torch.tensor)(0.5),
                          logits=(mg.tensor if lib is D else torch.tensor)(0.0))
        with pytest.raises(ValueError):
            lib.Categorical()
        with pytest.raises(ValueError):
            lib.MultivariateNormal((mg.zeros if lib is D else torch.zeros)(2))
        with pytest.raises(ValueError):   # value shape not broadcastable with the batch
            lib.Normal((mg.zeros if lib is D else torch.zeros)(3), 1.0).log_prob(
                (mg.zeros if lib is D else torch.zeros)(4))


# ---- KL divergences -----------------------------------------------------------------------

def _pair(name, params_p, params_q, build=None):
    return (name, Case(name, params_p, None, build), Case(name, params_q, None, build))


KL_PAIRS = [
    _pair("Normal", {"loc": _real(3), "scale": _pos(3)}, {"loc": _real(3), "scale": _pos(3)}),
    _pair("Bernoulli", {"probs": _prob(3)}, {"probs": _prob(3)}),
    _pair("Categorical", {"probs": _simplex(2, 4)}, {"probs": _simplex(2, 4)}),
    _pair("OneHotCategorical", {"logits": _real(4)}, {"logits": _real(4)}),
    _pair("Beta", {"concentration1": _pos(3), "concentration0": _pos(3)},
          {"concentration1": _pos(3), "concentration0": _pos(3)}),
    _pair("Gamma", {"concentration": _pos(3), "rate": _pos(3)},
          {"concentration": _pos(3), "rate": _pos(3)}),
    _pair("Dirichlet", {"concentration": _pos(2, 3)}, {"concentration": _pos(2, 3)}),
    _pair("Exponential", {"rate": _pos(3)}, {"rate": _pos(3)}),
    _pair("Laplace", {"loc": _real(3), "scale": _pos(3)}, {"loc": _real(3), "scale": _pos(3)}),
    _pair("Poisson", {"rate": _pos(3)}, {"rate": _pos(3)}),
    _pair("Uniform", {"low": np.array([-1.0, -1, 0]), "high": np.array([1.0, 2, 1])},
          {"low": np.array([-2.0, 0, -1]), "high": np.array([2.0, 3, 1])}),
    _pair("MultivariateNormal", {"loc": _real(2, 3), "covariance_matrix": _spd(3)},
          {"loc": _real(3), "scale_tril": _TRIL}),
    _pair("Independent", {"loc": _real(2, 3), "scale": _pos(2, 3)},
          {"loc": _real(2, 3), "scale": _pos(2, 3)},
          build=lambda lib, **p: lib.Independent(lib.Normal(**p), 1)),
    _pair("LogNormal", {"loc": _real(3), "scale": _pos(3)}, {"loc": _real(3), "scale": _pos(3)}),
]

# parameters of each family for the pairs across families (and the new ones with themselves):
# on the p side, and on the q side chosen so that some of p's supports lie inside q's and some
# do not (an infinite KL)
_P_PARAMS = {
    "Normal": {"loc": _real(3), "scale": _pos(3)},
    "Laplace": {"loc": _real(3), "scale": _pos(3)},
    "Gumbel": {"loc": _real(3), "scale": _pos(3)},
    "Cauchy": {"loc": _real(3), "scale": _pos(3)},
    "Exponential": {"rate": _pos(3)},
    "Gamma": {"concentration": _pos(3), "rate": _pos(3)},
    "Beta": {"concentration1": _pos(3), "concentration0": _pos(3)},
    "ContinuousBernoulli": {"probs": np.array([0.2, 0.4, 0.8])},
    "Pareto": {"scale": np.array([0.5, 1.5, 1.0]), "alpha": np.array([0.7, 1.5, 3.4])},
    "Uniform": {"low": np.array([0.1, -0.5, 1.2]), "high": np.array([0.7, 1.5, 3.4])},
    "Bernoulli": {"probs": _prob(3)},
    "Poisson": {"rate": _pos(3)},
    "Binomial": {"total_count": 5, "probs": _prob(3)},
    "Geometric": {"probs": _prob(3)},
    "HalfNormal": {"scale": _pos(3)},
    "LowRankMultivariateNormal": {"loc": _real(2, 3), "cov_factor": _real(3, 2),
                                  "cov_diag": _pos(3)},
    "MultivariateNormal": {"loc": _real(2, 3), "covariance_matrix": _spd(3)},
}
_Q_PARAMS = dict(_P_PARAMS, **{
    "Normal": {"loc": _real(3), "scale": _pos(3)},
    "Gumbel": {"loc": _real(3), "scale": _pos(3)},
    "Gamma": {"concentration": _pos(3), "rate": _pos(3)},
    "Exponential": {"rate": _pos(3)},
    "Beta": {"concentration1": _pos(3), "concentration0": _pos(3)},
    "ContinuousBernoulli": {"probs": np.array([0.3, 0.6, 0.9])},
    "Pareto": {"scale": np.array([0.05, 1.0, 2.0]), "alpha": _pos(3)},
    "Uniform": {"low": np.array([-0.1, -1.5, 0.5]), "high": np.array([1.2, 2.5, 3.5])},
    "Binomial": {"total_count": 5, "probs": _prob(3)},
    "LowRankMultivariateNormal": {"loc": _real(3), "cov_factor": _real(3, 1),
                                  "cov_diag": _pos(3)},
})

# every pair PyTorch 2.13 registers beyond the ones above
_MORE_KL = [
    ("Bernoulli", "Poisson"), ("Beta", "ContinuousBernoulli"), ("Beta", "Exponential"),
    ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Pareto"), ("Beta", "Uniform"),
    ("Binomial", "Binomial"), ("Cauchy", "Cauchy"),
    ("ContinuousBernoulli", "ContinuousBernoulli"), ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"), ("ContinuousBernoulli", "Pareto"),
    ("ContinuousBernoulli", "Uniform"), ("Exponential", "Beta"),
    ("Exponential", "ContinuousBernoulli"), ("Exponential", "Gamma"), ("Exponential", "Gumbel"),
    ("Exponential", "Normal"), ("Exponential", "Pareto"), ("Exponential", "Uniform"),
    ("Gamma", "Beta"), ("Gamma", "ContinuousBernoulli"), ("Gamma", "Exponential"),
    ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gamma", "Pareto"), ("Gamma", "Uniform"),
    ("Geometric", "Geometric"), ("Gumbel", "Beta"), ("Gumbel", "ContinuousBernoulli"),
    ("Gumbel", "Exponential"), ("Gumbel", "Gamma"), ("Gumbel", "Gumbel"), ("Gumbel", "Normal"),
    ("Gumbel", "Pareto"), ("Gumbel", "Uniform"), ("HalfNormal", "HalfNormal"),
    ("Laplace", "Beta"), ("Laplace", "ContinuousBernoulli"), ("Laplace", "Exponential"),
    ("Laplace", "Gamma"), ("Laplace", "Normal"), ("Laplace", "Pareto"), ("Laplace", "Uniform"),
    ("LowRankMultivariateNormal", "LowRankMultivariateNormal"),
    ("LowRankMultivariateNormal", "MultivariateNormal"),
    ("MultivariateNormal", "LowRankMultivariateNormal"), ("Normal", "Beta"),
    ("Normal", "ContinuousBernoulli"), ("Normal", "Exponential"), ("Normal", "Gamma"),
    ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Pareto"), ("Normal", "Uniform"),
    ("Pareto", "Beta"), ("Pareto", "ContinuousBernoulli"), ("Pareto", "Exponential"),
    ("Pareto", "Gamma"), ("Pareto", "Normal"), ("Pareto", "Pareto"), ("Pareto", "Uniform"),
    ("Poisson", "Bernoulli"), ("Poisson", "Binomial"), ("Uniform", "Beta"),
    ("Uniform", "ContinuousBernoulli"), ("Uniform", "Exponential"), ("Uniform", "Gamma"),
    ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Uniform", "Pareto"),
]
KL_PAIRS += [(f"{a}-{b}", Case(a, _P_PARAMS[a], None), Case(b, _Q_PARAMS[b], None))
             for a, b in _MORE_KL]


@pytest.mark.parametrize("name,p,q", KL_PAIRS, ids=[k[0] for k in KL_PAIRS])
def test_kl_divergence_and_its_gradient(name, p, q):
    dp, pp = p.make(D)
    dq, pq = q.make(D)
    tp, tpp = p.make(TD)
    tq, tpq = q.make(TD)
    want, got = TD.kl_divergence(tp, tq), D.kl_divergence(dp, dq)
    _close(got, want, rtol=1e-6)
    if not want.requires_grad:   # infinite everywhere: no parameter reaches it
        assert not got.requires_grad
        return
    gw, gg = _grads({**{"p" + k: v for k, v in tpp.items()}, **{"q" + k: v
                                                                for k, v in tpq.items()}}, want), \
        _grads({**{"p" + k: v for k, v in pp.items()}, **{"q" + k: v for k, v in pq.items()}},
               got)
    for k in gw:
        if gw[k] is None:
            assert gg[k] is None or not _np(gg[k]).any()
            continue
        expected = _np(gw[k])
        if np.isinf(_np(want)).any():   # PyTorch's gradient is NaN where KL is inf; ours is 0
            expected = np.where(np.isnan(expected), _np(gg[k]), expected)
        _close(gg[k], expected, rtol=1e-5, atol=1e-8)


def test_kl_registry_covers_pytorchs():
    from mutograd.distributions.kl import _KL_REGISTRY
    ours = {(p.__name__, q.__name__) for p, q in _KL_REGISTRY}
    assert {(p.__name__, q.__name__) for p, q in TD.kl._KL_REGISTRY} <= ours


def test_kl_bregman_for_one_exponential_family():
    """Two of one exponential family: the Bregman divergence of the log normaliser, through
    autograd, equals the closed form."""
    from mutograd.distributions.kl import _kl_expfamily_expfamily
    case = Case("Gamma", {"concentration": _pos(3), "rate": _pos(3)}, None)
    (p, pp), (q, _) = case.make(D), Case("Gamma", {"concentration": _pos(3), "rate": _pos(3)},
                                         None).make(D)
    _close(_kl_expfamily_expfamily(p, q), D.kl_divergence(p, q), rtol=1e-6)
    (g1,), (g2,) = (mg.autograd.grad(f(p, q).sum(), [pp["rate"]]) for f in
                    (_kl_expfamily_expfamily, D.kl_divergence))
    _close(g1, g2, rtol=1e-6)
    with pytest.raises(NotImplementedError):
        _kl_expfamily_expfamily(p, D.Exponential(mg.ones([3])))


def test_kl_unregistered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError):
        TD.kl_divergence(TD.Categorical(torch.ones(2)), TD.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Categorical(mg.ones([2])), D.Normal(0.0, 1.0))


def test_register_kl_dispatches_to_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    class MyOtherNormal(MyNormal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _loose(p, q):
        return mg.tensor(1.0)

    @D.register_kl(MyNormal, MyNormal)
    def _tight(p, q):
        return mg.tensor(2.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 1.0
    assert D.kl_divergence(MyOtherNormal(0.0, 1.0), MyOtherNormal(0.0, 1.0)).item() == 2.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 1.0)).item() == 0.5


# ---- transforms -----------------------------------------------------------------------------

TRANSFORMS = [
    ("ExpTransform", (), _real(4)),
    ("AffineTransform", (0.5, -2.0), _real(4)),
    ("SigmoidTransform", (), _real(4)),
    ("TanhTransform", (), _real(4)),
    ("PowerTransform", (2.5,), _pos(4)),
    ("AbsTransform", (), _real(4)),
    ("SoftmaxTransform", (), _real(2, 4)),
    ("StickBreakingTransform", (), _real(2, 3)),
    ("SoftplusTransform", (), _real(4)),
    # arguments that are themselves transforms or distributions: made from each library
    ("IndependentTransform", lambda lib: (lib.transforms.ExpTransform(), 1), _real(2, 3)),
    ("ReshapeTransform", ((6,), (2, 3)), _real(2, 6)),
    ("CatTransform", lambda lib: ([lib.transforms.ExpTransform(),
                                   lib.transforms.AffineTransform(1.0, 2.0)], -1, [1, 2]),
     _real(2, 3)),
    # pieces along an event dimension: their log Jacobians add up
    ("CatTransform", lambda lib: ([lib.transforms.IndependentTransform(
        lib.transforms.ExpTransform(), 1), lib.transforms.AffineTransform(1.0, 2.0, 1)], -1,
        [1, 2]), _real(2, 3)),
    ("StackTransform", lambda lib: ([lib.transforms.ExpTransform(),
                                     lib.transforms.SigmoidTransform()], 1), _real(3, 2)),
    ("CumulativeDistributionTransform", lambda lib: (
        lib.Normal((mg.tensor if lib is D else torch.tensor)(np.array([0.5, -1.0])), 2.0),),
     _real(3, 2)),
    ("LowerCholeskyTransform", (), _real(2, 3, 3)),
    ("PositiveDefiniteTransform", (), _real(2, 3, 3)),
    ("CorrCholeskyTransform", (), _real(2, 6)),
]


@pytest.mark.parametrize("name,args,x", TRANSFORMS, ids=[t[0] for t in TRANSFORMS])
def test_transforms(name, args, x):
    a, at = (args(D), args(TD)) if callable(args) else (args, args)
    t, tt = getattr(D.transforms, name)(*a), getattr(TD.transforms, name)(*at)
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, yt = t(xm), tt(xt)
    _close(y, yt)
    _close(t.inv(y), tt.inv(yt))
    assert t.bijective == tt.bijective
    assert t.domain.event_dim == tt.domain.event_dim
    assert t.codomain.event_dim == tt.codomain.event_dim
    assert tuple(t.forward_shape(x.shape)) == tuple(tt.forward_shape(x.shape))
    assert tuple(t.inverse_shape(tuple(yt.shape))) == tuple(tt.inverse_shape(yt.shape))
    assert bool(t.codomain.check(y).all()) == bool(tt.codomain.check(yt).all())
    if tt.bijective:
        lg, lt = t.log_abs_det_jacobian(xm, y), tt.log_abs_det_jacobian(xt, yt)
        _close(lg, lt, rtol=1e-6, atol=1e-8)
        if not lt.requires_grad:   # a constant Jacobian (an affine map)
            return
        (gg,), (gt,) = mg.autograd.grad(lg.sum(), [xm]), torch.autograd.grad(lt.sum(), [xt])
        _close(gg, gt, rtol=1e-5, atol=1e-8)


def test_constraints_check_like_pytorch():
    C, TC = D.constraints, TD.constraints
    vals = [np.array([-1.0, 0, 0.5, 1, 2]), np.array([[0.3, 0.7], [0.5, 0.6]]),
            np.array([[[1.0, 0], [0.5, 2]], [[1.0, 1], [0, 1]]])]
    names = ["real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
             "positive_integer", "simplex", "lower_cholesky", "lower_triangular",
             "positive_definite", "real_vector"]
    for n in names:
        for v in vals:
            if v.ndim < getattr(TC, n).event_dim:
                continue
            _close(getattr(C, n).check(mg.tensor(v)), getattr(TC, n).check(torch.tensor(v)))
    for mk, args in [("interval", (0.0, 1.0)), ("greater_than", (0.5,)),
                     ("integer_interval", (0, 1)), ("half_open_interval", (0.0, 1.0))]:
        _close(getattr(C, mk)(*args).check(mg.tensor(vals[0])),
               getattr(TC, mk)(*args).check(torch.tensor(vals[0])))
    _close(C.independent(C.positive, 1).check(mg.tensor(vals[1])),
           TC.independent(TC.positive, 1).check(torch.tensor(vals[1])))


CONSTRAINTS = [
    ("real", (), _real(4)), ("positive", (), _real(4)), ("nonnegative", (), _real(4)),
    ("greater_than", (1.5,), _real(4)), ("greater_than_eq", (-1.0,), _real(4)),
    ("less_than", (2.0,), _real(4)), ("unit_interval", (), _real(4)),
    ("interval", (-1.0, 3.0), _real(4)), ("half_open_interval", (0.0, 1.0), _real(4)),
    ("simplex", (), _real(2, 3)), ("real_vector", (), _real(2, 3)),
    ("independent", lambda C: (C.positive, 1), _real(2, 3)),
    ("corr_cholesky", (), _real(2, 3)), ("lower_cholesky", (), _real(2, 3, 3)),
    ("positive_definite", (), _real(2, 3, 3)), ("positive_semidefinite", (), _real(3, 3)),
    ("cat", lambda C: ([C.real, C.positive], 0, [2, 1]), _real(3)),
    ("stack", lambda C: ([C.unit_interval, C.greater_than(2.0)], -1), _real(4, 2)),
]


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name,args,x", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_constraint_registry_like_pytorch(registry, name, args, x):
    """biject_to / transform_to give PyTorch's transform for each constraint: the same class,
    values, inverse and log Jacobian, or NotImplementedError where it has none."""
    a, at = (args(D.constraints), args(TD.constraints)) if callable(args) else (args, args)
    c, ct = getattr(D.constraints, name), getattr(TD.constraints, name)
    c, ct = (c(*a), ct(*at)) if callable(ct) and not isinstance(ct, TD.constraints.Constraint) \
        else (c, ct)
    try:
        tt = getattr(TD, registry)(ct)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(D, registry)(c)
        return
    t = getattr(D, registry)(c)
    assert type(t).__name__ == type(tt).__name__
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, yt = t(xm), tt(xt)
    _close(y, yt)
    assert bool(c.check(y).all()) and bool(ct.check(yt).all())
    if tt.bijective:
        _close(t.inv(y), tt.inv(yt), rtol=1e-5, atol=1e-7)
        _close(t.log_abs_det_jacobian(xm, y), tt.log_abs_det_jacobian(xt, yt))


def test_corr_cholesky_log_det_is_the_jacobian():
    """The log Jacobian of CorrCholeskyTransform against float64 finite differences of the map
    to the strictly lower entries (which determine the factor)."""
    t = D.transforms.CorrCholeskyTransform()
    x0 = _real(6)
    rows, cols = np.tril_indices(4, -1)

    def f(v):
        return t(mg.tensor(v)).numpy()[rows, cols]
    h = 1e-6
    J = np.stack([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(6)], -1)
    want = np.log(abs(np.linalg.det(J)))
    _close(t.log_abs_det_jacobian(mg.tensor(x0), t(mg.tensor(x0))), want, rtol=1e-6)


def test_kumaraswamy_mode_is_the_argmax_of_the_density():
    """Where a, b > 1 (PyTorch 2.13 gives NaN there): the mode against a grid search."""
    d = D.Kumaraswamy(mg.tensor([2.0, 3.5]), mg.tensor([3.0, 1.5]))
    grid = np.linspace(1e-4, 1 - 1e-4, 200001)
    lp = _np(d.log_prob(mg.tensor(grid[:, None])))
    np.testing.assert_allclose(_np(d.mode), grid[lp.argmax(0)], atol=1e-4)


def test_von_mises_samples():
    """The samples' circular mean is loc and one minus their mean resultant length is the
    (circular) variance."""
    mg.seed(6)
    loc, conc = np.array([0.5, -2.5, 3.0]), np.array([0.7, 2.0, 8.0])
    x = _np(D.VonMises(mg.tensor(loc), mg.tensor(conc)).sample((20000,)))
    resultant = np.exp(1j * x).mean(0)
    np.testing.assert_allclose(np.angle(resultant * np.exp(-1j * loc)), 0, atol=0.05)
    want = _np(TD.VonMises(torch.tensor(loc), torch.tensor(conc)).variance)
    np.testing.assert_allclose(1 - abs(resultant), want, atol=0.02)


def test_matrix_samples_lie_in_their_support():
    mg.seed(7)
    lkj = D.LKJCholesky(4, mg.tensor([0.5, 3.0]))
    L = lkj.sample((500,))
    assert bool(D.constraints.corr_cholesky.check(L).all())
    # eta large pulls the correlations towards 0; eta < 1 spreads them out
    off = np.abs(_np(L @ L.swapaxes(-1, -2))[..., 1, 0])
    assert off[:, 0].mean() > off[:, 1].mean()
    counts = D.Multinomial(7, mg.tensor([[0.2, 0.3, 0.5]])).sample((300,))
    assert (_np(counts).sum(-1) == 7).all()
