"""Layer and loss functions: one table, each case gradchecked in float64 (finite differences) and
compared with PyTorch (values and gradients) when it is installed."""
from dataclasses import dataclass, field

import numpy as np
import pytest
from tests.helpers import numeric_grad
from tests.nn_helpers import exact_counting

import mutograd as mg
import mutograd.nn.functional as F


@dataclass
class Case:
    id: str
    fn: str                            # name in mutograd.nn.functional and torch.nn.functional
    shapes: tuple                      # float inputs that get gradients
    kw: dict = field(default_factory=dict)
    extra: tuple = ()                  # non-differentiable inputs (arrays) passed after them
    domain: tuple = (-2.0, 2.0)
    torch_kw: dict = None              # when PyTorch spells an argument differently


def _targets(n, c, seed=0):
    return np.random.default_rng(seed).integers(0, c, n)


T6 = _targets(6, 5)
T_IGN = T6.copy()
T_IGN[[1, 4]] = -100
T_K = np.random.default_rng(1).integers(0, 4, (2, 3, 3))

CASES = [
    Case("linear", "linear", ((4, 5), (3, 5), (3,))),
    Case("conv2d", "conv2d", ((2, 2, 5, 5), (3, 2, 3, 3), (3,))),
    Case("conv2d_stride_pad", "conv2d", ((1, 2, 6, 5), (4, 2, 3, 2), (4,)),
         {"stride": 2, "padding": 1}),
    Case("conv2d_dilation", "conv2d", ((1, 1, 7, 7), (2, 1, 3, 3)), {"dilation": 2,
                                                                      "padding": (2, 1)}),
    Case("conv2d_groups", "conv2d", ((2, 4, 5, 4), (6, 2, 2, 3), (6,)),
         {"groups": 2, "stride": (1, 2)}),
    Case("conv2d_same", "conv2d", ((1, 2, 4, 4), (2, 2, 3, 3)), {"padding": "same"}),
    Case("max_pool2d", "max_pool2d", ((2, 3, 6, 6),), {"kernel_size": 2}),
    Case("max_pool2d_overlap_pad", "max_pool2d", ((1, 2, 7, 6),),
         {"kernel_size": 3, "stride": 2, "padding": 1}),
    Case("max_pool2d_dilation", "max_pool2d", ((1, 1, 7, 7),),
         {"kernel_size": 2, "stride": 1, "dilation": 2}),
    Case("avg_pool2d", "avg_pool2d", ((2, 2, 6, 6),), {"kernel_size": 2}),
    Case("avg_pool2d_pad", "avg_pool2d", ((1, 2, 5, 5),),
         {"kernel_size": 3, "stride": 2, "padding": 1}),
    Case("avg_pool2d_pad_exclude", "avg_pool2d", ((1, 2, 5, 5),),
         {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    Case("adaptive_avg_pool2d", "adaptive_avg_pool2d", ((2, 2, 7, 5),), {"output_size": (3, 2)}),
    Case("adaptive_avg_pool2d_1", "adaptive_avg_pool2d", ((2, 3, 4, 4),), {"output_size": 1}),
    Case("batch_norm_train", "batch_norm", ((4, 3, 2, 2), (3,), (3,)), {"training": True},
         extra=(None, None)),
    Case("batch_norm_1d", "batch_norm", ((5, 3), (3,), (3,)), {"training": True},
         extra=(None, None)),
    Case("layer_norm", "layer_norm", ((3, 4, 5), (4, 5), (4, 5)),
         {"normalized_shape": (4, 5)}),
    Case("embedding", "embedding", ((6, 3),), extra=(np.array([[0, 2, 2], [5, 1, 2]]),)),
    Case("conv_transpose2d", "conv_transpose2d", ((2, 4, 4, 3), (4, 3, 3, 3), (3,)),
         {"stride": 2, "padding": 1, "output_padding": 1}),
    Case("conv_transpose2d_groups", "conv_transpose2d", ((1, 4, 3, 3), (4, 1, 2, 3), (2,)),
         {"stride": (1, 2), "groups": 2, "dilation": 2}),
    Case("conv1d", "conv1d", ((2, 4, 7), (6, 2, 3), (6,)), {"groups": 2, "stride": 2,
                                                          "padding": 1}),
    Case("conv1d_same", "conv1d", ((1, 2, 6), (3, 2, 3)), {"padding": "same", "dilation": 1}),
    Case("group_norm", "group_norm", ((2, 4, 3, 3), (4,), (4,)), {"num_groups": 2}),
    Case("group_norm_3d", "group_norm", ((3, 6, 5), (6,), (6,)), {"num_groups": 3, "eps": 1e-3}),
    Case("rms_norm", "rms_norm", ((3, 4, 5), (5,)), {"normalized_shape": (5,)}),
    Case("rms_norm_2", "rms_norm", ((2, 3, 4), (3, 4)), {"normalized_shape": (3, 4),
                                                          "eps": 1e-4}),
    Case("cosine_similarity", "cosine_similarity", ((3, 4), (3, 4))),
    Case("cosine_similarity_dim", "cosine_similarity", ((2, 3, 4), (2, 1, 4)), {"dim": -1}),
    Case("kl_div", "kl_div", ((4, 5), (4, 5)), {"reduction": "batchmean"}, domain=(0.1, 1.0)),
    Case("kl_div_sum_log_target", "kl_div", ((4, 5), (4, 5)),
         {"reduction": "sum", "log_target": True}),
    Case("kl_div_none", "kl_div", ((3, 2), (3, 2)), {"reduction": "none"}, domain=(0.1, 1.0)),
    Case("softplus", "softplus", ((3, 4),), {"beta": 2.0, "threshold": 3.0}),
    Case("logsigmoid", "logsigmoid", ((3, 4),), domain=(-30, 30)),
    Case("softsign", "softsign", ((3, 4),)),
    Case("tanhshrink", "tanhshrink", ((3, 4),)),
    Case("softshrink", "softshrink", ((3, 4),), {"lambd": 0.3}),
    Case("hardshrink", "hardshrink", ((3, 4),), {"lambd": 0.3}),
    Case("prelu", "prelu", ((2, 3, 4), (3,))),
    Case("prelu_shared", "prelu", ((3, 4), (1,))),
    Case("huber_loss", "huber_loss", ((3, 4), (3, 4)), {"delta": 0.7}),
    Case("hardswish", "hardswish", ((3, 4),), domain=(-4, 4)),
    Case("mish", "mish", ((3, 4),)),
    Case("selu", "selu", ((3, 4),)),
    Case("celu", "celu", ((3, 4),), {"alpha": 0.7}),
    Case("hardtanh", "hardtanh", ((3, 4),), {"min_val": -0.5, "max_val": 0.8}),
    Case("hardsigmoid", "hardsigmoid", ((3, 4),), domain=(-4, 4)),
    Case("glu", "glu", ((3, 4),)),
    Case("glu_dim0", "glu", ((6, 2),), {"dim": 0}),
    Case("relu", "relu", ((3, 4),)),
    Case("relu6", "relu6", ((3, 4),), domain=(-3, 8)),
    Case("leaky_relu", "leaky_relu", ((3, 4),), {"negative_slope": 0.2}),
    Case("elu", "elu", ((3, 4),), {"alpha": 1.5}),
    Case("gelu", "gelu", ((3, 4),)),
    Case("gelu_tanh", "gelu", ((3, 4),), {"approximate": "tanh"}),
    Case("silu", "silu", ((3, 4),)),
    Case("sigmoid", "sigmoid", ((3, 4),)),
    Case("tanh", "tanh", ((3, 4),)),
    Case("softmax", "softmax", ((3, 4),), {"dim": 1}),
    Case("log_softmax", "log_softmax", ((3, 4),), {"dim": 0}),
    Case("cross_entropy", "cross_entropy", ((6, 5),), extra=(T6,)),
    Case("cross_entropy_sum", "cross_entropy", ((6, 5),), {"reduction": "sum"}, extra=(T6,)),
    Case("cross_entropy_none", "cross_entropy", ((6, 5),), {"reduction": "none"}, extra=(T6,)),
    Case("cross_entropy_smooth_ignore", "cross_entropy", ((6, 5),),
         {"label_smoothing": 0.2}, extra=(T_IGN,)),
    Case("cross_entropy_weight_smooth", "cross_entropy", ((6, 5),),
         {"label_smoothing": 0.1, "weight": np.array([1.0, 2.0, 0.5, 1.0, 3.0])},
         extra=(T_IGN,)),
    Case("cross_entropy_ignore_index", "cross_entropy", ((6, 5),), {"ignore_index": 2},
         extra=(T6,)),
    Case("cross_entropy_kdim", "cross_entropy", ((2, 4, 3, 3),), extra=(T_K,)),
    Case("cross_entropy_probs", "cross_entropy", ((4, 3), (4, 3)), {"label_smoothing": 0.1},
         domain=(0.05, 1.0)),
    Case("nll_loss", "nll_loss", ((6, 5),), {"weight": np.array([1.0, 2.0, 0.5, 1.0, 3.0])},
         extra=(T_IGN,)),
    Case("mse_loss", "mse_loss", ((3, 4), (3, 4))),
    Case("l1_loss", "l1_loss", ((3, 4), (3, 4)), {"reduction": "sum"}),
    Case("smooth_l1_loss", "smooth_l1_loss", ((3, 4), (3, 4)), {"beta": 0.5}),
    Case("binary_cross_entropy", "binary_cross_entropy", ((3, 4), (3, 4)), domain=(0.05, 0.95)),
    Case("bce_with_logits", "binary_cross_entropy_with_logits", ((3, 4), (3, 4)),
         domain=(0.05, 0.95)),
    Case("bce_with_logits_pos_weight", "binary_cross_entropy_with_logits", ((3, 4), (3, 4)),
         {"pos_weight": np.array([1.0, 2.0, 0.5, 3.0])}, domain=(0.05, 0.95)),
]
IDS = [c.id for c in CASES]


def _inputs(case, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.uniform(*case.domain, s) for s in case.shapes]
    if case.fn in ("relu", "leaky_relu", "elu", "relu6", "l1_loss", "smooth_l1_loss", "prelu",
                   "selu", "celu", "softshrink", "hardshrink", "hardtanh", "hardswish",
                   "hardsigmoid", "huber_loss"):
        # keep away from kinks (0, 6, |d| = beta) where finite differences are meaningless
        arrs = [np.where(np.abs(a) < 0.1, a + 0.3, a) for a in arrs]
        arrs = [np.where(np.abs(np.abs(a) - 6) < 0.1, a + 0.3, a) for a in arrs]
        if len(arrs) == 2 and case.fn != "prelu":
            d = arrs[0] - arrs[1]
            arrs[1] = np.where(np.abs(np.abs(d) - 0.5) < 0.1, arrs[1] + 0.25, arrs[1])
            arrs[1] = np.where(np.abs(arrs[0] - arrs[1]) < 0.05, arrs[1] + 0.2, arrs[1])
    if case.fn.startswith("binary_cross_entropy_with"):
        arrs[0] = rng.uniform(-3, 3, case.shapes[0])
    if case.fn == "max_pool2d":    # distinct values: no ties inside a window
        arrs[0] = rng.permutation(arrs[0].size).reshape(arrs[0].shape) / arrs[0].size * 4 - 2
    return arrs


def _call_mg(case, arrays, requires_grad=False):
    ts = [mg.tensor(a, requires_grad=requires_grad) for a in arrays]
    kw = {k: (mg.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in case.kw.items()}
    extra = [mg.tensor(e) if isinstance(e, np.ndarray) else e for e in case.extra]
    if case.fn == "embedding":
        return ts, F.embedding(extra[0], ts[0])
    if case.fn == "batch_norm":
        return ts, F.batch_norm(ts[0], None, None, ts[1], ts[2], **kw)
    if case.fn == "layer_norm":
        return ts, F.layer_norm(ts[0], kw.pop("normalized_shape"), ts[1], ts[2], **kw)
    if case.fn == "rms_norm":
        return ts, F.rms_norm(ts[0], kw.pop("normalized_shape"), ts[1], **kw)
    if case.fn == "group_norm":
        return ts, F.group_norm(ts[0], kw.pop("num_groups"), ts[1], ts[2], **kw)
    return ts, getattr(F, case.fn)(*ts, *extra, **kw)


def _weights(case, shape):
    return np.random.default_rng(9).standard_normal(shape)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradient_matches_finite_differences(case):
    arrays = _inputs(case)
    _, out = _call_mg(case, arrays)
    w = _weights(case, tuple(out.shape))

    def loss(*arrs):
        with mg.no_grad():
            return float((_call_mg(case, list(arrs))[1].numpy() * w).sum())

    expected = numeric_grad(loss, [a.copy() for a in arrays])
    ts, out = _call_mg(case, arrays, requires_grad=True)
    (out * mg.tensor(w)).sum().backward()
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad.numpy(), e, rtol=1e-5, atol=1e-6)


def _call_torch(torch, case, arrays):
    tf = torch.nn.functional
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    kw = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in case.kw.items()}
    extra = [torch.tensor(e) if isinstance(e, np.ndarray) else e for e in case.extra]
    if case.fn == "embedding":
        return ts, tf.embedding(extra[0], ts[0])
    if case.fn == "batch_norm":
        return ts, tf.batch_norm(ts[0], None, None, ts[1], ts[2], **kw)
    if case.fn == "layer_norm":
        return ts, tf.layer_norm(ts[0], kw.pop("normalized_shape"), ts[1], ts[2], **kw)
    if case.fn == "rms_norm":
        return ts, tf.rms_norm(ts[0], kw.pop("normalized_shape"), ts[1], **kw)
    if case.fn == "group_norm":
        return ts, tf.group_norm(ts[0], kw.pop("num_groups"), ts[1], ts[2], **kw)
    if case.fn in ("softmax", "log_softmax"):
        return ts, getattr(tf, case.fn)(ts[0], **kw)
    return ts, getattr(tf, case.fn)(*ts, *extra, **kw)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    arrays = _inputs(case, seed=1)
    ts, out = _call_mg(case, arrays, requires_grad=True)
    rs, ref = _call_torch(torch, case, arrays)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-7, atol=1e-9)
    w = _weights(case, tuple(out.shape))
    (out * mg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for t, r in zip(ts, rs):
        np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-7, atol=1e-9)


