"""The memory API (exact bytes, peaks, stats, timeline) and the buffer cache."""
import gc

import numpy as np
import pytest
from tests.helpers import counting
from tests.op_db import BASE as TABLE
from tests.ops.test_ops import _function, _parts, _run, _tensors

import mutograd as mg
from mutograd import memory
from mutograd.ops.registry import OPS

N = 1 << 16            # float32 elements: 256 KiB, above the test threshold
NB = N * 4


@pytest.fixture
def cache():
    """The cache on, with a small threshold, emptied before and after."""
    old = memory.set_cache(enabled=True, threshold=4096, cap=1 << 30)
    memory.empty_cache()
    yield memory
    memory.empty_cache()
    memory.set_cache(**old)


@pytest.fixture
def no_gc():
    """Exact byte deltas: no collection of other tests' garbage in the middle of one."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


# ---- counters ------------------------------------------------------------------------------

@pytest.mark.parametrize("make, nbytes", [
    (lambda x: mg.zeros(1000), 4000),
    (lambda x: mg.zeros(10, dtype="float64"), 80),
    (lambda x: x + 1, 4000),
    (lambda x: x.exp(), 4000),
    (lambda x: x.add_(1), 0),
    (lambda x: x.relu_(), 0),
    (lambda x: x[10:20], 0),
    (lambda x: x.reshape(10, 100), 0),
    (lambda x: x.detach(), 0),
    (lambda x: x.sum(), 4),
], ids=["zeros", "zeros64", "add", "exp", "add_", "relu_", "slice", "reshape", "detach", "sum"])
def test_allocated_counts_exact_bytes(make, nbytes, no_gc):
    x = mg.ones(1000)
    with counting() as c:
        keep = make(x)
    assert c["bytes"] == nbytes
    assert c["allocations"] == (1 if nbytes else 0)
    del keep


def test_peak_and_reset_peak(no_gc):
    memory.reset_peak()
    base = memory.allocated()
    assert memory.max_allocated() == base
    x = mg.zeros(2500)       # 10000 bytes
    del x
    assert memory.allocated() == base
    assert memory.max_allocated() == base + 10000
    memory.reset_peak()
    assert memory.max_allocated() == base


def test_stats_are_consistent_with_the_counters():
    x = mg.zeros(100)
    s = memory.stats()
    assert s["allocated_bytes.all.current"] == memory.allocated()
    assert s["allocated_bytes.all.peak"] == memory.max_allocated()
    assert s["allocation.all.allocated"] == memory.num_allocations()
    assert s["allocation.all.current"] == s["allocation.all.allocated"] - s["allocation.all.freed"]
    assert s["allocated_bytes.all.freed"] == (s["allocated_bytes.all.allocated"]
                                              - s["allocated_bytes.all.current"])
    before = memory.stats()
    del x
    after = memory.stats()
    assert after["allocation.all.freed"] == before["allocation.all.freed"] + 1
    assert after["allocated_bytes.all.freed"] == before["allocated_bytes.all.freed"] + 400


def test_places_are_counted_apart():
    cpu = memory.allocated()
    s = memory.Storage(123, "gpu:7")
    assert memory.allocated("gpu:7") == 123
    assert memory.allocated() == cpu
    assert memory.stats("gpu:7")["allocated_bytes.all.current"] == 123
    assert memory.stats("gpu:7")["cached_bytes.all.current"] == 0
    del s
    assert memory.allocated("gpu:7") == 0
    assert memory.max_allocated("gpu:7") == 123


def test_saved_values_stay_counted_until_backward_frees_them(no_gc):
    x = mg.ones(1000, requires_grad=True)
    before = memory.allocated()
    y = (x * 2).exp()          # ExpBackward saves its output
    loss = y.sum()
    del y
    # x * 2 died (MulBackward by a scalar saves nothing), exp's output lives on in the node
    assert memory.allocated() - before == 4000 + 4
    loss.backward()
    del loss
    assert memory.allocated() - before == 4000   # x.grad


# ---- timeline ------------------------------------------------------------------------------

def test_timeline_records_allocations_and_frees_with_their_op(no_gc):
    with memory.timeline() as tl:
        x = mg.ones(1024)
        y = x.exp()
        z = y.mul_(2)          # in place: no event
        del y, z
        w = x + 1
        del x
    assert [(e.op, e.nbytes) for e in tl.events] == [
        ("ones", 4096), ("exp", 4096), ("exp", -4096), ("add", 4096), ("ones", -4096)]
    assert [e.live - tl.start for e in tl.events] == [4096, 8192, 4096, 8192, 4096]
    assert tl.peak - tl.start == 8192
    assert all(e.where.endswith(".py:" + e.where.rsplit(":", 1)[1]) for e in tl.events)
    assert tl.by_op()["exp"] == [1, 4096, 1, 4096]
    text = tl.summary()
    assert "exp" in text and "ones" in text and "peak" in text
    del w


def test_timeline_stops_recording_and_refuses_nesting():
    with memory.timeline() as tl, pytest.raises(RuntimeError, match="already recording"), \
            memory.timeline():
        pass
    n = len(tl.events)
    mg.ones(10)
    assert len(tl.events) == n
    assert memory._recorder is None


def test_timeline_free_of_a_storage_made_before_recording():
    x = mg.ones(10)
    with memory.timeline() as tl:
        del x
    assert [(e.op, e.nbytes) for e in tl.events] == [("(before recording)", -40)]


def test_timeline_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    with memory.timeline() as tl:
        x = mg.ones(1000)
        y = (x * 2).relu()
        del x, y
    path = tl.plot(tmp_path / "mem.png")
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


# ---- the buffer cache ----------------------------------------------------------------------

def test_large_result_comes_from_the_cache_and_goes_back(cache):
    x = mg.randn(N)
    s0 = cache.stats()
    y = x.relu()
    s1 = cache.stats()
    assert s1["cache.misses"] == s0["cache.misses"] + 1
    assert s1["reserved_bytes.all.current"] == NB
    assert s1["cached_bytes.all.current"] == 0
    p = y.data_ptr()
    del y
    s2 = cache.stats()
    assert s2["cached_bytes.all.current"] == NB
    z = x.exp()
    s3 = cache.stats()
    assert s3["cache.hits"] == s2["cache.hits"] + 1
    assert z.data_ptr() == p
    np.testing.assert_allclose(z.numpy(), np.exp(x.numpy()), rtol=1e-6)
    assert s3["cached_bytes.all.current"] == 0


def test_cached_result_counts_tensor_bytes_exactly(cache, no_gc):
    x = mg.randn(N)
    with counting() as c:
        y = x * 3.0
    assert c["bytes"] == NB and c["allocations"] == 1
    del y
    with counting() as c:
        y = x * 3.0            # a cache hit is still a new storage of NB bytes
    assert c["bytes"] == NB and c["allocations"] == 1
    assert y.numpy()[0] == x.numpy()[0] * 3


def test_small_results_do_not_touch_the_cache(cache):
    x = mg.randn(100)
    s0 = cache.stats()
    y = x.relu()
    s1 = cache.stats()
    assert (s1["cache.hits"], s1["cache.misses"]) == (s0["cache.hits"], s0["cache.misses"])
    del y


def _escape_numpy(y):
    return y.numpy()


def _escape_array(y):
    return np.asarray(y)


def _escape_dlpack(y):
    return np.from_dlpack(y)


def _escape_slice_of_numpy(y):
    return y.numpy()[10:20]


def _escape_memoryview(y):
    return memoryview(y.numpy())


@pytest.mark.parametrize("escape", [_escape_numpy, _escape_array, _escape_dlpack,
                                    _escape_slice_of_numpy, _escape_memoryview],
                         ids=["numpy", "__array__", "dlpack", "slice", "memoryview"])
def test_escaped_buffer_is_never_reused_while_visible(cache, escape):
    x = mg.randn(N)
    y = x.relu()
    seen = escape(y)
    ptr = y.data_ptr()
    expect = np.array(seen, copy=True)
    del y
    assert cache.stats()["cached_bytes.all.current"] == 0   # returned but still looked into
    zs = [x.exp() for _ in range(3)]                          # would reuse it if it could
    assert all(z.data_ptr() != ptr for z in zs)
    np.testing.assert_array_equal(np.asarray(seen), expect)
    del zs, seen, expect
    gc.collect()
    assert cache.stats()["cached_bytes.all.current"] >= NB  # free again once nobody sees it
    z = x.exp()
    assert cache.stats()["cache.hits"] >= 1
    del z


def test_buffer_saved_for_backward_is_not_reused(cache):
    x = mg.randn(N, requires_grad=True)
    y = (x * 1.0).exp()            # ExpBackward keeps exp's output
    loss = y.sum()
    ptr = y.data_ptr()
    del y
    others = [x.detach().tanh() for _ in range(3)]
    assert all(o.data_ptr() != ptr for o in others)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()), rtol=1e-6)


def test_from_numpy_memory_is_never_cached(cache):
    a = np.ones(N, np.float32)
    t = mg.from_numpy(a)
    held = cache.stats()["reserved_bytes.all.current"]
    del t
    assert cache.stats()["reserved_bytes.all.current"] == held
    assert cache.stats()["cached_bytes.all.current"] == 0
    y = mg.from_numpy(np.zeros(N, np.float32)).relu()
    assert not np.shares_memory(y.numpy(), a)


def test_empty_cache_releases_everything(cache):
    x = mg.randn(N)
    ys = [x.relu() for _ in range(3)]
    del ys
    assert cache.stats()["cached_bytes.all.current"] == 3 * NB
    cache.empty_cache()
    s = cache.stats()
    assert s["cached_bytes.all.current"] == 0
    assert s["reserved_bytes.all.current"] == 0


def test_cap_limits_what_is_kept(cache):
    cache.set_cache(cap=NB)
    x = mg.randn(N)
    a, b = x.relu(), x.relu()
    dropped = cache.stats()["cache.dropped"]
    del a, b
    s = cache.stats()
    assert s["cached_bytes.all.current"] == NB
    assert s["cache.dropped"] == dropped + 1


def test_disabled_cache_is_not_used(cache):
    cache.set_cache(enabled=False)
    x = mg.randn(N)
    s0 = cache.stats()
    y = x.relu()
    del y
    s1 = cache.stats()
    assert (s1["cache.hits"], s1["cache.misses"]) == (s0["cache.hits"], s0["cache.misses"])
    assert s1["reserved_bytes.all.current"] == 0


@pytest.mark.parametrize("a_shape, b_shape, a_dtype, b_dtype", [
    ((256, 256), (256,), "float32", "float32"),
    ((256, 1), (1, 256), "float32", "float32"),
    ((256, 256), (256, 256), "float32", "float64"),
    ((256, 256), (256, 256), "int32", "int32"),
    ((256, 256), (256, 256), "float16", "float16"),
])
def test_cached_results_match_numpy_in_shape_dtype_and_values(cache, a_shape, b_shape,
                                                              a_dtype, b_dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(a_shape) * 10).astype(a_dtype)
    b = (rng.standard_normal(b_shape) * 10).astype(b_dtype)
    for f in (np.add, np.multiply, np.maximum):
        r = getattr(mg, {np.add: "add", np.multiply: "mul", np.maximum: "maximum"}[f])(
            mg.tensor(a), mg.tensor(b))
        e = f(a, b)
        assert r.numpy().dtype == e.dtype and r.numpy().shape == e.shape
        np.testing.assert_array_equal(r.numpy(), e)
    r = mg.tensor(a) * 2.5   # an integer tensor times a float: the default float dtype
    e = (a * 2.5).astype(np.float32 if a.dtype.kind in "iu" else a.dtype)
    assert r.numpy().dtype == e.dtype
    np.testing.assert_array_equal(r.numpy(), e)


@pytest.mark.parametrize("info", TABLE, ids=[o.id for o in TABLE])
def test_every_op_gives_the_same_result_from_the_cache(cache, info):
    """The op table's forward with every eligible result taken from the cache equals it with
    the cache off (values, dtypes and shapes)."""
    def forward():
        s = info.draw(np.random.default_rng(1))
        return [p.numpy() for p in _parts(_run(info, _function(info), _tensors(s.args),
                                                s.kwargs))]
    cache.set_cache(threshold=0)
    cached = forward()
    cache.set_cache(enabled=False)
    plain = forward()
    assert len(cached) == len(plain)
    for c, p in zip(cached, plain):
        assert c.dtype == p.dtype and c.shape == p.shape
        np.testing.assert_array_equal(c, p)


def test_gradients_through_cached_results(cache):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 64))

    def grads():
        x = mg.tensor(a, requires_grad=True)
        (((x * 2 + 1).tanh()).exp() * x).sum().backward()
        return x.grad.numpy()
    g1 = grads()
    cache.set_cache(enabled=False)
    np.testing.assert_array_equal(g1, grads())


# ---- the ufunc fast path -------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(n for n, op in OPS.items() if op.ufunc is not None))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "bool"])
def test_ufunc_fast_path_equals_the_declared_forward(name, dtype):
    op = OPS[name]
    rng = np.random.default_rng(0)
    arrays = [(rng.standard_normal((3, 4)) * 3 + 0.5).astype(dtype) for _ in op.inputs]
    arrays = [np.abs(a) + 1 if name in ("log", "sqrt") and dtype != "bool" else a
              for a in arrays]

    def run(f):
        try:
            with np.errstate(all="ignore"):
                return f()
        except (TypeError, ValueError, ArithmeticError) as e:   # both must fail alike
            return type(e)
    slow = run(lambda: op.fwd(np, *arrays, **op.defaults))
    if op.float_result and dtype in ("int32", "bool"):
        # not taken (Note [Float results of integer inputs]): the call computes in float32
        got = run(lambda: getattr(mg, name)(*[mg.tensor(a) for a in arrays]).numpy())
        assert slow.dtype == got.dtype == np.float32
        np.testing.assert_array_equal(got, slow)
        return
    fast = run(lambda: op.ufunc(*arrays))
    if isinstance(fast, type):
        assert fast is slow
    else:
        assert fast.dtype == slow.dtype
        np.testing.assert_array_equal(fast, slow)


# ---- backward reusing the incoming gradient ------------------------------------------------

@pytest.mark.parametrize("name", ["relu", "exp", "tanh", "sigmoid"])
def test_backward_writes_into_an_owned_incoming_gradient(name):
    x = mg.randn(4, 5, requires_grad=True)
    y = getattr(x * 1.0, name)()
    g = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    expected = y.grad_fn.apply(g.copy())[0]       # not owned: a new array
    mine = g.copy()
    got = y.grad_fn.apply(mine, mine)[0]
    assert got is mine                            # written in place
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_two_input_gradients_never_write_into_the_incoming_gradient():
    a, b = mg.randn(3, requires_grad=True), mg.randn(3, requires_grad=True)
    y = a * b
    g = np.ones(3, np.float32)
    ga, gb = y.grad_fn.apply(g, g)
    assert ga is not g and gb is not g
    np.testing.assert_array_equal(g, np.ones(3, np.float32))


def test_a_gradient_a_hook_has_seen_is_not_overwritten():
    x = mg.randn(5, requires_grad=True)
    h = x * 1.0
    z = h.exp()
    seen = []
    z.register_hook(lambda g: seen.append(g))   # keeps the tensor it is given
    w = z.relu()
    (w * 3.0).sum().backward()
    # what the hook saw is d/dz of sum(3 * relu(z)) = 3 * (z > 0), untouched by ExpBackward
    np.testing.assert_allclose(seen[0].numpy(), 3.0 * (z.detach().numpy() > 0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, sign", [("add_", 1), ("sub_", -1)])
def test_inplace_add_with_alpha_is_one_pass_and_exact(dtype, name, sign, monkeypatch):
    """``p.add_(g, alpha=-lr)`` (the SGD step) goes through BLAS axpy: same values, no
    temporary storage, the tensor's own buffer written."""
    from scipy.linalg import blas
    calls = []
    fname = "saxpy" if dtype == "float32" else "daxpy"
    real = getattr(blas, fname)
    monkeypatch.setattr(blas, fname, lambda *a, **k: calls.append(k["a"]) or real(*a, **k))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 256)).astype(dtype)
    b = rng.standard_normal((128, 256)).astype(dtype)
    x, y = mg.tensor(a), mg.tensor(b)
    ptr = x.data_ptr()
    with counting() as c:
        r = getattr(x, name)(y, alpha=-0.25)
    assert r is x and x.data_ptr() == ptr and c["bytes"] == 0
    assert x._version == 1 and calls == [sign * -0.25]
    np.testing.assert_allclose(x.numpy(), a + sign * -0.25 * b, rtol=1e-6)


