"""Every op of the table gets the same checks (STYLE.md, "One table drives the tests").

The table is tests/op_db.py; a declared op without a row fails
test_every_declared_op_has_a_row_or_a_reason (docs/testing.md).
"""

import numpy as np
import pytest
from tests.helpers import counting, numeric_grad, ref_result
from tests.op_db import INT_OPS, NO_GRAD, OPS

import mutograd as mg

# kinds whose ``_`` form writes data
WRITES = ("elementwise", "scan", "linalg", "index", "other")


def _select(pred):
    """Parametrize a check over the rows ``pred`` accepts."""
    def parametrize(test):
        return pytest.mark.parametrize("info", [
            pytest.param(o, id=o.id, marks=_xfail(o, test.__name__)) for o in OPS if pred(o)])(test)
    return parametrize


def _xfail(info, check):
    """The row's known bug in this check: strict, so the fix fails it until the entry goes."""
    reason = info.xfail.get(check)
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _tensors(args, grad=()):
    return [mg.tensor(a, requires_grad=i in grad) if isinstance(a, np.ndarray) else a
            for i, a in enumerate(args)]


def _run(info, fn, args, kwargs):
    return info.call(fn, *args, **kwargs) if info.call else fn(*args, **kwargs)


def _function(info):
    return getattr(mg, info.name, None) if info.function else None


def _method(info):
    return lambda x, *rest, **kw: getattr(x, info.name)(*rest, **kw)


def _inplace(info, method=False):
    if method:
        return lambda x, *rest, **kw: getattr(x, info.name + "_")(*rest, **kw)
    return getattr(mg, info.name + "_", None)      # None: the row's ``call`` writes (set_value)


def _parts(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _float_parts(r):
    return [p for p in _parts(r) if p.dtype.is_floating_point]


@_select(lambda o: True)
def test_forward_matches_reference(info):
    s = info.draw(np.random.default_rng(1))
    want = _parts(ref_result(info, s.args, s.kwargs))
    if info.function:
        got = _parts(_run(info, _function(info), _tensors(s.args), s.kwargs))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert tuple(g.shape) == np.shape(w)
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-6, atol=info.atol)
    if info.inplace and info.kind in WRITES:
        for method in (False, True):
            ts = _tensors(s.args)
            assert _run(info, _inplace(info, method), ts, s.kwargs) is ts[0]
            np.testing.assert_allclose(ts[0].numpy(), want[0], rtol=1e-6, atol=info.atol)


@_select(lambda o: o.function and (o.method or o.inplace))
def test_function_method_and_inplace_agree(info):
    s = info.draw(np.random.default_rng(2))
    ts = _tensors(s.args)
    f = _parts(_run(info, _function(info), ts, s.kwargs))
    if info.method:
        m = _parts(_run(info, _method(info), ts, s.kwargs))
        for a, b in zip(f, m):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    if info.inplace:
        for method in (False, True):
            x = ts[0].clone()
            y = _run(info, _inplace(info, method), [x] + ts[1:], s.kwargs)
            assert y is x
            assert tuple(x.shape) == tuple(f[0].shape)
            np.testing.assert_allclose(x.numpy(), f[0].numpy(), rtol=1e-12, atol=1e-12)


def _loss_weights(info, s, rng):
    return [rng.standard_normal(np.shape(p)) for p in _parts(ref_result(info, s.args, s.kwargs))
            if np.asarray(p).dtype.kind == "f"]


def _mg_loss(result, weights):
    total = None
    for p, w in zip(_float_parts(result), weights):
        term = (p * mg.tensor(w)).sum()
        total = term if total is None else total + term
    return total


@_select(lambda o: o.grad and o.fd)
def test_gradient_matches_finite_differences(info):
    rng = np.random.default_rng(3)
    s = info.draw(rng)
    weights = _loss_weights(info, s, rng)

    def loss(*diff_arrays):
        args = list(s.args)
        for i, a in zip(s.diff, diff_arrays):
            args[i] = a
        parts = [p for p in _parts(ref_result(info, args, s.kwargs))
                 if np.asarray(p).dtype.kind == "f"]
        return float(sum((np.asarray(p) * w).sum() for p, w in zip(parts, weights)))

    expected = numeric_grad(loss, [s.args[i].copy() for i in s.diff])
    forms = [(_function(info), False)] if info.function else []
    if info.inplace and info.kind in WRITES and 0 in s.diff:
        forms.append((_inplace(info), True))          # written on a non-leaf
    for fn, inplace in forms:
        ts = _tensors(s.args, grad=s.diff)
        hs = [t * 1.0 if inplace and i == 0 else t for i, t in enumerate(ts)]
        _mg_loss(_run(info, fn, hs, s.kwargs), weights).backward()
        for i, e in zip(s.diff, expected):
            np.testing.assert_allclose(ts[i].grad.numpy(), e, rtol=1e-5, atol=1e-6,
                                       err_msg=f"input {i}")


