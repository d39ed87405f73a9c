"""Op behaviour the generic table cannot express: workspaces, argument conventions, promotion,
view-versus-copy rules and the in-place metadata ops."""
import operator

import numpy as np
import pytest
from tests.helpers import counting

import mutograd as mg


def _f64(a):
    return mg.tensor(np.asarray(a, dtype=np.float64))


# ---- matmul_: the product needs a workspace ------------------------------------------------
def test_matmul_inplace_counts_its_workspace_in_the_peak_not_in_allocated():
    x = mg.ones(64, 64)
    y = mg.ones(64, 64)
    mg.memory.reset_peak()
    before, peak_before = mg.memory.allocated(), mg.memory.max_allocated()
    with counting() as c:
        assert x.matmul_(y) is x
    assert c["bytes"] == 0 and c["allocations"] == 1
    assert mg.memory.allocated() == before
    assert mg.memory.max_allocated() - peak_before == 64 * 64 * 4
    assert x._version == 1 and float(x[0, 0]) == 64.0


def test_matmul_inplace_refuses_a_product_of_another_shape_before_writing():
    x = mg.ones(3, 4)
    with pytest.raises(mg.ShapeError, match=r"product has shape \[3, 2\]"):
        x.matmul_(mg.ones(4, 2))
    assert x._version == 0 and x.tolist() == [[1.0] * 4] * 3


# ---- view/reshape: a view when the strides allow, else reshape copies and view refuses ----
def test_reshape_of_a_non_contiguous_tensor_copies_and_view_refuses():
    x = mg.arange(6.0).reshape(2, 3).t()
    r = x.reshape(6)
    assert r._base is None and not np.shares_memory(r.numpy(), x.numpy())
    assert r.tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
    with pytest.raises(mg.ShapeError, match="view size is not compatible with input tensor's "
                                            r"size and stride .*Use \.reshape\(\.\.\.\) instead"):
        x.view(6)
    f = x.flatten()
    assert f._base is None and f.tolist() == r.tolist()


def test_reshape_of_a_contiguous_tensor_is_a_view():
    x = mg.arange(6.0)
    r = x.reshape([2, 3])
    assert r._base is x and np.shares_memory(r.numpy(), x.numpy())


# ---- type promotion follows NumPy (NEP 50: Python scalars are weak) within a kind; an integer
# tensor meeting a float tensor gives that float dtype, and a float result of integer or bool
# inputs alone has the default float dtype (as PyTorch; tests/ops/test_type_promotion.py) ------
@pytest.mark.parametrize("a, b", [
    ("float32", 1.5), ("float32", 2), ("float16", 1.5), ("int32", 2), ("int64", True),
    ("uint8", 3), ("int8", "int16"), ("int32", "float32"), ("float16", "float64"),
    ("bool", "int8"), ("uint8", "int8"), ("int64", "float16"),
])
@pytest.mark.parametrize("op", ["add", "mul", "sub", "div", "maximum"])
def test_type_promotion_matches_numpy(a, b, op):
    x = np.ones(3, a)
    y = np.ones(3, b) if isinstance(b, str) else b
    if op == "sub" and (x.dtype == bool or getattr(y, "dtype", None) == bool):  # noqa: E721
        pytest.skip("NumPy refuses boolean subtraction")
    ref = {"add": np.add, "mul": np.multiply, "sub": np.subtract, "div": np.true_divide,
           "maximum": np.maximum}[op](x, y)
    got = getattr(mg, op)(mg.tensor(x), mg.tensor(y) if isinstance(b, str) else y)
    integers = x.dtype.kind in "biu" and np.asarray(y).dtype.kind in "biu"
    floats = [d for d in (x.dtype, getattr(y, "dtype", None)) if d is not None and d.kind == "f"]
    expected = np.float32 if op == "div" and integers else \
        floats[0] if len(floats) == 1 and isinstance(b, str) else ref.dtype
    assert got.dtype == expected


