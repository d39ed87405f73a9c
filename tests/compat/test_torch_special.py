"""``torch.special`` against PyTorch 2.13: one table over all of its public names drives the
checks of values (edge values included), result dtypes, signatures, whether a result takes a
gradient, and the gradients themselves."""
import inspect
import re

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mtorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

INF, NAN = np.inf, np.nan
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.7, 10.0, -10.0, 30.0, -30.0, 1e-8,
                  INF, -INF, NAN])
SMOOTH = np.array([-2.3, -0.7, 0.3, 0.9, 1.7, 3.1])          # no pole nor kink of any row
UNIT = np.array([0.0, 1.0, 0.3, 0.5, 0.999, 1e-6, -0.5, 1.5, NAN])
INSIDE = np.array([0.05, 0.3, 0.5, 0.8, 0.97])
POSITIVE = np.array([0.0, 0.2, 1.0, 2.5, 7.0, 40.0, -1.0, INF, NAN])
DEGREES = np.array([-3, -1, 0, 1, 2, 3, 4, 7, 9, 12, 25])
X_POLY = np.array([0.0, 1.0, -1.0, 0.5, -0.5, 0.3, 0.8, 2.0, -2.5, 10.0, INF, -INF])
XN = tuple(np.meshgrid(X_POLY, DEGREES))   # each x with each degree

# name: (arguments on edge values, arguments on smooth points for gradients, keywords); an
# argument that is a numpy array becomes a tensor, a Python value is passed as it is
UNARY_EDGES = ("airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "erf", "erfc",
               "erfcx", "exp2", "expit", "expm1", "i0", "i0e", "i1", "i1e", "modified_bessel_i0",
               "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
               "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
               "log_ndtr", "ndtr", "sinc", "round")
POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
CASES = {
    **{n: ((EDGES,), (SMOOTH,), {}) for n in UNARY_EDGES},
    **{n: (XN, (SMOOTH, 3), {}) for n in POLYNOMIALS},
    "digamma": ((np.array([0.0, -1.0, -2.5, 0.5, 3.0, 40.0, INF, NAN]),), (SMOOTH,), {}),
    "psi": ((np.array([0.0, -1.0, -2.5, 0.5, 3.0, 40.0, INF, NAN]),), (SMOOTH,), {}),
    "gammaln": ((np.array([0.0, -1.0, -2.5, 0.5, 3.0, 40.0, INF, -INF, NAN]),), (SMOOTH,), {}),
    "entr": ((POSITIVE,), (INSIDE,), {}),
    "log1p": ((np.array([0.0, -1.0, -0.5, 1e-10, 3.0, INF, -2.0, NAN]),), (INSIDE,), {}),
    "erfinv": ((UNIT * 2 - 1,), (INSIDE - 0.5,), {}),
    "ndtri": ((UNIT,), (INSIDE,), {}),
    "logit": ((UNIT,), (INSIDE,), {}),
    "logit-eps": ((UNIT, 0.1), (INSIDE, 0.1), {}),
    "polygamma": ((2, np.array([0.5, 1.0, 3.0, -1.5, 10.0])), (2, INSIDE + 1), {}),
    "multigammaln": ((np.array([1.6, 2.0, 3.5, 10.0]), 3), (INSIDE + 1.5, 3), {}),
    "gammainc": ((np.array([0.5, 1.0, 2.0, 3.0, 0.5]), np.array([0.0, 1.0, 0.5, 10.0, INF])),
                 (np.array([0.5, 1.0, 2.0]), np.array([0.3, 1.2, 2.5])), {}),
    "gammaincc": ((np.array([0.5, 1.0, 2.0, 3.0, 0.5]), np.array([0.0, 1.0, 0.5, 10.0, INF])),
                  (np.array([0.5, 1.0, 2.0]), np.array([0.3, 1.2, 2.5])), {}),
    "xlogy": ((np.array([0.0, 0.0, 1.5, -2.0, 3.0]), np.array([0.0, NAN, 2.0, 0.5, INF])),
              (np.array([0.0, 1.5, -2.0]), np.array([0.5, 2.0, 0.7])), {}),
    "xlog1py": ((np.array([0.0, 0.0, 1.5, -2.0, 3.0, 2.0]),
                 np.array([-1.0, NAN, 2.0, -0.5, INF, -3.0])),
                (np.array([0.0, 1.5, -2.0]), np.array([0.5, 2.0, -0.7])), {}),
    "zeta": ((np.array([2.0, 1.0, 0.5, 3.0, 4.5, 2.0]), np.array([1.0, 1.0, 2.0, 0.5, 10.0, -1.5])),
             (np.array([2.0, 3.5, 4.0]), np.array([0.5, 1.5, 3.0])), {}),
    "logsumexp": ((np.array([[0.0, -INF, 1.0], [700.0, 710.0, -5.0]]), 1), (SMOOTH, 0), {}),
    "logsumexp-keepdim": ((np.array([[0.0, -INF, 1.0], [700.0, 710.0, -5.0]]), 1),
                          (SMOOTH.reshape(2, 3), 1), {"keepdim": True}),
    "softmax": ((np.array([[0.0, -INF, 1.0], [700.0, 710.0, -5.0]]), 1), (SMOOTH, 0), {}),
    "log_softmax": ((np.array([[0.0, -INF, 1.0], [700.0, 710.0, -5.0]]), 1), (SMOOTH, 0), {}),
}
# absolute tolerance: PyTorch's trigonometric forms of the polynomials leave 1e-16 where the
# value is 0, and its ndtr is 0 from x = -10 on, where SciPy's (ours) is 7.6e-24
ATOL = 1e-12


