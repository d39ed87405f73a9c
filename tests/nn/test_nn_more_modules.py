"""The padding, normalisation, vision, bag, bilinear, lazy and container modules of
mutograd.nn (nn/padding.py, normalization.py, vision.py, sparse.py, activations.py, lazy.py,
containers.py): one table of functions checked against PyTorch (values and gradients, float64)
and against finite differences; one table of modules checked for PyTorch's parameter names,
shapes, state-dict order and outputs; then the plumbing and the error messages."""
import numpy as np
import pytest
from tests.helpers import numeric_grad

import mutograd as mg

R = np.random.default_rng(0)
IMG = R.standard_normal((2, 4, 3, 5))
VOL = R.standard_normal((2, 3, 3, 2, 4))
SEQ = R.standard_normal((2, 3, 6))
GRID = R.uniform(-1.3, 1.3, (2, 3, 4, 2))
GRID3 = R.uniform(-1.3, 1.3, (2, 2, 2, 3, 3))
THETA = R.standard_normal((2, 2, 3))
THETA3 = R.standard_normal((2, 3, 4))
TABLE = R.standard_normal((7, 3))
BAG_IDX = np.array([1, 2, 4, 5, 4, 3, 2, 6, 0])
BAG_OFF = np.array([0, 2, 2, 5])
PSW = R.standard_normal(9)
X1, X2 = R.standard_normal((2, 3, 4)), R.standard_normal((2, 3, 5))
BIL_W, BIL_B = R.standard_normal((2, 4, 5)), R.standard_normal(2)
CHAN_W, CHAN_B = R.standard_normal(4), R.standard_normal(4)
COLS = R.standard_normal((2, 48, 2))
LCE_X, LCE_W = R.standard_normal((5, 4)), R.standard_normal((3, 2, 4))
LCE_B = R.standard_normal((3, 2))
LCE_T = np.array([[0, 2], [1, 1], [2, 0], [1, 2], [0, 0]])
FOLD_KW = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": (1, 0), "stride": (2, 1)}


def _c(m, a):
    return m.tensor(a)