def test_promotion_examples_named_in_the_docs():
    assert (mg.ones(2) + 1.5).dtype == mg.float32
    assert (mg.tensor([1, 2]) / mg.tensor([2, 2])).dtype == mg.float32
    assert mg.exp(mg.tensor([True, False])).dtype == mg.float32
    assert mg.sqrt(mg.tensor([4], dtype="int8")).dtype == mg.float32
    assert mg.reciprocal(mg.tensor([2, 4])).tolist() == [0.5, 0.25]
    assert (mg.tensor([1, 2]) / mg.tensor([2.0, 2.0], dtype="float64")).dtype == mg.float64
    mg.set_default_dtype("float64")
    try:
        assert mg.log(mg.tensor([1, 2])).dtype == mg.float64
    finally:
        mg.set_default_dtype("float32")
    assert (mg.tensor([1, 2], dtype="int32") + 1).dtype == mg.int32


def test_integer_pow_stays_integer_and_refuses_negative_exponents():
    x = mg.tensor([1, 2, 3])
    assert (x ** 2).tolist() == [1, 4, 9] and (x ** 2).dtype == mg.int64
    assert mg.pow(x, x).tolist() == [1, 4, 27]
    assert x.pow_(2) is x and x.tolist() == [1, 4, 9]
    with pytest.raises(mg.DTypeError, match="negative integer powers"):
        x.pow_(-1)
    with pytest.raises(mg.DTypeError, match="negative integer powers"):
        mg.pow(x, mg.tensor([1, -1, 1]))
    assert x.tolist() == [1, 4, 9] and x._version == 1
    assert (mg.tensor([2.0]) ** -1).tolist() == [0.5]


def test_round_with_decimals_in_all_forms():
    x = mg.tensor([1.2345, -2.5678], dtype="float64")
    assert mg.round(x, 2).tolist() == [1.23, -2.57]
    assert x.round(decimals=1).tolist() == [1.2, -2.6]
    assert mg.round_(x, decimals=3) is x and x.tolist() == [1.234, -2.568]


# ---- where, gather, index_select, masked_select -----------------------------------------------
def test_where_with_scalars_uses_the_default_dtypes():
    c = mg.tensor([True, False, True])
    assert mg.where(c, 1.0, 0.0).dtype == mg.float32
    assert mg.where(c, 1, 0).dtype == mg.int64
    assert mg.where(c, 1, 0.5).tolist() == [1.0, 0.5, 1.0]
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = mg.where(c, x, -1.0)
    assert y.dtype == mg.float32 and y.tolist() == [1.0, -1.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    assert x.where(c, 0.0).tolist() == [1.0, 0.0, 3.0]    # PyTorch's method form
    assert mg.where(mg.tensor([1, 0, 2]), 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]


def test_where_with_only_a_condition_gives_the_indices():
    rows, cols = mg.where(mg.tensor([[True, False], [False, True]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]


def test_gather_in_both_conventions():
    x = _f64([[1, 2, 3], [4, 5, 6]])
    idx = mg.tensor([[2, 0], [1, 1]])
    expected = [[3.0, 1.0], [5.0, 5.0]]
    assert mg.gather(x, 1, idx).tolist() == expected                   # PyTorch
    assert mg.gather(x, dim=1, index=idx).tolist() == expected
    assert mg.gather(x, axis=1, index=idx).tolist() == expected        # Paddle's keyword
    assert x.gather(1, idx).tolist() == expected
    assert mg.take_along_axis(x, idx, 1).tolist() == expected          # Paddle
    assert mg.take_along_axis(x, idx, axis=1).tolist() == expected
    # Paddle's gather (an index tensor second picks whole slices, as index_select) is the
    # paddle namespace's; the main one refuses it
    from mutograd.compat import paddle
    assert paddle.gather(x, [1, 0]).tolist() == [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]]
    assert paddle.gather(x, mg.tensor([1, 0]), axis=0).tolist() == [[4.0, 5.0, 6.0],
                                                                    [1.0, 2.0, 3.0]]
    with pytest.raises(TypeError, match="compat.paddle.gather"):
        mg.gather(x, [1, 0])


def test_take_along_axis_broadcasts_the_index():
    x = _f64([[1, 2, 3], [4, 5, 6]])
    assert mg.take_along_axis(x, mg.tensor([[2]]), 1).tolist() == [[3.0], [6.0]]


def test_index_select_in_both_conventions():
    x = _f64([[1, 2, 3], [4, 5, 6]])
    idx = mg.tensor([2, 0, 2])
    expected = [[3.0, 1.0, 3.0], [6.0, 4.0, 6.0]]
    assert mg.index_select(x, 1, idx).tolist() == expected             # PyTorch
    assert mg.index_select(x, index=idx, axis=1).tolist() == expected  # Paddle's keywords
    assert x.index_select(1, idx).tolist() == expected
    from mutograd.compat import paddle             # Paddle's order
    assert paddle.index_select(x, idx, axis=1).tolist() == expected
    assert paddle.index_select(x, idx, 1).tolist() == expected
    assert paddle.to_tensor(x.numpy()).index_select(idx, axis=1).tolist() == expected
    with pytest.raises(TypeError, match="compat.paddle.index_select"):
        mg.index_select(x, idx, 1)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: mg.gather(x, 1, mg.tensor([[3]])), IndexError, "out of range"),
    (lambda x: mg.gather(x, 1, mg.tensor([0, 1])), mg.ShapeError, "same number"),
    (lambda x: mg.gather(x, 1, mg.tensor([[0.5]])), TypeError, "integer tensor"),
    (lambda x: mg.index_select(x, 0, mg.tensor([2])), IndexError, "out of range"),
    (lambda x: mg.index_select(x, 0, mg.tensor([[0]])), mg.ShapeError, "must be 1-D"),
    (lambda x: mg.gather(x), TypeError, "needs a dimension and an index"),
])
def test_index_errors_are_clear(call, error, message):
    with pytest.raises(error, match=message):
        call(_f64([[1, 2, 3], [4, 5, 6]]))