@pytest.mark.parametrize("name", ["relu", "exp", "tanh", "sigmoid"])
def test_backward_into_a_zero_dim_gradient(name):
    x = mg.tensor(0.3, requires_grad=True)
    getattr(x * 1.0, name)().backward()
    ref = {"relu": 1.0, "exp": np.exp(0.3), "tanh": 1 - np.tanh(0.3) ** 2,
           "sigmoid": (1 / (1 + np.exp(-0.3))) * (1 - 1 / (1 + np.exp(-0.3)))}[name]
    assert x.grad.item() == pytest.approx(ref, rel=1e-6)


def test_gradient_through_a_transpose_is_not_copied_into_the_leaf():
    """W.t() in the forward: the leaf's gradient is the transposed view of the product's
    gradient (computed in w's layout), owned by the engine, so it becomes ``.grad`` without a
    copy."""
    x = mg.randn(8, 5)
    w = mg.randn(3, 5, requires_grad=True)
    (x @ w.t()).sum().backward()
    g = w.grad.numpy()
    assert g.base is not None and g.flags.c_contiguous   # a view of the product: no copy
    np.testing.assert_allclose(g, np.ones((8, 3)).T @ x.numpy(), rtol=1e-5, atol=1e-6)
    (x @ w.t()).sum().backward()          # accumulates into it
    np.testing.assert_allclose(w.grad.numpy(), 2 * (np.ones((8, 3)).T @ x.numpy()), rtol=1e-5,
                               atol=1e-6)