def _torch_fn(info, torch):
    obj = torch
    for part in (info.torch_name or info.name).split("."):
        obj = getattr(obj, part, None)
        if obj is None:     # only a Tensor method in PyTorch
            return lambda x, *a, **kw: getattr(x, info.torch_name or info.name)(*a, **kw)
    return lambda *a, **kw: obj(*a, **{"dim" if k == "axis" else k: v for k, v in kw.items()})


@pytest.mark.torch
@_select(lambda o: o.torch is not False and not o.torch_inplace)
def test_forward_and_gradient_match_pytorch(info):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    s = info.draw(rng)
    weights = _loss_weights(info, s, rng) if info.grad else []
    tt = [torch.tensor(a, requires_grad=i in s.diff and info.grad)
          if isinstance(a, np.ndarray) else a for i, a in enumerate(s.args)]
    if callable(info.torch):
        expected = _parts(info.torch(torch, *tt, **s.kwargs))
    else:
        expected = _parts(_run(info, _torch_fn(info, torch), tt, s.kwargs))
    ts = _tensors(s.args, grad=s.diff if info.grad else ())
    got = _parts(_run(info, _function(info), ts, s.kwargs))
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.numpy(), e.detach().numpy(), rtol=1e-6, atol=1e-7)
    if not info.grad:
        return
    tloss = sum((p * torch.tensor(w)).sum() for p, w in zip(
        [p for p in expected if p.dtype.is_floating_point], weights))
    tloss.backward()
    _mg_loss(got, weights).backward()
    for i in s.diff:
        np.testing.assert_allclose(ts[i].grad.numpy(), tt[i].grad.numpy(), rtol=1e-6,
                                   atol=1e-8)


@_select(lambda o: o.grad and o.inplace and o.function)
def test_inplace_gradient_on_non_leaf_equals_out_of_place(info):
    rng = np.random.default_rng(4)
    s = info.draw(rng)
    weights = _loss_weights(info, s, rng)

    def run(inplace):
        ts = _tensors(s.args, grad=s.diff)
        h = ts[0] * 1.0                       # a non-leaf that we may change in place
        fn = _inplace(info) if inplace else _function(info)
        y = _run(info, fn, [h] + ts[1:], s.kwargs)
        assert (y is h) == inplace
        _mg_loss(y, weights).backward()
        return [ts[i].grad.numpy() for i in s.diff]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@_select(lambda o: o.grad and o.inplace and o.kind in WRITES and o.view_ok)
def test_inplace_gradient_through_a_view_matches_out_of_place_and_finite_differences(info):
    rng = np.random.default_rng(14)
    s = info.draw(rng)
    x = s.args[0]
    rest = rng.uniform(0.5, 1.5, x.shape)           # the part of the base that is not written
    wa = rng.standard_normal((2 * x.shape[0],) + x.shape[1:])
    w = mg.tensor(wa)
    n = x.shape[0]

    def written(base, *others):               # the base after the write, in NumPy
        args = [base[:n]] + list(s.args[1:])
        for i, a in zip(s.diff[1:], others):
            args[i] = a
        return np.concatenate([ref_result(info, args, s.kwargs), base[n:]])

    def run(inplace):
        base = mg.tensor(np.concatenate([x, rest]), requires_grad=True)
        ts = _tensors(s.args, grad=s.diff)
        h = base * 1.0
        if inplace:
            v = h[:n]                                 # a view of a non-leaf
            assert _run(info, _inplace(info, method=True), [v] + ts[1:], s.kwargs) is v
            out = h
            np.testing.assert_allclose(h.numpy(), written(base.numpy(), *[
                s.args[i] for i in s.diff[1:]]), rtol=1e-6, atol=1e-6)
        elif not info.function:
            return None
        else:
            out = mg.cat([_run(info, _function(info), [h[:n]] + ts[1:], s.kwargs), h[n:]])
        (out * w).sum().backward()
        return [base.grad.numpy()] + [ts[i].grad.numpy() for i in s.diff[1:]]

    got = run(True)
    if info.function:
        for a, b in zip(got, run(False)):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    if info.fd and 0 in s.diff:
        arrays = [np.concatenate([x, rest])] + [s.args[i].copy() for i in s.diff[1:]]
        expected = numeric_grad(lambda *a: float((written(*a) * wa).sum()), arrays)
        for a, e in zip(got, expected):
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