def test_masked_select_gradient_scatters_back():
    x = _f64([[1, 2], [3, 4]]).requires_grad_()
    m = mg.tensor([[True, False], [False, True]])
    y = mg.masked_select(x, m)
    assert y.tolist() == [1.0, 4.0]
    (y * _f64([10, 20])).sum().backward()
    assert x.grad.tolist() == [[10.0, 0.0], [0.0, 20.0]]


# ---- max/min in the main namespace --------------------------------------------------------
def test_max_min_with_an_int_axis_return_values_and_indices():
    x = _f64([[1, 5, 2], [7, 0, 3]]).requires_grad_()
    values, indices = mg.max(x, 1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    r = x.min(dim=0, keepdim=True)
    assert r.values.tolist() == [[1.0, 0.0, 2.0]] and r.indices.tolist() == [[0, 1, 0]]
    values.sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [1, 0, 0]]
    assert mg.max(x).item() == 7.0 and mg.min(x).item() == 0.0
    assert mg.max(x, _f64([[3] * 3] * 2)).tolist() == [[3, 5, 3], [7, 3, 3]]
    assert mg.max(x, axis=[0, 1]).item() == 7.0


# ---- clamp/clip with tensor bounds -------------------------------------------------------
def test_clamp_with_tensor_bounds_gives_gradients_to_the_bounds():
    x = _f64([-2, 0.5, 3]).requires_grad_()
    lo = _f64([-1, -1, -1]).requires_grad_()
    hi = _f64(1.0).requires_grad_()
    y = mg.clip(x, lo, hi)
    assert y.tolist() == [-1.0, 0.5, 1.0] and type(y.grad_fn).__name__ == "ClampBackward"
    y.sum().backward()
    assert x.grad.tolist() == [0, 1, 0] and lo.grad.tolist() == [1, 0, 0]
    assert hi.grad.item() == 1.0
    z = _f64([-2, 0.5, 3])
    assert mg.clamp_(z, min=_f64([0, 0, 0])) is z and z.tolist() == [0, 0.5, 3]
    with pytest.raises(ValueError, match="at least one of 'min' and 'max'"):
        mg.clamp(z)


