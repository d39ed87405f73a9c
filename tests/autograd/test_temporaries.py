"""Dead temporaries: an out-of-place element-wise op writes into an input nothing else can see
(Note [Dead temporaries] in mutograd/autograd/temporaries.py).

Every case runs twice, with the reuse on and off (``memory.set_reuse``): the values, gradients
and version counters must be the same, and the bytes allocated tell whether the reuse happened.
"""
import gc
import weakref

import numpy as np
import pytest

import mutograd as mg
from mutograd import memory
from mutograd.autograd.graph import saved_tensors_hooks
from mutograd.autograd.saved import allow_mutation_on_saved_tensors
from mutograd.autograd import temporaries

N = 1 << 16            # float32 elements: 256 KiB, above the test threshold
NB = N * 4


@pytest.fixture
def cache():
    """The cache on with a small threshold, the reuse on, no collection in the middle."""
    old = memory.set_cache(enabled=True, threshold=4096, cap=1 << 30)
    old_reuse = memory.set_reuse(True)
    memory.empty_cache()
    gc.disable()   # (the byte counts are of allocations; no collection frees in the middle)
    yield memory
    gc.enable()
    memory.set_reuse(old_reuse)
    memory.empty_cache()
    memory.set_cache(**old)


def _allocated():
    return memory.stats()["allocated_bytes.all.allocated"]


def _inputs():
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.uniform(-1, 1, N).astype(np.float32))
    w = mg.tensor(rng.uniform(-1, 1, N).astype(np.float32), requires_grad=True)
    return x, w


def _run(case, reuse):
    """``case(x, w)`` -> (arrays of its outputs, w's gradient or None, bytes allocated)."""
    memory.set_reuse(reuse)
    x, w = _inputs()
    before = _allocated()
    outs = case(x, w)
    nbytes = _allocated() - before
    values = [o.numpy().copy() if isinstance(o, mg.Tensor) else np.array(o) for o in outs]
    grad = None
    loss = next((o for o in outs if isinstance(o, mg.Tensor) and o.requires_grad), None)
    if loss is not None:
        loss.sum().backward()
        grad = None if w.grad is None else w.grad.numpy().copy()
    return values, grad, nbytes


def _same(case):
    """Run with and without reuse; assert equal values and gradients; return both byte counts."""
    on_values, on_grad, on_bytes = _run(case, True)
    off_values, off_grad, off_bytes = _run(case, False)
    assert len(on_values) == len(off_values)
    for a, b in zip(on_values, off_values):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    if off_grad is None:
        assert on_grad is None
    else:
        np.testing.assert_array_equal(on_grad, off_grad)
    return on_bytes, off_bytes


def test_the_check_is_calibrated_on_this_interpreter():
    # CPython 3.10-3.13: a value on the stack is seen with one reference fewer than a name
    assert temporaries.DEAD_OP > 0 and temporaries.DEAD_ARGS > 0
    assert memory.reuses_temporaries() == memory._cache.reuse


def test_the_chain_allocates_one_buffer(cache):
    """((x*2+1).exp()).tanh() allocates x*2's buffer only; the rest is written into it."""
    on, off = _same(lambda x, w: [((x * 2 + 1).exp()).tanh()])
    assert on == NB
    assert off == 4 * NB


# Cases where the temporary is dead: (expression, bytes allocated with the reuse on).
REUSED = [
    ("x*2+1", lambda x, w: [x * 2 + 1], NB),
    ("mg.exp(x*2)", lambda x, w: [mg.exp(x * 2)], NB),
    ("(x*2).relu()", lambda x, w: [(x * 2).relu()], NB),
    ("(x*2).add(x)", lambda x, w: [(x * 2).add(x)], NB),
    ("(x+1)*x", lambda x, w: [(x + 1) * x], NB),
    ("(x*2).sigmoid().tanh()", lambda x, w: [(x * 2).sigmoid().tanh()], NB),
    # a temporary in a recorded chain whose nodes do not save it
    ("((w*2)+1).tanh()", lambda x, w: [((w * 2) + 1).tanh()], NB),
    ("(w+x)*3-1", lambda x, w: [(w + x) * 3 - 1], NB),
    # a matrix product's result (from memory.empty) takes the bias and the ReLU
    ("(x@w+x).relu()", lambda x, w: [(x.reshape(256, 256) @ w.reshape(256, 256)
                                      + x[:256]).relu()], NB),
    # sum() holds its running total in C only: each partial sum after the first is dead
    ("sum([x*2, x*3, x*4])", lambda x, w: [sum([x * 2, x * 3, x * 4])], 4 * NB),
    # sin saves w*2 (kept), its result is dead: one reuse, correct under the policy too
    ("mutation on saved tensors allowed", lambda x, w: _mutation_case(x, w), 2 * NB),
    ("mg.from_numpy(new array)+1",
     lambda x, w: [mg.from_numpy(np.ones(N, np.float32)) + 1], NB),
]