# ---- in-place forms ------------------------------------------------------------------------
INPLACE = ["relu", "relu6", "leaky_relu", "elu", "silu"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_activation_is_same_object_and_allocates_no_result(name):
    leaf = mg.tensor(np.linspace(-2, 2, 12).reshape(3, 4), requires_grad=True)
    h = leaf * 1.0
    with exact_counting() as c:
        y = getattr(F, name)(h, inplace=True)
    assert y is h and h._version == 1
    copied = c["bytes"]
    # relu-like ops save their output (no copy); silu's gradient needs its input (one copy)
    assert copied == (h.nbytes if name == "silu" else 0)
    y.sum().backward()
    ref_leaf = mg.tensor(leaf.numpy(), requires_grad=True)
    getattr(F, name)(ref_leaf * 1.0).sum().backward()
    np.testing.assert_allclose(leaf.grad.numpy(), ref_leaf.grad.numpy())


def test_dropout_inplace_scales_kept_and_zeroes_dropped_elements():
    x = mg.ones([1000])
    y = F.dropout(x, 0.25, training=True, inplace=True)
    assert y is x and x._version == 1
    vals = set(np.unique(x.numpy()).tolist())
    assert vals == {0.0, float(np.float32(1 / 0.75))}
    assert 0.18 < float((x == 0).float().mean()) < 0.32
    z = mg.ones([5])
    assert F.dropout(z, 0.5, training=False) is z


def test_dropout_gradient_uses_the_same_mask():
    x = mg.ones([200], requires_grad=True)
    y = F.dropout(x, 0.5)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_linear_and_conv_add_bias_in_place_into_their_fresh_result():
    x, w, b = mg.randn([8, 16]), mg.randn([4, 16]), mg.randn([4])
    with exact_counting() as c:
        out = F.linear(x, w, b)
    # the matmul result; the transposed view and the in-place bias add allocate nothing
    assert c["allocations"] == 1 and c["bytes"] == out.nbytes


# ---- errors --------------------------------------------------------------------------------
ERRORS = [
    (lambda: F.conv2d(mg.randn([1, 3, 5, 5]), mg.randn([2, 2, 3, 3])), mg.ShapeError,
     "expected input with 2 channels"),
    (lambda: F.conv2d(mg.randn([1, 2, 2, 2]), mg.randn([2, 2, 3, 3])), mg.ShapeError,
     "smaller than the \\(dilated\\) kernel"),
    (lambda: F.conv2d(mg.randn([5, 5]), mg.randn([2, 2, 3, 3])), mg.ShapeError,
     "expected a 3-D"),
    (lambda: F.max_pool2d(mg.randn([1, 1, 4, 4]), 2, padding=2), ValueError,
     "pad should be at most half"),
    (lambda: F.cross_entropy(mg.randn([3, 4]), mg.tensor([0, 1, 4])), IndexError,
     "Target 4 is out of bounds"),
    (lambda: F.cross_entropy(mg.randn([3, 4]), mg.tensor([0, 1])), mg.ShapeError,
     "Expected input batch_size \\(3\\) to match target batch_size \\(2\\)"),
    (lambda: F.cross_entropy(mg.randn([3, 4]), mg.tensor([0, 1, 2]), label_smoothing=1.5),
     ValueError, "label_smoothing must be between"),
    (lambda: F.mse_loss(mg.randn([3]), mg.randn([4])), mg.ShapeError, "do not broadcast"),
    (lambda: F.mse_loss(mg.randn([3]), mg.randn([3]), reduction="avg"), ValueError,
     "not a valid value for reduction"),
    (lambda: F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0])), ValueError,
     "between 0 and 1"),
    (lambda: F.embedding(mg.tensor([0, 7]), mg.randn([5, 2])), IndexError,
     "index out of range for a table of 5 rows"),
    (lambda: F.dropout(mg.randn([3]), 1.5), ValueError, "between 0 and 1"),
    (lambda: F.layer_norm(mg.randn([3, 4]), (5,)), mg.ShapeError,
     "does not end with normalized_shape"),
    (lambda: F.layer_norm(mg.randn([3, 4]), (4,), mg.ones([5])), mg.ShapeError,
     r"weight of shape \[5\] does not match normalized_shape \[4\]"),
    (lambda: F.pad(mg.randn([3, 4]), (1, 1, 1)), ValueError, "even number of sizes"),
    (lambda: F.pad(mg.randn([3, 4]), (1, 1), mode="wrap"), ValueError, "mode must be one of"),
    (lambda: F.pad(mg.randn([3, 4]), (4, 0), mode="reflect"), ValueError,
     "must be smaller than the dimension"),
    (lambda: F.pad(mg.randn([3, 4]), (-1, 0), mode="replicate"), ValueError,
     "negative padding needs mode='constant'"),
    (lambda: F.pad(mg.randn([3, 4]), (-3, -2)), ValueError, "padded size of dimension 1"),
]