def _grid_cases():
    out = []
    for mode in ("bilinear", "nearest"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (False, True):
                out.append((f"grid_sample-{mode}-{pad}-{'ac' if ac else 'noac'}",
                            lambda m, F, a, g, mode=mode, pad=pad, ac=ac: F.grid_sample(
                                a, g, mode, pad, ac), [IMG, GRID]))
    out.append(("grid_sample-3d-border", lambda m, F, a, g: F.grid_sample(
        a, g, padding_mode="border", align_corners=False), [VOL, GRID3]))
    out.append(("grid_sample-3d-reflection-ac", lambda m, F, a, g: F.grid_sample(
        a, g, padding_mode="reflection", align_corners=True), [VOL, GRID3]))
    return out


# name, f(module: mg or torch, F, *float tensors) -> tensor, float inputs
CASES = [
    ("softmin", lambda m, F, a: F.softmin(a, dim=1), [IMG]),
    ("local_response_norm", lambda m, F, a: F.local_response_norm(a, 3, alpha=0.3, beta=0.6,
                                                                  k=1.5), [IMG]),
    ("local_response_norm-even-5d", lambda m, F, a: F.local_response_norm(a, 2, alpha=0.5),
     [VOL]),
    ("cross_map_lrn2d", lambda m, F, a: m.nn.CrossMapLRN2d(3, alpha=0.4)(a), [IMG]),
    ("instance_norm-affine", lambda m, F, a, w, b: F.instance_norm(a, weight=w, bias=b),
     [IMG, CHAN_W, CHAN_B]),
    ("instance_norm-1d", lambda m, F, a: F.instance_norm(a, eps=1e-3), [SEQ]),
    ("instance_norm-running", lambda m, F, a: F.instance_norm(
        a, _c(m, CHAN_B), _c(m, CHAN_W ** 2), use_input_stats=False), [IMG]),
    ("pixel_shuffle", lambda m, F, a: F.pixel_shuffle(a, 2), [IMG]),
    ("pixel_unshuffle", lambda m, F, a: F.pixel_unshuffle(a[:, :, :2, :4], 2), [IMG]),
    ("channel_shuffle", lambda m, F, a: F.channel_shuffle(a, 2), [IMG]),
    ("unfold", lambda m, F, a: F.unfold(a, **FOLD_KW), [IMG]),
    ("fold", lambda m, F, a: F.fold(a, (3, 5), **FOLD_KW), [COLS]),
    ("fold-square", lambda m, F, a: F.fold(a.reshape(2, 4, 15), (4, 6), 2), [IMG]),
    ("affine_grid", lambda m, F, t: F.affine_grid(t, [2, 1, 3, 4], align_corners=False),
     [THETA]),
    ("affine_grid-3d-ac", lambda m, F, t: F.affine_grid(t, [2, 1, 2, 3, 4], align_corners=True),
     [THETA3]),
    ("affine_grid-then-sample", lambda m, F, a, t: F.grid_sample(
        a, F.affine_grid(t * 0.5, [2, 4, 2, 3], align_corners=False), align_corners=False),
     [IMG, THETA]),
    *_grid_cases(),
    ("bilinear", lambda m, F, a, b, w, c: F.bilinear(a, b, w, c), [X1, X2, BIL_W, BIL_B]),
    ("embedding_bag-mean", lambda m, F, w: F.embedding_bag(
        _c(m, BAG_IDX), w, _c(m, BAG_OFF)), [TABLE]),
    ("embedding_bag-sum-psw-pad", lambda m, F, w, p: F.embedding_bag(
        _c(m, BAG_IDX), w, _c(m, BAG_OFF), mode="sum", per_sample_weights=p, padding_idx=4),
     [TABLE, PSW]),
    ("embedding_bag-max-last-offset", lambda m, F, w: F.embedding_bag(
        _c(m, BAG_IDX), w, _c(m, np.append(BAG_OFF, 9)), mode="max",
        include_last_offset=True), [TABLE]),
    ("embedding_bag-2d-mean-pad", lambda m, F, w: F.embedding_bag(
        _c(m, BAG_IDX[:8].reshape(2, 4)), w, padding_idx=2), [TABLE]),
    ("pad-reflect-3d", lambda m, F, a: F.pad(a, (1, 2, 0, 1, 1, 1), mode="reflect"), [VOL]),
    ("pad-replicate-3d", lambda m, F, a: F.pad(a, (2, 0, 1, 1, 0, 3), mode="replicate"), [VOL]),
    ("pad-circular-3d", lambda m, F, a: F.pad(a, (1, 1, 1, 0, 2, 1), mode="circular"), [VOL]),
    ("upsample_bilinear", lambda m, F, a: F.upsample_bilinear(a, scale_factor=2), [IMG]),
    ("upsample_nearest", lambda m, F, a: F.upsample_nearest(a, size=(4, 7)), [IMG]),
    ("upsample", lambda m, F, a: F.upsample(a, size=(5, 4), mode="bilinear"), [IMG]),
    ("softmax2d", lambda m, F, a: m.nn.Softmax2d()(a), [IMG]),
    ("linear_cross_entropy", lambda m, F, a, w: F.linear_cross_entropy(
        a, w[:, 0], _c(m, LCE_T[:, 0]), ignore_index=1), [LCE_X, LCE_W]),
    ("linear_cross_entropy-kdim", lambda m, F, a, w, b: F.linear_cross_entropy(
        a, w, _c(m, LCE_T), linear_bias=b, label_smoothing=0.1, reduction="none"),
     [LCE_X, LCE_W, LCE_B]),
    ("linear_cross_entropy-probs-weight", lambda m, F, a, w, p: F.linear_cross_entropy(
        a, w[:, 1], F.softmax(p, dim=1), weight=_c(m, np.array([1.0, 2.0, 0.5])),
        reduction="sum"), [LCE_X, LCE_W, IMG[0, 0].T.copy()]),
    ("softsign-logsigmoid", lambda m, F, a: F.softsign(a) + F.logsigmoid(a), [SEQ]),
    ("shrinks", lambda m, F, a: F.softshrink(a, 0.3) + F.hardshrink(a, 0.4) + F.tanhshrink(a),
     [SEQ]),
]


# PyTorch's gradient is not the derivative of its output here: its legacy CrossMapLRN2d backward
# fails torch.autograd.gradcheck; ours matches finite differences (the test above)
VALUES_ONLY = {"cross_map_lrn2d"}


def _grad(t):
    return np.zeros(t.shape) if t.grad is None else t.grad.numpy()


@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn, inputs):
    F = mg.nn.functional
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    out = fn(mg, F, *ts)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    expected = numeric_grad(
        lambda *a: float((fn(mg, F, *(mg.tensor(x) for x in a)).numpy() * w).sum()),
        [a.copy() for a in inputs])
    for t, e in zip(ts, expected):
        np.testing.assert_allclose(_grad(t), e, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:`nn.functional.upsample")   # PyTorch's deprecation
@pytest.mark.parametrize("name,fn,inputs", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_pytorch(name, fn, inputs):
    torch = pytest.importorskip("torch")
    ts = [mg.tensor(a, requires_grad=True) for a in inputs]
    qs = [torch.tensor(a, requires_grad=True) for a in inputs]
    out, ref = fn(mg, mg.nn.functional, *ts), fn(torch, torch.nn.functional, *qs)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(out.shape)
    (out * mg.tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for t, q in zip(ts, qs if name not in VALUES_ONLY else []):
        expected = np.zeros(q.shape) if q.grad is None else q.grad.numpy()
        np.testing.assert_allclose(_grad(t), expected, rtol=1e-8, atol=1e-10, err_msg=name)


_PADS = [(f"{kind}Pad{n}d", ((2, 1, 0, 1, 1, 1)[:2 * n],) + ((0.5,) if kind == "Constant" else ()),
          [SEQ, IMG, VOL][n - 1])
         for n in (1, 2, 3) for kind in ("Constant", "Zero", "Reflection", "Replication",
                                         "Circular")]

# class name, constructor arguments, forward inputs (float arrays; ints stay ints)
MODULES = [
    ("InstanceNorm1d", (3,), {}, [SEQ]),
    ("InstanceNorm2d", (4,), {"affine": True, "track_running_stats": True}, [IMG]),
    ("InstanceNorm3d", (3,), {"affine": True, "momentum": 0.3, "track_running_stats": True},
     [VOL]),
    ("InstanceNorm1d", (3,), {"affine": True}, [SEQ[0]]),
    ("BatchNorm3d", (3,), {"momentum": 0.2}, [VOL]),
    ("SyncBatchNorm", (4,), {}, [IMG]),
    ("LocalResponseNorm", (3,), {"alpha": 0.2}, [IMG]),
    ("CrossMapLRN2d", (5,), {"beta": 0.5}, [IMG]),
    ("Bilinear", (4, 5, 2), {}, [X1, X2]),
    ("Bilinear", (4, 5, 2), {"bias": False}, [X1, X2]),
    ("EmbeddingBag", (7, 3), {"mode": "sum", "padding_idx": 1}, [BAG_IDX, BAG_OFF]),
    ("PixelShuffle", (2,), {}, [IMG]),
    ("PixelUnshuffle", (1,), {}, [IMG]),
    ("ChannelShuffle", (2,), {}, [IMG]),
    ("Unfold", (2,), {"padding": 1}, [IMG]),
    ("Fold", ((4, 6), 2), {}, [IMG.reshape(2, 4, 15)]),
    ("Softmin", (1,), {}, [IMG]),
    ("Threshold", (0.1, -2.0), {}, [IMG]),
    ("GLU", (), {"dim": 1}, [IMG]),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}, [IMG]),
    ("UpsamplingBilinear2d", ((4, 6),), {}, [IMG]),
    ("Unflatten", (1, (2, 2)), {}, [IMG]),
    ("LinearCrossEntropyLoss", (4, 3), {"out_features": (2,), "bias": True}, [LCE_X, LCE_T]),
    *[(name, args, {}, [x]) for name, args, x in _PADS],
]


def _arg(m, a):
    return m.tensor(a)


@pytest.mark.torch
@pytest.mark.parametrize("name,args,kwargs,inputs", MODULES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(MODULES)])
def test_modules_have_pytorchs_state_and_outputs(name, args, kwargs, inputs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(mg.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    theirs = theirs.double()
    ours = ours.double()
    assert [(k, list(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in theirs.state_dict().items()]
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    ours.load_state_dict({k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    for train in (True, False):
        ours.train(train)
        theirs.train(train)
        out = ours(*(_arg(mg, a) for a in inputs))
        ref = theirs(*(_arg(torch, a) for a in inputs))
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12,
                                   err_msg=name)
        for (k, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, err_msg=f"{name}.{k}")


@pytest.mark.torch
@pytest.mark.parametrize("name,args,x,becomes", [
    ("LazyLinear", (3,), (2, 5), "Linear"),
    ("LazyConv1d", (4, 3), (2, 3, 7), "Conv1d"),
    ("LazyConv1d", (4, 3), (3, 7), "Conv1d"),
    ("LazyConv2d", (4, 3), (2, 3, 5, 5), "Conv2d"),
    ("LazyConv2d", (4, 3, 1, 1, 1, 2), (2, 6, 5, 5), "Conv2d"),
    ("LazyConv1d", (4, 3), (2, 6, 7), "Conv1d"),
    ("LazyConvTranspose2d", (4, 3), (2, 3, 5, 5), "ConvTranspose2d"),
    ("LazyBatchNorm1d", (), (4, 3), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), (2, 3, 4, 4), "BatchNorm2d"),
    ("LazyBatchNorm3d", (), (2, 3, 2, 2, 2), "BatchNorm3d"),
    ("LazyInstanceNorm1d", (), (2, 3, 5), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4), "InstanceNorm2d"),
    ("LazyInstanceNorm3d", (), (2, 3, 2, 2, 2), "InstanceNorm3d"),
])
def test_lazy_modules_become_pytorchs_module(name, args, x, becomes):
    torch = pytest.importorskip("torch")
    kwargs = {"affine": True, "track_running_stats": True} if "Instance" in name else {}
    ours, theirs = getattr(mg.nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert ours.has_uninitialized_params()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    early = list(ours.parameters())     # an optimizer made before the first forward
    ours(mg.randn(list(x)))
    theirs(torch.randn(x))
    assert type(ours) is getattr(mg.nn, becomes)
    assert [(k, list(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in theirs.state_dict().items()]
    assert all(a is b for a, b in zip(early, ours.parameters()))
    assert all(type(p) is mg.nn.Parameter for p in ours.parameters())


def test_lazy_linear_initialises_like_linear_and_trains():
    lin = mg.nn.LazyLinear(2)
    mg.random.seed(3)
    out = lin(mg.ones([4, 6]))
    mg.random.seed(3)
    ref = mg.nn.Linear(6, 2)
    np.testing.assert_array_equal(lin.weight.numpy(), ref.weight.numpy())
    out.sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.full((2, 6), 4.0))
    assert lin.in_features == 6 and type(lin) is mg.nn.Linear
    conv = mg.nn.LazyConv2d(4, 3, groups=2)
    assert conv(mg.ones([1, 6, 5, 5])).shape == [1, 4, 3, 3]
    assert conv.weight.shape == [4, 3, 3, 3] and conv.in_channels == 6


def test_lazy_module_loads_a_state_dict_before_its_first_forward():
    ref = mg.nn.Sequential(mg.nn.Linear(5, 3), mg.nn.BatchNorm1d(3))
    lazy = mg.nn.Sequential(mg.nn.LazyLinear(3), mg.nn.LazyBatchNorm1d())
    lazy.load_state_dict(ref.state_dict())
    x = mg.randn([4, 5])
    np.testing.assert_array_equal(lazy(x).numpy(), ref(x).numpy())
    assert type(lazy[0]) is mg.nn.Linear and lazy[0].in_features == 5
    assert type(lazy[1]) is mg.nn.BatchNorm1d and lazy[1].num_features == 3
    np.testing.assert_array_equal(lazy[1].running_mean.numpy(), ref[1].running_mean.numpy())


def test_uninitialized_parameter_materializes_in_place():
    p = mg.nn.UninitializedParameter(dtype="float64")
    same = p.materialize([2, 3])
    assert same is p and type(p) is mg.nn.Parameter and p.shape == [2, 3]
    assert p.dtype == mg.float64 and p.requires_grad
    b = mg.nn.UninitializedBuffer()
    b.materialize((4,))
    assert type(b) is mg.Tensor and b.shape == [4]


def test_instance_norm_running_stats_match_numpy():
    m = mg.nn.InstanceNorm2d(4, track_running_stats=True, momentum=0.25)
    m(mg.tensor(IMG))
    axes = (2, 3)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.25 * IMG.mean(axes).mean(0), rtol=1e-5)
    np.testing.assert_allclose(m.running_var.numpy(),
                               0.75 + 0.25 * IMG.var(axes, ddof=1).mean(0), rtol=1e-5)
    assert m.num_batches_tracked.item() == 0     # PyTorch's InstanceNorm does not count


def test_gumbel_softmax_soft_hard_and_straight_through_gradient():
    F = mg.nn.functional
    logits = mg.tensor(SEQ[0], requires_grad=True)
    mg.random.seed(5)
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.sum(-1).numpy(), np.ones(3))
    mg.random.seed(5)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    np.testing.assert_array_equal(hard.numpy(), np.eye(6)[soft.numpy().argmax(-1)])
    w = mg.tensor(R.standard_normal((3, 6)))
    (hard * w).sum().backward()
    g_hard = logits.grad.numpy().copy()
    logits.grad = None
    (soft * w).sum().backward()
    np.testing.assert_allclose(g_hard, logits.grad.numpy())
    mg.random.seed(6)
    other = F.gumbel_softmax(logits, dim=0)
    np.testing.assert_allclose(other.sum(0).numpy(), np.ones(6))


def test_buffer_parameter_dict_unflatten_and_data_parallel():
    m = mg.nn.Module()
    m.scale = mg.nn.Buffer(mg.ones([2]))
    m.tmp = mg.nn.Buffer(mg.zeros([1]), persistent=False)
    assert list(m.state_dict()) == ["scale"] and [n for n, _ in m.named_buffers()] == [
        "scale", "tmp"]
    assert isinstance(m.scale, mg.nn.Buffer) and not isinstance(mg.ones([1]), mg.nn.Buffer)
    d = mg.nn.ParameterDict({"b": mg.ones([2]), "a": mg.zeros([3])})  # sorted
    d.update([("c", mg.ones([1]))])
    assert list(d) == ["a", "b", "c"] and all(type(p) is mg.nn.Parameter for p in d.values())
    assert [k for k, _ in d.named_parameters()] == ["a", "b", "c"]
    del d["a"]
    assert "a" not in d and len(d) == 2 and d.get("a") is None
    assert mg.nn.Unflatten(-1, (3, 2))(mg.ones([4, 6])).shape == [4, 3, 2]
    lin = mg.nn.Linear(2, 3)
    dp = mg.nn.DataParallel(lin, device_ids=[0])
    assert dp.module is lin and list(dp.state_dict()) == ["module.weight", "module.bias"]
    x = mg.randn([4, 2])
    np.testing.assert_array_equal(dp(x).numpy(), lin(x).numpy())
    with pytest.warns(UserWarning, match="nn.Container is deprecated"):
        c = mg.nn.Container(fc=lin)
    assert c.fc is lin
    assert issubclass(mg.nn.NLLLoss2d, mg.nn.NLLLoss)


def test_sync_batchnorm_conversion_keeps_the_state():
    net = mg.nn.Sequential(mg.nn.Conv2d(2, 3, 1), mg.nn.BatchNorm2d(3),
                           mg.nn.Sequential(mg.nn.BatchNorm1d(3)))
    weight = net[1].weight
    conv = mg.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is mg.nn.SyncBatchNorm and type(conv[2][0]) is mg.nn.SyncBatchNorm
    assert conv[1].weight is weight and conv[0] is net[0]
    assert list(conv.state_dict()) == list(net.state_dict())


def test_rnn_bases_are_pytorchs_base_classes():
    assert isinstance(mg.nn.LSTM(3, 4), mg.nn.RNNBase)
    assert isinstance(mg.nn.GRUCell(3, 4), mg.nn.RNNCellBase)
    base = mg.nn.RNNBase("GRU", 3, 4, num_layers=2)
    ref = mg.nn.GRU(3, 4, num_layers=2)
    assert base.state_dict().keys() == ref.state_dict().keys()
    with pytest.raises(NotImplementedError):     # as PyTorch's: the subclasses run a batch
        base(mg.randn([5, 2, 3]))
    cell = mg.nn.RNNCellBase(3, 4, True, 4)
    assert [(k, v.shape) for k, v in cell.named_parameters()] == [
        ("weight_ih", [16, 3]), ("weight_hh", [16, 4]), ("bias_ih", [16]), ("bias_hh", [16])]


def test_factory_kwargs_and_torch_dialect_exports():
    fk = mg.nn.factory_kwargs
    assert fk({"dtype": "float64", "factory_kwargs": {"device": "cpu"}}) == {
        "device": "cpu", "dtype": "float64"}
    assert fk(None) == {}
    with pytest.raises(TypeError, match="unexpected kwargs"):
        fk({"bias": True})
    with pytest.raises(TypeError, match="dtype specified twice"):
        fk({"dtype": 1, "factory_kwargs": {"dtype": 2}})
    import mutograd.compat.torch as torch
    for name in ("grid_sample", "affine_grid", "fold", "unfold", "embedding_bag", "softmin",
                 "logsigmoid", "prelu", "huber_loss", "gumbel_softmax", "instance_norm"):
        fn = getattr(torch.nn.functional, name)
        assert getattr(fn, "__wrapped__", fn) is getattr(mg.nn.functional, name), name
    assert issubclass(torch.nn.LazyLinear, mg.nn.LazyLinear)
    assert issubclass(torch.nn.LazyLinear, torch.nn.Module)
    assert getattr(torch.nn.factory_kwargs, "__wrapped__", torch.nn.factory_kwargs) is fk


def test_dropout_layers_in_training_and_eval():
    x = mg.ones([8, 4, 5])
    mg.random.seed(0)
    y = mg.nn.Dropout1d(0.5)(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and (y == y[:, :, :1]).all()
    for cls in (mg.nn.Dropout1d, mg.nn.Dropout3d, mg.nn.AlphaDropout,
                mg.nn.FeatureAlphaDropout):
        assert cls(0.3).eval()(x) is x
    a = mg.nn.AlphaDropout(0.2)(mg.randn([20000])).numpy()
    assert abs(a.mean()) < 0.05 and abs(a.std() - 1) < 0.05
    r = mg.nn.RReLU(0.1, 0.3).eval()(mg.tensor([-1.0, 2.0]))
    np.testing.assert_allclose(r.numpy(), [-0.2, 2.0])


@pytest.mark.parametrize("call,error,match", [
    (lambda F: F.pixel_shuffle(mg.ones([1, 3, 2, 2]), 2), ValueError, "divisible by the square"),
    (lambda F: F.channel_shuffle(mg.ones([1, 3, 2]), 2), ValueError,
     "must be divisible by groups"),
    (lambda F: F.unfold(mg.ones([1, 1, 2, 2]), 3), ValueError, "does not fit"),
    (lambda F: F.fold(mg.ones([1, 5, 4]), (3, 3), 2), ValueError, "expected input of shape"),
    (lambda F: F.grid_sample(mg.ones([1, 1, 2, 2]), mg.zeros([1, 2, 2, 2]), mode="bicubic"),
     ValueError, "expected mode to be 'bilinear' or 'nearest'"),
    (lambda F: F.grid_sample(mg.ones([1, 1, 2, 2]), mg.zeros([1, 2, 2, 3])), mg.ShapeError,
     "grid_sample"),
    (lambda F: F.affine_grid(mg.zeros([1, 2, 3]), [1, 1, 2, 2, 2]), ValueError, "theta"),
    (lambda F: F.embedding_bag(mg.tensor([1, 2]), mg.ones([3, 2])), ValueError,
     "offsets has to be a 1D Tensor but got None"),
    (lambda F: F.embedding_bag(mg.tensor([[1, 2]]), mg.ones([3, 2]), mode="max",
                               per_sample_weights=mg.ones([1, 2])), ValueError,
     "only supported for mode='sum'"),
    (lambda F: F.local_response_norm(mg.ones([2, 3]), 2), ValueError, "3D or higher"),
    (lambda F: F.instance_norm(mg.ones([2, 3, 1])), ValueError, "more than 1 spatial"),
    (lambda F: mg.nn.InstanceNorm2d(3)(mg.ones([2, 3])), ValueError,
     "expected 3D or 4D input"),
    (lambda F: mg.nn.ReflectionPad2d((1, 2, 3)), ValueError, "4 ints"),
    (lambda F: mg.nn.ReflectionPad1d(3)(mg.ones([1, 1, 3])), ValueError,
     "must be smaller than the dimension"),
    (lambda F: mg.nn.Softmax2d()(mg.ones([2, 3])), ValueError, "3 or 4 dimensions"),
    (lambda F: mg.nn.CrossMapLRN2d(3)(mg.ones([2, 3, 4])), ValueError, "Expected input to be 4D"),
    (lambda F: mg.nn.RNNBase("GRU", 3, 3, proj_size=2), ValueError, "proj_size"),
])
def test_bad_arguments_name_the_problem(call, error, match):
    with pytest.raises(error, match=match):
        call(mg.nn.functional)


ASM_X = R.standard_normal((6, 8))
ASM_Y = np.array([0, 3, 5, 8, 9, 1])


@pytest.mark.parametrize("kwargs", [{"cutoffs": [4, 7]},
                                    {"cutoffs": [2], "div_value": 2.0, "head_bias": True}])
def test_adaptive_log_softmax_output_is_log_prob_at_the_targets(kwargs):
    asm = mg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, **kwargs).double()
    x = mg.tensor(ASM_X, requires_grad=True)
    out = asm(x, mg.tensor(ASM_Y))
    full = asm.log_prob(mg.tensor(ASM_X)).numpy()
    np.testing.assert_allclose(np.exp(full).sum(1), np.ones(6), rtol=1e-12)
    np.testing.assert_allclose(out.output.numpy(), full[np.arange(6), ASM_Y], rtol=1e-12)
    np.testing.assert_allclose(out.loss.item(), -full[np.arange(6), ASM_Y].mean(), rtol=1e-12)
    np.testing.assert_array_equal(asm.predict(mg.tensor(ASM_X)).numpy(), full.argmax(1))
    out.loss.backward()
    expected = numeric_grad(
        lambda a: asm(mg.tensor(a), mg.tensor(ASM_Y)).loss.item(), [ASM_X.copy()])[0]
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-7)
    single = asm(mg.tensor(ASM_X[3]), mg.tensor(np.array(8)))
    assert single.output.shape == [] and single.output.item() == pytest.approx(full[3, 8])
    with pytest.raises(ValueError, match=r"Target values should be in \[0, 9\]"):
        asm(mg.tensor(ASM_X), mg.tensor(ASM_Y + 1))
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        mg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [7, 4])


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:Initializing zero-element")    # PyTorch's, for 8 // 16
def test_adaptive_log_softmax_matches_pytorch():
    torch = pytest.importorskip("torch")
    ours = mg.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7]).double()
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7]).double()
    assert [(k, list(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, list(v.shape)) for k, v in theirs.state_dict().items()]
    ours.load_state_dict({k: mg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    out, ref = ours(mg.tensor(ASM_X), mg.tensor(ASM_Y)), theirs(torch.tensor(ASM_X),
                                                               torch.tensor(ASM_Y))
    np.testing.assert_allclose(out.output.numpy(), ref.output.detach().numpy(), rtol=1e-10)
    out.loss.backward()
    ref.loss.backward()
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-12,
                                   err_msg=name)
    np.testing.assert_allclose(ours.log_prob(mg.tensor(ASM_X)).numpy(),
                               theirs.log_prob(torch.tensor(ASM_X)).detach().numpy(),
                               rtol=1e-10)