@pytest.mark.parametrize("case, nbytes", [c[1:] for c in REUSED], ids=[c[0] for c in REUSED])
def test_dead_temporaries_are_reused(cache, case, nbytes):
    on, off = _same(case)
    assert on == nbytes
    assert off > on


def _hooked(t):
    t.register_hook(lambda g: g * 2)
    return t


def _retained(t):
    t.retain_grad()
    return t


def _named(t):
    t.name = "kept"
    return t


class _Keep:
    """A function that keeps what it is given (or a view, an alias, an exported array of it)."""

    def __init__(self, how=lambda t: t):
        self.how = how
        self.kept = []

    def __call__(self, t):
        self.kept.append(self.how(t))
        return t

    def values(self):
        return [k.numpy() if isinstance(k, mg.Tensor) else np.asarray(k) for k in self.kept]


def _kept(how, method=False):
    """``keep(x * 2) + 1`` (or ``.exp()`` of it) where ``keep`` keeps ``how(t)``: the outputs,
    then everything ``keep`` kept (whose values must not change). The expression is written
    out: a helper taking the temporary as a parameter would bind it to a name."""
    def case(x, w):
        keep = _Keep(how)
        y = keep(x * 2).exp() if method else keep(x * 2) + 1
        return [y] + keep.values()
    return case


def _list_case(x, w):
    lst = [x * 2]
    y = lst[0] + 1
    return [y, lst[0]]


def _sort_key_case(x, w):
    lst = [x * 2]
    lst.sort(key=mg.exp)            # a C caller holding the item while calling the op
    return [lst[0]]


def _max_key_case(x, w):
    return [max([x * 2, x * 3], key=lambda t: float(t.exp().sum()))]


def _bound_case(x, w):
    t = x * 2
    u = t + 1
    v = t.exp()
    return [t, u, v]


def _pack_keeps_tensor_case(x, w):
    kept = []

    def pack(t):
        kept.append(t)
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        y = w.exp() + 1             # exp saves its result; the pack hook keeps the tensor
    return [y, kept[0]]


def _mutation_case(x, w):
    with allow_mutation_on_saved_tensors():
        y = (w * 2).sin() + 1
    return [y]


def _timeline_case(x, w):
    with memory.timeline():
        y = (x * 2 + 1).exp()
    return [y]


def _anomaly_case(x, w):
    with mg.detect_anomaly():
        y = ((w * 2) + 1).tanh()
    return [y]


def _leaf_case(x, w):
    leaf = mg.tensor(np.ones(N, np.float32), requires_grad=True)
    return [_weak_leaf(leaf)]


def _weak_leaf(leaf):
    ref = weakref.ref(leaf)
    y = leaf.__add__(1)             # the leaf is only referenced here and by the argument
    assert ref() is leaf
    return y


def _leaf_temp_case(x, w):
    return [mg.tensor(np.ones(N, np.float32), requires_grad=True) * 2]


