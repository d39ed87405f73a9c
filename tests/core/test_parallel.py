"""mutograd.parallel: large element-wise ops over a thread pool give the single call's results,
errors and warnings bitwise, allocate nothing in place, and honour the thread count.

The size thresholds are lowered here (``small_blocks``) so that arrays of a few KiB split into
many blocks; the benchmarks (benchmarks/workloads_large.py) run the real sizes.
"""
import multiprocessing
import os
import threading
import time
import warnings

import numpy as np
import pytest

import mutograd as mg
from mutograd import memory, parallel
from mutograd.autograd.grad_mode import is_inference_mode_enabled


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Split from 4 KiB, in blocks of at least 256 bytes, on 3 threads; restore afterwards."""
    monkeypatch.setattr(parallel, "MIN_BYTES", 4096)
    monkeypatch.setattr(parallel, "BLOCK_BYTES", 256)
    before = parallel._n
    parallel.set_num_threads(3)
    yield
    parallel._n = before


@pytest.fixture
def runs(monkeypatch):
    """The block counts of the split calls made during the test."""
    seen = []
    real = parallel._run

    def spy(fn, n, modes):
        seen.append(n)
        return real(fn, n, modes)
    monkeypatch.setattr(parallel, "_run", spy)
    return seen


def _rand(shape, dtype, seed=0):
    r = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return r.random(shape) < 0.5
    if dtype.kind in "iu":
        return r.integers(1, 100, shape).astype(dtype)
    return (r.standard_normal(shape) * 3).astype(dtype)


def _same(a, b):
    """Bitwise equal (NaNs of one payload included), and of one dtype and shape."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


# ---- ufunc: the same result as the single call -----------------------------------------------
# (ufunc, builder of the operands, whether the call splits)
CONTIGUOUS = [
    (np.exp, lambda: [_rand((64, 100), "float32")], True),
    (np.tanh, lambda: [_rand(5000, "float64")], True),
    (np.negative, lambda: [_rand((10, 20, 30), "int32")], True),
    (np.add, lambda: [_rand((80, 70), "float32"), _rand((80, 70), "float32", 1)], True),
    (np.multiply, lambda: [_rand(3000, "int64"), 3], True),
    (np.maximum, lambda: [0, _rand((40, 50), "float32")], True),
    (np.true_divide, lambda: [_rand(4000, "int32"), _rand(4000, "int32", 1)], True),
    (np.logical_and, lambda: [_rand(9000, bool), _rand(9000, bool, 1)], True),
    (np.less, lambda: [_rand((50, 90), "float64"), 0.5], True),
    (np.bitwise_xor, lambda: [_rand(7000, "uint8"), np.uint8(7)], True),
    (np.add, lambda: [_rand((100, 60), "float32"), np.float64(0.25)], True),      # strong scalar
    (np.add, lambda: [_rand((100, 60), "float32"), np.array(2.0)], True),         # 0-d array
    (np.subtract, lambda: [_rand((100, 60), "float32"), np.ones((1, 1))], True),  # one element
    (np.add, lambda: [_rand((120, 50), "float32"), _rand(50, "float32", 1)], True),     # a row
    (np.add, lambda: [_rand((120, 50), "float32"), _rand((120, 1), "float32", 1)], True),
    (np.multiply, lambda: [_rand((1, 50), "float32"), _rand((120, 50), "float64", 1)], True),
    (np.add, lambda: [_rand((70, 80), "float32").T, _rand((80, 70), "float32", 1)], True),
    (np.power, lambda: [_rand((30, 40, 5), "float64"), _rand((40, 1), "float64", 1)], True),
    (np.exp, lambda: [_rand(500, "float32")], False),                  # under MIN_BYTES
    (np.add, lambda: [_rand((1, 3000), "float32"), _rand(3000, "float32")], False),   # 1 row
]


@pytest.mark.parametrize("uf, make, splits", CONTIGUOUS,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONTIGUOUS)])
def test_ufunc_equals_the_single_call(uf, make, splits, runs):
    args = make()
    with np.errstate(all="ignore"):
        want = uf(*args)
        _same(parallel.ufunc(uf, *args), want)
        out = np.empty_like(want)
        r = parallel.ufunc(uf, *args, out=out)
    assert r is out
    _same(out, want)
    assert bool(runs) == splits and all(n >= 2 for n in runs)


