"""The in-place surface as a whole: every name of both frameworks exists, the generated table is
current, no-gradient ops keep the written dtype, random fills are reproducible and follow their
distributions, scatter_reduce_ at ties, and the hand-written APIs (cast_, set_, resize_, apply_,
where_, ...) keep the guarantees. The generic checks of its ops' rows are in test_ops.py."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.special as sc
import scipy.stats
from tests.helpers import ROOT, counting, numeric_grad
from tests.op_db import INT_OPS, NO_GRAD

import mutograd as mg
from mutograd.ops import inplace_surface as surface


@pytest.mark.parametrize("framework", ["paddle", "torch"])
def test_every_inplace_name_of_both_frameworks_exists_as_function_and_method(framework):
    names = surface.PADDLE_INPLACE if framework == "paddle" else surface.TORCH_INPLACE
    assert len(names) == len(set(names)) and len(names) > 100
    missing = [n for n in names if not (
        callable(getattr(mg, n, None)) and callable(getattr(mg.Tensor, n, None)))]
    assert missing == []


def test_forms_cover_both_lists():
    assert set(surface.FORMS) == set(surface.PADDLE_INPLACE) | set(surface.TORCH_INPLACE)
    for name, f in surface.FORMS.items():
        # matmul_ is named by Paddle's documents but exists in neither package
        assert f["paddle"] or f["torch"] or name == "matmul_"
        assert set(f["paddle"]) | set(f["torch"]) <= {"function", "method", "functional"}
    assert surface.FORMS["elu_"]["paddle"] == ("functional",)
    assert surface.FORMS["cauchy_"] == {"paddle": ("function", "method"), "torch": ("method",)}
    assert surface.FORMS["relu_"]["torch"] == ("function", "method", "functional")


def test_the_committed_table_of_inplace_apis_is_current():
    with open(os.path.join(ROOT, "docs", "inplace_api.md")) as f:
        committed = f.read()
    assert committed == surface.markdown(), (
        "regenerate: python -m mutograd.ops.inplace_surface --markdown > docs/inplace_api.md")
    out = subprocess.run([sys.executable, "-m", "mutograd.ops.inplace_surface", "--markdown"],
                         capture_output=True, text=True, cwd=ROOT, check=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout == committed


def test_table_says_what_each_inplace_op_keeps():
    rows = {r[0]: r for r in surface.rows()}
    assert rows["erfinv_"][3] == "the result (x after the write)" and rows["erfinv_"][4] == "none"
    assert rows["digamma_"][3] == "a copy of `x` taken before the write"
    assert rows["addmm_"][3] == "`mat1` (a reference), `mat2` (a reference)"
    assert rows["cauchy_"][3].startswith("nothing (no gradient")
    assert rows["gammaln_"][3].startswith("as `lgamma_`")


# ---- ops without a gradient: dtype kept, zero gradient -----------------------------------
@pytest.mark.parametrize("name,others,ref", NO_GRAD, ids=[r[0] for r in NO_GRAD])
def test_no_gradient_ops_keep_the_written_dtype_and_give_a_zero_gradient(name, others, ref):
    a = np.array([[-1.5, 0.5, 0.0, 2.25], [1.0, 0.5, -0.5, 3.0]], dtype=np.float32)
    x = mg.tensor(a)
    assert getattr(x, name + "_")(*others) is x
    assert x.dtype == mg.float32 and x._version == 1
    np.testing.assert_array_equal(x.numpy(), ref(a).astype(np.float32))
    leaf = mg.tensor(a, requires_grad=True)
    h = leaf * 2.0
    getattr(mg, name + "_")(h, *others)
    (h * mg.tensor(np.ones_like(a))).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.zeros_like(a))


@pytest.mark.parametrize("name,ref", INT_OPS, ids=[r[0] for r in INT_OPS])
def test_integer_ops_in_place(name, ref):
    a, b = np.array([12, 18, -7, 5, 0]), np.array([8, 3, 2, 1, 5])
    x = mg.tensor(a)
    with counting() as c:
        assert getattr(x, name + "_")(mg.tensor(b)) is x
    assert c["bytes"] == 0 and x._version == 1 and x.dtype == mg.int64
    np.testing.assert_array_equal(x.numpy(), ref(a, b))
    np.testing.assert_array_equal(getattr(mg, name)(mg.tensor(a), mg.tensor(b)).numpy(),
                                  ref(a, b))


def test_bitwise_invert_is_bitwise_not():
    x = mg.tensor([0, 3, -4])
    assert mg.bitwise_invert_(x) is x and x.tolist() == [-1, -4, 3]


# ---- random fills --------------------------------------------------------------------------
N = 4000
FILLS = [
    ("cauchy_", {"loc": 1.0, "scale": 2.0}, scipy.stats.cauchy(1.0, 2.0)),
    ("cauchy_", {"median": -1.0, "sigma": 0.5}, scipy.stats.cauchy(-1.0, 0.5)),
    ("log_normal_", {"mean": 0.5, "std": 0.7}, scipy.stats.lognorm(0.7, scale=math.exp(0.5))),
    ("exponential_", {"lambd": 2.0}, scipy.stats.expon(scale=0.5)),
    ("normal_", {"mean": 1.0, "std": 3.0}, scipy.stats.norm(1.0, 3.0)),
    ("uniform_", {"low": -2.0, "high": 1.0}, scipy.stats.uniform(-2.0, 3.0)),
]


@pytest.mark.parametrize("name,kw,dist", FILLS, ids=[f[0] + str(i) for i, f in enumerate(FILLS)])
def test_continuous_random_fills_follow_their_distribution(name, kw, dist):
    x = mg.zeros(N, dtype="float64")
    mg.seed(123)
    assert getattr(x, name)(**kw) is x and x._version == 1
    assert scipy.stats.kstest(x.numpy(), dist.cdf).pvalue > 1e-3
    assert scipy.stats.kstest(x.numpy() + 0.3, dist.cdf).pvalue < 1e-3   # the test has power


def test_geometric_fill_follows_its_distribution():
    x = mg.zeros(N, dtype="float64")
    mg.seed(7)
    x.geometric_(0.3)
    k = x.numpy().astype(int)
    assert k.min() >= 1
    counts = np.array([(k == i).sum() for i in range(1, 10)] + [(k >= 10).sum()])
    pmf = scipy.stats.geom(0.3)
    expected = np.array([pmf.pmf(i) for i in range(1, 10)] + [pmf.sf(9)]) * N
    assert scipy.stats.chisquare(counts, expected).pvalue > 1e-3
    y = mg.zeros(10)
    assert mg.geometric_(y, p=0.5) is y


@pytest.mark.parametrize("dtype,args,lo,hi", [
    ("float32", (), 0, 2 ** 24), ("float64", (10,), 0, 9), ("int64", (-3, 4), -3, 3),
    ("int32", (), 0, 2 ** 31 - 1), ("float32", (2, 6), 2, 5)])
def test_random_fill_draws_integers_in_range(dtype, args, lo, hi):
    x = mg.zeros(N, dtype=dtype)
    mg.seed(3)
    assert x.random_(*args) is x and x.dtype == mg.dtypes.get(dtype)
    v = x.numpy().astype(np.int64)
    assert np.all(v == x.numpy()) and v.min() >= lo and v.max() <= hi
    if hi - lo < 20:
        counts = np.bincount(v - lo, minlength=hi - lo + 1)
        assert scipy.stats.chisquare(counts).pvalue > 1e-3


def test_random_fill_keywords_and_errors():
    x = mg.zeros(100, dtype="int64")
    x.random_(**{"from": 5, "to": 7})
    assert set(x.tolist()) == {5, 6}
    with pytest.raises(ValueError, match="from=7 >= to=7"):
        x.random_(7, 7)
    assert set(x.tolist()) == {5, 6} and x._version == 1
    with pytest.raises(ValueError, match="does not fit in int8"):
        mg.zeros(3, dtype="int8").random_(0, 1000)
    with pytest.raises(ValueError, match=r"in \(0, 1\]"):
        mg.zeros(3).geometric_(1.5)
    with pytest.raises(ValueError, match="std must be positive"):
        mg.zeros(3).log_normal_(0.0, -1.0)


@pytest.mark.parametrize("name,args", [("cauchy_", ()), ("geometric_", (0.4,)),
                                       ("log_normal_", ()), ("random_", (0, 5)),
                                       ("exponential_", ()), ("bernoulli_", (0.3,))])
def test_random_fills_are_reproducible_keep_dtype_and_give_old_values_zero_gradient(name, args):
    def draw(seed):
        x = mg.zeros([3, 4])
        mg.seed(seed)
        getattr(x, name)(*args)
        return x
    a, b, c = draw(11), draw(11), draw(12)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())
    assert a.dtype == mg.float32
    leaf = mg.ones([3, 4], requires_grad=True)
    h = leaf * 3.0
    getattr(h, name)(*args)
    (h * 2.0).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.zeros((3, 4)))
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        getattr(leaf, name)(*args)
    np.testing.assert_array_equal(leaf.numpy(), np.ones((3, 4)))


# ---- diagonals -----------------------------------------------------------------------------
@pytest.mark.parametrize("shape,kw", [((5, 3), {"wrap": True}), ((5, 3), {}),
                                      ((3, 5), {"offset": 2}), ((4, 4), {"offset": -1}),
                                      ((3, 3, 3), {})])
def test_fill_diagonal_matches_numpy(shape, kw):
    a = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    x = mg.tensor(a)
    assert x.fill_diagonal_(-1.0, **kw) is x
    e = a.copy()
    off = kw.get("offset", 0)
    if len(shape) == 3 or off == 0:
        np.fill_diagonal(e, -1.0, wrap=kw.get("wrap", False))
    else:
        i = np.arange(shape[0])
        keep = (i + off >= 0) & (i + off < shape[1])
        e[i[keep], i[keep] + off] = -1.0
    np.testing.assert_array_equal(x.numpy(), e)


@pytest.mark.torch
def test_fill_diagonal_wrap_matches_pytorch():
    torch = pytest.importorskip("torch")
    t = torch.zeros(7, 3).fill_diagonal_(5.0, wrap=True)
    x = mg.zeros([7, 3]).fill_diagonal_(5.0, wrap=True)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


def test_fill_diagonal_errors_leave_data_unchanged():
    x = mg.ones([2, 3, 4])
    with pytest.raises(mg.ShapeError, match="all dimensions must be equal"):
        x.fill_diagonal_(0.0)
    with pytest.raises(mg.ShapeError, match="at least 2 dimensions"):
        mg.ones(3).fill_diagonal_(0.0)
    y = mg.ones([3, 4])
    with pytest.raises(mg.ShapeError, match="does not fit the diagonal"):
        y.fill_diagonal_tensor_(mg.zeros(4))
    assert x.numpy().min() == 1 and y.numpy().min() == 1 and x._version == y._version == 0


# ---- scatter_reduce_ at ties and zeros ------------------------------------------------------
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


# ---- special functions: what the table cannot say ------------------------------------------
def test_gammainc_gradient_for_y_and_a_clear_error_for_the_shape_parameter():
    a = np.array([0.7, 1.5, 2.5])
    yv = np.array([0.4, 1.2, 3.0])
    y = mg.tensor(yv, requires_grad=True)
    x = mg.tensor(a)
    h = y * 1.0
    out = x.clone().gammainc_(h)
    out.sum().backward()
    expected = numeric_grad(lambda v: float(sc.gammainc(a, v).sum()), [yv.copy()])[0]
    np.testing.assert_allclose(y.grad.numpy(), expected, rtol=1e-6)
    xa = mg.tensor(a, requires_grad=True)
    hx = xa * 1.0
    mg.igammac_(hx, mg.tensor(yv))
    with pytest.raises(mg.BackwardError, match="derivative of gammaincc with respect to its "
                                               "first argument"):
        hx.sum().backward()


def test_polygamma_in_each_namespace_order():
    x = mg.tensor([0.5, 1.5, 2.5], dtype="float64")
    np.testing.assert_allclose(mg.polygamma(2, x).numpy(), sc.polygamma(2, x.numpy()))
    np.testing.assert_allclose(x.polygamma(2).numpy(), sc.polygamma(2, x.numpy()))
    from mutograd.compat import paddle      # Paddle's (x, n)
    np.testing.assert_allclose(paddle.polygamma(x, 2).numpy(), sc.polygamma(2, x.numpy()))
    with pytest.raises(TypeError, match="compat.paddle.polygamma"):
        mg.polygamma(x, 2)
    y = x.clone()
    assert y.polygamma_(1) is y
    np.testing.assert_allclose(y.numpy(), sc.polygamma(1, x.numpy()))
    with pytest.raises(ValueError, match="non-negative integer"):
        y.polygamma_(-1)


def test_domain_errors_are_raised_before_any_write():
    x = mg.tensor([0.4, 2.0, 3.0], dtype="float64")
    with pytest.raises(ValueError, match=r"greater than \(p-1\)/2 = 1.0"):
        x.multigammaln_(3)
    assert x.tolist() == [0.4, 2.0, 3.0] and x._version == 0
    with pytest.raises(ValueError, match="max_norm must be non-negative"):
        x.renorm_(2, 0, -1.0)
    assert x._version == 0


def test_mvlgamma_and_other_aliases_are_the_same_functions():
    for alias, name in [("mvlgamma_", "multigammaln_"), ("gammaln_", "lgamma_"),
                        ("igamma_", "gammainc_"), ("igammac_", "gammaincc_"),
                        ("bitwise_invert_", "bitwise_not_"), ("clip_", "clamp_")]:
        assert getattr(mg, alias) is getattr(mg, name)


def test_hardtanh_takes_both_frameworks_keywords():
    a = np.array([-2.0, -0.2, 0.3, 2.0])
    for kw in ({"min": -0.5, "max": 0.5}, {"min_val": -0.5, "max_val": 0.5}):
        x = mg.tensor(a)
        assert mg.hardtanh_(x, **kw) is x
        np.testing.assert_array_equal(x.numpy(), np.clip(a, -0.5, 0.5))
        np.testing.assert_array_equal(mg.hardtanh(mg.tensor(a), **kw).numpy(),
                                      np.clip(a, -0.5, 0.5))


# ---- writes refused before any data changes ------------------------------------------------
@pytest.mark.parametrize("call,error,match", [
    (lambda x: x.asin_(), mg.DTypeError, "can't be cast"),
    (lambda x: x.gcd_(mg.ones([4], dtype="int64")), mg.ShapeError, "broadcast"),
    (lambda x: x.addmm_(mg.ones([3, 2], dtype="int64"), mg.ones([2, 2], dtype="int64")),
     mg.ShapeError, r"result has shape \[3, 2\]"),
    (lambda x: x.scatter_reduce_(0, mg.tensor([[5, 0, 0]]), mg.ones([1, 3], dtype="int64"),
                                 "sum"), IndexError, "out of range"),
    (lambda x: x.put_along_axis_(mg.tensor([[0, 1, 2]]), 9, 1, "max"), ValueError,
     "reduce must be one of"),
    (lambda x: x.index_reduce_(0, mg.tensor([0]), mg.ones([1, 3], dtype="int64"), "sum"),
     ValueError, "'prod', 'mean', 'amax' or 'amin'"),
    (lambda x: mg.embedding_renorm_(x, mg.tensor([3]), max_norm=1.0), IndexError,
     "out of range"),
])
def test_bad_writes_are_refused_with_data_unchanged(call, error, match):
    x = mg.tensor([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(error, match=match):
        call(x)
    assert x.tolist() == [[1, 2, 3], [4, 5, 6]] and x._version == 0


@pytest.mark.parametrize("name,args", [("asin_", ()), ("erf_", ()), ("hypot_", (1.0,)),
                                       ("selu_", ()), ("clamp_min_", (0.1,)),
                                       ("addmv_", ("mat", "vec"))])
def test_writing_an_expanded_tensor_is_refused(name, args):
    x = mg.tensor([[0.1, 0.2, 0.3]]).expand(3, 3)
    if args == ("mat", "vec"):
        x = mg.tensor([0.1]).expand(3)
        args = (mg.ones([3, 2]), mg.ones(2))
    with pytest.raises(mg.OverlapError, match="single memory location"):
        getattr(x, name)(*args)


def test_float_power_in_place_computes_in_float64_and_casts_back():
    x = mg.tensor([1.5, 2.0], dtype="float32")
    assert x.float_power_(mg.tensor([2.0, 0.5], dtype="float64")) is x
    assert x.dtype == mg.float32
    np.testing.assert_allclose(x.numpy(), [2.25, math.sqrt(2)], rtol=1e-6)


# ---- copy_, where_, cast_, set_, resize_, apply_, detach_, requires_grad_ -----------------
def test_copy_broadcasts_casts_and_sends_the_gradient_to_the_source():
    x = mg.zeros([2, 3], dtype="int64")
    assert x.copy_(mg.tensor([1.7, -2.2, 3.0])) is x
    assert x.tolist() == [[1, -2, 3], [1, -2, 3]] and x._version == 1
    src = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    leaf = mg.ones([2, 3], requires_grad=True)
    h = leaf * 1.0
    mg.copy_(h, src)
    (h * mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
    assert src.grad.tolist() == [5.0, 7.0, 9.0] and leaf.grad.numpy().sum() == 0


def test_where_writes_x_with_gradients():
    cond = mg.tensor([True, False, True])
    xl = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    yl = mg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    h = xl * 1.0
    assert mg.where_(cond, h, yl) is h
    assert h.tolist() == [1.0, 20.0, 3.0] and h._version == 1
    (h * mg.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert xl.grad.tolist() == [1.0, 0.0, 3.0] and yl.grad.tolist() == [0.0, 2.0, 0.0]


def test_cast_changes_dtype_in_place_with_a_gradient_that_casts_back():
    leaf = mg.tensor([1.5, -2.5], dtype="float64", requires_grad=True)
    h = leaf * 2.0
    s = h.sin()                       # saved h's old buffer: cast_ does not change it
    v = h._version
    with counting() as c:
        assert mg.cast_(h, "float32") is h
    # one new buffer of 2 float32; the float64 one is released by h (the sin node keeps its
    # array)
    assert h.dtype == mg.float32 and h._version == v + 1 and c["allocations"] == 1
    (h * mg.tensor([1.0, 3.0], dtype="float32")).sum().backward(retain_graph=True)
    assert leaf.grad.dtype == mg.float64 and leaf.grad.tolist() == [2.0, 6.0]
    s.sum().backward()                # still valid: 2 + 2 cos(2 x)
    np.testing.assert_allclose(leaf.grad.numpy(), [2.0, 6.0] + 2 * np.cos([3.0, -5.0]))
    x = mg.tensor([1.7, 2.2])
    assert x.cast_("int64") is x and x.tolist() == [1, 2] and x.dtype == mg.int64
    with pytest.raises(mg.InplaceError, match="dtype of a view"):
        mg.zeros([2, 2])[0].cast_("float64")
    lf = mg.ones(2, requires_grad=True)
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        lf.cast_("float64")
    assert lf.dtype == mg.float32


def test_set_shares_the_source_storage_and_version_counter():
    src = mg.tensor([1.0, 2.0, 3.0, 4.0, 5.0])
    x = mg.tensor([[9.0]])
    old = x.detach()
    with counting() as c:
        assert x.set_(src) is x
    assert c["bytes"] == 0 and old._version == 1
    x.add_(1.0)
    assert src.tolist() == [2.0, 3.0, 4.0, 5.0, 6.0] and src._version == 1
    y = mg.zeros(1)
    y.set_(src, 1, [2, 2], [1, 1])              # PyTorch: storage_offset, size, stride
    assert y.tolist() == [[3.0, 4.0], [4.0, 5.0]]
    z = mg.zeros(1)
    z.set_(src, shape=[3], stride=[1], offset=8)    # Paddle's keywords: offset in bytes
    assert z.tolist() == [4.0, 5.0, 6.0]
    from mutograd.compat import paddle
    z = mg.zeros(1)
    paddle.set_(z, src, [3], [1], 8)           # Paddle's order: shape, stride, offset
    assert z.tolist() == [4.0, 5.0, 6.0]
    with pytest.raises(TypeError, match="compat.paddle.set_"):
        mg.zeros(1).set_(src, [3], [1])
    assert mg.set_(mg.zeros(2)).shape == [0]
    with pytest.raises(mg.InplaceError, match="dtype"):
        mg.zeros(2, dtype="float64").set_(src)
    with pytest.raises(mg.InplaceError, match="source requires grad"):
        mg.zeros(1).set_(mg.ones(2, requires_grad=True))
    with pytest.raises(mg.ShapeError, match="multiple of the element size"):
        mg.zeros(1).set_(src, size=[1], offset=3)


def test_resize_shrinks_as_a_view_and_grows_into_a_new_zeroed_buffer():
    x = mg.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with counting() as c:
        assert x.resize_(2, 2) is x
    assert c["bytes"] == 0 and x.tolist() == [[1.0, 2.0], [3.0, 4.0]] and x._version == 1
    with counting() as c:
        assert mg.resize_(x, [3, 3]) is x
    assert c["allocations"] == 1 and c["bytes"] == 36 - 24 and x._version == 2
    assert x.tolist() == [[1.0, 2.0, 3.0], [4.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    assert x.resize_as_(mg.zeros([2])) is x and x.tolist() == [1.0, 2.0]
    with pytest.raises(mg.InplaceError, match="has no gradient"):
        (mg.ones(2, requires_grad=True) * 1.0).resize_(4)
    with pytest.raises(mg.InplaceError, match="cannot resize a view"):
        mg.ones([2, 2])[0].resize_(4)
    with pytest.raises(mg.errors.ArgumentError, match="negative dimension"):
        x.resize_(-1)


def test_apply_takes_a_tensor_function_or_a_number_function():
    x = mg.tensor([0.0, 1.0, 4.0])
    assert x.apply_(lambda t: t * 2 + 1) is x and x.tolist() == [1.0, 3.0, 9.0]
    assert mg.apply_(x, math.sqrt) is x
    np.testing.assert_allclose(x.numpy(), [1.0, math.sqrt(3), 3.0], rtol=1e-6)
    assert x._version == 2
    leaf = mg.ones(2, requires_grad=True)
    with pytest.raises(mg.InplaceError, match="apply_\\(\\) has no gradient"):
        leaf.apply_(lambda t: t * 2)
    with mg.no_grad():
        leaf.apply_(lambda t: t * 2)
    assert leaf.tolist() == [2.0, 2.0]


def test_detach_and_requires_grad_have_function_forms():
    h = mg.ones(2, requires_grad=True) * 2.0
    assert mg.detach_(h) is h and h.grad_fn is None and not h.requires_grad
    x = mg.zeros(2)
    assert mg.requires_grad_(x) is x and x.requires_grad


def test_swapaxes_map_reconstruct_from_and_conj_physical():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.swapaxes_(0, 1) is x and x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert mg.swapdims_(x, 1, 0) is x and x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    y = mg.tensor([1.0, 2.0, 3.0])
    assert y.map_(mg.tensor([10.0, 20.0, 30.0]), lambda a, b: a * b + 1) is y
    assert y.tolist() == [11.0, 41.0, 91.0] and y._version == 1
    with pytest.raises(mg.InplaceError, match="map_\\(\\) has no gradient"):
        (mg.ones(2, requires_grad=True) * 1.0).map_(mg.ones(2), max)
    t1 = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        t1.reconstruct_from_(mg.tensor([2.0, 3.0]))
    assert t1.tolist() == [1.0] and t1._version == 0
    with mg.no_grad():
        assert t1.reconstruct_from_(mg.tensor([2.0, 3.0])) is t1
    assert t1.tolist() == [2.0, 3.0] and not t1.requires_grad and t1._version == 1
    h = mg.ones(2, requires_grad=True) * 2.0
    s = h * mg.tensor([5.0, 6.0])          # saves h's buffer
    assert h.reconstruct_from_(mg.tensor([7.0])) is h and h.grad_fn is None
    s.sum().backward()                     # the old buffer is untouched: still valid
    z = mg.tensor([1 + 2j, -3j])
    assert z.conj_physical_() is z and z.tolist() == [1 - 2j, 3j]
    r = mg.tensor([1.5, -2.0])
    assert r.conj_physical_() is r and r.tolist() == [1.5, -2.0]


def test_the_example_of_docs_inplace_surface():
    x = mg.tensor([0.5, 1.5, 2.5], dtype="float64", requires_grad=True)
    h = x * 1.0
    with counting() as c:
        y = h.lgamma_()
    assert y is h and h._version == 1 and c["bytes"] == h.nbytes     # the copy it keeps
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), sc.digamma([0.5, 1.5, 2.5]))
    with pytest.raises(mg.InplaceError, match="leaf Variable"):
        x.lgamma_()
    assert x.tolist() == [0.5, 1.5, 2.5]


def test_bernoulli_fill_follows_its_distribution():
    x = mg.zeros(N, dtype="float64")
    mg.seed(8)
    assert x.bernoulli_(0.3) is x and set(np.unique(x.numpy())) == {0.0, 1.0}
    assert scipy.stats.binomtest(int(x.numpy().sum()), N, 0.3).pvalue > 1e-3
    assert scipy.stats.binomtest(int(x.numpy().sum()), N, 0.35).pvalue < 1e-3