@_select(lambda o: o.inplace and o.kind in WRITES)
def test_inplace_is_same_object_bumps_version_and_allocates_as_declared(info):
    s = info.draw(np.random.default_rng(5))
    workspace = int(info.workspace)           # matmul_: see test_matmul_workspace
    for method in (True, False):
        ts = _tensors(s.args)
        x, others = ts[0], ts[1:]
        v = x._version
        with counting() as c:
            y = _run(info, _inplace(info, method), [x] + others, s.kwargs)
        assert y is x and x._version == v + 1 and x.inplace_version == v + 1
        assert c["bytes"] == 0 and c["allocations"] == workspace  # without grad nothing is saved
        del ts, x, y              # freed here, not inside the next count

    # with grad recording on a non-leaf, only ops whose gradient needs the old x copy it
    if s.args[0].dtype.kind != "f":
        return
    others = _tensors(s.args)[1:]
    leaf = mg.tensor(s.args[0], requires_grad=True)
    h = leaf * 1.0
    with counting() as c:
        _run(info, _inplace(info), [h] + others, s.kwargs)
    kept = {"input": h.nbytes, "kept": h.nbytes, "mask": h._data.size}.get(info.saves, 0)
    assert c["bytes"] == (kept if info.grad else 0)
    assert h.grad_fn is not None and h._version == 1
    # every float input requiring grad
    del leaf, h
    ts = _tensors(s.args, grad=s.diff)
    h = ts[0] * 1.0
    with counting() as c:
        _run(info, _inplace(info), [h] + ts[1:], s.kwargs)
    copies = info.saves in ("input", "kept") and info.grad or info.copies_for_others
    mask = info.saves == "mask" and info.grad
    assert c["bytes"] == (h.nbytes if copies else h._data.size if mask else 0)


@_select(lambda o: o.inplace)
def test_leaf_error_before_any_write_and_no_grad_allows_it(info):
    s = info.draw(np.random.default_rng(6))
    others = _tensors(s.args)[1:]
    x = mg.tensor(s.args[0], requires_grad=s.args[0].dtype.kind == "f")
    if not x.requires_grad:
        pytest.skip("integer/bool inputs cannot require grad")
    before = x.numpy().copy()
    for method in (True, False):
        with pytest.raises(mg.InplaceError, match="leaf Variable that requires grad") as e:
            _run(info, _inplace(info, method), [x] + others, s.kwargs)
        assert isinstance(e.value, RuntimeError) and isinstance(e.value, ValueError)
        np.testing.assert_array_equal(x.numpy(), before)
        assert x._version == 0 and x.shape == list(before.shape) and x.grad_fn is None
    with mg.no_grad():
        assert _run(info, _inplace(info), [x] + others, s.kwargs) is x
    assert x._version == 1 and x.grad_fn is None   # every in-place op is a write (rule 9)


@_select(lambda o: o.grad and o.saves in ("kept", "mask"))
def test_values_kept_from_the_forward_are_private(info):
    # Note [Values kept from the forward]: writing the input or the result after the forward
    # changes nothing in the gradient, and raises nothing
    s = info.draw(np.random.default_rng(7))
    grads = []
    for write in (False, True):
        x = mg.tensor(s.args[0], requires_grad=True)
        h = x * 1.0
        y = _run(info, _function(info), [h], s.kwargs)
        loss = (y * 1.0).sum()
        if write:
            h.mul_(3.0)
            y.fill_(7.0)
        loss.backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@_select(lambda o: o.grad and o.function and o.saves not in ("nothing", "kept", "mask",
                                                             "out-copied"))
