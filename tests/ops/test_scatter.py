"""The scatter-style writes: one table, every op checked the same way (STYLE.md).

Forward against a NumPy reference; function = method = in-place (``y is x``, version +1, no
allocation); gradients of the destination and of the source against float64 finite differences
(and PyTorch when installed); in place on a non-leaf and through a view equal to out of place; the
leaf rule; bad arguments raise before any data changes.
"""
import gc
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from tests.helpers import counting, numeric_grad

import mutograd as mg

X_SHAPE = (3, 4)
MASK = np.array([[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]])


def _loop_scatter(x, dim, index, src, how):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        dst = list(pos)
        dst[dim] = index[pos]
        v = src[pos] if np.ndim(src) else src
        if how is None:
            out[tuple(dst)] = v
        elif how == "add":
            out[tuple(dst)] += v
        else:
            out[tuple(dst)] *= v
    return out


def _index_add_ref(x, s, dim, index, alpha=1):
    out = x.copy()
    np.add.at(out, (slice(None),) * dim + (index,), alpha * s)
    return out


def _put_ref(x, s, index, accumulate):
    out = x.copy().reshape(-1)
    index = np.where(index < 0, index + out.size, index)
    if accumulate:
        np.add.at(out, index, s.reshape(-1))
    else:
        out[index] = s.reshape(-1)
    return out.reshape(x.shape)


@dataclass
class Case:
    id: str
    name: str                   # mg.<name>, Tensor.<name>, Tensor.<name>_
    before: tuple               # positional arguments before the source (dim, index, ...)
    src_shape: tuple | None  # the source's shape; None: a Python number (no gradient)
    ref: Callable               # ref(x, src) -> the result
    after: tuple = ()
    kw: dict = field(default_factory=dict)
    src_value: float = 0.5      # the source when it is a number
    torch: bool = True          # PyTorch computes the same thing (no repeated assignments)


IDX = np.array([0, 2, 3])
IDX_REP = np.array([1, 3, 1])
S_IDX = np.array([[0, 1, 3], [3, 2, 0], [1, 0, 2]])           # each row a permutation part
S_IDX_REP = np.array([[0, 0, 3], [3, 3, 0], [1, 1, 1]])
P_IDX = np.array([1, 7, -1, 4])
P_IDX_REP = np.array([1, 7, 1, 4])

CASES = [
    Case("index_add", "index_add", (1, IDX_REP), (3, 3),
         lambda x, s: _index_add_ref(x, s, 1, IDX_REP)),
    Case("index_add_alpha", "index_add", (0, np.array([2, 0])), (2, 4),
         lambda x, s: _index_add_ref(x, s, 0, np.array([2, 0]), 2.5), kw={"alpha": 2.5}),
    Case("index_copy", "index_copy", (1, IDX), (3, 3),
         lambda x, s: _loop_scatter(x, 1, np.broadcast_to(IDX, (3, 3)), s, None)),
    Case("index_copy_rows", "index_copy", (0, np.array([2, 0])), (2, 4),
         lambda x, s: np.stack([s[1], x[1], s[0]])),
    Case("index_fill", "index_fill", (1, IDX), (), lambda x, s: np.where(
        np.isin(np.arange(4), IDX), s, x)),
    Case("index_fill_number", "index_fill", (0, np.array([1])), None,
         lambda x, s: np.stack([x[0], np.full(4, 0.5), x[2]])),
    Case("scatter", "scatter", (1, S_IDX), (3, 3),
         lambda x, s: _loop_scatter(x, 1, S_IDX, s, None)),
    Case("scatter_dim0_small_index", "scatter", (0, S_IDX[:2, :3] % 3), (3, 4),
         lambda x, s: _loop_scatter(x, 0, S_IDX[:2, :3] % 3, s, None),
         torch=False),     # PyTorch's backward rejects a source larger than the index
    Case("scatter_value", "scatter", (1, S_IDX), None,
         lambda x, s: _loop_scatter(x, 1, S_IDX, 0.5, None)),
    Case("scatter_reduce_add", "scatter", (1, S_IDX_REP), (3, 3),
         lambda x, s: _loop_scatter(x, 1, S_IDX_REP, s, "add"), kw={"reduce": "add"},
         torch=False),     # PyTorch has no gradient for scatter_(reduce=...)
    Case("scatter_reduce_multiply", "scatter", (1, S_IDX_REP), (3, 3),
         lambda x, s: _loop_scatter(x, 1, S_IDX_REP, s, "mul"), kw={"reduce": "multiply"},
         torch=False),     # PyTorch has no gradient for it
    Case("scatter_add", "scatter_add", (1, S_IDX_REP), (3, 3),
         lambda x, s: _loop_scatter(x, 1, S_IDX_REP, s, "add")),
    Case("masked_scatter", "masked_scatter", (MASK,), (12,),
         lambda x, s: np.where(MASK, np.zeros_like(x), x) + _spread(s)),
    Case("masked_fill", "masked_fill", (MASK,), (), lambda x, s: np.where(MASK, s, x)),
    Case("put", "put", (P_IDX,), (4,), lambda x, s: _put_ref(x, s, P_IDX, False)),
    Case("put_accumulate", "put", (P_IDX_REP,), (2, 2),
         lambda x, s: _put_ref(x, s, P_IDX_REP, True), kw={"accumulate": True}),
]
IDS = [c.id for c in CASES]