# ---- augmented assignment is in place ------------------------------------------------------
@pytest.mark.parametrize("iop, operand, expected", [
    (operator.iadd, 1, [3.0, 5.0]), (operator.isub, 1, [1.0, 3.0]),
    (operator.imul, 2, [4.0, 8.0]), (operator.itruediv, 2, [1.0, 2.0]),
    (operator.ifloordiv, 3, [0.0, 1.0]), (operator.imod, 3, [2.0, 1.0]),
    (operator.ipow, 2, [4.0, 16.0]), (operator.imatmul, "eye", [2.0, 4.0]),
], ids=lambda v: getattr(v, "__name__", None))
def test_augmented_assignment_writes_in_place(iop, operand, expected):
    x = mg.tensor([2.0, 4.0])
    ptr = x.data_ptr()
    y = iop(x, mg.eye(2) if operand == "eye" else operand)   # what ``x op= operand`` binds
    assert y is x and x.data_ptr() == ptr and x._version == 1
    assert x.tolist() == expected


# ---- in-place metadata ops -----------------------------------------------------------------
def test_metadata_ops_accept_both_conventions():
    x = mg.zeros(2, 1, 3)
    assert x.squeeze_(1) is x and x.shape == [2, 3]
    assert mg.unsqueeze_(x, dim=0) is x and x.shape == [1, 2, 3]
    assert x.flatten_(start_dim=1) is x and x.shape == [1, 6]
    assert x.reshape_([3, 2]) is x and x.shape == [3, 2]
    assert x.t_() is x and x.shape == [2, 3]
    assert x.transpose_(0, 1) is x and x.shape == [3, 2]
    assert mg.transpose_(x, perm=[1, 0]) is x and x.shape == [2, 3]
    assert x._version == 7   # each one a write (design.md rule 9), as in PyTorch and Paddle


def test_where_inplace_writes_into_x_with_gradients():
    a = _f64([1, 2, 3]).requires_grad_()
    b = _f64([10, 20, 30]).requires_grad_()
    x = a * 1.0
    c = mg.tensor([True, False, True])
    assert mg.where_(c, x, b) is x and x.tolist() == [1, 20, 3] and x._version == 1
    (x * _f64([1, 2, 3])).sum().backward()
    assert a.grad.tolist() == [1, 0, 3] and b.grad.tolist() == [0, 2, 0]
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        mg.where_(c, a, 0.0)
    z = mg.tensor([1.0, 2.0, 3.0])
    assert z.where_(c, 0.0) is z and z.tolist() == [1.0, 0.0, 3.0]
    with pytest.raises(mg.ShapeError, match="broadcast"):
        mg.where_(mg.tensor([[True], [False]]), mg.ones(3), 0.0)


def test_a_metadata_op_invalidates_saved_tensors_as_every_write_does():
    a = mg.ones(2, 3, requires_grad=True)
    h = a * 2
    y = (h * h).sum()                         # MulBackward saves h
    h.t_()
    h.unsqueeze_(0)
    assert h._version == 2
    with pytest.raises(mg.VersionError, match=r"modified by:\n  t_ at .*test_ops_special.py"):
        y.backward()
    z = (h * 1.0).sum()                       # saves nothing: the new shape's history is fine
    z.backward()
    assert a.grad.tolist() == [[2.0] * 3] * 2


def test_reshape_inplace_refuses_to_copy():
    x = mg.zeros(2, 3).t()
    with pytest.raises(mg.ShapeError, match="an in-place reshape keeps the storage"):
        x.reshape_(6)
    assert x.shape == [3, 2]


def test_metadata_op_on_a_view_extends_its_chain_and_keeps_gradients_right():
    a = _f64(np.arange(6.0).reshape(2, 3)).requires_grad_()
    x = a * 1.0
    v = x[:, 1:]
    assert v.t_() is v and v._base is x and v.shape == [2, 2]
    assert [op.name for op, _ in v._view_chain] == ["getitem", "t"]
    x.mul_(2)                                 # v's history is regenerated from x's
    (v * _f64([[1, 2], [3, 4]])).sum().backward()
    assert a.grad.tolist() == [[0, 2, 6], [0, 4, 8]]


def test_views_made_before_a_base_changes_shape_still_get_right_gradients():
    a = _f64(np.arange(6.0).reshape(2, 3)).requires_grad_()
    x = a * 1.0
    row = x[0]
    x.t_()                                    # the base changes shape after row was made
    assert x.shape == [3, 2] and row.shape == [3]
    row.mul_(3)                               # a write through the old view
    assert x.tolist() == [[0, 3], [3, 4], [6, 5]]
    (x * _f64([[1, 1], [1, 1], [1, 1]])).sum().backward()
    assert a.grad.tolist() == [[3, 3, 3], [1, 1, 1]]


