"""The generic checks of test_ops.py over the rows of op_db_surface.py, and the checks that only
the rest of the in-place surface needs (names, dtypes of no-gradient ops, random fills)."""
import numpy as np
import pytest
from helpers import counting, numeric_grad, sample
from op_db_surface import OPS

import mutograd as mg

ids = [f"{o.name}-{i}" for i, o in enumerate(OPS)]


def _rows(pred=lambda o: True):
    rows = [(o, i) for o, i in zip(OPS, ids) if pred(o)]
    return pytest.mark.parametrize("info", [r[0] for r in rows], ids=[r[1] for r in rows])


def _arrays(info, rng):
    if info.sample is not None:
        return info.sample(rng)
    return [sample(info, s, rng) for s in info.shapes[:info.nargs]]


def _float(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == "f"


def _run(info, fn, ts, bound=False):
    """Call ``fn`` (mg.<name>, mg.<name>_ or a bound method) with the row's arguments."""
    if info.args is not None:
        pos, kw = info.args(ts, info.attrs)
    else:
        pos, kw = tuple(ts), dict(info.attrs)
    return fn(*pos[1:], **kw) if bound else fn(*pos, **kw)


def _tensors(arrays, rg=False):
    return [mg.tensor(a, requires_grad=rg and _float(a)) for a in arrays]


@_rows()
def test_values_match_reference_in_every_form(info):
    arrays = _arrays(info, np.random.default_rng(1))
    expected = info.ref(*[a.copy() for a in arrays])
    if info.function:
        out = _run(info, getattr(mg, info.name), _tensors(arrays))
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=info.atol)
    ts = _tensors(arrays)
    x = ts[0]
    assert _run(info, getattr(mg, info.name + "_"), ts) is x
    np.testing.assert_allclose(x.numpy(), expected, rtol=1e-6, atol=info.atol)
    if info.method:
        ts = _tensors(arrays)
        assert _run(info, getattr(ts[0], info.name + "_"), ts, bound=True) is ts[0]
        np.testing.assert_allclose(ts[0].numpy(), expected, rtol=1e-6, atol=info.atol)


@_rows()
def test_inplace_bumps_version_once_and_allocates_as_declared(info):
    arrays = _arrays(info, np.random.default_rng(5))
    ts = _tensors(arrays)
    x = ts[0]
    with counting() as c:
        _run(info, getattr(mg, info.name + "_"), ts)
    assert x._version == 1 and x.inplace_version == 1
    assert c["bytes"] == 0 and c["allocations"] == (1 if info.workspace else 0)
    # with grad recording on a non-leaf, only a gradient that needs the old x copies it
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    with counting() as c:
        _run(info, getattr(mg, info.name + "_"), [h] + ts[1:])
    assert c["bytes"] == (h.nbytes if info.saves == "input" else 0)


def _loss_grads(info, arrays, inplace, w):
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    fn = getattr(mg, info.name + ("_" if inplace else ""))
    y = _run(info, fn, [h] + ts[1:])
    if inplace:
        assert y is h
    (y * mg.tensor(w)).sum().backward()
    return [t.grad.numpy() if _float(a) else None for t, a in zip(ts, arrays)]


@_rows(lambda o: o.grad)
def test_inplace_gradient_on_a_non_leaf_matches_finite_differences(info):
    rng = np.random.default_rng(3)
    arrays = _arrays(info, rng)
    w = rng.standard_normal(info.ref(*[a.copy() for a in arrays]).shape)
    float_idx = [i for i, a in enumerate(arrays) if _float(a)]

    def loss(*fl):
        full = list(arrays)
        for i, a in zip(float_idx, fl):
            full[i] = a
        return float((info.ref(*[a.copy() for a in full]) * w).sum())

    expected = numeric_grad(loss, [arrays[i].copy() for i in float_idx])
    got = _loss_grads(info, arrays, True, w)
    for i, e in zip(float_idx, expected):
        np.testing.assert_allclose(got[i], e, rtol=1e-5, atol=1e-6, err_msg=f"input {i}")
    if info.function:
        for a, b in zip(got, _loss_grads(info, arrays, False, w)):
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@_rows(lambda o: o.grad and o.view_ok)
def test_inplace_through_a_view_gradient_matches_finite_differences(info):
    rng = np.random.default_rng(9)
    arrays = _arrays(info, rng)
    w = rng.standard_normal(arrays[0].shape)

    def f(*arrs):
        base = arrs[0].copy()
        base[1:] = info.ref(base[1:], *arrs[1:])
        return base

    expected = numeric_grad(lambda *a: float((f(*a) * w).sum()), [a.copy() for a in arrays])
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    v = h[1:]
    _run(info, getattr(v, info.name + "_"), [v] + ts[1:], bound=True)
    np.testing.assert_allclose(h.numpy(), f(*arrays), rtol=1e-6, atol=1e-6)
    (h * mg.tensor(w)).sum().backward()
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-6)


