"""Paddle's functional derivatives: ``paddle.autograd.jacobian``/``hessian`` (lazy objects,
evaluated a row at a time when indexed, with ``batch_axis``) and ``paddle.incubate.autograd``
(``vjp``, ``jvp``, ``Jacobian``, ``Hessian``), as Paddle 3.3.1 documents them."""
import numpy as np
import pytest

import mutograd.compat.paddle as paddle

RNG = np.random.default_rng(5)
A = RNG.standard_normal(3)
Bm = RNG.standard_normal((2, 3))


def _t(a):
    t = paddle.to_tensor(a)
    t.stop_gradient = False
    return t


def test_jacobian_is_lazy_and_caches_rows():
    x = _t(A)
    y = (x ** 2).cumsum(0)
    J = paddle.autograd.jacobian(y, x)
    assert isinstance(J, paddle.autograd.Jacobian) and J.shape == [3, 3]
    assert J._rows == {}
    row = J[1]
    assert list(J._rows) == [1]
    np.testing.assert_allclose(row.numpy(), [2 * A[0], 2 * A[1], 0])
    full = J[:]
    assert sorted(J._rows) == [0, 1, 2]
    want = np.tril(np.ones((3, 3))) * 2 * A
    np.testing.assert_allclose(full.numpy(), want)
    np.testing.assert_allclose(J[0:3:2, 1:].numpy(), want[0:3:2, 1:])
    np.testing.assert_allclose(J[-1, -1].numpy(), want[-1, -1])
    np.testing.assert_allclose((J * 2).numpy(), 2 * want)    # operators act on the whole
    np.testing.assert_allclose(J.numpy(), want)
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]
    with pytest.raises(TypeError, match="Not supported index type"):
        J[[0, 1]]


def test_jacobian_shapes_tuples_and_batch_axis():
    x1, x2 = _t(A), _t(A[:2])
    y = x1.sum() * x2
    J = paddle.autograd.jacobian(y, (x1, x2))
    assert [j.shape for j in J] == [[2, 3], [2, 2]]
    np.testing.assert_allclose(J[1][:].numpy(), np.eye(2) * A.sum())
    s = paddle.autograd.jacobian(x1.sum(), x1)                # a 0-D output: [N]
    assert s.shape == [3] and s[:].tolist() == [1.0, 1.0, 1.0]
    xb = _t(Bm)
    Jb = paddle.autograd.jacobian(xb.sin() * 2, xb, batch_axis=0)
    assert Jb.shape == [2, 3, 3]
    np.testing.assert_allclose(Jb[:].numpy(), np.stack([np.diag(2 * np.cos(r)) for r in Bm]))
    np.testing.assert_allclose(Jb[:, 1].numpy(), 2 * np.cos(Bm) * np.eye(3)[1])
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        paddle.autograd.jacobian(xb, xb, batch_axis=1)
    with pytest.raises(ValueError, match="ndim should be 0 or 1"):
        paddle.autograd.jacobian(xb, xb)
    yy = paddle.autograd.jacobian((y, y * 2), (x1, x2))
    assert [[j.shape for j in row] for row in yy] == [[[2, 3], [2, 2]], [[2, 3], [2, 2]]]


def test_hessian():
    x1, x2 = _t(A), _t(A[:2])
    y = (x1 ** 3).sum() * x2.sum()
    H = paddle.autograd.hessian(y, (x1, x2))
    assert isinstance(H[0][0], paddle.autograd.Hessian)
    assert [[h.shape for h in row] for row in H] == [[[3, 3], [3, 2]], [[2, 3], [2, 2]]]
    s = A[:2].sum()
    np.testing.assert_allclose(H[0][0][:].numpy(), np.diag(6 * A * s))
    np.testing.assert_allclose(H[0][1][:].numpy(), np.outer(3 * A ** 2, np.ones(2)))
    np.testing.assert_allclose(H[1][1][:].numpy(), np.zeros((2, 2)))
    xb = _t(Bm)
    Hb = paddle.autograd.hessian((xb ** 3).sum(1), xb, batch_axis=0)
    assert Hb.shape == [2, 3, 3]
    np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6 * r) for r in Bm]))
    with pytest.raises(ValueError, match="Only support ys.numel"):
        paddle.autograd.hessian(x1 * 2, x1)


def test_incubate_vjp_jvp_follow_paddles_examples():
    x = paddle.ones([2, 2])
    _, g = paddle.incubate.autograd.vjp(lambda x: paddle.matmul(x, x), x)
    assert g.tolist() == [[4.0, 4.0], [4.0, 4.0]]
    v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
    _, g = paddle.incubate.autograd.vjp(lambda x: paddle.matmul(x, x), x, v)
    assert g.tolist() == [[2.0, 1.0], [1.0, 0.0]] and not g.stop_gradient
    _, t = paddle.incubate.autograd.jvp(lambda x: paddle.matmul(x, x), x, v)
    assert t.tolist() == [[2.0, 1.0], [1.0, 0.0]]
    out, (ga, gb) = paddle.incubate.autograd.vjp(lambda a, b: a * b, [_t(A), _t(2 * A)])
    np.testing.assert_allclose(ga.numpy(), 2 * A)
    np.testing.assert_allclose(gb.numpy(), A)
    with pytest.raises(RuntimeError, match="invalid shape"):
        paddle.incubate.autograd.vjp(lambda x: x, x, paddle.ones([3]))


def test_incubate_jacobian_and_hessian():
    x = paddle.to_tensor([[1., 2.], [3., 4.]])
    J = paddle.incubate.autograd.Jacobian(lambda x, y: paddle.matmul(x, y), [x, x])
    assert J.shape == [4, 8]
    assert J[:, :].tolist() == [[1.0, 3.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0],
                                [2.0, 4.0, 0.0, 0.0, 0.0, 1.0, 0.0, 2.0],
                                [0.0, 0.0, 1.0, 3.0, 3.0, 0.0, 4.0, 0.0],
                                [0.0, 0.0, 2.0, 4.0, 0.0, 3.0, 0.0, 4.0]]
    assert J[0, :].tolist() == [1.0, 3.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0]
    assert J[:, 0].tolist() == [1.0, 2.0, 0.0, 0.0]
    H = paddle.incubate.autograd.Hessian(lambda x: (x * x).sum(), paddle.rand([2, 2]))
    assert H[:].tolist() == (2 * np.eye(4)).tolist()
    Hb = paddle.incubate.autograd.Hessian(lambda x: (x ** 3).sum(1), _t(Bm), is_batched=True)
    assert Hb.shape == [2, 3, 3]
    np.testing.assert_allclose(Hb[:].numpy(), np.stack([np.diag(6 * r) for r in Bm]),
                               rtol=1e-6)
    Jb = paddle.incubate.autograd.Jacobian(lambda x: x * 2, _t(Bm), is_batched=True)
    assert Jb.shape == [2, 3, 3] and Jb[:, 1, 1].tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="single element"):
        paddle.incubate.autograd.Hessian(lambda x: x * 2, _t(A))[:]


def test_hessian_of_several_inputs():
    H = paddle.incubate.autograd.Hessian(lambda x, y: (x * y).sum(), [_t(A), _t(2 * A)])
    n = len(A)
    want = np.block([[np.zeros((n, n)), np.eye(n)], [np.eye(n), np.zeros((n, n))]])
    np.testing.assert_allclose(H[:].numpy(), want)