def test_retain_grad_stays_with_the_value_before_a_metadata_op():
    # as in PyTorch: the gradient kept is that of h before t_(), in its shape then
    a = mg.ones(2, 3, requires_grad=True)
    h = a * 2
    h.retain_grad()
    h.t_()
    (h * mg.arange(6.0).reshape(3, 2)).sum().backward()
    assert h.grad.shape == [2, 3] and h.grad.tolist() == [[0, 2, 4], [1, 3, 5]]


# ---- both conventions where they do not clash ------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "prod", "argmax", "argmin",
                                  "logsumexp", "norm", "var", "std", "max", "min", "all", "any"])
def test_reductions_take_axis_or_dim_and_keepdim_or_keepdims(name):
    x = mg.tensor(np.arange(1.0, 13.0).reshape(3, 4))
    if name in ("all", "any"):
        x = x > 6
    ref = getattr(mg, name)(x, axis=1, keepdim=True)
    for kw in ({"dim": 1, "keepdim": True}, {"axis": 1, "keepdims": True},
               {"dim": 1, "keepdims": True}):
        got = getattr(x, name)(**kw)
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        ref if isinstance(ref, tuple) else (ref,)):
            assert a.shape == [3, 1]
            np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("call", [
    lambda x: x.reshape(4, 6), lambda x: x.reshape([4, 6]), lambda x: x.reshape((4, 6)),
    lambda x: x.reshape(shape=[4, 6]), lambda x: x.view(4, 6), lambda x: x.view([4, 6]),
    lambda x: mg.reshape(x, [4, 6]), lambda x: mg.reshape(x, 4, 6),
])
def test_shapes_as_a_list_or_varargs(call):
    x = mg.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert call(x).shape == [4, 6]


@pytest.mark.parametrize("call, shape", [
    (lambda x: x.permute(2, 0, 1), [4, 2, 3]), (lambda x: x.permute([2, 0, 1]), [4, 2, 3]),
    (lambda x: x.transpose(0, 2), [4, 3, 2]), (lambda x: x.transpose(perm=[2, 1, 0]), [4, 3, 2]),
    (lambda x: mg.transpose(x, perm=[1, 0, 2]), [3, 2, 4]),
    (lambda x: x[:, :1].expand(2, 5, 4), [2, 5, 4]),
    (lambda x: x[:, :1].expand([2, 5, 4]), [2, 5, 4]), (lambda x: x.tile(1, 2, 1), [2, 6, 4]),
    (lambda x: x.repeat([2, 1, 1]), [4, 3, 4]), (lambda x: x.flip(0, 1), [2, 3, 4]),
    (lambda x: x.flatten(start_dim=1), [2, 12]), (lambda x: x.flatten(1, 2), [2, 12]),
    (lambda x: x.squeeze(dim=0), [2, 3, 4]), (lambda x: x.unsqueeze(dim=-1), [2, 3, 4, 1]),
    (lambda x: mg.unsqueeze(x, axis=[0, 1]), [1, 1, 2, 3, 4]),
    (lambda x: x.cumsum(dim=2), [2, 3, 4]), (lambda x: mg.softmax(x, dim=0), [2, 3, 4]),
    (lambda x: mg.concat([x, x], axis=2), [2, 3, 8]), (lambda x: mg.cat([x, x], dim=1), [2, 6, 4]),
])
def test_view_and_shape_ops_take_both_conventions(call, shape):
    x = mg.tensor(np.arange(24.0).reshape(2, 3, 4))
    assert call(x).shape == shape


# ---- out= ------------------------------------------------------------------------------------
def test_out_argument_writes_bumps_the_version_and_checks_shape_and_dtype():
    x, y = mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0])
    out = mg.zeros(2)
    assert mg.add(x, y, out=out) is out and out.tolist() == [4.0, 6.0] and out._version == 1
    bigger = mg.zeros(3)
    with pytest.warns(UserWarning, match=r"resized since it had shape \[3\]"):
        assert mg.add(x, y, out=bigger) is bigger and bigger.tolist() == [4.0, 6.0]
    iout = mg.zeros(2, dtype="int64")
    with pytest.raises(mg.DTypeError, match="can't be cast to the desired output type Long"):
        mg.div(x, y, out=iout)
    assert iout.tolist() == [0, 0] and iout._version == 0
    with pytest.raises(mg.InplaceError, match="don't support automatic differentiation"):
        mg.mul(x.requires_grad_(), y, out=out)
    assert out._version == 1


