"""Convolutions and poolings over 1, 2 and 3 spatial dimensions (nn/functional/pooling.py):
values against window-by-window references and PyTorch, gradients against finite differences
and PyTorch, indices equal to PyTorch's, and the modules' parameters and arguments."""
import itertools
import math

import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.nn.functional as F
from mutograd import nn
from mutograd.errors import DTypeError, ShapeError

# (id, function, input shape, weight shape or None, positional args, keywords)
CASES = [
    ("conv3d", "conv3d", (2, 2, 4, 5, 4), (4, 2, 2, 3, 2), (), {"padding": (1, 0, 1)}),
    ("conv3d-strided-grouped", "conv3d", (1, 4, 5, 4, 5), (4, 2, 2, 2, 3), (),
     {"stride": (2, 1, 2), "dilation": (1, 2, 1), "groups": 2}),
    ("conv3d-same", "conv3d", (1, 2, 4, 3, 4), (2, 2, 2, 3, 2), (), {"padding": "same"}),
    ("conv3d-unbatched", "conv3d", (2, 3, 3, 3), (3, 2, 2, 2, 2), (), {"padding": "valid"}),
    ("conv_transpose1d", "conv_transpose1d", (2, 4, 5), (4, 3, 3), (),
     {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("conv_transpose1d-dilated", "conv_transpose1d", (2, 2, 5), (2, 3, 2), (), {"dilation": 3}),
    ("conv_transpose3d", "conv_transpose3d", (1, 2, 3, 2, 3), (2, 3, 3, 2, 2), (),
     {"stride": (2, 1, 2), "padding": (1, 0, 1), "output_padding": (1, 0, 0)}),
    ("conv_transpose3d-grouped", "conv_transpose3d", (1, 4, 2, 3, 2), (4, 1, 2, 2, 2), (),
     {"groups": 2, "dilation": (2, 1, 1)}),
    ("max_pool1d", "max_pool1d", (2, 3, 9), None, (3,), {"stride": 2, "padding": 1}),
    ("max_pool1d-ceil", "max_pool1d", (2, 2, 10), None, (3,), {"stride": 2, "ceil_mode": True}),
    ("max_pool1d-dilated", "max_pool1d", (2, 2, 9), None, (2,), {"dilation": 3}),
    ("max_pool2d-ceil", "max_pool2d", (1, 2, 7, 8), None, (3,),
     {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("max_pool3d", "max_pool3d", (1, 2, 5, 4, 6), None, (2,), {}),
    ("max_pool3d-padded", "max_pool3d", (1, 2, 5, 5, 4), None, ((3, 2, 2),),
     {"stride": (2, 1, 2), "padding": (1, 1, 0), "ceil_mode": True}),
    ("avg_pool1d", "avg_pool1d", (2, 3, 9), None, (3,), {"stride": 2, "padding": 1}),
    ("avg_pool1d-ceil-nopad", "avg_pool1d", (2, 2, 10), None, (3,),
     {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
    ("avg_pool2d-ceil", "avg_pool2d", (1, 2, 7, 8), None, (3,),
     {"stride": 2, "padding": 1, "ceil_mode": True}),
    ("avg_pool3d", "avg_pool3d", (1, 2, 5, 4, 6), None, (2,), {}),
    ("avg_pool3d-nopad", "avg_pool3d", (1, 2, 5, 5, 4), None, (3,),
     {"stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True}),
    ("avg_pool3d-divisor", "avg_pool3d", (1, 2, 4, 5, 4), None, (2,),
     {"stride": 1, "padding": 1, "divisor_override": 3}),
    ("adaptive_avg_pool1d", "adaptive_avg_pool1d", (2, 3, 10), None, (4,), {}),
    ("adaptive_avg_pool3d", "adaptive_avg_pool3d", (1, 2, 5, 7, 4), None, ((3, None, 3),), {}),
    ("adaptive_max_pool1d", "adaptive_max_pool1d", (2, 3, 10), None, (4,), {}),
    ("adaptive_max_pool2d", "adaptive_max_pool2d", (1, 2, 7, 5), None, ((3, 4),), {}),
    ("adaptive_max_pool3d", "adaptive_max_pool3d", (1, 2, 5, 4, 6), None, (3,), {}),
    ("lp_pool1d", "lp_pool1d", (2, 3, 9), None, (2, 3), {"stride": 2}),
    ("lp_pool2d", "lp_pool2d", (1, 2, 7, 6), None, (3, 2), {"ceil_mode": True}),
    ("lp_pool3d", "lp_pool3d", (1, 2, 4, 5, 4), None, (1.5, 2), {"stride": 1}),
]
# (id, function, input shape, positional args, keywords): these return (values, indices)
INDEXED = [
    ("max_pool1d", "max_pool1d_with_indices", (2, 3, 9), (3,), {"stride": 2, "padding": 1}),
    ("max_pool1d-ceil", "max_pool1d", (2, 2, 10), (3,),
     {"stride": 2, "ceil_mode": True, "return_indices": True}),
    ("max_pool2d", "max_pool2d_with_indices", (2, 2, 7, 6), (2,), {"dilation": 2}),
    ("max_pool2d-padded", "max_pool2d", (1, 2, 7, 8), (3,),
     {"stride": 2, "padding": 1, "return_indices": True}),
    ("max_pool3d", "max_pool3d_with_indices", (1, 2, 5, 5, 4), ((3, 2, 2),),
     {"stride": (2, 1, 2), "padding": (1, 1, 0), "ceil_mode": True}),
    ("adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", (2, 3, 10), (4,), {}),
    ("adaptive_max_pool2d", "adaptive_max_pool2d", (1, 2, 7, 5), ((3, 4),),
     {"return_indices": True}),
    ("adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", (1, 2, 5, 4, 6), (3,), {}),
]


def _distinct(shape, seed=0):
    """Distinct values (no ties between window elements), positive for the LP poolings."""
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    return (rng.permutation(n).reshape(shape) + 1.0) / n


def _arrays(fn, xs, ws, seed=0):
    x = _distinct(xs, seed)
    if fn.startswith("conv"):
        x = x - 0.5
    return [x] if ws is None else [x, np.random.default_rng(seed + 1).standard_normal(ws)]


def _run(fn, arrays, args, kw, requires_grad=False):
    ts = [mg.tensor(a, requires_grad=requires_grad) for a in arrays]
    return ts, getattr(F, fn)(*ts, *args, **kw)


# ---- window-by-window references (no PyTorch) ----------------------------------------------
def _out_len(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    return out - 1 if ceil and (out - 1) * s >= n + p else out


def _pool_ref(fn, x, args, kw):
    """Max and average pooling, one window at a time."""
    nd = x.ndim - 2

    def tup(v):
        return (v,) * nd if isinstance(v, int) else tuple(v)
    k = tup(args[0])
    s = tup(kw.get("stride") or k)
    p, d = tup(kw.get("padding", 0)), tup(kw.get("dilation", 1))
    ceil = kw.get("ceil_mode", False)
    out_shape = [_out_len(n, *a, ceil) for n, a in zip(x.shape[2:], zip(k, s, p, d))]
    out = np.zeros(x.shape[:2] + tuple(out_shape))
    for o in itertools.product(*map(range, out_shape)):
        pos = [[o[a] * s[a] - p[a] + j * d[a] for j in range(k[a])] for a in range(nd)]
        inside = [[q for q in ax if 0 <= q < n] for ax, n in zip(pos, x.shape[2:])]
        win = x[(slice(None), slice(None)) + np.ix_(*inside)].reshape(x.shape[:2] + (-1,))
        if fn.startswith("max"):
            out[(Ellipsis,) + o] = win.max(-1)
            continue
        if kw.get("divisor_override"):
            div = kw["divisor_override"]
        elif kw.get("count_include_pad", True):   # padding counted, the ceil overhang not
            div = math.prod(min(ax[0] + k_ * d_, n + p_) - ax[0] for ax, k_, d_, n, p_ in
                            zip(pos, k, d, x.shape[2:], p))
        else:
            div = win.shape[-1]
        out[(Ellipsis,) + o] = win.sum(-1) / div
    return out


def _conv3d_ref(x, w, stride=1, padding=0, dilation=1, groups=1):

    def tup(v):
        return (v,) * 3 if isinstance(v, int) else tuple(v)
    if padding == "same":
        padding = [di * (ki - 1) // 2 for di, ki in zip(tup(dilation), w.shape[2:])]
        extra = [di * (ki - 1) % 2 for di, ki in zip(tup(dilation), w.shape[2:])]
    else:
        padding, extra = tup(0 if padding == "valid" else padding), (0, 0, 0)
    s, d = tup(stride), tup(dilation)
    x = np.pad(x, [(0, 0), (0, 0)] + [(pi, pi + e) for pi, e in zip(padding, extra)])
    o, cg = w.shape[:2]
    span = [di * (ki - 1) + 1 for di, ki in zip(d, w.shape[2:])]
    out_shape = [(n - e) // si + 1 for n, e, si in zip(x.shape[2:], span, s)]
    out = np.zeros((x.shape[0], o, *out_shape))
    for z in itertools.product(*map(range, out_shape)):
        win = x[(slice(None), slice(None)) + tuple(
            slice(z[a] * s[a], z[a] * s[a] + span[a], d[a]) for a in range(3))]
        for g in range(groups):
            og = slice(g * (o // groups), (g + 1) * (o // groups))
            out[(slice(None), og) + z] = np.einsum(
                "ncdhw,ocdhw->no", win[:, g * cg:(g + 1) * cg], w[og])
    return out


def _conv_transpose_ref(x, w, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Each input element adds its weight-scaled kernel into the output (scatter form)."""
    nd = x.ndim - 2

    def tup(v):
        return (v,) * nd if isinstance(v, int) else tuple(v)
    s, p, op, d = tup(stride), tup(padding), tup(output_padding), tup(dilation)
    cin, og = w.shape[:2]
    k = w.shape[2:]
    full = [(n - 1) * si + di * (ki - 1) + 1 + o for n, si, di, ki, o in
            zip(x.shape[2:], s, d, k, op)]
    out = np.zeros((x.shape[0], og * groups, *full))
    for i in itertools.product(*map(range, x.shape[2:])):
        for j in itertools.product(*map(range, k)):
            at = tuple(i[a] * s[a] + j[a] * d[a] for a in range(nd))
            for g in range(groups):
                cs = slice(g * (cin // groups), (g + 1) * (cin // groups))
                out[(slice(None), slice(g * og, (g + 1) * og)) + at] += np.einsum(
                    "nc,co->no", x[(slice(None), cs) + i], w[(cs, slice(None)) + j])
    return out[(slice(None), slice(None)) + tuple(
        slice(pi, f - pi) for pi, f in zip(p, full))]


def _adaptive_ref(fn, x, size):
    nd = x.ndim - 2
    size = (size,) * nd if isinstance(size, int) else tuple(
        n if v is None else v for v, n in zip(size, x.shape[2:]))
    out = np.zeros(x.shape[:2] + size)
    for o in itertools.product(*map(range, size)):
        box = tuple(slice(oi * n // si, -(-(oi + 1) * n // si)) for oi, n, si in
                    zip(o, x.shape[2:], size))
        win = x[(slice(None), slice(None)) + box].reshape(x.shape[:2] + (-1,))
        out[(Ellipsis,) + o] = win.max(-1) if "max" in fn else win.mean(-1)
    return out


def _reference(fn, arrays, args, kw):
    if fn == "conv3d":
        return _conv3d_ref(*arrays, **kw)
    if fn.startswith("conv_transpose"):
        return _conv_transpose_ref(*arrays, **kw)
    if fn.startswith("adaptive"):
        return _adaptive_ref(fn, arrays[0], args[0])
    if fn.startswith("lp_pool"):
        norm, rest = args[0], args[1:]
        k = rest[0] if isinstance(rest[0], tuple) else (rest[0],) * (arrays[0].ndim - 2)
        avg = _pool_ref("avg", arrays[0] ** norm, rest, kw)
        return (avg * math.prod(k)) ** (1 / norm)
    return _pool_ref(fn, arrays[0], args, kw)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_match_the_window_by_window_reference(case):
    _, fn, xs, ws, args, kw = case
    arrays = _arrays(fn, xs, ws)
    unbatched = len(xs) == (len(ws) - 1 if ws else 0)
    if unbatched:       # the reference works on a batch of one
        ref = _reference(fn, [arrays[0][None]] + arrays[1:], args, kw)[0]
    else:
        ref = _reference(fn, arrays, args, kw)
    _, out = _run(fn, arrays, args, kw)
    assert list(out.shape) == list(ref.shape)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(case):
    _, fn, xs, ws, args, kw = case
    arrays = _arrays(fn, xs, ws)
    ts, out = _run(fn, arrays, args, kw, requires_grad=True)
    g = np.random.default_rng(5).standard_normal(tuple(out.shape))
    (out * mg.tensor(g)).sum().backward()

    def loss(*a):
        return float((getattr(F, fn)(*map(mg.tensor, a), *args, **kw).numpy() * g).sum())

    for t, want in zip(ts, numeric_grad(loss, [a.copy() for a in arrays])):
        np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch(case):
    torch = pytest.importorskip("torch")
    _, fn, xs, ws, args, kw = case
    arrays = _arrays(fn, xs, ws)
    ts, out = _run(fn, arrays, args, kw, requires_grad=True)
    tts = [torch.tensor(a, requires_grad=True) for a in arrays]
    want = getattr(torch.nn.functional, fn)(*tts, *args, **kw)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(5).standard_normal(tuple(want.shape))
    (out * mg.tensor(g)).sum().backward()
    (want * torch.tensor(g)).sum().backward()
    for t, tt in zip(ts, tts):
        np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", INDEXED, ids=[c[0] for c in INDEXED])
def test_indices_point_at_the_maxima_and_carry_the_gradient(case):
    _, fn, xs, args, kw = case
    x = _distinct(xs)
    xt = mg.tensor(x, requires_grad=True)
    out, idx = getattr(F, fn)(xt, *args, **kw)
    assert idx.dtype == mg.int64 and list(idx.shape) == list(out.shape)
    flat = x.reshape(xs[0], xs[1], -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.numpy().reshape(xs[0], xs[1], -1), 2).reshape(out.shape),
        out.numpy())
    out.sum().backward()
    want = np.zeros(flat.shape)
    np.put_along_axis(want, idx.numpy().reshape(xs[0], xs[1], -1), 1.0, 2)
    # each argmax gets the gradient once per window it wins
    counts = np.zeros(flat.shape)
    for n, c in np.ndindex(*xs[:2]):
        np.add.at(counts[n, c], idx.numpy().reshape(xs[0], xs[1], -1)[n, c], 1.0)
    np.testing.assert_array_equal(xt.grad.numpy().reshape(flat.shape), counts)


@pytest.mark.torch
@pytest.mark.parametrize("case", INDEXED, ids=[c[0] for c in INDEXED])
def test_indices_equal_pytorchs(case):
    torch = pytest.importorskip("torch")
    _, fn, xs, args, kw = case
    # ties (a constant row, repeated values) and NaN: PyTorch's first maximum, NaN over numbers
    x = np.round(_distinct(xs) * 4) / 4
    x.reshape(-1)[::7] = np.nan
    out, idx = getattr(F, fn)(mg.tensor(x), *args, **kw)
    want, want_idx = getattr(torch.nn.functional, fn)(torch.tensor(x), *args, **kw)
    np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
    np.testing.assert_array_equal(out.numpy(), want.numpy())


def test_integer_average_pooling_truncates_the_quotient_as_pytorch():
    # (-5 + -4) / 2 = -4.5 and (1 + 2) / 2 = 1.5: PyTorch's integer division truncates
    for fn, x in [(F.avg_pool1d, mg.tensor([[[-5, -4, 1, 2]]])),
                  (F.avg_pool3d, mg.tensor([[[[[-5, -4, 1, 2]]]]]))]:
        k = 2 if fn is F.avg_pool1d else (1, 1, 2)
        out = fn(x, k, ceil_mode=True)
        assert out.dtype == mg.int64
        np.testing.assert_array_equal(out.numpy().ravel(), [-4, 1])


# ---- max unpooling -------------------------------------------------------------------------
UNPOOL = [   # (dims, input shape, kernel, keywords, output_size)
    (1, (2, 3, 9), 3, {"stride": 2, "padding": 1}, None),
    (2, (1, 2, 7, 8), 2, {}, (7, 8)),
    (3, (1, 2, 4, 5, 4), 2, {"stride": 2}, (4, 5, 4)),
]


@pytest.mark.parametrize("n, xs, k, kw, size", UNPOOL)
def test_max_unpool_puts_each_value_at_its_index(n, xs, k, kw, size):
    x = _distinct(xs)
    out, idx = getattr(F, f"max_pool{n}d")(mg.tensor(x), k, return_indices=True, **kw)
    v = mg.tensor(out.numpy(), requires_grad=True)
    u = getattr(F, f"max_unpool{n}d")(v, idx, k, output_size=size, **kw)
    want_shape = size or tuple((o - 1) * kw.get("stride", k) - 2 * kw.get("padding", 0) + k
                               for o in out.shape[2:])
    assert tuple(u.shape[2:]) == tuple(want_shape)
    flat = u.numpy().reshape(xs[0], xs[1], -1)
    want = np.zeros_like(flat)
    np.put_along_axis(want, idx.numpy().reshape(xs[0], xs[1], -1),
                      out.numpy().reshape(xs[0], xs[1], -1), 2)
    np.testing.assert_array_equal(flat, want)
    g = np.random.default_rng(3).standard_normal(tuple(u.shape))
    (u * mg.tensor(g)).sum().backward()
    np.testing.assert_array_equal(
        v.grad.numpy().reshape(xs[0], xs[1], -1),
        np.take_along_axis(g.reshape(xs[0], xs[1], -1), idx.numpy().reshape(xs[0], xs[1], -1),
                           2))


@pytest.mark.torch
@pytest.mark.parametrize("n, xs, k, kw, size", UNPOOL)
def test_max_unpool_matches_pytorch(n, xs, k, kw, size):
    torch = pytest.importorskip("torch")
    x = _distinct(xs)
    tout, tidx = getattr(torch.nn.functional, f"max_pool{n}d")(torch.tensor(x), k,
                                                                 return_indices=True, **kw)
    got = getattr(F, f"max_unpool{n}d")(mg.tensor(tout.numpy()), mg.tensor(tidx.numpy()), k,
                                        output_size=size, **kw)
    want = getattr(torch.nn.functional, f"max_unpool{n}d")(tout, tidx, k, output_size=size,
                                                           **kw)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_max_unpool_refuses_an_index_outside_the_output():
    with pytest.raises(IndexError, match="out of bounds"):
        F.max_unpool1d(mg.ones([1, 1, 2]), mg.tensor(np.array([[[0, 9]]])), 2)


# ---- fractional max pooling ----------------------------------------------------------------
FRACTIONAL = [   # (dims, input shape, kernel, keywords)
    (2, (2, 3, 9, 8), (2, 3), {"output_size": (4, 3)}),
    (2, (1, 2, 10, 10), 3, {"output_ratio": (0.5, 0.5)}),
    (3, (2, 2, 7, 8, 6), 2, {"output_size": (3, 4, 2)}),
]


def _samples(xs, n, seed=4):
    return np.random.default_rng(seed).random((xs[0], xs[1], n))


@pytest.mark.parametrize("n, xs, k, kw", FRACTIONAL)
def test_fractional_max_pool_windows_are_kernel_sized_and_span_the_input(n, xs, k, kw):
    x = _distinct(xs)
    fn = getattr(F, f"fractional_max_pool{n}d")
    out, idx = fn(mg.tensor(x), k, return_indices=True, _random_samples=mg.tensor(
        _samples(xs, n)), **kw)
    flat = x.reshape(xs[0], xs[1], -1)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.numpy().reshape(xs[0], xs[1], -1), 2).reshape(out.shape),
        out.numpy())
    # the last window ends at the input's end along every axis: its argmax lies in it
    coords = np.unravel_index(idx.numpy(), xs[2:])
    kk = (k,) * n if isinstance(k, int) else k
    for a in range(n):
        last = np.take(coords[a], -1, axis=2 + a)
        assert (last >= xs[2 + a] - kk[a]).all()
    # the same samples, the same windows; mutograd's RNG, after the same seed, too
    again = fn(mg.tensor(x), k, _random_samples=mg.tensor(_samples(xs, n)), **kw)
    np.testing.assert_array_equal(again.numpy(), out.numpy())
    mg.seed(3)
    first = fn(mg.tensor(x), k, **kw)
    mg.seed(3)
    np.testing.assert_array_equal(fn(mg.tensor(x), k, **kw).numpy(), first.numpy())


@pytest.mark.parametrize("n, xs, k, kw", FRACTIONAL)
def test_fractional_max_pool_gradient_matches_finite_differences(n, xs, k, kw):
    x = _distinct(xs)
    s = mg.tensor(_samples(xs, n))
    fn = getattr(F, f"fractional_max_pool{n}d")
    xt = mg.tensor(x, requires_grad=True)
    out = fn(xt, k, _random_samples=s, **kw)
    g = np.random.default_rng(6).standard_normal(tuple(out.shape))
    (out * mg.tensor(g)).sum().backward()
    want, = numeric_grad(lambda a: float((fn(mg.tensor(a), k, _random_samples=s, **kw).numpy()
                                          * g).sum()), [x.copy()])
    np.testing.assert_allclose(xt.grad.numpy(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.torch
@pytest.mark.parametrize("n, xs, k, kw", FRACTIONAL)
def test_fractional_max_pool_matches_pytorch(n, xs, k, kw):
    torch = pytest.importorskip("torch")
    x = _distinct(xs)
    s = _samples(xs, n)
    out, idx = getattr(F, f"fractional_max_pool{n}d")(
        mg.tensor(x), k, return_indices=True, _random_samples=mg.tensor(s), **kw)
    want, want_idx = getattr(torch.nn.functional, f"fractional_max_pool{n}d")(
        torch.tensor(x), k, return_indices=True, _random_samples=torch.tensor(s), **kw)
    np.testing.assert_array_equal(idx.numpy(), want_idx.numpy())
    np.testing.assert_array_equal(out.numpy(), want.numpy())


# ---- modules -------------------------------------------------------------------------------
MODULES = [   # (class, args, keywords, input shape, {parameter: shape})
    ("Conv3d", (4, 6, (2, 3, 2)), {"stride": (1, 2, 1), "padding": 1, "groups": 2},
     (2, 4, 5, 6, 5), {"weight": [6, 2, 2, 3, 2], "bias": [6]}),
    ("ConvTranspose1d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1,
                                    "groups": 2}, (2, 4, 7),
     {"weight": [4, 3, 3], "bias": [6]}),
    ("ConvTranspose3d", (4, 6, 3), {"stride": 2, "padding": 1, "groups": 2, "bias": False},
     (2, 4, 3, 4, 3), {"weight": [4, 3, 3, 3, 3]}),
    ("MaxPool1d", (3,), {"stride": 2, "ceil_mode": True}, (2, 3, 10), {}),
    ("MaxPool2d", (3,), {"stride": 2, "ceil_mode": True}, (2, 3, 10, 9), {}),
    ("MaxPool3d", (2,), {"return_indices": True}, (2, 3, 6, 5, 4), {}),
    ("AvgPool1d", (3, 2, 1), {"count_include_pad": False}, (2, 3, 10), {}),
    ("AvgPool2d", (3, 2, 1, True), {}, (2, 3, 10, 9), {}),
    ("AvgPool3d", (3, 2, 1), {"divisor_override": 4}, (2, 3, 6, 5, 7), {}),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 10), {}),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 3, 6, 5, 7), {}),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 10), {}),
    ("AdaptiveMaxPool2d", ((3, 4),), {"return_indices": True}, (2, 3, 10, 9), {}),
    ("AdaptiveMaxPool3d", (2,), {}, (2, 3, 6, 5, 7), {}),
    ("LPPool1d", (2, 3), {}, (2, 3, 10), {}),
    ("LPPool2d", (1.5, 2), {"stride": 1}, (2, 3, 10, 9), {}),
    ("LPPool3d", (2, 2), {"ceil_mode": True}, (2, 3, 5, 5, 7), {}),
    ("FractionalMaxPool2d", (2,), {"output_size": 3}, (2, 3, 8, 7), {}),
    ("FractionalMaxPool3d", (2,), {"output_ratio": 0.5, "return_indices": True},
     (1, 2, 6, 6, 6), {}),
]


def _module_io(name, args, kw, xs):
    m = getattr(nn, name)(*args, **kw)
    x = _distinct(xs)
    if name.startswith("Fractional"):
        m._random_samples = mg.tensor(_samples(xs, len(xs) - 2))
    return m, x


@pytest.mark.parametrize("name, args, kw, xs, params", MODULES, ids=[m[0] for m in MODULES])
def test_module_parameters_and_result(name, args, kw, xs, params):
    m, x = _module_io(name, args, kw, xs)
    assert {k: list(v.shape) for k, v in m.named_parameters()} == params
    out = m(mg.tensor(x))
    fn_kw = {k: getattr(m, k) for k in m._args} if hasattr(m, "_args") else None
    if fn_kw is not None:   # a pooling module is its function with the same arguments
        fn = getattr(F, {"MaxPool": "max_pool", "AvgPool": "avg_pool", "LPPool": "lp_pool",
                         "AdaptiveAvgPool": "adaptive_avg_pool",
                         "AdaptiveMaxPool": "adaptive_max_pool",
                         "FractionalMaxPool": "fractional_max_pool"}[name[:-2]] + name[-2:])
        want = fn(mg.tensor(x), **fn_kw)
        got, want = (out, want) if not isinstance(out, tuple) else (out[0], want[0])
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.torch
@pytest.mark.parametrize("name, args, kw, xs, params", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_pytorch(name, args, kw, xs, params):
    torch = pytest.importorskip("torch")
    m, x = _module_io(name, args, kw, xs)
    t = getattr(torch.nn, name)(*args, **kw).double()
    if name.startswith("Fractional"):
        t._random_samples = torch.tensor(m._random_samples.numpy())
    sd = t.state_dict()
    assert [(k, list(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in sd.items()]
    m.load_state_dict({k: mg.tensor(v.numpy()) for k, v in sd.items()})
    out, want = m(mg.tensor(x)), t(torch.tensor(x))
    if isinstance(want, tuple):
        np.testing.assert_array_equal(out[1].numpy(), want[1].numpy())
        out, want = out[0], want[0]
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"])
def test_conv_transpose_module_output_size_picks_the_output_padding(name):
    n = int(name[-2])
    m = getattr(nn, name)(2, 3, 3, stride=2, padding=1)
    x = mg.randn([1, 2] + [4] * n)
    assert list(m(x).shape[2:]) == [7] * n
    assert list(m(x, output_size=[8] * n).shape[2:]) == [8] * n
    with pytest.raises(ValueError, match="valid sizes range from"):
        m(x, output_size=[9] * n)


def test_max_unpool_module_inverts_max_pool():
    pool, unpool = nn.MaxPool2d(2, return_indices=True), nn.MaxUnpool2d(2)
    x = mg.tensor(_distinct((1, 2, 4, 6)))
    out, idx = pool(x)
    u = unpool(out, idx, output_size=[1, 2, 4, 6])
    np.testing.assert_array_equal(F.max_pool2d(u, 2).numpy(), out.numpy())
    assert int((u.numpy() != 0).sum()) == out.numpy().size


# ---- errors --------------------------------------------------------------------------------
ERRORS = [   # (call, error class, message)
    (lambda: F.conv3d(mg.ones([1, 3, 4, 4, 4]), mg.ones([2, 2, 2, 2, 2])), ShapeError,
     "expected input with 2 channels"),
    (lambda: F.conv3d(mg.ones([1, 2, 4, 4]), mg.ones([2, 2, 2, 2])), ShapeError,
     "weight must be 5-D"),
    (lambda: F.conv3d(mg.ones([1, 2, 4, 4, 4]), mg.ones([2, 2, 2, 2, 2]), stride=2,
                      padding="same"), ValueError, "not supported for strided"),
    (lambda: F.max_pool3d(mg.ones([1, 1, 4, 4, 4]), 2, padding=2), ValueError,
     "at most half of effective kernel size"),
    (lambda: F.max_pool1d(mg.ones([1, 1, 2]), 3), ShapeError, "smaller than the"),
    (lambda: F.max_pool1d(mg.ones([2, 1, 1, 2]), 3), ShapeError, "expected a 2-D"),
    (lambda: F.avg_pool3d(mg.ones([1, 1, 2, 2, 2], dtype=mg.bool), 2), DTypeError,
     "not implemented for bool"),
    (lambda: F.max_pool1d(mg.ones([1, 1, 4], dtype=mg.bool), 2), DTypeError,
     "not implemented for bool"),
    (lambda: F.fractional_max_pool2d(mg.ones([1, 1, 4, 4]), 2), ValueError,
     "either an output_size or an output_ratio"),
    (lambda: F.fractional_max_pool2d(mg.ones([1, 1, 4, 4]), 2, output_size=4), ValueError,
     "too large"),
    (lambda: F.conv_transpose3d(mg.ones([1, 2, 2, 2, 2]), mg.ones([2, 1, 2, 2, 2]),
                                output_padding=2), ValueError, "must be smaller"),
    (lambda: nn.Conv3d(3, 4, 2, groups=2), ValueError, "divisible by groups"),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_say_what_is_wrong(i):
    fn, cls, msg = ERRORS[i]
    with pytest.raises(cls, match=msg):
        fn()


# ---- on another place ----------------------------------------------------------------------
def _results(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("case", CASES + [(c[0] + "-indices", c[1], c[2], None, c[3], c[4])
                                          for c in INDEXED],
                         ids=[c[0] for c in CASES] + [c[0] + "-indices" for c in INDEXED])
def test_results_and_gradients_on_a_device_equal_the_cpus(case, fake_gpu):
    _, fn, xs, ws, args, kw = case
    arrays = _arrays(fn, xs, ws)
    grads, outs = [], []
    for where in ("cpu", "gpu:0"):
        ts = [mg.tensor(a, device=where, requires_grad=True) for a in arrays]
        parts = _results(getattr(F, fn)(*ts, *args, **kw))
        assert all(str(p.place) == where for p in parts)
        parts[0].sum().backward()
        outs.append([p.cpu().numpy() for p in parts])
        grads.append([t.grad.cpu().numpy() for t in ts])
    for a, b in zip(outs[0] + grads[0], outs[1] + grads[1]):
        np.testing.assert_array_equal(a, b)


def test_unpool_and_fractional_pool_on_a_device_equal_the_cpus(fake_gpu):
    x = _distinct((1, 2, 9, 8))
    got = []
    for where in ("cpu", "gpu:0"):
        mg.seed(7)
        out, idx = F.fractional_max_pool2d(mg.tensor(x, device=where), 2, output_size=4,
                                           return_indices=True)
        u = F.max_unpool2d(out, idx, 2, output_size=(9, 8))
        got.append([t.cpu().numpy() for t in (out, idx, u)])
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)


@pytest.mark.torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("name, xs, kw", [
    ("Conv1d", (2, 2, 9), {"padding": 2}),
    ("Conv2d", (1, 2, 6, 7), {"padding": (1, 2), "stride": 2}),
    ("Conv2d", (1, 2, 6, 7), {"padding": "same", "dilation": 2}),
    ("Conv3d", (1, 2, 4, 5, 4), {"padding": 1, "groups": 2}),
])
def test_convolution_padding_modes_match_pytorch(name, xs, kw, mode):
    torch = pytest.importorskip("torch")
    t = getattr(torch.nn, name)(2, 4, 3, padding_mode=mode, **kw).double()
    m = getattr(nn, name)(2, 4, 3, padding_mode=mode, dtype=mg.float64, **kw)
    m.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = _distinct(xs)
    xm, xt = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, want = m(xm), t(xt)
    np.testing.assert_allclose(out.numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    out.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(m.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("cls", ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                                 "ConvTranspose3d"])
def test_padding_mode_is_checked(cls):
    with pytest.raises(ValueError, match="padding"):
        getattr(nn, cls)(2, 2, 3, padding_mode="mirror")
    if cls.startswith("ConvTranspose"):
        with pytest.raises(ValueError, match='Only "zeros" padding mode'):
            getattr(nn, cls)(2, 2, 3, padding_mode="reflect")


def test_reflect_padding_mode_equals_padding_by_hand():
    m = nn.Conv1d(1, 1, 3, padding=1, padding_mode="reflect", bias=False)
    x = mg.tensor([[[1.0, 2.0, 4.0, 8.0]]])
    want = F.conv1d(F.pad(x, (1, 1), mode="reflect"), m.weight)
    np.testing.assert_array_equal(m(x).detach().numpy(), want.detach().numpy())


BATCHED = [c for c in CASES if c[3] is None or len(c[2]) == len(c[3])] + [
    (c[0] + "-indices", c[1], c[2], None, c[3], c[4]) for c in INDEXED]


@pytest.mark.parametrize("case", BATCHED, ids=[c[0] for c in BATCHED])
def test_an_empty_batch_gives_an_empty_result_of_the_same_layout(case):
    _, fn, xs, ws, args, kw = case
    arrays = _arrays(fn, xs, ws)
    full = _results(_run(fn, arrays, args, kw)[1])
    ts, out = _run(fn, [arrays[0][:0]] + arrays[1:], args, kw, requires_grad=True)
    parts = _results(out)
    assert [list(p.shape) for p in parts] == [[0] + list(p.shape[1:]) for p in full]
    parts[0].sum().backward()
    assert list(ts[0].grad.shape) == [0] + list(xs[1:])