def _name(key):
    return key.split("-")[0]


# the inputs that take a gradient: the first argument of these has no derivative in PyTorch
# (test_no_derivative_for_the_first_argument); all float inputs of the others
GRAD_INPUTS = dict.fromkeys(("zeta", "gammainc", "gammaincc"), (1,))
# the same functions as i0 and i1, whose gradient they keep here (PyTorch's have none)
WITH_GRADIENT_HERE = {"modified_bessel_i0": "i0", "modified_bessel_i1": "i1"}


def _call(lib, key, args, kwargs, dtype=None, grad=False):
    """``lib.special.<name>`` on ``args`` made tensors of ``lib`` (float64 unless ``dtype``)."""
    tensors = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = lib.tensor(a if dtype is None else a.astype(dtype))
            if grad and t.dtype.is_floating_point and i in GRAD_INPUTS.get(key, (i,)):
                t.requires_grad_()
            a = t
        tensors.append(a)
    return getattr(lib.special, _name(key))(*tensors, **kwargs), tensors


def test_every_name_of_torch_special_is_there():
    assert sorted(mtorch.special.__all__) == sorted(torch.special.__all__)
    assert {_name(k) for k in CASES} == set(torch.special.__all__)
    for name in torch.special.__all__:
        assert callable(getattr(mtorch.special, name)), name
    # besides its functions, the module shows the tensor class (its docstring helpers and the
    # torch module are not API)
    extra = {n for n in dir(torch.special) if not n.startswith("_")} - set(torch.special.__all__)
    assert extra == {"Tensor", "torch", "common_args", "multi_dim_common"}
    assert mtorch.special.Tensor is mtorch.Tensor


def _torch_signature(name):
    first = getattr(torch.special, name).__doc__.strip().split("\n")[0]
    return re.match(rf"{name}\((.*)\)", first).group(1).split(", ")


@pytest.mark.parametrize("name", sorted(torch.special.__all__))
def test_signature_is_pytorchs(name):
    ours = inspect.signature(getattr(mtorch.special, name))
    want = _torch_signature(name)
    params = []
    for i, p in enumerate(ours.parameters.values()):
        if p.kind == p.KEYWORD_ONLY and i == _first_kw(ours):
            params.append("*")
        params.append(str(p))
    # extra keyword-only arguments PyTorch's docstring leaves out (round's decimals) are fine
    assert [p for p in params if p in want or not _keyword_only(ours, p)] == want


def _first_kw(sig):
    return next((i for i, p in enumerate(sig.parameters.values()) if p.kind == p.KEYWORD_ONLY),
                None)


def _keyword_only(sig, text):
    p = sig.parameters.get(text.split("=")[0])
    return p is not None and p.kind == p.KEYWORD_ONLY


@pytest.mark.parametrize("key", sorted(CASES))
def test_values_match_pytorch_on_edge_values(key):
    args, _, kwargs = CASES[key]
    with np.errstate(all="ignore"):
        got, _ = _call(mtorch, key, args, kwargs)
    want, _ = _call(torch, key, args, kwargs)
    assert type(got) is mtorch.Tensor
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-7,
                               atol=ATOL, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