def test_a_metadata_op_under_no_grad_keeps_the_history_consistent():
    a = _f64(np.arange(6.0).reshape(2, 3)).requires_grad_()
    h = a * 1.0
    with mg.no_grad():
        h.t_()                                # still recorded: the history must match the shape
    assert type(h.grad_fn).__name__ == "TBackward"
    (h * _f64(np.arange(6.0).reshape(3, 2))).sum().backward()
    assert a.grad.tolist() == [[0, 2, 4], [1, 3, 5]]
    w = mg.ones(2, 3, requires_grad=True)
    with mg.no_grad():
        w.reshape_(6)                         # a leaf stays a leaf
    assert w.is_leaf and w.shape == [6]
    (w * 2).sum().backward()
    assert w.grad.shape == [6]


# ---- float32 erf on the CPU: a float32 approximation (Note [float32 erf on the CPU]) -------
def test_float32_erf_is_float32_accurate_everywhere():
    import scipy.special
    x = np.linspace(-6, 6, 300_001, dtype=np.float32)    # several blocks
    ref = scipy.special.erf(x.astype(np.float64))
    got = mg.erf(mg.tensor(x)).numpy()
    assert got.dtype == np.float32
    assert np.abs(got - ref).max() < 5e-7
    assert np.abs(got).max() <= 1.0
    tiny = np.abs(x) < 1e-3
    np.testing.assert_allclose(got[tiny], ref[tiny], rtol=3e-7)


def test_float32_erf_special_values_layouts_and_shapes():
    import scipy.special
    v = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 4.0, -4.0, 1e-40, 1e-45], np.float32)
    got = mg.erf(mg.tensor(v)).numpy()
    np.testing.assert_array_equal(got, scipy.special.erf(v))   # exact here, signed zeros too
    assert np.signbit(got[4]) and not np.signbit(got[3])
    x = np.random.default_rng(0).standard_normal((5, 6), dtype=np.float32)
    t = mg.tensor(x).t()                                        # not contiguous
    np.testing.assert_allclose(mg.erf(t).numpy(), scipy.special.erf(x.T), atol=5e-7)
    assert mg.erf(mg.tensor(np.float32(0.5))).shape == []
    assert mg.erf(mg.zeros(0, 3)).shape == [0, 3]
    y = mg.tensor(x)
    assert y.erf_() is y and y._version == 1
    np.testing.assert_allclose(y.numpy(), scipy.special.erf(x), atol=5e-7)


def test_float64_erf_and_gelu_keep_scipy_precision():
    import scipy.special
    x = np.linspace(-5, 5, 1001)
    np.testing.assert_array_equal(mg.erf(mg.tensor(x)).numpy(), scipy.special.erf(x))
    gelu = 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2)))
    np.testing.assert_allclose(mg.gelu(mg.tensor(x)).numpy(), gelu, rtol=1e-9)


def test_float32_gelu_and_its_slope_are_accurate_tails_included():
    # Note [float32 normal CDF on the CPU]: Phi as a logistic keeps the left tail relative
    import scipy.special
    x = np.linspace(-12, 12, 400_001, dtype=np.float32)
    x64 = x.astype(np.float64)
    t = mg.tensor(x, requires_grad=True)
    y = mg.gelu(t)
    y.sum().backward()
    want = x64 * scipy.special.ndtr(x64)
    slope = scipy.special.ndtr(x64) + x64 * np.exp(-x64 ** 2 / 2) / np.sqrt(2 * np.pi)
    assert y.dtype == mg.float32 and np.abs(y.numpy() - want).max() < 1e-6
    assert np.abs(t.grad.numpy() - slope).max() < 3e-7
    left = (x64 < 0) & (x64 > -5)
    rel = np.abs(y.numpy() - want)[left] / np.abs(want[left])
    assert rel.max() < 0.02
    with np.errstate(over="raise", invalid="raise"):   # no warning far out
        far = mg.gelu(mg.tensor(np.array([-1e4, -100.0, 100.0], np.float32))).numpy()
    np.testing.assert_array_equal(far, [-0.0, -0.0, 100.0])