def test_write_to_a_saved_tensor_raises_at_backward(info):
    s = info.draw(np.random.default_rng(7))
    ts = _tensors(s.args, grad=s.diff)
    hs = [t * 1.0 if i in s.diff else t for i, t in enumerate(ts)]
    y = _run(info, _function(info), hs, s.kwargs)
    target = {"out": y, "other": hs[s.diff[-1]]}.get(info.saves, hs[s.diff[0]])
    target.add_(0.0)
    with pytest.raises(mg.VersionError, match="modified by an inplace operation") as e:
        _float_parts(y)[0].sum().backward()
    assert "test_ops.py" in str(e.value)


@_select(lambda o: o.grad and o.inplace and o.saves in ("out", "other"))
def test_write_to_what_the_inplace_op_saved_raises_at_backward(info):
    s = info.draw(np.random.default_rng(7))
    ts = _tensors(s.args, grad=s.diff)
    hs = [t * 1.0 if i in s.diff else t for i, t in enumerate(ts)]
    y = _run(info, _inplace(info), hs, s.kwargs)
    target = y if info.saves == "out" else hs[[i for i in s.diff if i > 0][0]]
    target.add_(0.0)
    with pytest.raises(mg.VersionError, match="modified by an inplace operation") as e:
        (y * 1.0).sum().backward()
    assert "test_ops.py" in str(e.value)


@_select(lambda o: o.grad and o.saves == "out-copied")
def test_writing_a_saved_output_copies_it_and_backward_stays_right(info):
    # Note [Outputs copied on write]: the output is saved for free; writing it again (a chain
    # such as b.asin_().asin_()) first copies it, once, and the gradient is unchanged
    s = info.draw(np.random.default_rng(7))
    grads = []
    for write in (False, True):
        ts = _tensors(s.args, grad=s.diff)
        hs = [t * 1.0 if i in s.diff else t for i, t in enumerate(ts)]
        y = _run(info, _inplace(info), hs, s.kwargs)
        loss = (y * 1.0).sum()
        if write:
            with counting() as c:
                y.mul_(0.5)
            with counting() as c2:
                y.add_(1.0)          # written twice: copied once
            assert c["bytes"] == y.nbytes and c2["bytes"] == 0
        loss.backward()
        grads.append([ts[i].grad.numpy() for i in s.diff])
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


@_select(lambda o: o.grad and o.inplace and o.kind in WRITES and o.saves == "input")
def test_the_copy_kept_by_an_inplace_op_protects_its_gradient(info):
    """x is written again after the op: the gradient uses the op's own copy of the old x, so
    backward is still right (or, when it also needs the result, it raises, unless the result
    is copied on write: Note [Outputs copied on write])."""
    from mutograd.ops.inplace_surface import op_of
    rng = np.random.default_rng(8)
    s = info.draw(rng)
    weights = _loss_weights(info, s, rng)

    def grads(write):
        ts = _tensors(s.args, grad=s.diff)
        h = ts[0] * 1.0
        y = _run(info, _inplace(info), [h] + ts[1:], s.kwargs)
        loss = _mg_loss(y, weights)
        if write:
            y.mul_(0.0)        # written after the op
        loss.backward()
        return [ts[i].grad.numpy() for i in s.diff]

    expected = grads(False)
    op = op_of(info.name + "_")
    mask = sum(1 << i for i in s.diff)
    if op is not None and "out" in op.plan(mask) and not op.copy_out:
        with pytest.raises(mg.VersionError, match="modified by an inplace operation"):
            grads(True)
        return
    np.testing.assert_allclose(grads(True)[0], expected[0], rtol=1e-10, atol=1e-12)


def _torch_inplace(info, torch):
    """PyTorch's form of the row's in-place result: the row's own, or its ``_`` method on a
    non-leaf."""
    if callable(info.torch_inplace):
        return lambda *tt, **kw: info.torch_inplace(torch, *tt)
    name = (info.torch_name or info.name) + "_"

    def run(x, *others, **kw):
        h = x * 1.0
        assert getattr(h, name)(*others) is h
        return h
    return run


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:index_reduce")
@_select(lambda o: o.torch_inplace)
def test_inplace_values_and_gradients_match_pytorch(info):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    s = info.draw(rng)
    w = rng.standard_normal(np.shape(ref_result(info, s.args, s.kwargs)))
    tts = [torch.tensor(a, requires_grad=i in s.diff) if isinstance(a, np.ndarray) else a
           for i, a in enumerate(s.args)]
    tout = _torch_inplace(info, torch)(*tts)
    (tout * torch.tensor(w)).sum().backward()
    ts = _tensors(s.args, grad=s.diff)
    h = ts[0] * 1.0
    y = _run(info, _inplace(info), [h] + ts[1:], s.kwargs)
    np.testing.assert_allclose(y.numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-7)
    (y * mg.tensor(w)).sum().backward()
    for i in s.diff:
        np.testing.assert_allclose(ts[i].grad.numpy(), tts[i].grad.numpy(force=True),
                                   rtol=1e-6, atol=1e-7)