def test_in_place_on_the_output_itself_splits():
    x = _rand((64, 64), "float32")
    want = np.tanh(x)
    assert parallel.ufunc(np.tanh, x, out=x) is x
    _same(x, want)


# operands and an output that must not split: the single call gives NumPy's answer
def _partial_overlap():
    x = _rand(5000, "float64")
    return x[1:], [x[1:], x[:-1]], x[1:] + x[:-1]


def _strided_out():
    base = np.zeros((200, 40), np.float32)
    a = _rand((100, 40), "float32")
    return base[::2], [a, a], a + a


def _transposed_out():
    out = np.zeros((60, 70), np.float32).T
    a = _rand((70, 60), "float32")
    return out, [a], np.exp(a)


def _cast_into_int_out():
    a = _rand(3000, "float64")
    return np.zeros(3000, np.int64), [a, 2.5], np.multiply(a, 2.5).astype(np.int64)


@pytest.mark.parametrize("case", [_partial_overlap, _strided_out, _transposed_out])
def test_layouts_that_cannot_split_run_as_one_call(case, runs):
    out, args, want = case()
    uf = np.exp if len(args) == 1 else np.add
    parallel.ufunc(uf, *args, out=out)
    _same(out, want)
    assert runs == []


def test_casting_into_the_output_follows_numpy():
    out, args, _ = _cast_into_int_out()
    with pytest.raises(TypeError, match="Cannot cast ufunc 'multiply' output"):
        np.multiply(*args, out=out.copy())
    with pytest.raises(TypeError, match="Cannot cast ufunc 'multiply' output"):
        parallel.ufunc(np.multiply, *args, out=out)
    a = _rand(3000, "float64")
    want = np.zeros(3000, np.float32)
    np.multiply(a, 2.5, out=want)
    got = np.zeros(3000, np.float32)
    parallel.ufunc(np.multiply, a, 2.5, out=got)
    _same(got, want)


def test_operands_that_do_not_broadcast_raise_numpys_error():
    a, b = _rand((100, 30), "float32"), _rand((100, 31), "float32")
    with pytest.raises(ValueError, match="could not be broadcast"):
        parallel.ufunc(np.add, a, b)
    with pytest.raises(ValueError, match="non-broadcastable output"):
        parallel.ufunc(np.add, a, _rand((1, 1, 30), "float32"), out=np.empty_like(a))


# ---- floating-point errors, warnings and exceptions ------------------------------------------


def _overflow_late():
    """float32 values where exp overflows only in the last blocks."""
    x = np.zeros(20000, np.float32)
    x[-3:] = 100
    return x


def test_errstate_raise_inside_a_block_raises_numpys_error_after_the_whole_output(runs):
    x = _overflow_late()
    out = np.full_like(x, -1)
    with np.errstate(all="raise"):
        with pytest.raises(FloatingPointError, match="^overflow encountered in exp$"):
            parallel.ufunc(np.exp, x, out=out)
    assert runs and runs[0] >= 2
    with np.errstate(all="ignore"):
        _same(out, np.exp(x))   # every block written, as after the single call


def test_several_kinds_are_reported_in_numpys_order_once_each():
    x = np.ones(30000)
    y = np.ones(30000)
    y[5], x[29000], y[29000] = 0, 0, 0           # 1/0 in the first block, 0/0 in the last
    x[15000], y[15000] = 1e308, 1e-300           # overflow in the middle
    calls = []
    with np.errstate(all="call", call=lambda *a: calls.append(a)):
        np.true_divide(x, y)
        want = list(calls)
        calls.clear()
        parallel.ufunc(np.true_divide, x, y)
    assert [c[0] for c in want] == ["divide by zero", "overflow", "invalid value"]
    assert calls == want
    with np.errstate(divide="warn", over="raise", invalid="warn"):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(FloatingPointError, match="overflow encountered in divide"):
                parallel.ufunc(np.true_divide, x, y)
    assert [str(m.message) for m in w] == ["divide by zero encountered in divide"]


def test_a_warning_names_the_callers_line_once_per_kind():
    x = _overflow_late()
    x[:3] = 100   # overflow in the first block too
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with np.errstate(over="warn"):
            parallel.ufunc(np.exp, x)   # the line the warning must name
    assert len(w) == 1
    assert w[0].category is RuntimeWarning
    assert str(w[0].message) == "overflow encountered in exp"
    assert w[0].filename == __file__


