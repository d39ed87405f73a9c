"""Convolution and pooling beyond the op table's rows: geometries, layouts, dtypes, batch sizes
(one, empty, several blocks of the im2col buffer), and what the backward keeps."""
import numpy as np
import pytest
from tests.op_db import _conv2d_ref, _conv_transpose2d_ref, _pool_ref

import mutograd as mg
import mutograd.nn.functional as F
from mutograd.ops import convolution as nn_ops

# (x shape, weight shape, keywords)
CONV = [
    ((2, 3, 9, 8), (5, 3, 3, 3), {"padding": 1}),
    ((3, 2, 8, 11), (4, 2, 3, 5), {"stride": (2, 3), "padding": (1, 2)}),
    ((2, 4, 9, 9), (4, 1, 3, 3), {"groups": 4, "dilation": 2, "padding": 2}),   # depthwise
    ((1, 6, 7, 5), (9, 2, 1, 1), {"groups": 3}),                                # 1x1
    ((2, 2, 5, 5), (3, 2, 5, 5), {}),                                           # one window
    ((2, 1, 6, 6), (2, 1, 2, 2), {"stride": 2}),                                # tiling
]
POOL = [
    ((2, 3, 8, 8), {"kernel_size": 2}),
    ((2, 2, 9, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((1, 2, 9, 9), {"kernel_size": (3, 2), "stride": (1, 2), "dilation": (2, 1)}),
    ((2, 1, 6, 6), {"kernel_size": 2, "stride": 3}),                   # gaps between windows
]


def _rng_inputs(shapes, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.permutation(np.prod(s)).reshape(s) / np.prod(s) - 0.5).astype(dtype)
            for s in shapes]


def _conv_grads(x, w, kw, g):
    xt, wt = mg.tensor(x, requires_grad=True), mg.tensor(w, requires_grad=True)
    out = F.conv2d(xt, wt, **kw)
    (out * mg.tensor(g)).sum().backward()
    return out.numpy(), xt.grad.numpy(), wt.grad.numpy()


@pytest.fixture(params=[False, True], ids=["one-block", "many-blocks"])
def blocks(request, monkeypatch):
    """The batch in one im2col block, or in blocks of one or two images."""
    if request.param:
        monkeypatch.setattr(nn_ops, "_BLOCK_BYTES", 1)
    return request.param


@pytest.mark.parametrize("xs, ws, kw", CONV)
def test_conv2d_matches_the_window_by_window_reference(xs, ws, kw, blocks):
    x, w = _rng_inputs([xs, ws])
    want = _conv2d_ref(x, w, **kw)
    got = F.conv2d(mg.tensor(x), mg.tensor(w), **kw)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    assert got.numpy().flags.c_contiguous


@pytest.mark.torch
@pytest.mark.parametrize("xs, ws, kw", CONV)
def test_conv2d_gradients_match_pytorch(xs, ws, kw, blocks):
    torch = pytest.importorskip("torch")
    x, w = _rng_inputs([xs, ws])
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ot = torch.nn.functional.conv2d(xt, wt, **kw)
    g = np.random.default_rng(1).standard_normal(tuple(ot.shape))
    (ot * torch.tensor(g)).sum().backward()
    out, gx, gw = _conv_grads(x, w, kw, g)
    np.testing.assert_allclose(out, ot.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gx, xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gw, wt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_conv2d_of_non_contiguous_inputs_equals_that_of_copies():
    x, w = _rng_inputs([(3, 2, 9, 7), (4, 2, 3, 3)])
    xv = mg.tensor(x, requires_grad=True)
    wv = mg.tensor(w, requires_grad=True)
    g = np.random.default_rng(2).standard_normal((9, 4, 3, 5))
    # (N, C, H, W) as a transposed view, the weight reversed along a kernel axis
    out = F.conv2d(xv.permute(2, 1, 0, 3), wv.flip(3), padding=(1, 0))
    (out * mg.tensor(g)).sum().backward()
    xc = np.ascontiguousarray(x.transpose(2, 1, 0, 3))
    wc = np.ascontiguousarray(w[..., ::-1])
    want, gx, gw = _conv_grads(xc, wc, {"padding": (1, 0)}, g)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(xv.grad.numpy(), gx.transpose(2, 1, 0, 3), rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(wv.grad.numpy(), gw[..., ::-1], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_conv2d_keeps_the_dtype_and_batch_one_equals_a_slice_of_the_batch(dtype):
    x, w = _rng_inputs([(3, 2, 6, 6), (3, 2, 3, 3)], dtype)
    whole = F.conv2d(mg.tensor(x), mg.tensor(w), padding=1)
    one = F.conv2d(mg.tensor(x[1:2]), mg.tensor(w), padding=1)
    unbatched = F.conv2d(mg.tensor(x[1]), mg.tensor(w), padding=1)
    assert whole.dtype == one.dtype == getattr(mg, dtype)
    np.testing.assert_allclose(one.numpy()[0], whole.numpy()[1], rtol=1e-6)
    np.testing.assert_array_equal(unbatched.numpy(), one.numpy()[0])


def test_empty_batch_gives_empty_results_and_zero_weight_gradients():
    x = mg.zeros(0, 2, 5, 5, requires_grad=True)
    w = mg.ones(3, 2, 3, 3, requires_grad=True)
    out = F.conv2d(x, w, padding=1)
    pooled = F.max_pool2d(out, 2)
    assert tuple(out.shape) == (0, 3, 5, 5) and tuple(pooled.shape) == (0, 3, 2, 2)
    pooled.sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 5, 5)
    np.testing.assert_array_equal(w.grad.numpy(), np.zeros((3, 2, 3, 3)))


@pytest.mark.parametrize("kind, xs, kw", [("max", *p) for p in POOL] + [
    ("avg", *p) for p in POOL if "dilation" not in p[1]])      # (avg_pool2d has no dilation)
def test_pools_match_the_window_by_window_reference(kind, xs, kw):
    (x,) = _rng_inputs([xs])
    got = getattr(F, f"{kind}_pool2d")(mg.tensor(x), **kw)
    np.testing.assert_allclose(got.numpy(), _pool_ref(kind)(x, **kw), rtol=1e-12)


@pytest.mark.torch
@pytest.mark.parametrize("xs, kw", POOL)
def test_max_pool_gradient_goes_where_pytorchs_goes_with_ties_and_nan(xs, kw):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, xs).astype(np.float64)       # many ties inside windows
    x.flat[::7] = np.nan
    x.flat[3::11] = -0.0
    g = rng.standard_normal(tuple(torch.nn.functional.max_pool2d(torch.tensor(x), **kw).shape))
    xt = torch.tensor(x, requires_grad=True)
    ot = torch.nn.functional.max_pool2d(xt, **kw)
    (ot * torch.tensor(g)).sum().backward()
    xm = mg.tensor(x, requires_grad=True)
    om = F.max_pool2d(xm, **kw)
    (om * mg.tensor(g)).sum().backward()
    np.testing.assert_array_equal(om.numpy(), ot.detach().numpy())
    np.testing.assert_array_equal(np.signbit(om.numpy()), np.signbit(ot.detach().numpy()))
    # (overlapping windows add their shares in another order: equal up to rounding)
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-15, atol=0)


def test_max_pool_keeps_its_argmax_not_its_input():
    """The backward needs only where each maximum was (one byte per output element), so the
    input may be written in place after pooling."""
    x = mg.tensor(_rng_inputs([(2, 3, 8, 8)])[0], requires_grad=True)
    h = x * 1
    out = F.max_pool2d(h, 2)
    want = np.zeros((2, 3, 8, 8))
    hv = h.detach().numpy().reshape(2, 3, 4, 2, 4, 2).transpose(0, 1, 2, 4, 3, 5)
    first = hv.reshape(2, 3, 4, 4, 4).argmax(-1)
    for idx in np.ndindex(first.shape):
        i, j = divmod(first[idx], 2)
        want[idx[0], idx[1], 2 * idx[2] + i, 2 * idx[3] + j] = 1
    h.mul_(0)                                       # no version error: h is not saved
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("kw", [
    {"stride": 2, "padding": 1, "output_padding": 1},
    {"stride": 1, "dilation": 2, "output_padding": 1},         # longer than stride 1 reaches
    {"stride": (2, 1), "dilation": (1, 2), "output_padding": (1, 1), "padding": 1},
], ids=["stride2", "stride1-dilated", "mixed"])
def test_conv_transpose2d_matches_the_reference_in_blocks(kw, blocks):
    x, w = _rng_inputs([(3, 4, 4, 3), (4, 3, 3, 2)])
    got = F.conv_transpose2d(mg.tensor(x), mg.tensor(w), **kw)
    np.testing.assert_allclose(got.numpy(), _conv_transpose2d_ref(x, w, **kw), rtol=1e-12,
                               atol=1e-12)


def _backward_peak():
    """Peak bytes NumPy allocates during a convolution's backward (buffer cache off)."""
    import tracemalloc
    x = mg.randn(64, 16, 14, 14, requires_grad=True)
    w = mg.randn(32, 16, 3, 3, requires_grad=True)
    out = F.conv2d(x, w, padding=1)
    g = mg.ones(out.shape)
    mg.memory.set_cache(enabled=False)
    try:
        tracemalloc.start()
        out.backward(g)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        mg.memory.set_cache(enabled=True)


def test_conv2d_backward_memory_is_bounded_by_the_block(monkeypatch):
    """Beyond the gradients themselves, a convolution's backward needs about one block of
    columns, not the whole batch's (9x the input for a 3x3 kernel)."""
    blocked = _backward_peak()
    monkeypatch.setattr(nn_ops, "_BLOCK_BYTES", 1 << 40)
    whole = _backward_peak()
    columns = 64 * 16 * 9 * 14 * 14 * 4
    assert blocked + columns / 2 < whole, (blocked, whole, columns)


@pytest.mark.parametrize("contestant", ["mutograd",
                                        pytest.param("torch", marks=pytest.mark.torch)])
def test_mnist_benchmark_contestants_take_the_same_training_steps(contestant):
    """benchmarks/workloads_conv.py: the hand-written NumPy backward, mutograd's autograd and
    PyTorch's train the same way from the same weights."""
    if contestant == "torch":
        pytest.importorskip("torch")
    from benchmarks.workloads_conv import MnistCnnStep as W

    def losses(contestant):
        step = getattr(W, contestant)(W.tiny)
        return [float(np.asarray(step() if contestant == "numpy" else step().detach().numpy()))
                for _ in range(3)]
    ref = losses("numpy")
    np.testing.assert_allclose(losses(contestant), ref, rtol=1e-5)
    assert ref[-1] < ref[0]


def test_max_pool_of_a_bool_tensor_is_a_dtype_error():
    with pytest.raises(mg.DTypeError, match="not implemented for bool"):
        F.max_pool2d(mg.tensor(np.ones((1, 1, 4, 4), bool)), 2)
