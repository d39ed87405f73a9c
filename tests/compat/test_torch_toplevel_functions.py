"""The torch.* functions added over mutograd (legacy linear algebra, ATen's nn spellings, the
functional RNNs, statistics, stft), checked against PyTorch: one table of cases drives the value,
the gradient and (where PyTorch has one) the second-order gradient of each."""
import collections
import warnings

import numpy as np
import pytest

import mutograd.compat.torch as mt

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

Case = collections.namedtuple("Case", "name make grad second pick call",
                              defaults=(True, True, None, None))


def _r(*shape, seed=0):
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape)


def _spd(n, seed=0):
    a = _r(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


def _tri(n, upper=True):
    a = _r(n, n, seed=3) + 3 * np.eye(n)
    return np.triu(a) if upper else np.tril(a)


class D:
    """A float64 array that becomes a leaf needing a gradient."""

    def __init__(self, a):
        self.a = np.asarray(a, np.float64)


class I:  # noqa: E742 - an integer array (indices, lengths, offsets)
    def __init__(self, a):
        self.a = np.asarray(a, np.int64)


def _rnn_params(gates, inp, hid, layers=1, dirs=1, bias=True, seed=5):
    ps = []
    for layer in range(layers):
        width = inp if layer == 0 else hid * dirs
        for d in range(dirs):
            s = seed + 10 * layer + d
            g = gates * hid
            ps += [D(_r(g, width, seed=s) * 0.5), D(_r(g, hid, seed=s + 1) * 0.5)]
            if bias:
                ps += [D(_r(g, seed=s + 2) * 0.5), D(_r(g, seed=s + 3) * 0.5)]
    return ps


def _lu_of(a):
    lu, piv = torch.linalg.lu_factor(torch.tensor(a))
    return lu.numpy(), piv.numpy()


_A = _r(4, 3)
_SQ = _r(3, 3) + 3 * np.eye(3)
_LU, _PIV = _lu_of(_SQ)
_QR = np.linalg.qr(_r(5, 3, seed=1), mode="raw")
_NAN = np.array([[1.0, np.nan, 3.0, 2.0, 5.0], [0.5, -1.0, np.nan, np.nan, 4.0]])
_IDX = np.array([1, 2, 4, 0, 3, 3])

CASES = [
    # legacy linear algebra (U, V of svd only up to sign: compare invariant products)
    Case("svd", lambda: ([D(_A)], {}), pick=lambda r: (r[1], r[0] @ r[0].mT, r[2] @ r[2].mT,
                                                        r[0] * r[1] @ r[2].mT)),
    Case("svd", lambda: ([D(_A)], {"compute_uv": False}), grad=False, pick=lambda r: r),
    Case("qr", lambda: ([D(_A)], {})),
    Case("qr", lambda: ([D(_r(3, 3))], {"some": False})),
    Case("cholesky", lambda: ([D(_spd(3))], {"upper": True})),
    # the factor from cholesky: PyTorch's gradient also reaches L's (unused) upper triangle
    Case("cholesky_solve", lambda: ([D(_r(3, 2)), D(_spd(3))], {}),
         call=lambda lib: lambda b, a: lib.cholesky_solve(b, lib.cholesky(a))),
    Case("cholesky_inverse", lambda: ([D(_spd(3))], {"upper": True}),
         call=lambda lib: lambda a, upper: lib.cholesky_inverse(lib.cholesky(a, upper), upper)),
    Case("triangular_solve", lambda: ([D(_r(3, 2)), D(_tri(3))], {"transpose": True})),
    Case("lu", lambda: ([D(_SQ)], {"get_infos": True}), grad=False),
    Case("lu_solve", lambda: ([D(_r(3, 2)), D(_LU), I(_PIV).a.astype(np.int32)], {})),
    Case("lu_unpack", lambda: ([D(_LU), _PIV], {})),
    Case("pinverse", lambda: ([D(_A)], {})),
    Case("geqrf", lambda: ([D(_r(5, 3, seed=1))], {}), grad=False),
    Case("orgqr", lambda: ([D(_QR[0].T), D(_QR[1])], {})),
    Case("ormqr", lambda: ([D(_QR[0].T), D(_QR[1]), D(_r(5, 2))], {"transpose": True})),
    Case("ormqr", lambda: ([D(_QR[0].T), D(_QR[1]), D(_r(2, 5))], {"left": False}),
         second=False),
    Case("nuclear_norm", lambda: ([D(_A)], {})),
    Case("nuclear_norm", lambda: ([D(_r(2, 3, 3))], {"dim": (1, 2), "keepdim": True})),
    # statistics, finite differences, indices
    Case("mode", lambda: ([D([[1., 3, 3, 1, 2, 5], [2, 2, 1, 1, 1, 0]])], {})),
    Case("nanmedian", lambda: ([D(_NAN)], {"dim": 1})),
    Case("nanmedian", lambda: ([D(_NAN)], {})),
    Case("nanquantile", lambda: ([D(_NAN), 0.3], {"dim": 1, "keepdim": True})),
    Case("nanquantile", lambda: ([D(_NAN)], {"q": 0.6, "interpolation": "nearest"})),
    Case("gradient", lambda: ([D(_r(3, 5))], {"spacing": 2.0, "edge_order": 2})),
    Case("gradient", lambda: ([D(_r(4))], {"spacing": (np.array([0., 1, 3, 4]),)})),
    Case("histogramdd", lambda: ([_r(20, 2)], {"bins": [3, 4]}), grad=False),
    Case("nonzero_static", lambda: ([np.array([[0, 1], [1, 1]])], {"size": 4}), grad=False),
    # PyTorch 2.13 gives input's gradient where src was written (test_as_strided_scatter_grad)
    Case("as_strided_scatter", lambda: ([D(np.zeros(6)), D(_r(2, 2))],
                                        {"size": (2, 2), "stride": (1, 2), "storage_offset": 1}),
         grad=False),
    # stft / istft
    Case("stft", lambda: ([D(_r(2, 20)), 8, 3], {"window": np.hanning(8),
                                                 "return_complex": False})),
    Case("stft", lambda: ([D(_r(20)), 8], {"center": False, "normalized": True,
                                           "return_complex": False, "onesided": False})),
    Case("istft", lambda: ([torch.stft(torch.tensor(_r(20)), 8, 2, window=torch.hann_window(
        8, dtype=torch.float64), return_complex=True).numpy(), 8, 2],
        {"window": torch.hann_window(8, dtype=torch.float64).numpy(), "length": 20}),
         grad=False),
    # ATen's spellings of nn ops
    Case("batch_norm", lambda: ([D(_r(4, 3, 2)), D(_r(3)), D(_r(3)), np.zeros(3), np.ones(3),
                                 True, 0.1, 1e-5, False], {})),
    Case("instance_norm", lambda: ([D(_r(2, 3, 5)), D(_r(3)), D(_r(3)), None, None, True, 0.1,
                                    1e-5, False], {})),
    Case("embedding", lambda: ([D(_r(5, 3)), _IDX], {"padding_idx": 3}), second=False),
    Case("embedding_bag", lambda: ([D(_r(5, 3)), _IDX, np.array([0, 2, 5]), False, 2], {}),
         second=False),
    Case("embedding_bag", lambda: ([D(_r(5, 3)), _IDX, np.array([0, 2, 5]), False, 1], {}),
         second=False),
    Case("binary_cross_entropy_with_logits",
         lambda: ([D(_r(4, 3)), D(np.random.default_rng(1).random((4, 3))), None,
                   np.ones(3) * 2, 2], {})),
    Case("constant_pad_nd", lambda: ([D(_r(2, 3)), (1, 2, 0, 1), 0.5], {})),
    Case("convolution", lambda: ([D(_r(1, 2, 6)), D(_r(3, 2, 3)), D(_r(3)), [2], [1], [1], False,
                                  [0], 1], {})),
    Case("convolution", lambda: ([D(_r(1, 2, 4, 4)), D(_r(2, 3, 3, 3)), None, [2, 2], [1, 1],
                                  [1, 1], True, [1, 1], 1], {})),
    Case("conv3d", lambda: ([D(_r(1, 2, 3, 4, 4)), D(_r(2, 2, 2, 2, 2))], {"padding": 1})),
    Case("conv_transpose1d", lambda: ([D(_r(1, 2, 5)), D(_r(2, 3, 3)), D(_r(3))],
                                      {"stride": 2, "output_padding": 1})),
    Case("conv_transpose3d", lambda: ([D(_r(1, 2, 2, 3, 3)), D(_r(2, 1, 2, 2, 2))],
                                      {"stride": 2})),
    Case("conv_tbc", lambda: ([D(_r(6, 2, 3)), D(_r(3, 3, 4)), D(_r(4)), 1], {}), second=False),
    Case("max_pool1d", lambda: ([D(_r(2, 3, 9)), 3], {"stride": 2, "padding": 1})),
    Case("max_pool1d_with_indices", lambda: ([D(_r(2, 3, 9)), 3], {})),
    Case("max_pool3d", lambda: ([D(_r(1, 2, 4, 4, 4)), 2], {})),
    Case("avg_pool1d", lambda: ([D(_r(2, 3, 9)), 3, 2, 1], {"count_include_pad": False})),
    Case("adaptive_avg_pool1d", lambda: ([D(_r(2, 3, 9)), 4], {})),
    Case("adaptive_max_pool1d", lambda: ([D(_r(2, 3, 9)), 4], {})),
    Case("ctc_loss", lambda: ([D(np.log(np.random.default_rng(2).dirichlet(np.ones(5), (6, 2)))),
                               np.array([[1, 2, 2], [3, 1, 0]]), np.array([6, 5]),
                               np.array([3, 2]), 0, 0], {}), second=False,
         # PyTorch's gradient of log_probs is the one through a log_softmax (its docs)
         call=lambda lib: lambda x, *a: lib.ctc_loss(x.log_softmax(-1), *a)),
    # functional recurrent layers and cells
    Case("lstm", lambda: ([D(_r(5, 2, 3)), (D(_r(2, 2, 4)), D(_r(2, 2, 4))),
                           _rnn_params(4, 3, 4, dirs=2), True, 1, 0.0, False, True, False], {})),
    Case("gru", lambda: ([D(_r(2, 5, 3)), D(_r(2, 2, 4)),
                          _rnn_params(3, 3, 4, layers=2), True, 2, 0.0, False, False, True], {})),
    Case("rnn_tanh", lambda: ([D(_r(5, 3)), D(_r(1, 4)), _rnn_params(1, 3, 4, bias=False), False,
                               1, 0.0, False, False, False], {})),
    Case("rnn_relu", lambda: ([D(_r(5, 2, 3)), D(_r(1, 2, 4)), _rnn_params(1, 3, 4), True, 1,
                               0.0, False, False, False], {})),
    Case("lstm_cell", lambda: ([D(_r(2, 3)), (D(_r(2, 4)), D(_r(2, 4)))] +
                               _rnn_params(4, 3, 4), {})),
    Case("gru_cell", lambda: ([D(_r(2, 3)), D(_r(2, 4))] + _rnn_params(3, 3, 4), {})),
    Case("rnn_tanh_cell", lambda: ([D(_r(2, 3)), D(_r(2, 4))] + _rnn_params(1, 3, 4), {})),
    Case("rnn_relu_cell", lambda: ([D(_r(2, 3)), D(_r(2, 4))] + _rnn_params(1, 3, 4, bias=False),
                                   {})),
]


def _build(lib, obj, leaves):
    if isinstance(obj, D):
        t = lib.tensor(obj.a, dtype=lib.float64, requires_grad=True)
        leaves.append(t)
        return t
    if isinstance(obj, np.ndarray):
        return lib.tensor(obj)
    if isinstance(obj, I):
        return lib.tensor(obj.a)
    if isinstance(obj, list):
        return [_build(lib, o, leaves) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_build(lib, o, leaves) for o in obj)
    return obj


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [t for x in r for t in _flat(x)]
    return [r] if r is not None else []


def _run(lib, case):
    args, kwargs = case.make()
    leaves = []
    a = _build(lib, args, leaves)
    kw = {k: _build(lib, v, leaves) for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = (case.call(lib) if case.call else getattr(lib, case.name))(*a, **kw)
    out = _flat(case.pick(out) if case.pick else out)
    return out, leaves


def _weighted(outs):
    """A scalar of the floating outputs, each weighted by fixed numbers (NaNs left out)."""
    total = 0
    for i, o in enumerate(outs):
        if o.dtype.is_floating_point and o.requires_grad:
            w = np.random.default_rng(i).standard_normal(tuple(o.shape))
            if np.isnan(o.detach().numpy()).any():
                o = o.nan_to_num(0.0)
            total = total + (o * _like(o, w)).sum()
    return total


def _like(o, w):
    lib = mt if isinstance(o, mt.Tensor) else torch
    return lib.tensor(w, dtype=lib.float64)


def _grads(lib, loss, leaves, create_graph=False):
    used = [t for t in leaves if t.requires_grad]
    if not isinstance(loss, (mt.Tensor, torch.Tensor)):     # nothing depends on the leaves
        return [None] * len(used)
    return lib.autograd.grad(loss, used, create_graph=create_graph, allow_unused=True)


def _close(a, b, what):
    a = a.detach().numpy() if a is not None else None
    b = b.detach().numpy() if b is not None else None
    if a is None or b is None:
        assert a is None or not np.any(a), what
        assert b is None or not np.any(b), what
        return
    assert a.shape == b.shape, f"{what}: shape {a.shape} vs {b.shape}"
    np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8, equal_nan=True, err_msg=what)


def _id(case):
    return case.name


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_value_and_gradients_match_torch(case):
    mine, my_leaves = _run(mt, case)
    ref, ref_leaves = _run(torch, case)
    assert len(mine) == len(ref)
    for a, b in zip(mine, ref):
        _close(a, b, f"{case.name} value")
        assert isinstance(a, mt.Tensor)
    if not case.grad:
        return
    my_loss, ref_loss = _weighted(mine), _weighted(ref)
    my_g = _grads(mt, my_loss, my_leaves, create_graph=case.second)
    ref_g = _grads(torch, ref_loss, ref_leaves, create_graph=case.second)
    for a, b in zip(my_g, ref_g):
        _close(a, b, f"{case.name} gradient")
    if not case.second:
        return
    my_gg = [g for g in my_g if g is not None and g.requires_grad]
    ref_gg = [g for g in ref_g if g is not None and g.requires_grad]
    if not ref_gg:
        return
    my_2 = _grads(mt, _weighted(my_gg), my_leaves)
    ref_2 = _grads(torch, _weighted(ref_gg), ref_leaves)
    for a, b in zip(my_2, ref_2):
        _close(a, b, f"{case.name} second-order gradient")


@pytest.mark.parametrize("call", [
    lambda lib: lib.stft(lib.ones(16), 4),                       # return_complex not given
    lambda lib: lib.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]])),   # not positive definite
    lambda lib: lib.eig(lib.eye(2)),                              # removed by PyTorch
    lambda lib: lib.lstm(lib.ones(3, 1, 2), (lib.zeros(1, 1, 2), lib.zeros(1, 1, 2)),
                         [lib.ones(8, 2)], True, 1, 0.0, False, False, False),   # params short
    lambda lib: lib.gradient(lib.ones(1)),                       # too short for edge_order 1
    lambda lib: lib.zeros(-1, 2),                                # a negative size
    lambda lib: lib.randn([2, -3]),
])
def test_errors_are_pytorchs(call):
    with pytest.raises(Exception) as ref:
        call(torch)
    with pytest.raises(Exception) as mine:
        call(mt)
    assert isinstance(mine.value, RuntimeError) == isinstance(ref.value, RuntimeError)


