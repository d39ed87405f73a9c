"""The Paddle dialect's ``paddle.sparse`` against values and gradients recorded with real
Paddle 3.3.1 (paddle_sparse_reference.json, written by make_paddle_sparse_reference.py)."""
import json
import os

import numpy as np
import pytest

import mutograd.compat.paddle as paddle

sparse = paddle.sparse
REF = json.load(open(os.path.join(os.path.dirname(__file__), "paddle_sparse_reference.json")))

FUNCTIONS = {
    "abs": sparse.abs, "sin": sparse.sin, "tanh": sparse.tanh, "square": sparse.square,
    "neg": sparse.neg, "asinh": sparse.asinh, "atan": sparse.atan, "expm1": sparse.expm1,
    "sqrt": sparse.sqrt, "log1p": sparse.log1p,
    "pow3": lambda x: sparse.pow(x, 3.0), "relu": sparse.nn.functional.relu,
    "softmax": lambda x: sparse.nn.functional.softmax(sparse.coalesce(x)),
    "transpose": lambda x: sparse.transpose(x, [1, 0]),
    "reshape": lambda x: sparse.reshape(x, [1, 9]),
    "sum_axis0": lambda x: sparse.sum(x, axis=0),
    "sum_all": sparse.sum,
    "multiply_self": lambda x: sparse.multiply(x, x),
    "add_self": lambda x: sparse.add(x, x),
}


def dense_loss_weights(out, case):
    """Paddle's loss weighted its stored values in its order; the same weights laid out
    densely (at Paddle's output indices) weight ours, whatever order we store them in."""
    w = np.zeros(case["shape"])
    idx = case["indices"]
    weights = REF["weights"][:len(np.atleast_1d(case["values"]))]
    if len(case["shape"]) == 1 and case["shape"] == [1]:
        w[0] = 1.0
    else:
        np.add.at(w, tuple(np.array(idx)), weights)
    return paddle.to_tensor(w)


@pytest.mark.parametrize("name", sorted(REF["cases"]))
def test_against_paddle(name):
    case = REF["cases"][name]
    v = paddle.to_tensor(case["input"], dtype="float64", stop_gradient=False)
    out = FUNCTIONS[name](sparse.sparse_coo_tensor(REF["indices"], v, REF["shape"]))
    assert out.is_sparse() and list(out.shape) == case["shape"]
    np.testing.assert_allclose(out.to_dense().numpy(), case["dense"], rtol=1e-12, atol=1e-12)
    (out.to_dense() * dense_loss_weights(out, case)).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), case["grad"], rtol=1e-12, atol=1e-12)


def test_to_dense_gradient():
    v = paddle.to_tensor(REF["values"], dtype="float64", stop_gradient=False)
    g = paddle.to_tensor(np.arange(9.0).reshape(3, 3))
    (sparse.sparse_coo_tensor(REF["indices"], v, REF["shape"]).to_dense() * g).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), REF["to_dense_grad"])


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_gcn_layer(layout):
    r = REF["gcn"]
    v = paddle.to_tensor(r["values"], dtype="float64", stop_gradient=False)
    x = paddle.to_tensor(r["x"], dtype="float64", stop_gradient=False)
    w = paddle.to_tensor(r["w"], dtype="float64", stop_gradient=False)
    adj = sparse.sparse_coo_tensor(r["indices"], v, [4, 4])
    if layout == "csr":
        adj = adj.to_sparse_csr()         # the indices are sorted: values keep their order
    out = paddle.nn.functional.relu(sparse.matmul(adj, x @ w))
    (out * paddle.to_tensor(r["loss_weights"])).sum().backward()
    # Paddle's CPU matmul agrees to about 1e-8 in float64
    np.testing.assert_allclose(out.numpy(), r["out"], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), r["x_grad"], rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), r["w_grad"], rtol=1e-6)
    np.testing.assert_allclose(v.grad.numpy(), r["values_grad"], rtol=1e-6)


def test_tensor_methods():
    d = paddle.to_tensor([[0.0, 1.0], [2.0, 0.0]])
    coo, csr = d.to_sparse_coo(2), d.to_sparse_csr()
    assert coo.is_sparse() and coo.is_sparse_coo() and not coo.is_sparse_csr()
    assert csr.is_sparse() and csr.is_sparse_csr() and not csr.is_sparse_coo()
    assert coo.indices().tolist() == [[0, 1], [1, 0]] and coo.values().tolist() == [1.0, 2.0]
    assert csr.crows().tolist() == [0, 1, 2] and csr.cols().tolist() == [1, 0]
    assert coo.nnz() == 2 and csr.to_dense().tolist() == d.tolist()
    assert sparse.is_same_shape(coo, d) and coo.stop_gradient
    s = sparse.sparse_coo_tensor([[0], [1]], [3.0], [2, 2], stop_gradient=False)
    assert not s.stop_gradient and s.is_leaf


def test_products_and_binary():
    a = sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
    b = sparse.sparse_coo_tensor([[0, 1], [1, 1]], [4.0, 5.0], [2, 3])
    dense_a, dense_b = a.to_dense().numpy(), b.to_dense().numpy()
    y, m = np.arange(6.0).reshape(3, 2), np.ones((2, 2))
    np.testing.assert_allclose(sparse.mv(a, paddle.to_tensor([1.0, 2.0, 3.0])).numpy(),
                               dense_a @ [1.0, 2.0, 3.0])
    np.testing.assert_allclose(
        sparse.addmm(paddle.to_tensor(m), a, paddle.to_tensor(y), 0.5, 2.0).numpy(),
        0.5 * m + 2.0 * dense_a @ y)
    for fn, want in ((sparse.add, dense_a + dense_b), (sparse.subtract, dense_a - dense_b),
                     (sparse.multiply, dense_a * dense_b)):
        np.testing.assert_allclose(fn(a, b).to_dense().numpy(), want)
    np.testing.assert_allclose(sparse.divide(a, a * 2.0).values().numpy(), [0.5] * 3)
    p, q = np.arange(8.0).reshape(2, 4), np.arange(12.0).reshape(4, 3)
    mm = sparse.masked_matmul(paddle.to_tensor(p), paddle.to_tensor(q), a.to_sparse_csr())
    assert mm.is_sparse_csr()
    np.testing.assert_allclose(mm.to_dense().numpy(), (p @ q) * (dense_a != 0))


def test_refused():
    with pytest.raises(AttributeError, match="not supported in mutograd: sparse convolution"):
        sparse.nn.Conv3D
    with pytest.raises(AttributeError, match="not supported in mutograd"):
        sparse.nn.functional.subm_conv3d
    with pytest.raises(TypeError, match="two sparse tensors"):
        sparse.matmul(paddle.eye(2).to_sparse_coo(), paddle.eye(2).to_sparse_coo())