# ---- softmax's shift (Note [Softmax shift]) ------------------------------------------------
def _softmax_ref(x, axis):
    m = np.max(np.where(np.isfinite(x), x, -np.inf), axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("spread", [0.5, 3.0, 40.0, 5000.0])
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_matches_the_per_row_reference_whatever_the_spread(spread, axis):
    # a narrow spread takes one shift for the whole tensor, a wide one each row's max; rows
    # far below the tensor's max must not underflow to 0/0
    from mutograd.ops import softmax as reduction
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 7)) * spread
    x[2] -= 3 * spread
    one_shift = np.ptp(x) <= reduction._span(np.float32)
    assert one_shift == (spread == 0.5)          # both paths are taken
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 1e-5)):   # float32: ulp of x - m
        tiny = np.finfo(dtype).tiny * 1e3     # below it: the dtype's own underflow
        got = mg.softmax(mg.tensor(x.astype(dtype)), axis).numpy()
        want = _softmax_ref(x.astype(dtype).astype(np.float64), axis)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=tiny)
        lsm = mg.log_softmax(mg.tensor(x.astype(dtype)), axis).numpy().astype(np.float64)
        np.testing.assert_allclose(np.exp(lsm), want, rtol=rtol * 10, atol=tiny)


def test_softmax_with_masked_entries_and_a_fully_masked_row():
    x = np.array([[0.5, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf], [2.0, 2.0, -np.inf]])
    with np.errstate(invalid="ignore"):
        got = mg.softmax(mg.tensor(x), -1).numpy()
    np.testing.assert_allclose(got[0], _softmax_ref(x[:1], -1)[0])
    assert np.isnan(got[1]).all()                         # as PyTorch: 0/0
    np.testing.assert_allclose(got[2], [0.5, 0.5, 0.0])
    f16 = mg.softmax(mg.tensor(np.array([0.0, 30.0, -30.0], np.float16)), -1).numpy()
    assert f16.dtype == np.float16 and f16[1] == 1.0 and np.isfinite(f16).all()


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_views_and_their_gradients(indexing):
    a, b, c = (mg.tensor(np.arange(n, dtype=np.float64) + 1, requires_grad=True)
               for n in (2, 3, 4))
    grids = mg.meshgrid(a, b, c, indexing=indexing)
    want = np.meshgrid(a.numpy(), b.numpy(), c.numpy(), indexing=indexing)
    for g, w in zip(grids, want):
        np.testing.assert_array_equal(g.numpy(), w)
    assert all(g._base is not None for g in grids)          # views, no copies
    sum((g * g).sum() for g in grids).backward()
    for t, w in zip((a, b, c), want):
        others = w.size // t.numel()      # the copies of each input element
        np.testing.assert_allclose(t.grad.numpy(), 2 * t.numpy() * others)
    assert mg.meshgrid([a, b])[0].shape == [2, 3]
    with pytest.raises(ValueError, match="indexing must be"):
        mg.meshgrid(a, indexing="yx")