@_rows()
def test_leaf_error_is_raised_before_any_write_and_no_grad_allows_it(info):
    arrays = _arrays(info, np.random.default_rng(6))
    ts = _tensors(arrays)
    x = ts[0]
    x.requires_grad = True
    before = x.numpy().copy()
    with pytest.raises(mg.InplaceError, match="leaf Variable that requires grad"):
        _run(info, getattr(mg, info.name + "_"), ts)
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0 and x.grad_fn is None
    with mg.no_grad():
        assert _run(info, getattr(mg, info.name + "_"), ts) is x
    assert x._version == 1 and x.grad_fn is None


@_rows(lambda o: o.grad and o.saves in ("out", "other"))
def test_writing_what_the_inplace_op_saved_makes_backward_raise(info):
    arrays = _arrays(info, np.random.default_rng(7))
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    others = [t * 1.0 if _float(a) else t for t, a in zip(ts[1:], arrays[1:])]
    y = _run(info, getattr(mg, info.name + "_"), [h] + others)
    floats = [o for o, a in zip(others, arrays[1:]) if _float(a)]
    target = y if info.saves == "out" else floats[0]
    target.add_(0.0)
    with pytest.raises(mg.VersionError, match="modified by an inplace operation") as e:
        (y * 1.0).sum().backward()
    assert "test_ops_surface.py" in str(e.value)


@_rows(lambda o: o.grad and o.saves == "out-copied")
def test_a_chain_of_inplace_ops_copies_the_saved_output_once(info):
    """``h.op_().mul_(0.5)``: the op saved its output for free; the write after it copies it
    first (Note [Outputs copied on write]), so the gradient is the one without the write."""
    rng = np.random.default_rng(8)
    arrays = _arrays(info, rng)
    w = rng.standard_normal(info.ref(*[a.copy() for a in arrays]).shape)
    expected = _loss_grads(info, arrays, True, w)
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    y = _run(info, getattr(mg, info.name + "_"), [h] + ts[1:])
    loss = (y * mg.tensor(w)).sum()
    with counting() as c:
        y.mul_(0.5)
    assert c["bytes"] == y.nbytes
    loss.backward()
    for t, a, e in zip(ts, arrays, expected):
        if _float(a):
            np.testing.assert_array_equal(t.grad.numpy(), e)


@_rows(lambda o: o.grad and o.saves == "input")
def test_the_copy_kept_by_an_inplace_op_protects_its_gradient(info):
    """x is written again after the op: the gradient uses the op's own copy of the old x, so
    backward is still right (or, when it also needs the result, it raises)."""
    from mutograd.ops.inplace_surface import op_of
    rng = np.random.default_rng(8)
    arrays = _arrays(info, rng)
    w = rng.standard_normal(info.ref(*[a.copy() for a in arrays]).shape)
    ts = _tensors(arrays, rg=True)
    h = ts[0] * 1.0
    y = _run(info, getattr(mg, info.name + "_"), [h] + ts[1:])
    g = (y * mg.tensor(w)).sum()
    expected = _loss_grads(info, arrays, True, w)
    y.mul_(0.0)        # written after the op
    mask = sum(1 << i for i, a in enumerate(arrays) if _float(a))
    if "out" in op_of(info.name + "_").plan(mask):
        with pytest.raises(mg.VersionError, match="modified by an inplace operation"):
            g.backward()
        return
    g.backward()
    np.testing.assert_allclose(ts[0].grad.numpy(), expected[0], rtol=1e-10, atol=1e-12)


def _torch_ref(info):
    """PyTorch's own form of the row: ``tref``, or else its in-place method on a non-leaf."""
    if info.tref is not None:
        return info.tref
    if info.torch_name == "" or info.attrs or info.args or info.sample:
        return None
    name = (info.torch_name or info.name) + "_"

    def run(torch, x, *others):
        h = x * 1.0
        assert getattr(h, name)(*others) is h
        return h
    return run


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:index_reduce")
@_rows(lambda o: _torch_ref(o) is not None)
def test_inplace_values_and_gradients_match_pytorch(info):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    arrays = _arrays(info, rng)
    w = rng.standard_normal(info.ref(*[a.copy() for a in arrays]).shape)
    tts = [torch.tensor(a, requires_grad=_float(a)) for a in arrays]
    tout = _torch_ref(info)(torch, *tts)
    (tout * torch.tensor(w)).sum().backward()
    ours = _loss_grads(info, arrays, True, w)
    ts = _tensors(arrays)
    _run(info, getattr(mg, info.name + "_"), ts)
    np.testing.assert_allclose(ts[0].numpy(), tout.detach().numpy(), rtol=1e-6, atol=1e-7)
    for t, g in zip(tts, ours):
        if g is not None:
            np.testing.assert_allclose(g, t.grad.numpy(force=True), rtol=1e-6, atol=1e-7)