@pytest.mark.parametrize("key", sorted(CASES))
def test_result_dtype_is_pytorchs(key, dtype):
    args, smooth, kwargs = CASES[key]
    if dtype is np.int64:
        args = tuple(np.round(np.nan_to_num(a, posinf=5, neginf=-5)) if isinstance(a, np.ndarray)
                     else a for a in smooth)
    try:
        want, _ = _call(torch, key, args, kwargs, dtype)
    except (RuntimeError, ValueError):   # PyTorch refuses integer input (softmax's kernels)
        return
    with np.errstate(all="ignore"):
        got, _ = _call(mtorch, key, args, kwargs, dtype)
    assert str(got.dtype) == str(want.dtype)
    if dtype is np.float32:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=1e-5,
                                   equal_nan=True)


def test_float32_input_and_integer_degree_stay_float32():
    x = np.array([0.3, 0.7], np.float32)
    for name in POLYNOMIALS:
        got = getattr(mtorch.special, name)(mtorch.tensor(x), mtorch.tensor([2, 3]))
        want = getattr(torch.special, name)(torch.tensor(x), torch.tensor([2, 3]))
        assert str(got.dtype) == str(want.dtype) == "torch.float32", name


@pytest.mark.parametrize("key", sorted(CASES))
def test_gradients_match_pytorch(key):
    """Which inputs take a gradient, and its value, are PyTorch's; where PyTorch has a gradient
    the second derivative is PyTorch's as well."""
    _, args, kwargs = CASES[key]
    want, tt = _call(torch, WITH_GRADIENT_HERE.get(key, key), args, kwargs, grad=True)
    got, mt = _call(mtorch, key, args, kwargs, grad=True)
    assert got.requires_grad == (want.requires_grad or key in WITH_GRADIENT_HERE)
    if not want.requires_grad:
        return
    w = np.random.default_rng(0).standard_normal(tuple(want.shape))
    pairs = [(m, t) for m, t in zip(mt, tt) if isinstance(t, torch.Tensor) and t.requires_grad]
    takes = []
    for m, t in pairs:
        (gt,) = torch.autograd.grad((want * torch.tensor(w)).sum(), t, retain_graph=True,
                                    create_graph=True)
        (gm,) = mg.grad((got * mtorch.tensor(w)).sum(), [m], retain_graph=True,
                        create_graph=True)
        np.testing.assert_allclose(gm.detach().numpy(), gt.detach().numpy(), rtol=1e-7,
                                   atol=1e-10)
        takes.append((m, t, gm, gt))
    assert takes, "PyTorch's result takes a gradient through some input"
    for m, t, gm, gt in takes:   # second order, w.r.t. the same input
        if not gt.requires_grad:   # a constant gradient (round's zero)
            assert not gm.requires_grad or not np.any(mg.grad(gm.sum(), [m],
                                                              allow_unused=True)[0].numpy())
            continue
        (ggt,) = torch.autograd.grad(gt.sum(), t, allow_unused=True)
        (ggm,) = mg.grad(gm.sum(), [m], allow_unused=True)
        if ggt is None:
            assert ggm is None or not np.any(ggm.numpy())
        else:
            np.testing.assert_allclose(ggm.numpy(), ggt.numpy(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", sorted(GRAD_INPUTS))
def test_no_derivative_for_the_first_argument(name):
    for lib in (torch, mtorch):
        x = lib.tensor([2.0, 3.0], dtype=lib.float64, requires_grad=True)
        y = getattr(lib.special, name)(x, lib.tensor([0.5, 1.5], dtype=lib.float64))
        with pytest.raises(RuntimeError, match="not implemented"):
            y.sum().backward()


def test_backward_through_a_function_without_gradient_is_pytorchs_error():
    x = mtorch.tensor([0.5, 1.5], requires_grad=True)
    y = mtorch.special.bessel_j0(x)
    assert not y.requires_grad and y.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.sum().backward()


def test_out_is_written_and_returned():
    out = mtorch.empty(3)
    x = mtorch.tensor([0.0, 1.0, -1.0])
    assert mtorch.special.erfcx(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), torch.special.erfcx(torch.tensor([0., 1., -1.])))
    with pytest.raises(TypeError, match="out"):
        mtorch.special.softmax(x, 0, out=out)


def test_from_torch_special_import_under_install():
    import mutograd.compat as compat
    undo = compat.install("torch")
    try:
        import torch as t
        from torch.special import erfcx
        assert erfcx is mtorch.special.erfcx and t.special is mtorch.special
    finally:
        undo()


def test_docstring_examples():
    import doctest
    result = doctest.testmod(mtorch.special, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
