"""Every op of the table gets the same checks (STYLE.md, "One table drives the tests")."""
import numpy as np
import pytest

import mutograd as mg
from helpers import counting, inputs, numeric_grad
from op_db import OPS

ids = [o.name for o in OPS]


def _fn(info):
    return getattr(mg, info.name)


def _call(info, *args):
    return _fn(info)(*args, **info.attrs)


@pytest.mark.parametrize("info", OPS, ids=ids)
def test_forward_matches_reference(info):
    arrays = inputs(info, np.random.default_rng(1))
    out = _call(info, *[mg.tensor(a) for a in arrays])
    np.testing.assert_allclose(out.numpy(), info.ref(*arrays), rtol=1e-6, atol=info.atol)


@pytest.mark.parametrize("info", OPS, ids=ids)
def test_function_method_and_inplace_agree(info):
    arrays = inputs(info, np.random.default_rng(2))
    ts = [mg.tensor(a) for a in arrays]
    f = _call(info, *ts)
    m = getattr(ts[0], info.name)(*ts[1:], **info.attrs)
    np.testing.assert_array_equal(f.numpy(), m.numpy())
    if info.inplace:
        x = ts[0].clone()
        y = getattr(mg, info.name + "_")(x, *ts[1:], **info.attrs)
        assert y is x
        np.testing.assert_allclose(x.numpy(), f.numpy(), rtol=1e-12, atol=1e-12)
        x2 = ts[0].clone()
        assert getattr(x2, info.name + "_")(*ts[1:], **info.attrs) is x2
        np.testing.assert_allclose(x2.numpy(), f.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("info", [o for o in OPS if o.grad], ids=[o.name for o in OPS if o.grad])
def test_gradient_matches_finite_differences(info):
    rng = np.random.default_rng(3)
    arrays = inputs(info, rng)
    w = rng.standard_normal(np.broadcast_shapes(*[a.shape for a in arrays]))

    def loss(*arrs):
        return float((info.ref(*arrs) * w).sum())

    expected = numeric_grad(loss, [a.copy() for a in arrays])
    ts = [mg.tensor(a, requires_grad=True) for a in arrays]
    (_call(info, *ts) * mg.tensor(w)).sum().backward()
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("info", [o for o in OPS if o.grad and o.inplace],
                         ids=[o.name for o in OPS if o.grad and o.inplace])
def test_inplace_gradient_on_non_leaf_equals_out_of_place(info):
    rng = np.random.default_rng(4)
    arrays = inputs(info, rng)
    w = mg.tensor(rng.standard_normal(arrays[0].shape))

    def run(inplace):
        ts = [mg.tensor(a, requires_grad=True) for a in arrays]
        h = ts[0] * 1.0                       # a non-leaf that we may write in place
        y = (getattr(h, info.name + "_") if inplace else getattr(h, info.name))(
            *ts[1:], **info.attrs)
        (y * w).sum().backward()
        return [t.grad.numpy() for t in ts]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("info", [o for o in OPS if o.inplace], ids=[o.name for o in OPS
                                                                       if o.inplace])
def test_inplace_is_same_object_bumps_version_and_allocates_as_declared(info):
    rng = np.random.default_rng(5)
    arrays = inputs(info, rng)
    others = [mg.tensor(a) for a in arrays[1:]]
    x = mg.tensor(arrays[0])
    v = x._version
    with counting() as c:
        y = getattr(x, info.name + "_")(*others, **info.attrs)
    assert y is x and x._version == v + 1 and x.inplace_version == v + 1
    assert c["bytes"] == 0 and c["allocations"] == 0      # without grad nothing is saved

    # with grad recording on a non-leaf, only ops whose gradient needs the old x copy it
    leaf = mg.tensor(arrays[0], requires_grad=True)
    h = leaf * 1.0
    with counting() as c:
        getattr(h, info.name + "_")(*others, **info.attrs)
    assert c["bytes"] == (h.nbytes if info.saves == "input" and info.grad else 0)


@pytest.mark.parametrize("info", [o for o in OPS if o.inplace], ids=[o.name for o in OPS
                                                                       if o.inplace])
def test_leaf_error_before_any_write_and_no_grad_allows_it(info):
    arrays = inputs(info, np.random.default_rng(6))
    others = [mg.tensor(a) for a in arrays[1:]]
    x = mg.tensor(arrays[0], requires_grad=True)
    before = x.numpy().copy()
    with pytest.raises(mg.InplaceError, match="leaf Variable that requires grad") as e:
        getattr(x, info.name + "_")(*others, **info.attrs)
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, ValueError)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0
    with mg.no_grad():
        getattr(x, info.name + "_")(*others, **info.attrs)
    assert x._version == 1 and x.grad_fn is None


@pytest.mark.parametrize("info", [o for o in OPS if o.grad and o.saves != "nothing"],
                         ids=[o.name for o in OPS if o.grad and o.saves != "nothing"])
def test_write_to_a_saved_tensor_raises_at_backward(info):
    arrays = inputs(info, np.random.default_rng(7))
    ts = [mg.tensor(a, requires_grad=True) for a in arrays]
    hs = [t * 1.0 for t in ts]
    y = _call(info, *hs)
    target = {"out": y, "other": hs[-1]}.get(info.saves, hs[0])
    target.add_(0.0)
    with pytest.raises(mg.VersionError, match="modified by an inplace operation") as e:
        y.sum().backward()
    assert "test_ops.py" in str(e.value)


@pytest.mark.parametrize("info", [o for o in OPS if o.inplace and o.nargs == 2],
                         ids=[o.name for o in OPS if o.inplace and o.nargs == 2])
def test_bad_broadcast_raises_and_leaves_data_unchanged(info):
    x = mg.tensor(np.full((4,), 0.5))
    before = x.numpy().copy()
    with pytest.raises(mg.ShapeError, match="broadcast"):
        getattr(x, info.name + "_")(mg.tensor(np.full((3, 4), 0.7)), **info.attrs)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0


FLOAT_RESULT = [o for o in OPS if o.inplace and o.name in (
    "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "div", "atan2", "expm1", "rsqrt")]


@pytest.mark.parametrize("info", FLOAT_RESULT, ids=[o.name for o in FLOAT_RESULT])
def test_float_result_into_int_tensor_raises_and_leaves_data_unchanged(info):
    x = mg.tensor([1, 2, 3])
    others = [mg.tensor([1, 2, 3]) for _ in range(info.nargs - 1)]
    with pytest.raises(mg.DTypeError, match="can't be cast"):
        getattr(x, info.name + "_")(*others)
    assert x.tolist() == [1, 2, 3] and x._version == 0


@pytest.mark.parametrize("info", [o for o in OPS if o.inplace], ids=[o.name for o in OPS
                                                                       if o.inplace])
def test_write_into_expanded_tensor_raises(info):
    arrays = inputs(info, np.random.default_rng(8))
    x = mg.tensor(arrays[0][:1]).expand(3, 4)
    others = [mg.tensor(a) for a in arrays[1:]]
    with pytest.raises(mg.OverlapError, match="single memory location"):
        getattr(x, info.name + "_")(*others, **info.attrs)