def test_ignored_errors_stay_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="ignore"):
            parallel.ufunc(np.exp, _overflow_late())


def test_an_exception_in_a_block_propagates_after_every_block_ran():
    ran = []

    def fn(i):
        ran.append(i)
        if i in (5, 9):
            raise KeyError(i)
    with pytest.raises(KeyError) as e:
        parallel.run_blocks(fn, 12)
    assert e.value.args == (5,)   # the lowest failing block's, whatever thread ran first
    assert sorted(ran) == list(range(12))


# ---- threads ---------------------------------------------------------------------------------


def test_the_thread_count_is_honoured():
    for n in (1, 2, 4):
        parallel.set_num_threads(n)
        assert mg.get_num_threads() == n
        barrier = threading.Barrier(n, timeout=30)   # passes only with n threads at once
        idents = set()

        def fn(i, barrier=barrier, idents=idents):
            idents.add(threading.get_ident())
            barrier.wait()
        parallel.run_blocks(fn, n)
        assert len(idents) == n
        assert (threading.get_ident() in idents)


def test_one_thread_runs_everything_on_the_caller(runs):
    mg.set_num_threads(1)
    idents = set()
    parallel.run_blocks(lambda i: idents.add(threading.get_ident()), 6)
    assert idents == {threading.get_ident()}
    runs.clear()
    x = _rand(20000, "float32")
    parallel.ufunc(np.exp, x, out=x)
    assert runs == []


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2", None])
def test_set_num_threads_refuses_anything_but_a_positive_int(bad):
    with pytest.raises(ValueError, match="expected a positive int"):
        mg.set_num_threads(bad)


@pytest.mark.parametrize("env, want", [("3", 3), ("5,2", 5), ("", None), ("0", None),
                                       ("x", None)])
def test_the_default_is_omp_num_threads_or_the_usable_cores(monkeypatch, env, want):
    monkeypatch.setenv("OMP_NUM_THREADS", env)
    parallel._n = 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert mg.get_num_threads() == (want or cores)


def test_torch_names_route_to_the_same_setting():
    import mutograd.compat.torch as torch
    torch.set_num_threads(2)
    assert mg.get_num_threads() == 2 and torch.get_num_threads() == 2


def test_the_caller_context_reaches_the_workers():
    # each block waits a little, so that the workers take some of them as well as the caller
    mg.set_num_threads(3)
    seen = []

    def block(i):
        time.sleep(0.002)
        seen.append((threading.get_ident(), mg.is_grad_enabled(), is_inference_mode_enabled(),
                     np.geterr()["under"]))

    with mg.no_grad(), np.errstate(under="raise"):
        parallel.run_blocks(block, 9)
    assert len({s[0] for s in seen}) > 1
    assert {s[1:] for s in seen} == {(False, False, "raise")}
    seen.clear()
    with mg.inference_mode():
        parallel.run_blocks(block, 9)
    assert {s[1:] for s in seen} == {(False, True, "ignore")}
    seen.clear()
    parallel.run_blocks(block, 9)   # the workers took the modes for the job, not for good
    assert {s[1:] for s in seen} == {(True, False, "ignore")}


def _child(q):
    x = mg.tensor(_rand(20000, "float32"))
    x.exp_()
    q.put(x.numpy().tobytes())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_still_runs_ops():
    x = mg.tensor(_rand(20000, "float32"))
    x.exp_()   # the parent's pool is started
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_child, args=(q,))
    p.start()
    got = q.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0
    assert got == x.numpy().tobytes()


# ---- through mutograd's ops -----------------------------------------------------------------
INPLACE = [
    ("relu_", lambda x, y: x.relu_()),
    ("add_", lambda x, y: x.add_(y)),
    ("mul_", lambda x, y: x.mul_(y)),
    ("exp_", lambda x, y: x.exp_()),
    ("tanh_", lambda x, y: x.tanh_()),
    ("sub_", lambda x, y: x.sub_(y)),
    ("sigmoid_", lambda x, y: x.sigmoid_()),
    ("iadd", lambda x, y: x.__iadd__(2.0)),
]