# ---- extremal inputs without PyTorch (test_extremal.py compares with it when installed) -------
_S = mg.tensor(3.0)   # a 0-d tensor
_ZERO_D_REFUSED = [
    ("select", lambda: mg.select(_S, 0, 0), mg.IndexRangeError, "0-dim tensor"),
    ("unbind", lambda: mg.unbind(_S, 0), mg.IndexRangeError, "0-dim tensor"),
    ("narrow", lambda: mg.narrow(_S, 0, 0, 1), mg.ShapeError, "0-dim tensor"),
    ("split", lambda: mg.split(_S, 1, 0), mg.ShapeError, "0-dim tensor"),
    ("chunk", lambda: mg.chunk(_S, 2), mg.ShapeError, "0-dim tensor"),
    ("unflatten", lambda: mg.unflatten(_S, 0, (1,)), mg.ShapeError, "0-dim tensor"),
    ("repeat_interleave", lambda: mg.repeat_interleave(_S, 2, 0), mg.IndexRangeError,
     "0-dim tensor"),
    ("diagonal", lambda: mg.diagonal(_S), mg.IndexRangeError, "out of range"),
    ("squeeze", lambda: mg.squeeze(_S, 1), mg.IndexRangeError, "out of range"),
    ("flatten", lambda: mg.flatten(_S, 1), mg.IndexRangeError, "out of range"),
    ("argsort", lambda: mg.argsort(_S, 1), mg.IndexRangeError, "out of range"),
    ("tril", lambda: mg.tril(_S), mg.ShapeError, "at least 2 dimensions"),
    ("triu-1d", lambda: mg.triu(mg.ones([3])), mg.ShapeError, "at least 2 dimensions"),
    ("unflatten-sizes", lambda: mg.unflatten(mg.ones([0, 3]), 1, (2, 2)), mg.ShapeError,
     "multiply up"),
    ("einsum-sizes", lambda: mg.einsum("ii->i", mg.ones([0, 3])), mg.ShapeError,
     "sizes don't match"),
]


@pytest.mark.parametrize("fn, error, match", [c[1:] for c in _ZERO_D_REFUSED],
                         ids=[c[0] for c in _ZERO_D_REFUSED])
def test_dims_a_tensor_lacks_are_refused_with_our_errors(fn, error, match):
    with pytest.raises(error, match=match):
        fn()


def test_zero_d_and_empty_shape_rules():
    assert mg.cumsum(_S, 0).shape == [] and mg.cumprod(_S, -1).shape == []
    assert _S.mT.shape == [] and _S.mT._base is _S
    assert [p.shape for p in mg.chunk(mg.ones([0, 3]), 2)] == [[0, 3], [0, 3]]
    assert mg.softmax(mg.ones([3, 0]), -1).shape == [3, 0]
    assert (mg.scale(_S, 2.0, 1.0)).item() == 7.0
    x = mg.ones([3, 0], requires_grad=True)
    mg.cumprod(x, 1).sum().backward()
    assert x.grad.shape == [3, 0]


def test_signs_of_zero_and_nan_order_follow_pytorch():
    z = mg.tensor([-0.0, 0.0, -1.0])
    for name in ("relu", "elu", "selu", "celu", "erfinv"):
        got = getattr(mg, name)(z).numpy()
        assert np.signbit(got[:2]).tolist() == [True, False], name
    r = mg.remainder(mg.tensor([-0.0, -4.0, 4.0, 5.0]), mg.tensor([2.0, 2.0, -2.0, -3.0]))
    assert r.tolist() == [0.0, 0.0, 0.0, -1.0]
    assert np.signbit(r.numpy()).tolist() == [True, True, False, True]
    assert not np.signbit(mg.cumsum(mg.tensor([-0.0, -0.0]), 0).numpy()).any()
    v, i = mg.sort(mg.tensor([1.0, np.nan, 3.0, 1.0]), descending=True)
    assert np.isnan(v[0].item()) and i.tolist() == [1, 2, 0, 3]
    assert mg.argsort(mg.tensor([True, False, True]), descending=True).tolist() == [0, 2, 1]
    assert mg.argsort(mg.tensor([0, 2, 255], dtype="uint8"), descending=True).tolist() == [2, 1, 0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # inf * 0 on purpose
def test_gradients_at_nan_and_at_zero_factors():
    x = mg.tensor([np.nan, 1.0, np.nan], requires_grad=True)
    mg.max(x).backward()                   # the NaN elements share it (PyTorch's max())
    assert x.grad.tolist() == [0.5, 0.0, 0.5]
    x = mg.tensor([np.nan, 0.0, 0.0, 2.0], requires_grad=True)
    mg.prod(x).backward()                  # two zeros: every other-factor product holds one
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0]
    x = mg.tensor([0.5, 0.0, np.inf], requires_grad=True)
    mg.cumprod(x, 0).sum().backward()      # after the zero, the zero decides
    assert x.grad.tolist()[0] == 1.0 and x.grad.tolist()[2] == 0.0
    x = mg.tensor([np.nan, -1.0], requires_grad=True)
    (mg.relu(x) + mg.threshold(x, 0.5, -1.0)).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0]