@_select(lambda o: o.inplace and o.function and o.kind in WRITES)
def test_float32_in_place_keeps_its_dtype_and_matches_the_float64_reference(info):
    s = info.draw(np.random.default_rng(12))
    expected = _parts(ref_result(info, s.args, s.kwargs))[0]
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
            for a in s.args]
    ts = _tensors(args)
    x = ts[0]
    assert _run(info, _inplace(info), ts, s.kwargs) is x
    assert x.dtype == mg.dtypes.get(args[0].dtype.name)
    np.testing.assert_allclose(x.numpy(), expected, rtol=2e-4, atol=2e-4)


@_select(lambda o: o.inplace and o.kind == "elementwise" and o.nargs >= 2 and not o.make)
def test_bad_broadcast_raises_and_leaves_data_unchanged(info):
    x = mg.tensor(np.full((4,), 0.5))
    before = x.numpy().copy()
    others = [mg.tensor(np.full((3, 4), 0.7))] + [mg.tensor(np.full((4,), 0.6))] * (
        info.nargs - 2)
    with pytest.raises(mg.ShapeError, match="broadcast"):
        getattr(x, info.name + "_")(*others, **info.attrs)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0
    with pytest.raises(mg.ShapeError, match="do not broadcast"):
        getattr(x, info.name + "_")(mg.tensor(np.full((3,), 0.7)), *others[1:], **info.attrs)
    assert x._version == 0


@_select(lambda o: o.inplace and o.float_out)
def test_float_result_into_int_tensor_raises_and_leaves_data_unchanged(info):
    x = mg.tensor([1, 2, 3])
    others = [mg.tensor([1, 2, 3]) for _ in range(info.nargs - 1)]
    with pytest.raises(mg.DTypeError, match="can't be cast"):
        getattr(x, info.name + "_")(*others, **info.attrs)
    assert x.tolist() == [1, 2, 3] and x._version == 0


# a fill is well defined on an expanded tensor and allowed (design.md rule 10)
@_select(lambda o: o.inplace and o.kind in WRITES and o.name not in ("fill", "zero"))
def test_write_into_expanded_tensor_raises(info):
    s = info.draw(np.random.default_rng(8))
    a = s.args[0]
    x = mg.tensor(a[:1]).expand(*a.shape)
    with pytest.raises(mg.OverlapError, match="single memory location"):
        _run(info, _inplace(info, method=True), [x] + _tensors(s.args)[1:], s.kwargs)
    assert x._version == 0


@_select(lambda o: o.kind == "view")
def test_view_shares_storage_and_version_counter(info):
    s = info.draw(np.random.default_rng(10))
    ts = _tensors(s.args)
    x = ts[0]
    for p in _parts(_run(info, _function(info), ts, s.kwargs)):
        assert p is not x
        assert np.shares_memory(p.numpy(), x.numpy())
        assert p._base is x
        v = p._version
        x.add_(1.0)
        assert p._version == v + 1 == x._version


@_select(lambda o: o.kind != "view" and o.function)
def test_non_view_result_has_its_own_storage(info):
    s = info.draw(np.random.default_rng(11))
    ts = _tensors(s.args)
    for p in _parts(_run(info, _function(info), ts, s.kwargs)):
        assert p._base is None
        for t in ts:
            if isinstance(t, mg.Tensor):
                assert not np.shares_memory(p.numpy(), t.numpy())