def _spread(s):
    out = np.zeros(X_SHAPE)
    out[MASK] = s.reshape(-1)[:MASK.sum()]
    return out


def _arrays(case, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, X_SHAPE)
    s = None if case.src_shape is None else rng.uniform(0.5, 2, case.src_shape)
    return x, s


def _args(case, s, wrap):
    before = tuple(wrap(b) if isinstance(b, np.ndarray) else b for b in case.before)
    src = case.src_value if s is None else s
    return before + (src,) + case.after


def _mgwrap(a):
    return mg.tensor(a)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_function_method_and_inplace_agree_with_reference(case):
    x, s = _arrays(case)
    src = None if s is None else mg.tensor(s)
    args = _args(case, s, _mgwrap)[:-1] + ((case.src_value if s is None else src),)
    expected = case.ref(x, s)
    f = getattr(mg, case.name)(mg.tensor(x), *args, **case.kw)
    np.testing.assert_allclose(f.numpy(), expected, rtol=1e-12)
    m = getattr(mg.tensor(x), case.name)(*args, **case.kw)
    np.testing.assert_allclose(m.numpy(), expected, rtol=1e-12)
    t = mg.tensor(x)
    gc.collect()          # exact byte counts: no garbage from earlier tests freed in the block
    with counting() as c:
        y = getattr(t, case.name + "_")(*args, **case.kw)
    assert y is t and t._version == 1
    assert c["bytes"] == 0 and c["allocations"] == 0
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-12)
    t2 = mg.tensor(x)
    assert getattr(mg, case.name + "_")(t2, *args, **case.kw) is t2
    np.testing.assert_allclose(t2.numpy(), expected, rtol=1e-12)


def _run(case, x, s, mode, w):
    """Gradients of sum(result * w) w.r.t. x and the source, out of place or in place."""
    xa = mg.tensor(x, requires_grad=True)
    sa = None if s is None else mg.tensor(s, requires_grad=True)
    src = case.src_value if s is None else sa * 1.0
    args = _args(case, s, _mgwrap)[:-1] + (src,)
    if mode == "function":
        out = getattr(mg, case.name)(xa, *args, **case.kw)
    elif mode == "inplace":
        out = xa * 1.0
        getattr(out, case.name + "_")(*args, **case.kw)
    else:                                   # through a view of a bigger non-leaf
        big = mg.cat([mg.zeros(1, 4, dtype="float64"), xa * 1.0, mg.zeros(1, 4,
                                                                           dtype="float64")])
        view = big[1:4]
        getattr(view, case.name + "_")(*args, **case.kw)
        out = big[1:4]
    (out * mg.tensor(w)).sum().backward()
    return [xa.grad.numpy()] + ([] if sa is None else [sa.grad.numpy()])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradients_match_finite_differences_in_every_form(case):
    x, s = _arrays(case, 1)
    w = np.random.default_rng(2).standard_normal(X_SHAPE)

    def loss(*arrs):
        return float((case.ref(arrs[0], arrs[1] if s is not None else None) * w).sum())

    expected = numeric_grad(loss, [x.copy()] + ([] if s is None else [s.copy()]))
    for mode in ("function", "inplace", "view"):
        for got, want in zip(_run(case, x, s, mode, w), expected):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=mode)


