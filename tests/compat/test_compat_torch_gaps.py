"""PyTorch-dialect functions, methods and signatures, each run through real PyTorch and through
``mutograd.compat.torch`` on the same data: values, dtypes, shapes and gradients must agree."""
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt

A = np.array([[0.3, -1.2, 2.0], [1.5, 0.7, -0.4]], dtype=np.float32)
C = np.array([[1 + 2j, 3 - 1j], [-0.5 + 0.25j, 2j]], dtype=np.complex64)


def _np(v):
    if isinstance(v, (tuple, list)):
        return [_np(x) for x in v]
    if hasattr(v, "detach"):
        return v.detach().cpu().numpy() if hasattr(v, "cpu") else v.detach().numpy()
    return np.asarray(v)


# (id, f(T) -> result) with T the torch module; the inputs are made inside from A and C
CASES = [
    ("new_zeros", lambda T: T.tensor(A, dtype=T.float64).new_zeros(2, 3)),
    ("new_ones", lambda T: T.tensor(A).new_ones((4,))),
    ("new_full", lambda T: T.tensor(A, dtype=T.float64).new_full((2,), 3.5)),
    ("new_tensor", lambda T: T.tensor(A).new_tensor([[1, 2]])),
    ("new_empty_shape", lambda T: T.tensor(A).new_empty(3, 1).shape),
    ("view_as", lambda T: T.tensor(A).view_as(T.zeros(3, 2))),
    ("reshape_as", lambda T: T.tensor(A).t().reshape_as(T.zeros(6))),
    ("type_as", lambda T: T.tensor(A).type_as(T.zeros(1, dtype=T.int64))),
    ("nelement", lambda T: T.tensor(A).nelement()),
    ("split_with_sizes", lambda T: T.tensor(A).split_with_sizes([1, 2], 1)),
    ("unsafe_split", lambda T: T.tensor(A).unsafe_split(1)),
    ("unsafe_chunk", lambda T: T.tensor(A).unsafe_chunk(3, 1)),
    ("fill", lambda T: T.fill(T.tensor(A), 2.5)),
    ("flip_dims", lambda T: T.flip(T.tensor(A), dims=(0, 1))),
    ("roll_dims", lambda T: T.roll(T.tensor(A), 1, dims=1)),
    ("diagonal_kw", lambda T: T.diagonal(T.tensor(A), 1, dim1=0, dim2=1)),
    ("diagonal_kw_neg", lambda T: T.tensor(A).diagonal(offset=0, dim1=-1, dim2=0)),
    ("div_floor", lambda T: T.div(T.tensor(A), 0.5, rounding_mode="floor")),
    ("div_trunc", lambda T: T.div(T.tensor(A) * 3, 2, rounding_mode="trunc")),
    ("div_trunc_int", lambda T: T.div(T.tensor([-7, 7, 5]), 2, rounding_mode="trunc")),
    ("div_floor_int", lambda T: T.div(T.tensor([-7, 7, 5]), 2, rounding_mode="floor")),
    ("divide_method", lambda T: T.tensor(A).divide(2.0, rounding_mode="floor")),
    ("div_inplace", lambda T: T.tensor(A).div_(0.25, rounding_mode="trunc")),
    ("cumsum_dtype", lambda T: T.cumsum(T.tensor(A), 1, dtype=T.float64)),
    ("cumprod_dtype", lambda T: T.tensor(A).cumprod(0, dtype=T.float64)),
    ("mean_dtype", lambda T: T.mean(T.tensor(A), dtype=T.float64)),
    ("sum_dtype", lambda T: T.tensor(A).sum(1, dtype=T.float64)),
    ("std_unbiased_positional", lambda T: T.std(T.tensor(A), False)),
    ("var_unbiased_positional", lambda T: T.tensor(A).var(1, False)),
    ("max_0d", lambda T: T.max(T.tensor(2.5), 0)),
    ("min_0d", lambda T: T.tensor(2.5).min(dim=-1)),
    ("logsumexp_0d", lambda T: T.logsumexp(T.tensor(2.5), 0)),
    ("transpose_0d", lambda T: T.tensor(2.5).transpose(0, -1)),
    ("transpose_0d_fn", lambda T: T.transpose(T.tensor(2.5), -1, 0)),
    ("softmax_empty", lambda T: T.nn.functional.softmax(T.zeros(0, 3), 1)),
    ("log_softmax_empty", lambda T: T.log_softmax(T.zeros(0, 3), 0)),
    ("amax_empty", lambda T: T.amax(T.zeros(0, 3), 1)),
    ("cat_empty_1d", lambda T: T.cat([T.zeros(0), T.tensor(A), T.zeros(0)])),
    ("einsum_ellipsis", lambda T: T.einsum("...ij,...jk->...ik", T.ones(2, 2, 3),
                                           T.tensor(A).t())),
    ("real_of_complex", lambda T: T.tensor(C).real),
    ("imag", lambda T: T.tensor(C).imag),
    ("view_as_real", lambda T: T.view_as_real(T.tensor(C))),
    ("view_as_complex", lambda T: T.view_as_complex(T.tensor(A[:, :2].copy()))),
    ("view_as_complex_3d", lambda T: T.view_as_complex(T.tensor(A).reshape(3, 1, 2))),
    ("complex", lambda T: T.complex(T.tensor(A), T.tensor(A) * 2)),
    ("polar", lambda T: T.polar(T.tensor(A).abs(), T.tensor(A))),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_result_as_pytorch(case):
    torch = pytest.importorskip("torch")
    _, f = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, got = f(torch), f(mt)
    if isinstance(want, torch.Size):
        assert list(got) == list(want)
        return
    if isinstance(want, (int, float)):
        assert got == want
        return
    w, g = _np(want), _np(got)
    if isinstance(w, list):
        assert len(w) == len(g)
    else:
        w, g = [w], [g]
    for a, b in zip(w, g):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


# (id, f(T, x) -> scalar loss), x a leaf made from the data; the gradients must agree
GRAD_CASES = [
    ("real_imag", C, lambda T, x: (x.real * 2 + x.imag * 3).sum()),
    ("view_as_real", C, lambda T, x: (T.view_as_real(x) * T.arange(8.).reshape(2, 2, 2)).sum()),
    ("view_as_complex", A[:, :2].copy(),
     lambda T, x: (T.view_as_real(T.view_as_complex(x) * 1) * T.tensor([1., -2.])).sum()),
    ("view_as_complex_real_part", A[:, :2].copy(), lambda T, x: T.view_as_complex(x).imag.sum()),
    ("polar", A, lambda T, x: T.view_as_real(T.polar(x * x, x)).pow(2).sum()
     + T.polar(x.exp(), x).imag.sum()),
    ("complex", A, lambda T, x: (T.complex(x, x.sin()).real * 3 + T.complex(x, x * 2).imag).sum()),
    ("view_as", A, lambda T, x: (x.view_as(T.zeros(3, 2)) * T.arange(6.).reshape(3, 2)).sum()),
    ("split_with_sizes", A, lambda T, x: sum((p * (i + 1)).sum() for i, p in
                                             enumerate(x.split_with_sizes([2, 1], 1)))),
    ("flip_dims", A, lambda T, x: (T.flip(x, dims=(1,)) * T.arange(6.).reshape(2, 3)).sum()),
    ("diagonal_kw", A, lambda T, x: (T.diagonal(x, 0, dim1=1, dim2=0) * 3).sum()),
    ("transpose_0d", np.float32(1.5), lambda T, x: x.transpose(0, 0) * 4),
    ("cat_empty_1d", A, lambda T, x: (T.cat([T.zeros(0), x]) * 2).sum()),
    ("div_floor", A, lambda T, x: (T.div(x, 0.5, rounding_mode="floor") + x).sum()),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_same_gradient_as_pytorch(case):
    torch = pytest.importorskip("torch")
    _, data, f = case
    grads = []
    for T in (torch, mt):
        x = T.tensor(data, requires_grad=True)
        f(T, x).backward()
        grads.append(_np(x.grad))
    want, got = grads
    assert want.dtype == got.dtype and want.shape == got.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_factories_keep_dtype_and_place_and_make_leaves():
    x = mt.ones(2, 3, dtype=mt.float64, requires_grad=True)
    for y in (x.new_zeros(2), x.new_ones([2, 2]), x.new_empty(1), x.new_full([2], 1.0),
              x.new_tensor([1.0, 2.0])):
        assert y.dtype == mt.float64 and y.place == x.place
        assert y.is_leaf and not y.requires_grad
    assert x.new_zeros(2, dtype=mt.int32).dtype == mt.int32
    assert x.new_ones(2, requires_grad=True).requires_grad
    src = mt.tensor([1.0, 2.0])
    copy = x.new_tensor(src)
    copy.add_(1)
    assert src.tolist() == [1.0, 2.0]       # new_tensor copies, never aliases


def test_real_is_self_for_real_tensors_and_imag_refused():
    x = mt.ones(3)
    assert x.real is x
    with pytest.raises(TypeError, match="imag is not implemented for tensors with non-complex"):
        x.imag
    with pytest.raises(TypeError, match="view_as_real"):
        mt.view_as_real(x)
    with pytest.raises(ValueError, match="last dimension of size 2"):
        mt.view_as_complex(mt.ones(2, 3))


def test_complex_views_share_storage_and_version():
    z = mt.tensor(C)
    r = mt.view_as_real(z)
    r[0, 0, 1] = 9.0
    assert z[0, 0].item() == 1 + 9j and z._version == 1
    a = mt.tensor(A[:, :2].copy())
    c = mt.view_as_complex(a)
    c.mul_(2)
    assert a.tolist() == (A[:, :2] * 2).tolist()


def test_div_rejects_an_unknown_rounding_mode():
    with pytest.raises(ValueError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        mt.div(mt.ones(2), 2, rounding_mode="round")
    x = mt.tensor([7.0])
    assert x.div_(2, rounding_mode="floor") is x and x.tolist() == [3.0]


def test_dim_keyword_aliases_leave_an_ops_own_names_alone():
    # fill_diagonal_tensor declares dim1/dim2 itself: they must not become axis1/axis2
    x = mg.zeros([3, 3])
    y = mg.fill_diagonal_tensor(x, mg.ones([2]), offset=1, dim1=0, dim2=1)
    assert y.numpy()[0, 1] == 1 and y.numpy()[1, 2] == 1


def test_cat_skips_only_legacy_empty_vectors():
    a = mt.ones(2, 3)
    assert mt.cat([mt.zeros(0), a]).shape == mt.Size([2, 3])
    assert mt.cat([mt.zeros(0), mt.ones(2)]).shape == mt.Size([2])   # all 1-D: joined
    with pytest.raises(ValueError):
        mt.cat([mt.zeros(0, 2), a])                                   # (0, 2) is not skipped


# Chains of in-place ops whose gradient here uses the output: the output is copied when the
# chain writes it again (Note [Outputs copied on write]), so they run as in PyTorch and Paddle.
# (id, data, chain, reference): ``reference`` is the chain out of place, for the cases PyTorch
# cannot run in place (acosh_/asinh_/atanh_ have no in-place derivative there; tan_ and
# leaky_relu_ save their output, so PyTorch refuses the chain where Paddle computes it)
CHAINS = [
    ("asin_", [0.3, -0.5, 0.1], lambda T, b: b.asin_().asin_(), None),
    ("acos_", [0.3, -0.5, 0.1], lambda T, b: b.acos_().mul_(0.3).acos_(), None),
    ("acosh_", [1.5, 2.0, 3.0], lambda T, b: b.acosh_().add_(1.2).acosh_(),
     lambda T, b: (b.acosh() + 1.2).acosh()),
    ("asinh_", [0.3, -0.5, 2.0], lambda T, b: b.asinh_().asinh_(),
     lambda T, b: b.asinh().asinh()),
    ("atan_", [0.3, -0.5, 2.0], lambda T, b: b.atan_().atan_(), None),
    ("atanh_", [0.3, -0.5, 0.1], lambda T, b: b.atanh_().atanh_(),
     lambda T, b: b.atanh().atanh()),
    ("sinh_", [0.3, -0.5, 1.0], lambda T, b: b.sinh_().sinh_(), None),
    ("tan_", [0.3, -0.5, 0.2], lambda T, b: b.tan_().tan_(), lambda T, b: b.tan().tan()),
    ("hardtanh_", [0.3, -0.5, 0.1],
     lambda T, b: T.nn.functional.hardtanh_(T.nn.functional.hardtanh_(b, -0.4, 0.4), -0.2, 0.2),
     None),
    ("leaky_relu_", [0.3, -0.5, 0.1],
     lambda T, b: T.nn.functional.leaky_relu(T.nn.functional.leaky_relu(
         b, 0.1, inplace=True), 0.2, inplace=True),
     lambda T, b: T.nn.functional.leaky_relu(T.nn.functional.leaky_relu(b, 0.1), 0.2)),
    ("div_then_zero", [0.3, -0.5, 0.1], lambda T, b: b.div_(b.sigmoid() + 0.5).zero_(), None),
    ("asin_then_write", [0.3, -0.5, 0.1], lambda T, b: b.asin_().mul_(2).add_(1), None),
]


@pytest.mark.torch
@pytest.mark.parametrize("case", CHAINS, ids=[c[0] for c in CHAINS])
def test_inplace_chains_run_as_in_pytorch(case):
    torch = pytest.importorskip("torch")
    _, data, chain, reference = case
    grads = []
    for T, f in ((torch, reference or chain), (mt, chain)):
        a = T.tensor(data, requires_grad=True)
        b = a * 1
        out = f(T, b)
        (out * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append((_np(out), _np(a.grad)))
    for want, got in zip(*grads):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.torch
def test_as_strided_in_place_matches_pytorch():
    torch = pytest.importorskip("torch")
    import mutograd.compat.torch as mt
    out = []
    for T in (mt, torch):
        a = T.arange(6.).requires_grad_()
        h = a * 1
        y = h.as_strided_((2, 2), (1, 2), 1)
        (h * T.tensor([[1., 2.], [3., 4.]])).sum().backward()
        out.append((y is h, h.tolist(), h._version, a.grad.tolist()))
    assert out[0] == out[1]


def test_as_strided_in_place_refuses_a_leaf_and_a_strided_tensor():
    import mutograd as mg
    with pytest.raises(mg.InplaceError, match="leaf"):
        mg.ones([4], requires_grad=True).as_strided_((2,), (2,))
    with pytest.raises(mg.ShapeError, match="contiguous"):
        mg.ones([2, 3]).t().as_strided_((2,), (1,))