@_select(lambda o: o.kind == "view" and o.inplace)
def test_metadata_inplace_keeps_object_storage_and_version(info):
    s = info.draw(np.random.default_rng(12))
    x = mg.tensor(s.args[0])
    arr = x.numpy()
    expected = _run(info, _function(info), [x], s.kwargs)
    with counting() as c:
        y = _run(info, _inplace(info), [x], s.kwargs)
    assert y is x and x._version == 1 and c["bytes"] == 0 and c["allocations"] == 0
    assert x.shape == expected.shape and x.stride() == expected.stride()
    assert np.shares_memory(x.numpy(), arr)
    np.testing.assert_array_equal(x.numpy(), expected.numpy())

    h = mg.tensor(s.args[0], requires_grad=True) * 1.0
    _run(info, _inplace(info), [h], s.kwargs)
    assert type(h.grad_fn).__name__ == type(expected.grad_fn or _run(
        info, _function(info), [mg.tensor(s.args[0], requires_grad=True)], s.kwargs).grad_fn
    ).__name__


@_select(lambda o: o.grad and o.function)
def test_no_grad_records_nothing(info):
    s = info.draw(np.random.default_rng(13))
    ts = _tensors(s.args, grad=s.diff)
    with mg.no_grad():
        r = _run(info, _function(info), ts, s.kwargs)
    # a view reports its base's flag, as in PyTorch (Note [Views without history])
    assert all(p.grad_fn is None and (not p.requires_grad or p._is_view()) for p in _parts(r))
    r = _run(info, _function(info), ts, s.kwargs)
    assert all(p.requires_grad for p in _float_parts(r))


# outer and addr: (3,) and (2,) make an outer product that (3,) broadcasts against
@_select(lambda o: o.nargs >= 2 and not o.make and o.kind in ("elementwise", "linalg")
         and o.function and o.name not in ("outer", "addr"))
def test_out_of_place_shapes_that_do_not_fit_raise_shape_error(info):
    args = [mg.tensor(np.full((3,), 0.5)), mg.tensor(np.full((2,), 0.7))] + [
        mg.tensor(np.full((3,), 0.6))] * (info.nargs - 2)
    with pytest.raises(mg.ShapeError, match=rf"{info.name}\(\)") as e:
        _function(info)(*args, **info.attrs)
    assert isinstance(e.value, ValueError) and isinstance(e.value, RuntimeError)
    assert args[0].tolist() == [0.5] * 3 and args[0]._version == 0


@pytest.mark.parametrize("call, error, message", [
    (lambda: mg.bitwise_and(mg.ones(2), mg.ones(2)), mg.DTypeError, "bitwise_and"),
    (lambda: mg.mean(mg.tensor([1, 2])), mg.DTypeError, "could not infer output dtype"),
    (lambda: mg.cat([mg.ones(2, 3), mg.ones(2, 2)]), mg.ShapeError, r"cat\(\)"),
    (lambda: mg.stack([mg.ones(2), mg.ones(3)]), mg.ShapeError, "same shape"),
    (lambda: mg.ones(2, 3).reshape(4), mg.ShapeError, "invalid for input of size 6"),
    (lambda: mg.ones(2, 3).expand(3, 3), mg.ShapeError, "must match the existing size"),
    (lambda: mg.ones(2, 3).permute(1, 0, 2), mg.ShapeError, "permute"),
    (lambda: mg.ones(2, 3).narrow(1, 2, 2), mg.ShapeError, "exceeds dimension size"),
    (lambda: mg.ones(2, 3).select(1, 3), IndexError, "out of range"),
    (lambda: mg.ones(3).sum(axis=2), mg.IndexRangeError, "dimension out of range"),
    (lambda: mg.ones(2, 3).cumsum_(), mg.ShapeError, "pass axis="),
    (lambda: mg.mm(mg.ones(2), mg.ones(2)), mg.ShapeError, "expected 2-D"),
    (lambda: mg.ones(2, 3, 4).t(), mg.ShapeError, "<= 2 dimensions"),
], ids=lambda v: None)
def test_bad_input_raises_our_error_classes(call, error, message):
    with pytest.raises(error, match=message):
        call()