def _op(info):
    from mutograd.ops.inplace_surface import op_of
    return op_of(info.name + "_")


@_rows(lambda o: o.nargs == 2 and o.sample is None and o.args is None
       and _op(o).kind == "elementwise")
def test_bad_broadcast_raises_and_leaves_data_unchanged(info):
    x = mg.tensor(np.full((4,), 0.5))
    with pytest.raises(mg.ShapeError, match="broadcast"):
        getattr(x, info.name + "_")(mg.tensor(np.full((3, 4), 0.7)), **info.attrs)
    assert x.tolist() == [0.5] * 4 and x._version == 0


@_rows(lambda o: _op(o).result == "float" and o.sample is None and o.args is None)
def test_float_result_into_an_int_tensor_raises_and_leaves_data_unchanged(info):
    x = mg.tensor([1, 2, 3])
    others = [mg.tensor([1, 2, 3]) for _ in range(info.nargs - 1)]
    with pytest.raises(mg.DTypeError, match="can't be cast"):
        getattr(x, info.name + "_")(*others, **info.attrs)
    assert x.tolist() == [1, 2, 3] and x._version == 0


@_rows(lambda o: o.sample is None and o.args is None and o.nargs == 1)
def test_writing_an_expanded_tensor_is_refused(info):
    arrays = _arrays(info, np.random.default_rng(8))
    x = mg.tensor(arrays[0][:1]).expand(*arrays[0].shape)
    with pytest.raises(mg.OverlapError, match="single memory location"):
        getattr(x, info.name + "_")(**info.attrs)


@pytest.mark.torch
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_scatter_reduce_with_ties_and_zeros_matches_pytorch(reduce, include_self, seed):
    """Small integer values make ties (amax/amin share the gradient) and zeros (prod's
    gradient is the product of the others, not a division)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(seed)
    x = rng.integers(-1, 3, (4, 3)).astype(np.float64)
    index = rng.integers(0, 4, (6, 3))
    src = rng.integers(-1, 3, (6, 3)).astype(np.float64)
    w = rng.standard_normal((4, 3))
    tx, ts = (torch.tensor(a, requires_grad=True) for a in (x, src))
    tout = (tx * 1.0).scatter_reduce_(0, torch.tensor(index), ts, reduce,
                                      include_self=include_self)
    (tout * torch.tensor(w)).sum().backward()
    mx, ms = mg.tensor(x, requires_grad=True), mg.tensor(src, requires_grad=True)
    out = (mx * 1.0).scatter_reduce_(0, mg.tensor(index), ms, reduce, include_self=include_self)
    (out * mg.tensor(w)).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy())
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    if reduce in ("amax", "amin") and not include_self:
        # PyTorch still counts an old value equal to the result among the ties although it
        # takes no part (and gets no gradient), so its shares do not add up to the gradient.
        # Ours are shared among the contributors only: per position they add up to w.
        total = np.zeros_like(w)
        np.add.at(total, (index, np.arange(3)[None, :].repeat(6, 0)), ms.grad.numpy())
        hit = np.zeros(w.shape, bool)
        hit[index, np.arange(3)[None, :].repeat(6, 0)] = True
        np.testing.assert_allclose(total[hit], w[hit], atol=1e-12)
        return
    np.testing.assert_allclose(ms.grad.numpy(), ts.grad.numpy(), atol=1e-12)


@_rows(lambda o: o.function)
def test_float32_in_place_keeps_its_dtype_and_matches_the_float64_reference(info):
    arrays = _arrays(info, np.random.default_rng(12))
    expected = info.ref(*[a.copy() for a in arrays])
    ts = [mg.tensor(a.astype(np.float32) if _float(a) else a) for a in arrays]
    x = ts[0]
    assert _run(info, getattr(mg, info.name + "_"), ts) is x
    assert x.dtype == mg.float32
    np.testing.assert_allclose(x.numpy(), expected, rtol=2e-4, atol=2e-4)
