"""One argument order per namespace where PyTorch and Paddle clash.

The main namespace (functions and ``mg.Tensor`` methods) takes PyTorch's positional order and
refuses a call that is only valid in Paddle's with a TypeError naming both forms (nothing is
reinterpreted, nothing is written); ``mutograd.compat.paddle`` (functions and ``paddle.Tensor``
methods) takes Paddle's, through the same declared ops, so values, gradients and backward nodes
equal the PyTorch form's. Paddle's pass-throughs (a main function with ``name=`` added) are made
from tables, and show ``name`` in their signature.
"""
import inspect

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.paddle as paddle
import mutograd.compat.paddle.nn.functional as paddle_f
from mutograd.compat.paddle import functions as paddle_functions


def _x():
    return mg.tensor(np.arange(12.0).reshape(3, 4))


def _idx(*values):
    return mg.tensor(np.array(values))


# ---- (a) the main namespace refuses Paddle's positional orders -------------------------------
# (call, the main form the message names, the paddle form it names or None where Paddle has none)
REFUSED = {
    "gather": (lambda x: mg.gather(x, _idx(1, 0)), "gather(x, dim, index)",
               "compat.paddle.gather(x, index, axis=None)"),
    "gather-axis": (lambda x: mg.gather(x, _idx(1, 0), 1), "gather(x, dim, index)",
                    "compat.paddle.gather(x, index, axis=None)"),
    "gather-method": (lambda x: x.gather(_idx(1, 0), 1), "gather(x, dim, index)",
                      "x.gather(index, axis)"),
    "index_select": (lambda x: mg.index_select(x, _idx(1, 0), 1), "index_select(x, dim, index)",
                     "compat.paddle.index_select(x, index, axis=0)"),
    "index_select-method": (lambda x: x.index_select(_idx(1, 0), 1),
                            "index_select(x, dim, index)", "x.index_select(index, axis)"),
    "transpose": (lambda x: mg.transpose(x, [1, 0]), "transpose(x, dim0, dim1)",
                  "compat.paddle.transpose(x, perm)"),
    "transpose-method": (lambda x: x.transpose([1, 0]), "transpose(x, dim0, dim1)",
                         "x.transpose(perm)"),
    "transpose_": (lambda x: mg.transpose_(x, [1, 0]), "transpose_(x, dim0, dim1)",
                   "compat.paddle.transpose_(x, perm)"),
    "transpose_-method": (lambda x: x.transpose_((1, 0)), "transpose_(x, dim0, dim1)",
                          "x.transpose_(perm)"),
    "polygamma": (lambda x: mg.polygamma(x, 1), "polygamma(n, x)",
                  "compat.paddle.polygamma(x, n)"),
    "set_": (lambda x: x.set_(mg.zeros(4), [2, 2], [2, 1]),
             "set_(source, storage_offset, size, stride)",
             "compat.paddle.set_(x, source, shape, stride, offset)"),
    "fill_diagonal_": (lambda x: x.fill_diagonal_(5.0, 1), "fill_diagonal_(fill_value, wrap",
                       "compat.paddle.fill_diagonal_(x, value, offset=0, wrap=False)"),
    "index_add": (lambda x: mg.index_add(x, _idx(0, 2), 0, mg.ones(2, 4, dtype="float64")),
                  "index_add(x, dim, index, source)",
                  "compat.paddle.index_add(x, index, axis, value)"),
    "index_add_-method": (lambda x: x.index_add_(_idx(0), 0, mg.ones(1, 4, dtype="float64")),
                          "index_add(x, dim, index, source)", "x.index_add(index, axis, value)"),
    "index_fill": (lambda x: mg.index_fill(x, _idx(0, 2), 0, 1.0),
                   "index_fill(x, dim, index, value)",
                   "compat.paddle.index_fill(x, index, axis, value)"),
    "index_fill_-method": (lambda x: x.index_fill_(_idx(0), 0, 1.0),
                           "index_fill(x, dim, index, value)", "x.index_fill(index, axis, value)"),
    "index_copy": (lambda x: mg.index_copy(x, _idx(0), 0, mg.ones(1, 4, dtype="float64")),
                   "index_copy(x, dim, index, source)", None),
    "scatter": (lambda x: mg.scatter(x, _idx(0, 2), mg.ones(2, 4, dtype="float64")),
                "scatter(x, dim, index, src)",
                "compat.paddle.scatter(x, index, updates, overwrite=True)"),
    "scatter-overwrite": (lambda x: mg.scatter(x, _idx(0), mg.ones(1, 4, dtype="float64"),
                                               False),
                          "scatter(x, dim, index, src)",
                          "compat.paddle.scatter(x, index, updates, overwrite=True)"),
    "scatter-keywords": (lambda x: mg.scatter(x, index=_idx(0), updates=mg.ones(1, 4)),
                         "scatter(x, dim, index, src)",
                         "compat.paddle.scatter(x, index, updates, overwrite=True)"),
    "scatter_-method": (lambda x: x.scatter_(_idx(0), mg.ones(1, 4, dtype="float64")),
                        "scatter(x, dim, index, src)", "x.scatter(index, updates, overwrite)"),
    "scatter_add": (lambda x: mg.scatter_add(x, _idx(0), mg.ones(1, 4, dtype="float64")),
                    "scatter_add(x, dim, index, src)", None),
    "embedding_renorm_": (lambda x: mg.embedding_renorm_(_idx(0), x, 1.0),
                          "embedding_renorm_(weight, index, max_norm, norm_type=2.0)",
                          "compat.paddle.nn.functional.embedding_renorm_(x, weight"),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_main_refuses_paddle_positional_orders_naming_both_forms(case):
    call, main, paddle_form = REFUSED[case]
    x = _x()
    with pytest.raises(TypeError) as info:
        call(x)
    message = str(info.value)
    assert "PyTorch's argument order" in message and main in message, message
    if paddle_form is None:
        assert "compat.paddle" not in message
    else:
        assert paddle_form in message, message
    # refused before anything happened: not reinterpreted, not written
    assert x._version == 0 and x.shape == [3, 4]
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_main_keeps_the_keyword_spellings_that_do_not_clash():
    x = _x()
    i = _idx(2, 0)
    np.testing.assert_array_equal(mg.index_select(x, index=i, axis=1).numpy(),
                                  mg.index_select(x, 1, i).numpy())
    np.testing.assert_array_equal(mg.gather(x, axis=1, index=mg.tensor([[0], [1], [2]])).numpy(),
                                  [[0.0], [5.0], [10.0]])
    assert mg.transpose(x, perm=[1, 0]).shape == [4, 3]
    v = mg.ones(3, 2, dtype="float64")
    np.testing.assert_array_equal(mg.index_add(x, index=i, axis=1, value=v).numpy(),
                                  mg.index_add(x, 1, i, v).numpy())
    assert mg.zeros(3, 3).fill_diagonal_(value=1.0, offset=1).tolist()[0] == [0.0, 1.0, 0.0]
    assert x.var(False).item() == pytest.approx(np.var(np.arange(12.0)))   # PyTorch's overload
    assert mg.gather(x, 1, mg.tensor([[0], [1], [2]]), name="g").shape == [3, 1]


# ---- (b) Paddle's forms give the PyTorch form's values, gradients and backward nodes --------
def _index_add_(x, i, v):
    return mg.index_add_(x * 1, 1, i, v)


# name -> (PyTorch's form on main tensors, Paddle's function, Paddle's method, input arrays)
_F, _I = np.linspace(-1.0, 2.0, 12).reshape(3, 4), np.array([2, 0])
_R = np.arange(8.0).reshape(2, 4) / 4
FORMS = {
    "gather": (lambda x, i: mg.index_select(x, 0, i), lambda x, i: paddle.gather(x, i),
               lambda x, i: x.gather(i), [_F, _I]),
    "gather-axis": (lambda x, i: mg.index_select(x, 1, i),
                    lambda x, i: paddle.gather(x, i, paddle.to_tensor(1)),
                    lambda x, i: x.gather(i, 1), [_F, _I]),
    "index_select": (lambda x, i: mg.index_select(x, 1, i),
                     lambda x, i: paddle.index_select(x, i, 1),
                     lambda x, i: x.index_select(i, axis=1), [_F, _I]),
    "scatter": (lambda x, i, u: mg.index_copy(x, 0, i, u),
                lambda x, i, u: paddle.scatter(x, i, u),
                lambda x, i, u: x.scatter(i, u), [_F, _I, _R]),
    "scatter-accumulate": (lambda x, i, u: mg.index_add(mg.index_fill(x, 0, i, 0.0), 0, i, u),
                           lambda x, i, u: paddle.scatter(x, i, u, overwrite=False),
                           lambda x, i, u: x.scatter(i, u, False), [_F, np.array([1, 1]), _R]),
    "scatter_": (lambda x, i, u: mg.index_copy_(x * 1, 0, i, u),
                 lambda x, i, u: paddle.scatter_(x * 1, i, u),
                 lambda x, i, u: (x * 1).scatter_(i, u), [_F, _I, _R]),
    "index_add": (lambda x, i, v: mg.index_add(x, 1, i, v),
                  lambda x, i, v: paddle.index_add(x, i, 1, v),
                  lambda x, i, v: x.index_add(i, 1, v), [_F, _I, _R.T[:3]]),
    "index_add_": (_index_add_, lambda x, i, v: paddle.index_add_(x * 1, i, 1, v),
                   lambda x, i, v: (x * 1).index_add_(i, 1, v), [_F, _I, _R.T[:3]]),
    "index_fill": (lambda x, i: mg.index_fill(x, 0, i, -1.0),
                   lambda x, i: paddle.index_fill(x, i, 0, -1.0),
                   lambda x, i: x.index_fill(i, 0, -1.0), [_F, _I]),
    "index_fill_": (lambda x, i: mg.index_fill_(x * 1, 0, i, -1.0),
                    lambda x, i: paddle.index_fill_(x * 1, i, 0, -1.0),
                    lambda x, i: (x * 1).index_fill_(i, 0, -1.0), [_F, _I]),
    "polygamma": (lambda x: mg.polygamma(1, x), lambda x: paddle.polygamma(x, 1),
                  lambda x: x.polygamma(1), [_F + 1.5]),
    "transpose": (lambda x: x.permute(1, 0), lambda x: paddle.transpose(x, [1, 0]),
                  lambda x: x.transpose([1, 0]), [_F]),
    "transpose_": (lambda x: mg.transpose_(x * 1, perm=[1, 0]),
                   lambda x: paddle.transpose_(x * 1, [1, 0]),
                   lambda x: (x * 1).transpose_([1, 0]), [_F]),
    "fill_diagonal_": (lambda x: (x * 1).fill_diagonal_(5.0, False, offset=1),
                       lambda x: paddle.fill_diagonal_(x * 1, 5.0, 1),
                       lambda x: (x * 1).fill_diagonal_(5.0, 1, False), [_F]),
}


def _main(a):
    return mg.tensor(a, requires_grad=a.dtype.kind == "f")


def _paddle(a):
    return paddle.to_tensor(a, stop_gradient=a.dtype.kind != "f")


def _run(form, arrays, make):
    ts = [make(a) for a in arrays]
    out = form(*ts)
    w = np.random.default_rng(0).standard_normal(tuple(out.shape))
    (out * mg.tensor(w)).sum().backward()
    grads = [t.grad.numpy() for t in ts if t.dtype.is_floating_point]
    return out, grads


@pytest.mark.parametrize("name", list(FORMS), ids=list(FORMS))
def test_paddle_forms_equal_the_pytorch_form_in_values_and_gradients(name):
    torch_form, function, method, arrays = FORMS[name]
    want, want_grads = _run(torch_form, arrays, _main)
    for form in (function, method):
        got, grads = _run(form, arrays, _paddle)
        assert isinstance(got, paddle.Tensor)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
        assert len(grads) == len(want_grads)
        for g, w in zip(grads, want_grads):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
        # the same declared op made the result
        assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__


def test_paddle_set_takes_shape_stride_and_a_byte_offset():
    src = np.arange(6.0, dtype=np.float32)
    want = mg.zeros(1).set_(mg.tensor(src), 1, [2, 2], [2, 1])
    got = paddle.zeros([1]).set_(paddle.to_tensor(src), [2, 2], [2, 1], 4)
    assert isinstance(got, paddle.Tensor)
    assert got.tolist() == want.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    z = mg.zeros(1)
    assert paddle.set_(z, mg.tensor(src), [3], [2], 4) is z and z.tolist() == [1.0, 3.0, 5.0]


def test_a_main_tensor_keeps_pytorch_methods_and_a_paddle_tensor_paddle_ones():
    a = np.arange(6.0).reshape(2, 3)
    assert mg.tensor(a).transpose(0, 1).shape == [3, 2]
    assert paddle.to_tensor(a).transpose([1, 0]).shape == [3, 2]
    with pytest.raises(TypeError):
        paddle.to_tensor(a).transpose(0, 1)     # Paddle's Tensor.transpose takes perm only
    # main layers keep working on paddle tensors (they call no clashing method)
    lstm = paddle.nn.LSTM(3, 2)
    out, _ = lstm(paddle.to_tensor(np.ones((1, 2, 3), "float32")))
    assert isinstance(out, paddle.Tensor) and out.shape == [1, 2, 2]


# ---- (c) the pass-through tables --------------------------------------------------------------
TABLES = [(paddle, paddle_functions.PASS_THROUGH), (paddle_f, paddle_f.PASS_THROUGH)]


@pytest.mark.parametrize("namespace, name", [(ns, n) for ns, table in TABLES for n in table],
                         ids=[f"{ns.__name__.rsplit('.', 1)[-1]}.{n}" for ns, table in TABLES
                              for n in table])
def test_pass_throughs_show_name_in_their_signature_and_wrap_the_main_function(namespace, name):
    table = dict(TABLES)[namespace]
    fn = getattr(namespace, name)
    params = inspect.signature(fn).parameters
    assert "name" in params and params["name"].default is None
    assert fn.__name__ == name and fn.__doc__ == table[name].__doc__
    wrapped, chain = fn, []
    while wrapped is not None:
        chain.append(wrapped)
        wrapped = getattr(wrapped, "__wrapped__", None)
    assert table[name] in chain       # a pass-through: it calls the main function


@pytest.mark.parametrize("name", list(paddle_f.PASS_THROUGH))
def test_functional_pass_throughs_accept_name_and_give_the_main_result(name):
    a = np.array([-1.5, -0.25, 0.5, 2.0])
    want = paddle_f.PASS_THROUGH[name](mg.tensor(a))
    x = paddle.to_tensor(a)
    got = getattr(paddle_f, name)(x, name="layer")
    assert isinstance(got, paddle.Tensor)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    if name.endswith("_"):
        assert got is x


def test_top_level_pass_throughs_accept_name():
    assert paddle.range(0, 6, 2, name="r").tolist() == [0, 2, 4]
    assert paddle.ger(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0]),
                      name="g").tolist() == [[3.0], [6.0]]
    pieces = paddle.split(paddle.arange(6), 3, name="s")
    assert [p.tolist() for p in pieces] == [[0, 1], [2, 3], [4, 5]]
    assert all(isinstance(p, paddle.Tensor) for p in pieces)