def test_broadcast_gradient_views_are_still_copied():
    x = mg.randn(4, 3, requires_grad=True)
    y = x * 1.0
    y.sum().backward()                    # SumBackward hands out a broadcast view of g
    x.grad.add_(1)                        # a real buffer: every element its own memory
    np.testing.assert_array_equal(x.grad.numpy(), np.full((4, 3), 2.0, np.float32))


@pytest.mark.parametrize("lead", [(6,), (2, 3)], ids=["2d", "stacked"])
@pytest.mark.parametrize("transposed", [False, True])
def test_linear_weight_gradient_is_c_ordered_without_a_copy(transposed, lead):
    """``x @ w.t()`` (nn.Linear's layout): the weight's gradient comes out C-ordered, the
    layout an optimizer's update and BLAS axpy want, with the same values either way; for a
    stacked x (batch, time, features) too, where the sum over batch and time is in the product."""
    rng = np.random.default_rng(0)
    xa, wa = rng.standard_normal(lead + (5,)), rng.standard_normal((4, 5))
    x = mg.tensor(xa, requires_grad=True)
    w = mg.tensor(wa if transposed else wa.T.copy(), requires_grad=True)
    y = x @ (w.t() if transposed else w)
    g = rng.standard_normal(lead + (4,))
    y.backward(mg.tensor(g))
    gw = w.grad.numpy()
    assert gw.flags.c_contiguous
    g2, x2 = g.reshape(-1, 4), xa.reshape(-1, 5)
    np.testing.assert_allclose(gw, (g2.T @ x2) if transposed else (x2.T @ g2), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), g @ wa, rtol=1e-12)