# Declared ops that cannot have a row, and why. A rename in the registry is a one-line change
# here or in a row's ``covers``; an entry or a ``covers`` name the registry lost fails below.
EXPLAINED = {
    **dict.fromkeys(("bernoulli", "cauchy", "exponential", "geometric", "log_normal", "normal",
                     "random", "uniform"),
                    "a random fill: no reference value; its distribution, seeding and zero "
                    "gradient are tested in test_inplace_surface.py and test_creation.py"),
    **dict.fromkeys(("linalg_eig", "linalg_eigh", "linalg_eigvals", "linalg_svd", "linalg_qr",
                     "linalg_lu"),
                    "a decomposition into several factors: eig, eigh, svd and qr unique only "
                    "up to signs, phases or order, lu with a permutation that takes no "
                    "gradient; tested in test_linalg.py through functions of the factors that "
                    "the ambiguity leaves unchanged, against finite differences and PyTorch"),
    **dict.fromkeys(("set", "resize", "resize_as", "cast"),
                    "a storage swap (set_, resize_, resize_as_, cast_): no values to compare "
                    "with a reference; versions, leaf and no-grad rules and history are tested "
                    "in test_inplace_surface.py and test_outside_programs.py"),
    "rrelu_with_noise": "rrelu's training form: the noise is random (test_functional_inplace.py; "
                        "its second order: test_nn_second_order.py)",
    "index_put": "item assignment x[index] = value (test_views.py, test_view_programs.py)",
    "standard_gamma": "a random Gamma draw: its implicit-reparameterisation gradient is tested "
                      "against PyTorch's in tests/distributions/test_distributions.py",
    "attention_softmax": "an internal step of scaled_dot_product_attention "
                         "(test_nn_transformer.py)",
    "sparse_mm": "a sparse tensor's product with a dense one, whose inputs are a sparse "
                 "tensor's values and a pattern: values, both gradients, second order and the "
                 "version rules against PyTorch in tests/sparse/",
    "sparse_solve": "a sparse linear solve, whose inputs are a sparse matrix's values and a "
                    "pattern: values, both gradients and second order against NumPy and finite "
                    "differences in tests/sparse/test_sparse_api_torch.py",
    **dict.fromkeys(("complex", "real", "imag", "view_as_real", "view_as_complex"),
                    "complex-valued: the table's references and finite differences are real "
                    "(test_complex_grad.py)"),
    **dict.fromkeys(("fft_c2c", "fft_r2c", "fft_c2r"),
                    "a Fourier transform with complex results: its own table in test_fft.py "
                    "(NumPy, PyTorch, finite differences, second order)"),
}


def _registry():
    """Every declared op: the compat namespaces declare a few of their own (set_value)."""
    import mutograd.compat.paddle  # noqa: F401
    import mutograd.compat.torch  # noqa: F401
    from mutograd.ops import OPS as REGISTRY
    return REGISTRY


def _public(name):
    import mutograd.nn.functional as F
    from mutograd.ops import ALIASES, FUNCTIONS
    from mutograd.ops import OPS as REGISTRY
    return (name in REGISTRY or name in ALIASES or name in FUNCTIONS or hasattr(mg, name)
            or hasattr(mg.Tensor, name) or hasattr(F, name))


def _covered():
    """The registry ops the table's rows run."""
    from mutograd.ops import ALIASES
    names = [o.name for o in OPS] + [r[0] for r in NO_GRAD] + [r[0] for r in INT_OPS]
    return {ALIASES.get(n, n) for n in names} | {c for o in OPS for c in o.covers}


def test_every_declared_op_has_a_row_or_a_reason():
    REGISTRY = _registry()
    missing = sorted(set(REGISTRY) - _covered() - set(EXPLAINED))
    assert missing == [], f"declared ops without a row in tests/op_db.py: {missing}"


def test_no_row_or_reason_names_an_op_that_is_gone():
    REGISTRY = _registry()
    assert sorted(set(EXPLAINED) - set(REGISTRY)) == [], "EXPLAINED names ops no longer declared"
    assert sorted(set(EXPLAINED) & _covered()) == [], "ops with a row need no EXPLAINED entry"
    gone = sorted({c for o in OPS for c in o.covers} - set(REGISTRY))
    assert gone == [], f"rows' covers name ops no longer declared: {gone}"
    stale = sorted({o.name for o in OPS if not _public(o.name)})
    assert stale == [], f"rows of names that are neither declared nor public: {stale}"


def test_aliases_are_the_same_functions_and_methods():
    from mutograd.ops import ALIASES
    for alias, target in ALIASES.items():
        assert getattr(mg, alias) is getattr(mg, target), alias
        if hasattr(mg, target + "_"):
            assert getattr(mg, alias + "_") is getattr(mg, target + "_"), alias
        if hasattr(mg.Tensor, target):
            assert getattr(mg.Tensor, alias) is getattr(mg.Tensor, target), alias