PADS = [((2, 3, 5), (1, 2)), ((2, 3, 4, 5), (2, 0, 1, 1)), ((1, 2, 3, 4, 5), (1, 1, 2, 0, 0, 2))]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, pads", PADS, ids=["1d", "2d", "3d"])
def test_pad_values_and_gradients(mode, shape, pads):
    rng = np.random.default_rng(0)
    xa = rng.standard_normal(shape)
    x = mg.tensor(xa, requires_grad=True)
    y = F.pad(x, pads, mode=mode, value=2.5 if mode == "constant" else None)
    width = [(0, 0)] * (len(shape) - len(pads) // 2) + [
        (pads[2 * i], pads[2 * i + 1]) for i in range(len(pads) // 2)][::-1]
    np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    kw = {"constant_values": 2.5} if mode == "constant" else {}
    np.testing.assert_array_equal(y.numpy(), np.pad(xa, width, mode=np_mode, **kw))
    w = rng.standard_normal(y.shape)
    (y * mg.tensor(w)).sum().backward()
    expected = numeric_grad(lambda a: (F.pad(mg.tensor(a), pads, mode=mode)._data * w).sum(),
                            [xa.copy()])[0]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_pad_crops_with_negative_sizes_and_never_aliases_its_input():
    x = mg.arange(12.0).reshape(3, 4)
    y = F.pad(x, (-1, 2, 1, -2), value=7.0)
    assert y.tolist() == [[7.0] * 5, [1.0, 2.0, 3.0, 7.0, 7.0]]
    z = F.pad(x, (0, 0))
    z.add_(1)
    assert x[0, 0].item() == 0.0 and z[0, 0].item() == 1.0


@pytest.mark.parametrize("affine", ["none", "weight", "bias"])
def test_layer_norm_without_weight_or_bias_matches_finite_differences(affine):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, 3, 4))]
    if affine != "none":
        arrays.append(rng.standard_normal(4))
    w = rng.standard_normal((2, 3, 4))

    def run(*ts):
        extra = {affine: ts[1]} if affine != "none" else {}
        return (F.layer_norm(ts[0], (4,), **extra) * mg.tensor(w)).sum()
    ts = [mg.tensor(a, requires_grad=True) for a in arrays]
    run(*ts).backward()
    expected = numeric_grad(lambda *a: run(*(mg.tensor(x) for x in a))._data, arrays)
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(t.grad._data, e, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn,cls,msg", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_bad_input_raises_a_clear_error(fn, cls, msg):
    with pytest.raises(cls, match=msg):
        fn()


def test_layer_norm_saves_its_input_and_a_later_write_into_it_is_the_version_error():
    # as PyTorch's native_layer_norm: the input is saved (with the kept row statistics), so the
    # gradient can be differentiated again; writing it before backward raises
    rng = np.random.default_rng(0)
    xa, wa, ga = rng.standard_normal((3, 5)), rng.standard_normal(5), rng.standard_normal((3, 5))
    x, w = mg.tensor(xa, requires_grad=True), mg.tensor(wa, requires_grad=True)
    h = x * 1.0
    loss = (F.layer_norm(h, (5,), w) * mg.tensor(ga)).sum()
    h.mul_(3.0)
    with pytest.raises(mg.VersionError, match="saved by LayerNormBackward"):
        loss.backward()