def test_methods_are_the_functions():
    x = mt.tensor(_r(4, 3))
    u, s, v = x.svd()
    np.testing.assert_allclose(s.numpy(), torch.tensor(_r(4, 3)).svd().S.numpy())
    assert x.mode(0).indices.tolist() == torch.tensor(_r(4, 3)).mode(0).indices.tolist()
    y = mt.tensor(_NAN)
    np.testing.assert_allclose(y.nanquantile(0.5, dim=1).numpy(),
                               torch.tensor(_NAN).nanquantile(0.5, dim=1).numpy())
    assert x.nonzero_static(size=2).shape == (2, 2)
    with pytest.warns(DeprecationWarning):
        assert x.resize(3, 4).shape == (3, 4)
    assert x.is_set_to(x) and not x.is_set_to(x.clone())
    assert x.index([mt.tensor([0, 2])]).tolist() == x[mt.tensor([0, 2])].tolist()

    class Sub(mt.Tensor):
        __slots__ = ()
    w = mt.ones(2, requires_grad=True)
    sub = w.as_subclass(Sub)
    assert type(sub) is Sub
    sub.sum().backward()
    assert w.grad.tolist() == [1.0, 1.0]


def test_as_strided_scatter_grad():
    x = mt.zeros(6, dtype=mt.float64, requires_grad=True)
    src = mt.ones(2, 2, dtype=mt.float64, requires_grad=True)
    y = mt.as_strided_scatter(x, src, (2, 2), (1, 2), 1)
    gx, gs = mt.autograd.grad(y, (x, src), mt.arange(6.0, dtype=mt.float64))
    assert gx.tolist() == [0.0, 0, 0, 0, 0, 5]          # only the elements kept from x
    assert gs.tolist() == [[1.0, 3.0], [2.0, 4.0]]