# Cases where the reuse must not happen: the bytes allocated equal those without the reuse.
NOT_REUSED = [
    ("bound to a name", _bound_case),
    ("inside a list", _list_case),
    ("passed to a function that keeps it", _kept(lambda t: t)),
    ("passed to a function that keeps it, method", _kept(lambda t: t, True)),
    ("a view of it exists", _kept(lambda t: t[: N // 2])),
    ("a view of it exists, method", _kept(lambda t: t[: N // 2], True)),
    ("a reshaped view of it exists", _kept(lambda t: t.reshape(4, -1))),
    ("a detached alias exists", _kept(lambda t: t.detach())),
    ("a detached alias exists, method", _kept(lambda t: t.detach(), True)),
    ("its .data exists", _kept(lambda t: t.data)),
    ("its numpy() array exists", _kept(lambda t: t.numpy())),
    ("its numpy() array exists, method", _kept(lambda t: t.numpy(), True)),
    ("a numpy slice of it exists", _kept(lambda t: np.asarray(t)[:10])),
    ("a numpy slice of it exists, method", _kept(lambda t: np.asarray(t)[:10], True)),
    ("a memoryview of it exists", _kept(lambda t: memoryview(t.numpy()))),
    ("saved for backward by the next op", lambda x, w: [(w * 2).sin()]),
    ("saved by its own node", lambda x, w: [w.exp() + 1]),
    ("saved by the next op's other input", lambda x, w: [(x * 2) * w]),
    ("a hook on it", lambda x, w: [_hooked(w * 2) + 1]),
    ("retain_grad on it", lambda x, w: [_retained(w * 2) + 1]),
    ("a name on it", lambda x, w: [_named(x * 2) + 1]),
    ("a leaf that requires grad", _leaf_case),
    ("a temporary leaf that requires grad", _leaf_temp_case),
    ("a pack hook keeps it", _pack_keeps_tensor_case),
    ("memory timeline on", _timeline_case),
    ("anomaly mode on", _anomaly_case),
    ("sort key", _sort_key_case),
    ("max key", _max_key_case),
    ("the result broadcasts to a larger shape",
     lambda x, w: [(x * 2).reshape(1, N) + mg.ones((2, 1))]),
    ("the result has another dtype", lambda x, w: [(x * 2) + mg.ones(N, dtype="float64")]),
    ("a transposed temporary", lambda x, w: [(x.reshape(256, 256) * 2).t().contiguous()]),
    ("a view temporary", lambda x, w: [(x * 2)[: N // 2] + 1]),
    ("below the cache threshold", lambda x, w: [x[:100] * 2 + 1]),
]


@pytest.mark.parametrize("case", [c[1] for c in NOT_REUSED], ids=[c[0] for c in NOT_REUSED])
def test_visible_temporaries_are_not_reused(cache, case):
    on, off = _same(case)
    assert on == off


def test_a_kept_value_keeps_its_values(cache):
    """The direct check behind "a function that keeps it": the kept tensor is x*2, unchanged."""
    x, _ = _inputs()
    keep = _Keep()
    y = keep(x * 2) + 1
    np.testing.assert_array_equal(keep.kept[0].numpy(), x.numpy() * 2)
    np.testing.assert_array_equal(y.numpy(), x.numpy() * 2 + 1)


def test_a_reused_result_is_a_fresh_tensor(cache):
    """The result has its own version counter and owns the buffer's counted storage."""
    x, _ = _inputs()
    live = memory.allocated()
    y = (x * 2).exp()
    assert memory.allocated() - live == NB
    assert y._version == 0 and y._base is None and y.is_contiguous()
    y.add_(1)
    assert y._version == 1
    del y
    assert memory.allocated() == live


def test_gradients_through_a_reused_chain(cache):
    """A recorded chain over dead temporaries: the gradient is the one without the reuse, and
    the analytic one."""
    on, off = _same(lambda x, w: [((w * 2 + 1).exp()).tanh()])
    # x*2 is written by +1, then by exp; exp saves its result, so tanh allocates
    assert (on, off) == (2 * NB, 4 * NB)
    _, w = _inputs()
    ((w * 2 + 1).exp()).tanh().sum().backward()
    a = w.numpy().astype(np.float64)
    t = np.tanh(np.exp(2 * a + 1))
    expected = (1 - t * t) * np.exp(2 * a + 1) * 2
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-4, atol=1e-5)


def test_switched_off_when_the_counts_are_unknown(cache, monkeypatch):
    """An interpreter whose counts the calibration did not confirm gets no reuse."""
    monkeypatch.setattr(temporaries, "DEAD_OP", -1)
    monkeypatch.setattr(temporaries, "DEAD_ARGS", -1)
    x, _ = _inputs()
    before = _allocated()
    ((x * 2 + 1).exp()).tanh()
    assert _allocated() - before == 4 * NB


def test_switch_and_environment_variable(cache):
    import os
    import subprocess
    import sys
    code = ("import mutograd as mg; print(mg.memory.reuses_temporaries())")
    env = dict(os.environ, MUTOGRAD_REUSE_TEMPORARIES="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
    assert memory.set_reuse(False) is True
    assert not memory.reuses_temporaries()
    memory.set_reuse(True)


LAYOUTS = [
    ("permuted", lambda a: a.permute(1, 0)),
    ("transposed", lambda a: a.t()),
    ("strided", lambda a: a[:, ::2]),
    ("contiguous", lambda a: a),
]


@pytest.mark.parametrize("view", [c[1] for c in LAYOUTS], ids=[c[0] for c in LAYOUTS])
@pytest.mark.parametrize("op", [lambda t: -t, lambda t: t * 2, lambda t: mg.exp(t),
                                lambda t: t + t], ids=["neg", "mul", "exp", "add"])
def test_large_results_keep_numpy_layout(cache, view, op):
    """A result from the cache (or a dead temporary) is laid out as NumPy lays out the same
    op's result: a permuted input gives a permuted result, as in PyTorch, at every size."""
    x = mg.tensor((np.arange(N, dtype=np.float32) / N).reshape(256, 256))
    r = op(view(x))
    e = np.asarray(op(view(x).numpy()))   # NumPy's own layout for the same operands
    assert r.numpy().strides == e.strides
    np.testing.assert_array_equal(r.numpy(), e)