# ---- memory.empty: results, temporaries and kept values from the cache ---------------------

def test_empty_takes_a_cached_buffer_and_gives_it_back_when_the_array_dies(cache, no_gc):
    a = memory.empty(np, (N,), np.float32)
    assert a.shape == (N,) and a.dtype == np.float32 and a.flags.c_contiguous
    assert memory.fresh(a) and not memory.fresh(a[1:]) and not memory.fresh(a.reshape(2, -1))
    view = a[:10]
    del a                                   # the view still looks into the buffer
    hits = memory._cache.hits
    b = memory.empty(np, (N,), np.float32)
    assert memory._cache.hits == hits       # so b got a new one
    del view, b
    c = memory.empty(np, (N,), np.float32)  # now nothing sees either: one is handed out again
    assert memory._cache.hits == hits + 1 and c.shape == (N,)
    z = memory.zeros(np, (N,), np.float32)
    assert not z.any()
    small = memory.empty(np, (4,), np.float32)   # below the threshold: plain NumPy
    assert small.base is None and not memory.fresh(small)


def test_gradients_from_cached_buffers_are_owned_by_the_engine(cache):
    # a matrix product's gradient comes from the cache; GELU's backward may then write into it
    # instead of allocating (Note [Reusing the incoming gradient])
    seen = []
    op = OPS["gelu"]
    fn, names, all_attrs = op.grad_fns[0]

    def spy(g, *args):
        seen.append(args[names.index("into")] is g)
        return fn(g, *args)
    op.grad_fns[0] = (spy, names, all_attrs)
    try:
        x = mg.randn(64, 128, requires_grad=True)
        w = mg.randn(128, 64, requires_grad=True)
        (mg.gelu(x @ w) @ w.t()).sum().backward()
    finally:
        op.grad_fns[0] = (fn, names, all_attrs)
    assert seen == [True]