@pytest.mark.torch
@pytest.mark.parametrize("case", [c for c in CASES if c.torch], ids=[c.id for c in CASES
                                                                        if c.torch])
def test_values_and_gradients_match_pytorch(case):
    torch = pytest.importorskip("torch")
    x, s = _arrays(case, 3)
    w = np.random.default_rng(4).standard_normal(X_SHAPE)
    xt = torch.tensor(x, requires_grad=True)
    st = None if s is None else torch.tensor(s, requires_grad=True)

    def twrap(a):
        return torch.tensor(a)
    args = _args(case, s, twrap)[:-1] + ((case.src_value if s is None else st * 1.0),)
    h = xt * 1.0
    getattr(h, case.name + "_")(*args, **case.kw)
    (h * torch.tensor(w)).sum().backward()
    got = _run(case, x, s, "inplace", w)
    xm = mg.tensor(x)
    getattr(xm, case.name + "_")(*_args(case, s, _mgwrap), **case.kw)
    np.testing.assert_allclose(xm.numpy(), h.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(got[0], xt.grad.numpy(), rtol=1e-12)
    if st is not None:
        np.testing.assert_allclose(got[1], st.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_leaf_rule_and_no_grad(case):
    x, s = _arrays(case)
    a = mg.tensor(x, requires_grad=True)
    args = _args(case, s, _mgwrap)
    with pytest.raises(mg.InplaceError, match="leaf Variable that requires grad"):
        getattr(a, case.name + "_")(*args, **case.kw)
    with pytest.raises(mg.InplaceError, match="view of a leaf.*made by getitem"):
        getattr(a[:], case.name + "_")(*args, **case.kw)
    np.testing.assert_array_equal(a.numpy(), x)
    assert a._version == 0
    with mg.no_grad():
        getattr(a, case.name + "_")(*args, **case.kw)
    assert a._version == 1 and a.is_leaf


# ---- the two calling conventions, and bad arguments -----------------------------------------


def test_paddle_argument_orders():
    # Paddle's orders are the paddle namespace's; the main one keeps PyTorch's (and Paddle's
    # keyword spellings), and refuses Paddle's positional order
    from mutograd.compat import paddle
    x = np.zeros(X_SHAPE)
    idx = mg.tensor(np.array([0, 2]))
    v = mg.tensor(np.ones((3, 2)))
    torch_style = mg.index_add(mg.tensor(x), 1, idx, v)
    paddle_style = paddle.index_add(mg.tensor(x), idx, 1, v)
    keywords = mg.index_add(mg.tensor(x), index=idx, axis=1, value=v)
    for r in (paddle_style, keywords):
        np.testing.assert_array_equal(r.numpy(), torch_style.numpy())
    with pytest.raises(TypeError, match=r"compat\.paddle\.index_add\(x, index, axis, value\)"):
        mg.index_add(mg.tensor(x), idx, 1, v)
    filled = paddle.index_fill(mg.tensor(x), idx, 1, 3.0)      # Paddle: (index, axis, value)
    np.testing.assert_array_equal(filled.numpy()[:, [0, 2]], 3.0)
    # Paddle's scatter: rows along axis 0, overwrite or (zeroed then) accumulate
    upd = mg.tensor(np.array([[1.0] * 4, [2.0] * 4, [4.0] * 4]))
    rows = mg.tensor(np.array([1, 1, 0]))
    base = mg.tensor(np.full(X_SHAPE, 9.0))
    over = paddle.scatter(base, mg.tensor(np.array([2, 0, 1])), upd)
    np.testing.assert_array_equal(over.numpy()[:, 0], [2.0, 4.0, 1.0])
    acc = paddle.scatter(base, rows, upd, overwrite=False)
    np.testing.assert_array_equal(acc.numpy()[:, 0], [4.0, 3.0, 9.0])
    with pytest.raises(TypeError, match=r"compat\.paddle\.scatter\(x, index, updates"):
        mg.scatter(base, rows, upd, overwrite=False)
    pa = mg.put_along_axis(mg.tensor(x), mg.tensor(np.array([[1], [0], [3]])),
                           mg.tensor(np.array([[5.0], [6.0], [7.0]])), 1)
    assert pa.numpy()[0, 1] == 5.0 and pa.numpy()[2, 3] == 7.0


BAD = [
    ("index_add_shape", lambda t: t.index_add_(1, mg.tensor(np.array([0, 1])),
                                               mg.ones(2, 2, dtype="float64")),
     mg.ShapeError, r"source has shape \[2, 2\].*needs shape \[3, 2\]"),
    ("index_float", lambda t: t.index_copy_(0, mg.tensor(np.array([0.0])),
                                            mg.ones(1, 4, dtype="float64")),
     TypeError, "must be an integer tensor"),
    ("index_fill_tensor_value", lambda t: t.index_fill_(0, mg.tensor(np.array([0])),
                                                        mg.ones(2)),
     mg.ShapeError, "value must be a number or a 0-d tensor"),
    ("scatter_ndim", lambda t: t.scatter_(1, mg.tensor(np.array([0, 1])), 1.0),
     mg.ShapeError, "index has 1 dimensions but the tensor has 2"),
    ("scatter_reduce", lambda t: t.scatter_(1, mg.tensor(S_IDX), 1.0, reduce="max"),
     ValueError, "reduce must be one of"),
    ("masked_scatter_short", lambda t: t.masked_scatter_(mg.tensor(MASK), mg.ones(2)),
     mg.ShapeError, "selects 6 elements but source has only 2"),
    ("put_range", lambda t: t.put_(mg.tensor(np.array([12])), mg.ones(1)),
     IndexError, "out of range"),
    ("put_size", lambda t: t.put_(mg.tensor(np.array([1, 2])), mg.ones(3)),
     mg.ShapeError, "source has 3 elements but index has 2"),
]


@pytest.mark.parametrize("case", BAD, ids=[b[0] for b in BAD])
def test_bad_arguments_raise_before_any_change(case):
    _, write, cls, msg = case
    t = mg.tensor(np.arange(12.0).reshape(X_SHAPE))
    with pytest.raises(cls, match=msg):
        write(t)
    assert t._version == 0 and t.numpy().tolist() == np.arange(12.0).reshape(3, 4).tolist()


def test_repeated_assignment_gives_the_gradient_to_the_last_write_only():
    x = mg.tensor(np.zeros((2, 3)), requires_grad=True)
    s = mg.tensor(np.array([[1.0, 2.0, 3.0]]), requires_grad=True)
    h = x * 1.0
    h.scatter_(1, mg.tensor(np.array([[2, 2, 0]])), s)        # position (0, 2) gets 2.0
    assert h.numpy()[0].tolist() == [3.0, 0.0, 2.0]
    (h * mg.tensor(np.array([[1.0, 10.0, 100.0], [0.0, 0.0, 0.0]]))).sum().backward()
    assert s.grad.numpy().tolist() == [[0.0, 100.0, 1.0]]
    assert x.grad.numpy()[0].tolist() == [0.0, 10.0, 0.0]


def test_an_index_out_of_range_in_gather_and_scatter_is_a_runtime_error_too():
    # PyTorch raises a RuntimeError there (an IndexError for x[i] and index_select)
    x = mg.zeros(3)
    i = mg.tensor([5])
    for f in (lambda: x.scatter_(0, i, 1.0), lambda: x.gather(0, i),
              lambda: x.scatter_add(0, i, mg.ones(1)),
              lambda: x.scatter_reduce(0, i, mg.ones(1), "sum")):
        with pytest.raises(mg.GatherIndexError) as e:
            f()
        assert isinstance(e.value, RuntimeError) and isinstance(e.value, IndexError)
    assert x.tolist() == [0.0, 0.0, 0.0] and x._version == 0
    with pytest.raises(IndexError) as e:
        x.index_select(0, i)
    assert not isinstance(e.value, RuntimeError)
