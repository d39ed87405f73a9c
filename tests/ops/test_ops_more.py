"""The searching, statistics, arrangement and linear-algebra functions: values against NumPy
(and PyTorch where installed), gradients against finite differences in float64, errors."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

R = np.random.default_rng(0)
A34 = R.standard_normal((3, 4))
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)           # well conditioned
V3, W3 = R.standard_normal(3), R.standard_normal(3)

# name, mutograd call on tensors, reference on float64 arrays, inputs (all get gradients)
DIFFERENTIABLE = [
    ("median", lambda x: mg.median(x), lambda x: np.sort(x.ravel())[(x.size - 1) // 2], [A34]),
    ("median-dim", lambda x: mg.median(x, 1).values,
     lambda x: np.sort(x, 1)[:, (x.shape[1] - 1) // 2], [A34]),
    ("kthvalue", lambda x: mg.kthvalue(x, 2, 0, keepdim=True).values,
     lambda x: np.sort(x, 0)[1:2], [A34]),
    ("quantile", lambda x: mg.quantile(x, mg.tensor([0.1, 0.5, 0.9], dtype="float64"), dim=1),
     lambda x: np.quantile(x, [0.1, 0.5, 0.9], axis=1), [A34]),
    ("quantile-keepdim", lambda x: mg.quantile(x, 0.3, dim=0, keepdim=True),
     lambda x: np.quantile(x, 0.3, axis=0, keepdims=True), [A34]),
    ("quantile-all-nearest", lambda x: mg.quantile(x, 0.4, interpolation="nearest"),
     lambda x: np.quantile(x, 0.4, method="nearest"), [A34]),
    ("nansum", lambda x: mg.nansum(x, 0), lambda x: np.nansum(x, 0), [A34]),
    ("nanmean", lambda x: mg.nanmean(x), lambda x: np.nanmean(x), [A34]),
    ("var_mean", lambda x: mg.var_mean(x, 1)[0] + mg.var_mean(x, 1)[1],
     lambda x: x.var(1, ddof=1) + x.mean(1), [A34]),
    ("std_mean", lambda x: mg.std_mean(x, correction=0)[0],
     lambda x: x.std(), [A34]),
    ("diff", lambda x: mg.diff(x, n=2, dim=1), lambda x: np.diff(x, 2, 1), [A34]),
    ("diff-prepend", lambda x, y: mg.diff(x, dim=0, prepend=y),
     lambda x, y: np.diff(x, axis=0, prepend=y), [A34, A34[:1]]),
    ("rot90", lambda x: mg.rot90(x), lambda x: np.rot90(x), [A34]),
    ("rot90-3", lambda x: mg.rot90(x, 3, (1, 0)), lambda x: np.rot90(x, 3, (1, 0)), [A34]),
    ("movedim", lambda x: mg.movedim(x.reshape(3, 2, 2), 0, -1),
     lambda x: np.moveaxis(x.reshape(3, 2, 2), 0, -1), [A34]),
    ("take", lambda x: mg.take(x, mg.tensor([[0, 5], [11, 5]])),
     lambda x: np.take(x, [[0, 5], [11, 5]]), [A34]),
    ("take_along_dim", lambda x: mg.take_along_dim(x, mg.tensor([[0], [2], [1]]), 1),
     lambda x: np.take_along_axis(x, np.array([[0], [2], [1]]), 1), [A34]),
    ("trace", lambda x: mg.trace(x), np.trace, [SQ]),
    ("diag-vector", lambda v: mg.diag(v, -1), lambda v: np.diag(v, -1), [V3]),
    ("diag-matrix", lambda x: mg.diag(x, 1), lambda x: np.diag(x, 1), [A34]),
    ("kron", lambda a, b: mg.kron(a, b), np.kron, [A34[:2, :2], A34[:, :2]]),
    ("cross", lambda a, b: mg.cross(a, b), np.cross, [V3, W3]),
    ("tensordot", lambda a, b: mg.tensordot(a, b, ([1], [0])),
     lambda a, b: np.tensordot(a, b, ([1], [0])), [A34, A34.T]),
    ("inner", lambda a, b: mg.inner(a, b), np.inner, [A34, A34[:2]]),
    ("cdist", lambda a, b: mg.cdist(a, b),
     lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)), [A34, A34[:2] + 1]),
    ("dist-p1", lambda a, b: mg.dist(a, b, 1), lambda a, b: np.abs(a - b).sum(), [A34, A34.T.T
                                                                                     * 2]),
    ("det", lambda x: mg.linalg.det(x), np.linalg.det, [SQ]),
    ("inv", lambda x: mg.linalg.inv(x), np.linalg.inv, [SQ]),
    ("slogdet", lambda x: mg.linalg.slogdet(x)[1], lambda x: np.linalg.slogdet(x)[1], [SQ]),
    ("solve-matrix", lambda a, b: mg.linalg.solve(a, b), np.linalg.solve, [SQ, A34[:, :2]]),
    ("solve-vector", lambda a, b: mg.linalg.solve(a, b), np.linalg.solve, [SQ, V3]),
    ("matrix_power", lambda x: mg.linalg.matrix_power(x, 3),
     lambda x: np.linalg.matrix_power(x, 3), [SQ]),
    ("matrix_power-neg", lambda x: mg.linalg.matrix_power(x, -2),
     lambda x: np.linalg.matrix_power(x, -2), [SQ]),
    ("norm-fro", lambda x: mg.linalg.norm(x), np.linalg.norm, [A34]),
    ("matrix_norm-inf", lambda x: mg.linalg.matrix_norm(x, np.inf),
     lambda x: np.linalg.norm(x, np.inf), [A34]),
    ("vector_norm-dim", lambda x: mg.linalg.vector_norm(x, 3, dim=1),
     lambda x: (np.abs(x) ** 3).sum(1) ** (1 / 3), [A34]),
]


@pytest.mark.parametrize("name,fn,ref,inputs", DIFFERENTIABLE, ids=[c[0] for c in DIFFERENTIABLE])
def test_values_and_gradients(name, fn, ref, inputs):
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    out = fn(*ts)
    np.testing.assert_allclose(out.numpy(), ref(*inputs), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    expected = numeric_grad(lambda *a: float((fn(*(mg.tensor(x) for x in a)).numpy() * w).sum()),
                            [a.copy() for a in inputs])
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-7)


def test_searching_functions_match_numpy():
    x = mg.tensor([[0, 3, 0], [7, 0, 3]])
    assert mg.nonzero(x).tolist() == [[0, 1], [1, 0], [1, 2]]
    assert [t.tolist() for t in mg.nonzero(x, as_tuple=True)] == [[0, 1, 1], [1, 0, 2]]
    assert mg.argwhere(x).tolist() == mg.nonzero(x).tolist()
    assert mg.count_nonzero(x).item() == 3 and mg.count_nonzero(x, dim=0).tolist() == [1, 1, 1]
    values, inverse, counts = mg.unique(x, return_inverse=True, return_counts=True)
    assert values.tolist() == [0, 3, 7] and counts.tolist() == [3, 2, 1]
    assert inverse.tolist() == [[0, 1, 0], [2, 0, 1]]
    assert mg.unique(mg.tensor([[1, 2], [1, 2], [0, 1]]), dim=0).tolist() == [[0, 1], [1, 2]]
    assert mg.bincount(mg.tensor([1, 1, 3])).tolist() == [0, 2, 0, 1]
    assert mg.bincount(mg.tensor([0, 2]), weights=mg.tensor([0.5, 2.0]), minlength=4).tolist() \
        == [0.5, 0.0, 2.0, 0.0]
    seq = mg.tensor([1.0, 3.0, 5.0, 7.0])
    assert mg.searchsorted(seq, mg.tensor([3.0, 6.0])).tolist() == [1, 3]
    assert mg.searchsorted(seq, mg.tensor([3.0]), right=True).tolist() == [2]
    rows = mg.tensor([[1.0, 3.0], [2.0, 4.0]])
    assert mg.searchsorted(rows, mg.tensor([[2.0], [5.0]])).tolist() == [[1], [2]]
    assert mg.bucketize(mg.tensor([3.0, 6.0]), seq).tolist() == [1, 3]
    assert mg.isin(mg.tensor([1, 2, 3]), mg.tensor([2, 5])).tolist() == [False, True, False]
    assert mg.histc(mg.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [0, 2, 1, 0]
    assert mg.isclose(mg.tensor([1.0, 2.0]), mg.tensor([1.0 + 1e-9, 2.1])).tolist() == [True,
                                                                                       False]
    assert mg.signbit(mg.tensor([-0.0, 1.0, -2.0])).tolist() == [True, False, True]
    with pytest.raises(ValueError, match="non-negative integral"):
        mg.bincount(mg.tensor([-1, 2]))


def test_arrangement_helpers():
    a, b = mg.ones([3, 1]), mg.zeros([1, 4])
    x, y = mg.broadcast_tensors(a, b)
    assert x.shape == [3, 4] and y.shape == [3, 4] and x._base is not None
    s, t = mg.broadcast_tensors(mg.tensor(1.0), mg.tensor(2.0))   # 0-d only: shape ()
    assert s.shape == [] and t.tolist() == 2.0
    assert mg.atleast_1d(mg.tensor(1.0)).shape == [1]
    assert mg.atleast_2d(mg.ones([3])).shape == [1, 3]
    assert mg.atleast_3d(mg.ones([3])).shape == [1, 3, 1]
    assert [t.shape for t in mg.atleast_2d(mg.ones([2]), mg.ones([2, 2]))] == [[1, 2], [2, 2]]
    t = mg.ones([2])
    assert mg.positive(t) is t
    with pytest.raises(mg.ShapeError, match="size 3"):
        mg.cross(mg.ones([2]), mg.ones([2]))
    with pytest.raises(ValueError, match="must differ"):
        mg.rot90(mg.ones([2, 2]), 1, (0, 0))
    with pytest.raises(IndexError, match="out of range"):
        mg.kthvalue(mg.ones([3]), 4)
    with pytest.raises(mg.ShapeError, match="square matrices"):
        mg.linalg.matrix_power(mg.ones([2, 3]), 2)
    assert mg.linalg.matrix_power(mg.tensor(SQ), 0).tolist() == np.eye(3).tolist()
    sign, logdet = mg.linalg.slogdet(mg.tensor(-SQ))
    assert sign.item() == np.linalg.slogdet(-SQ)[0]


@pytest.mark.torch
def test_a_sample_against_pytorch():
    torch = pytest.importorskip("torch")
    x = R.standard_normal((4, 5))
    t = torch.tensor(x)
    np.testing.assert_allclose(mg.median(mg.tensor(x), 0).values.numpy(),
                               torch.median(t, 0).values.numpy())
    np.testing.assert_array_equal(mg.median(mg.tensor(x), 0).indices.numpy(),
                                  torch.median(t, 0).indices.numpy())
    np.testing.assert_allclose(mg.quantile(mg.tensor(x), mg.tensor([0.2, 0.7], dtype="float64"), 1,
                                           True).numpy(),
                               torch.quantile(t, torch.tensor([0.2, 0.7], dtype=torch.float64),
                                              1, True).numpy(), rtol=1e-12)
    np.testing.assert_allclose(mg.cdist(mg.tensor(x), mg.tensor(x[:2])).numpy(),
                               torch.cdist(t, t[:2]).numpy(), rtol=1e-10)
    np.testing.assert_allclose(mg.linalg.matrix_norm(mg.tensor(x), 1).numpy(),
                               torch.linalg.matrix_norm(t, 1).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_by_the_exponents_pytorch_specializes_rounds_as_pytorch(dtype):
    # x ** 3 is x * x * x (two roundings, not pow's one), x ** -2 is 1 / (x * x), x ** 0.5 is
    # sqrt (-0.0 stays -0.0, -inf gives NaN), x ** -0.5 is 1 / sqrt(x), x ** -1 is 1 / x
    x = np.array([1.1, -2.7, 0.3, 1e-3, 7.5], dtype)
    t = mg.tensor(x)
    for e, want in ((3, (x * x) * x), (-2, 1 / (x * x)), (0.5, np.sqrt(np.abs(x))),
                    (-0.5, 1 / np.sqrt(np.abs(x))), (-1, 1 / x)):
        base = mg.tensor(np.abs(x)) if e in (0.5, -0.5) else t
        assert (base ** e).numpy().tobytes() == want.tobytes(), e
        w = base.clone()
        w.pow_(e)
        assert w.numpy().tobytes() == want.tobytes(), e
    special = mg.tensor(np.array([-0.0, -np.inf], dtype)) ** 0.5
    assert np.signbit(special.numpy()[0]) and np.isnan(special.numpy()[1])


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pow_by_the_specialized_exponents_is_pytorchs_bit_for_bit(dtype):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).uniform(-3, 3, 1000).astype(dtype)
    for e in (2, 3, -2, -1):
        assert (mg.tensor(x) ** e).numpy().tobytes() == \
            (torch.from_numpy(x) ** e).numpy().tobytes(), e
