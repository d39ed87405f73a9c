"""Second-order gradients of the ``nn.functional`` layers (design.md rule 13), against PyTorch's
double backward (or float64 finite differences where PyTorch has none).

The op table (tests/ops/test_ops_second_order.py) checks the declared ops themselves (conv2d,
max_pool2d, layer_norm, ...); these layers are built on them in other shapes and with other
arguments: 1-d and 3-d convolution and pooling, adaptive and power-average pooling, group,
instance, RMS and local response normalisation, batch norm with running statistics, embeddings
with ``padding_idx`` (whose padding row gets no gradient, so the table checks it against PyTorch
only at first order) and bags, and the activations. For each, with weights ``w`` on the output
and ``u`` on the inputs, the gradient of ``sum(g(x, w) * u)``, ``g`` the first gradient taken
with ``create_graph=True``, w.r.t. the inputs and ``w`` must be PyTorch's.
"""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg
import mutograd.nn.functional as MF

pytestmark = pytest.mark.torch

_IDX = np.array([[0, 2, 4], [2, 2, 1]])


def _case(id, fn, *shapes, positive=False, fd=False):
    """``fn(F, T, *tensors)`` with ``F`` the functional namespace and ``T`` the framework (for
    constant tensors); ``shapes`` of the float inputs, all differentiated. ``fd``: PyTorch has
    no double backward for it, so the oracle is float64 finite differences."""
    return pytest.param(fn, shapes, positive, fd, id=id)


CASES = [
    # convolution and pooling in 1-d and 3-d
    _case("conv1d", lambda F, T, x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
          (2, 3, 7), (4, 3, 3), (4,)),
    _case("conv3d", lambda F, T, x, w: F.conv3d(x, w, padding=(1, 0, 1), dilation=(1, 2, 1)),
          (1, 2, 4, 5, 4), (3, 2, 2, 2, 3)),
    _case("conv_transpose1d", lambda F, T, x, w: F.conv_transpose1d(x, w, stride=2, padding=1),
          (2, 4, 5), (4, 3, 3)),
    _case("max_pool1d", lambda F, T, x: F.max_pool1d(x, 3, stride=2, padding=1), (2, 3, 9)),
    _case("max_pool3d", lambda F, T, x: F.max_pool3d(x, 2), (1, 2, 4, 4, 6)),
    _case("avg_pool1d", lambda F, T, x: F.avg_pool1d(x, 3, stride=2, padding=1,
                                                      count_include_pad=False), (2, 3, 8)),
    _case("avg_pool3d", lambda F, T, x: F.avg_pool3d(x, 2, stride=1), (1, 2, 3, 4, 3)),
    _case("adaptive_avg_pool1d", lambda F, T, x: F.adaptive_avg_pool1d(x, 3), (2, 3, 7)),
    _case("adaptive_avg_pool3d", lambda F, T, x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
          (1, 2, 5, 4, 3)),
    _case("adaptive_max_pool2d", lambda F, T, x: F.adaptive_max_pool2d(x, (2, 3)),
          (1, 2, 5, 7)),
    _case("lp_pool2d", lambda F, T, x: F.lp_pool2d(x, 2, 2), (1, 2, 4, 6), positive=True),
    _case("max_unpool2d", lambda F, T, x: F.max_unpool2d(
        *F.max_pool2d(x, 2, return_indices=True), 2), (1, 2, 4, 6)),
    # normalisation
    _case("group_norm", lambda F, T, x, w, b: F.group_norm(x, 2, w, b), (2, 4, 3), (4,), (4,)),
    _case("instance_norm", lambda F, T, x, w, b: F.instance_norm(x, weight=w, bias=b),
          (2, 3, 5), (3,), (3,)),
    _case("rms_norm", lambda F, T, x, w: F.rms_norm(x, (4,), w, eps=1e-6), (3, 4), (4,)),
    _case("local_response_norm", lambda F, T, x: F.local_response_norm(x, 3), (2, 5, 4)),
    _case("batch_norm-running-stats", lambda F, T, x, w, b: F.batch_norm(
        x, T.tensor([0.1, -0.2, 0.3], dtype=T.float64), T.tensor([1.5, 0.5, 2.0],
                                                                  dtype=T.float64), w, b),
          (4, 3, 2), (3,), (3,)),
    _case("layer_norm-3d-weight-only", lambda F, T, x, w: F.layer_norm(x, (2, 3), w),
          (2, 2, 3), (2, 3)),
    # embeddings
    _case("embedding-padding-idx", lambda F, T, w: F.embedding(T.tensor(_IDX), w, padding_idx=2),
          (5, 3)),
    _case("embedding_bag", lambda F, T, w: F.embedding_bag(T.tensor(_IDX), w, mode="mean"),
          (5, 3), fd=True),
    # activations (the table has those that are declared ops; these are built on them)
    _case("logsigmoid", lambda F, T, x: F.logsigmoid(x), (3, 4)),
    _case("softsign", lambda F, T, x: F.softsign(x), (3, 4)),
    _case("tanhshrink", lambda F, T, x: F.tanhshrink(x), (3, 4)),
    _case("softshrink", lambda F, T, x: F.softshrink(x, 0.3), (3, 4)),
    _case("hardshrink", lambda F, T, x: F.hardshrink(x, 0.3), (3, 4)),
    _case("glu", lambda F, T, x: F.glu(x, 1), (3, 4)),
    _case("prelu", lambda F, T, x, w: F.prelu(x, w), (2, 3, 4), (3,), positive=True),
    _case("softplus-beta", lambda F, T, x: F.softplus(x, beta=2.0, threshold=3.0), (3, 4)),
    _case("celu", lambda F, T, x: F.celu(x, 1.5), (3, 4), positive=True),
    _case("selu", lambda F, T, x: F.selu(x), (3, 4), positive=True),
    _case("mish", lambda F, T, x: F.mish(x), (3, 4)),
    _case("hardsigmoid", lambda F, T, x: F.hardsigmoid(x), (3, 4), positive=True, fd=True),
    _case("hardswish", lambda F, T, x: F.hardswish(x), (3, 4), positive=True),
    _case("hardtanh", lambda F, T, x: F.hardtanh(x, -0.5, 0.5), (3, 4), positive=True),
    _case("threshold", lambda F, T, x: F.threshold(x, 0.2, -1.0), (3, 4), positive=True),
]