@pytest.mark.parametrize("name, f", INPLACE, ids=[c[0] for c in INPLACE])
def test_in_place_ops_split_allocate_nothing_and_match_one_thread(name, f, runs):
    # (300, 250): also two blocks of relu's block kernel
    a, b = _rand((300, 250), "float32"), _rand((300, 250), "float32", 1)
    mg.set_num_threads(1)
    want = f(mg.tensor(a), mg.tensor(b)).numpy()
    mg.set_num_threads(3)
    x, y = mg.tensor(a), mg.tensor(b)
    used, count = memory.allocated(), memory.num_allocations()
    r = f(x, y)
    assert r is x
    assert memory.allocated() == used and memory.num_allocations() == count
    assert runs and all(n >= 2 for n in runs)
    _same(x.numpy(), want)


OUT_OF_PLACE = [
    ("relu", lambda x, y: x.relu()), ("add", lambda x, y: x + y), ("mul", lambda x, y: x * y),
    ("exp", lambda x, y: x.exp()), ("tanh", lambda x, y: x.tanh()),
    ("div_int", lambda x, y: (x * 10).int() / 7), ("gt", lambda x, y: x > y),
    ("gelu", lambda x, y: mg.nn.functional.gelu(x)),
]


@pytest.mark.parametrize("name, f", OUT_OF_PLACE, ids=[c[0] for c in OUT_OF_PLACE])
def test_out_of_place_ops_match_one_thread(name, f):
    a, b = _rand((100, 50), "float32"), _rand((100, 50), "float32", 1)
    mg.set_num_threads(1)
    want = f(mg.tensor(a), mg.tensor(b)).numpy()
    mg.set_num_threads(3)
    _same(f(mg.tensor(a), mg.tensor(b)).numpy(), want)


def test_gradients_through_split_ops_match_one_thread():
    a = _rand((100, 50), "float32")

    def grad():
        x = mg.tensor(a, requires_grad=True)
        h = (x * 2).relu_().exp().mul(0.5).tanh_()
        h.sum().backward()
        return x.grad.numpy()
    mg.set_num_threads(1)
    want = grad()
    mg.set_num_threads(3)
    _same(grad(), want)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # inf
def test_gelu_block_kernels_split_over_threads_and_match_one_thread(runs):
    a = _rand((600, 500), "float32")   # five cache-sized blocks of backends.special.blockwise
    a[0, :3] = [np.inf, -np.inf, np.nan]

    def run(approximate):
        x = mg.tensor(a, requires_grad=True)
        y = mg.nn.functional.gelu(x, approximate=approximate)
        y.backward(mg.ones_like(y))
        return y.detach().numpy(), x.grad.numpy()
    for approximate in ("none", "tanh"):
        mg.set_num_threads(1)
        want = run(approximate)
        mg.set_num_threads(3)
        runs.clear()
        got = run(approximate)
        assert runs
        for g, w in zip(got, want):
            _same(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("threads", [1, 3])
def test_relu_of_a_large_array_is_numpys_maximum_with_zero_bitwise(dtype, threads):
    # relu's block kernel (a block of zeros against the input, Note in ops/elementwise.py)
    a = _rand(200_003, dtype)
    a[:6] = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf]
    a[-3:] = [np.finfo(dtype).tiny / 4, -np.finfo(dtype).tiny / 4, -1]   # subnormals
    want = np.maximum(0, a)
    mg.set_num_threads(threads)
    _same(mg.tensor(a).relu().numpy(), want)
    x = mg.tensor(a)
    used, count = memory.allocated(), memory.num_allocations()
    assert x.relu_() is x
    assert memory.allocated() == used and memory.num_allocations() == count
    _same(x.numpy(), want)
    v = mg.tensor(a)[::2]   # not contiguous: the plain call
    _same(v.relu().numpy(), np.maximum(0, a[::2]))


def test_idle_workers_keep_no_array_alive():
    import time
    import weakref
    x = _rand(200_000, "float32")
    parallel.ufunc(np.exp, x, out=x)
    parallel.ufunc(np.add, x, x)
    gone = weakref.ref(x)
    del x
    for _ in range(200):   # a worker drops its job just after the caller has returned
        if gone() is None:
            break
        time.sleep(0.01)
    assert gone() is None