def test_state_functions():
    assert mt.get_num_interop_threads() >= 1 and mt.is_distributed(mt.ones(1)) is False
    mt.set_autocast_enabled("cpu", True)
    assert mt.is_autocast_enabled("cpu") and mt.is_autocast_cpu_enabled()
    mt.set_autocast_enabled("cpu", False)
    assert mt.is_anomaly_check_nan_enabled() is torch.is_anomaly_check_nan_enabled()
    mt.set_anomaly_enabled(True)
    assert mt.is_anomaly_enabled()
    mt.set_anomaly_enabled(False)
    assert not mt.is_anomaly_enabled() and mt.thread_safe_generator() is None


def test_low_rank_and_iterative_solvers_match_torch():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 3)) @ rng.standard_normal((3, 6))      # rank 3: exact answers
    spd = a @ a.T + np.eye(8)
    for name, args, kw in [("svd_lowrank", (a,), {"q": 3}), ("pca_lowrank", (a,), {"q": 3}),
                           ("lobpcg", (spd,), {"k": 2}),
                           ("lobpcg", (spd,), {"k": 2, "B": 2 * np.eye(8)})]:
        kw_m = {k: mt.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        kw_t = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        mine = getattr(mt, name)(*(mt.tensor(x) for x in args), **kw_m)
        ref = getattr(torch, name)(*(torch.tensor(x) for x in args), **kw_t)
        values = 0 if name == "lobpcg" else 1      # the eigenvalues, or S
        np.testing.assert_allclose(mine[values].numpy(), ref[values].numpy(), rtol=1e-6)


def test_functional_attention_and_grouped_mm():
    rng = np.random.default_rng(1)
    q, w, b = rng.standard_normal((4, 2, 6)), rng.standard_normal((18, 6)), rng.standard_normal(18)
    wo, bo = rng.standard_normal((6, 6)), rng.standard_normal(6)
    outs = []
    for lib in (mt, torch):
        t = lib.tensor
        outs.append(lib.nn.functional.multi_head_attention_forward(
            t(q), t(q), t(q), 6, 2, t(w), t(b), None, None, False, 0.0, t(wo), t(bo),
            training=False))
    for a, b_ in zip(*outs):
        np.testing.assert_allclose(a.numpy(), b_.numpy(), rtol=1e-6)
    x, ws = rng.standard_normal((6, 4)), rng.standard_normal((2, 4, 3))
    got = mt.nn.functional.grouped_mm(mt.tensor(x), mt.tensor(ws), offs=mt.tensor([2, 6]))
    np.testing.assert_allclose(got.numpy(), np.concatenate([x[:2] @ ws[0], x[2:] @ ws[1]]))
    y = rng.standard_normal((6, 2, 3))
    np.testing.assert_allclose(mt.nn.functional.conv_tbc(mt.tensor(y), mt.tensor(ws[:, :3, :3]),
                                                         mt.zeros(3, dtype=mt.float64), 1).numpy(),
                               torch.conv_tbc(torch.tensor(y), torch.tensor(ws[:, :3, :3]),
                                              torch.zeros(3, dtype=torch.float64), 1).numpy())


@pytest.mark.parametrize("name, shape", [("LazyConv3d", (1, 2, 4, 4, 4)),
                                         ("LazyConvTranspose1d", (1, 2, 5)),
                                         ("LazyConvTranspose3d", (1, 2, 3, 3, 3))])
def test_lazy_convolutions_become_their_class(name, shape):
    m = getattr(mt.nn, name)(3, 2)
    out = m(mt.ones(*shape))
    assert type(m).__name__ == name[4:] and m.weight.shape[:2] in ((3, 2), (2, 3))
    ref = getattr(torch.nn, name[4:])(2, 3, 2)
    assert out.shape == ref(torch.ones(*shape)).shape


@pytest.mark.parametrize("owner, name", [("autograd", "NestedIOFunction"),
                                         ("autograd", "SavedTensor"), (None, "uint16"),
                                         (None, "hash_tensor")])
def test_refused_names_say_why(owner, name):
    with pytest.raises(AttributeError, match="not supported in mutograd"):
        getattr(getattr(mt, owner) if owner else mt, name)