def _inputs(shapes, positive, rng):
    xs = [rng.uniform(-2, 2, s) for s in shapes]
    if positive:   # away from the kinks: 0, and hardtanh's +-0.5 and threshold's 0.2
        xs = [np.where(np.abs(x) < 0.7, np.copysign(0.7, x) + x, x) for x in xs]
    return xs


def _second(T, F, fn, arrays, w, u):
    """The first gradients, and the gradients of ``sum(g * u)`` w.r.t. the inputs and ``w``."""
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    wt = T.tensor(w, requires_grad=True)
    y = fn(F, T, *xs)
    y = y[0] if isinstance(y, tuple) else y
    gs = T.autograd.grad((y * wt).sum(), xs, create_graph=True)
    total = sum((g * T.tensor(v)).sum() for g, v in zip(gs, u))
    second = T.autograd.grad(total, xs + [wt], allow_unused=True)
    return ([g.detach().numpy() for g in gs],
            [np.zeros(np.shape(a)) if h is None else h.numpy() for h, a in
             zip(second, arrays + [w])])


def _finite_differences(fn, arrays, w, u):
    """What ``_second`` gives, from float64 central differences of the first gradients."""
    def first_dot_u(*point):
        gs = _second(mg, MF, fn, list(point[:-1]), point[-1], u)[0]
        return sum(float((g * v).sum()) for g, v in zip(gs, u))
    return (_second(mg, MF, fn, arrays, w, u)[0],
            numeric_grad(first_dot_u, [a.copy() for a in arrays] + [w.copy()]))


@pytest.mark.parametrize("fn,shapes,positive,fd", CASES)
def test_second_order_of_the_layers(fn, shapes, positive, fd):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    arrays = _inputs(shapes, positive, rng)
    out = fn(MF, mg, *[mg.tensor(a) for a in arrays])
    out = out[0] if isinstance(out, tuple) else out
    w = rng.standard_normal(tuple(out.shape))
    u = [rng.standard_normal(s) for s in shapes]
    if fd:
        want_first, want = _finite_differences(fn, arrays, w, u)
    else:
        want_first, want = _second(torch, torch.nn.functional, fn, arrays, w, u)
    got_first, got = _second(mg, MF, fn, arrays, w, u)
    for g, e in zip(got_first, want_first):
        np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-9, err_msg="first order")
    for k, (g, e) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, e, rtol=1e-4 if fd else 1e-5, atol=1e-5 if fd else 1e-7,
                                   err_msg=f"derivative {k}")


def test_rrelu_in_training_differentiates_twice_with_its_drawn_slopes():
    # rrelu_with_noise (declared in ops/activations.py): x where x >= 0, else x * noise; the
    # reference is the same function written with where, in PyTorch, on the same noise
    torch = pytest.importorskip("torch")
    from mutograd.ops import OPS, call
    rng = np.random.default_rng(12)
    xa, noise, w, u = (rng.uniform(-2, 2, (3, 4)), rng.uniform(0.1, 0.3, (3, 4)),
                       rng.standard_normal((3, 4)), [rng.standard_normal((3, 4))])

    def mine(F, T, x):
        return call(OPS["rrelu_with_noise"], [x, T.tensor(noise)], {})

    def ref(F, T, x):
        return T.where(x >= 0, x, x * T.tensor(noise))
    want = _second(torch, None, ref, [xa], w, u)
    got = _second(mg, None, mine, [xa], w, u)
    for a, b in zip(got[0] + got[1], want[0] + want[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
