"""Modules: registration, state dicts, modes, init, and whole models against PyTorch."""
import math

import numpy as np
import pytest
from tests.nn_helpers import exact_counting

import mutograd as mg
from mutograd import nn


def _mlp():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.BatchNorm1d(8), nn.Linear(8, 2))


# ---- Parameter and registration -------------------------------------------------------------
def test_parameter_is_a_leaf_requiring_grad_sharing_storage():
    t = mg.randn([3])
    p = nn.Parameter(t)
    assert isinstance(p, mg.Tensor) and p.is_leaf and p.requires_grad
    assert p.data_ptr() == t.data_ptr()
    assert repr(p).startswith("Parameter containing:")
    assert not nn.Parameter(t, requires_grad=False).requires_grad


def test_named_parameters_buffers_and_children():
    net = _mlp()
    assert [n for n, _ in net.named_parameters()] == [
        "0.weight", "0.bias", "2.weight", "2.bias", "3.weight", "3.bias"]
    assert [n for n, _ in net.named_buffers()] == [
        "2.running_mean", "2.running_var", "2.num_batches_tracked"]
    assert len(list(net.children())) == 4 and len(list(net.modules())) == 5
    assert sum(p.numel() for p in net.parameters()) == 4 * 8 + 8 + 8 + 8 + 8 * 2 + 2


def test_shared_parameter_is_listed_once():
    lin = nn.Linear(3, 3)
    net = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(net.parameters())) == 2


def test_non_persistent_buffer_is_not_in_state_dict():
    m = nn.Module()
    m.register_buffer("a", mg.zeros([2]))
    m.register_buffer("b", mg.zeros([2]), persistent=False)
    assert list(m.state_dict()) == ["a"] and len(list(m.buffers())) == 2


def test_assigning_a_plain_tensor_over_a_parameter_is_a_type_error():
    lin = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        lin.weight = mg.zeros([2, 2])
    with pytest.raises(TypeError, match="mutograd.nn.Parameter or None required"):
        lin.register_parameter("w2", mg.zeros([2]))
    with pytest.raises(KeyError, match="without '.'"):
        lin.register_buffer("a.b", mg.zeros([1]))


def test_train_eval_propagate_and_zero_grad():
    net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    assert all(m.training for m in net.modules())
    net.eval()
    assert not any(m.training for m in net.modules())
    x = mg.randn([2, 3])
    np.testing.assert_array_equal(net(x).numpy(), net[0](x).numpy())   # dropout is identity
    net(x).sum().backward()
    w = net[0].weight
    net.zero_grad(set_to_none=False)
    assert w.grad is not None and not w.grad.numpy().any()
    net.zero_grad()
    assert w.grad is None


def test_module_to_dtype_keeps_parameter_objects_and_integer_buffers():
    net = _mlp()
    w = net[0].weight
    net.to(mg.float64)
    assert net[0].weight is w and w.dtype == mg.float64
    assert net[2].running_mean.dtype == mg.float64
    assert net[2].num_batches_tracked.dtype == mg.int64
    assert net(mg.randn([3, 4], dtype=mg.float64)).dtype == mg.float64


def test_repr_lists_the_tree():
    assert repr(nn.Sequential(nn.Linear(2, 3), nn.ReLU(inplace=True))) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU(inplace=True)\n)")


def test_containers():
    ml = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
    ml.append(nn.Tanh())
    assert len(ml) == 3 and isinstance(ml[2], nn.Tanh) and len(list(ml.parameters())) == 2
    md = nn.ModuleDict({"a": nn.Linear(2, 2)})
    md["b"] = nn.Linear(2, 1)
    assert list(md.keys()) == ["a", "b"] and [n for n, _ in md.named_parameters()][-1] == "b.bias"
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    assert len(seq[1:]) == 2 and isinstance(seq[-1], nn.Linear)


def test_forward_hooks_see_and_may_replace_args_and_output():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(m) or out + 1)
    out = lin(mg.ones([1, 2]))
    np.testing.assert_allclose(out.numpy(), lin.bias.numpy()[None] + 1, rtol=1e-6)
    assert calls == [lin]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(lin(mg.zeros([1, 2])).numpy(), lin.bias.numpy()[None])


# ---- state dicts ---------------------------------------------------------------------------
def test_load_state_dict_copies_in_place_and_keeps_identity():
    a, b = _mlp(), _mlp()
    w = b[0].weight
    v = w._version
    ptr = w.data_ptr()
    with exact_counting() as c:
        res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert b[0].weight is w and w.data_ptr() == ptr and w._version == v + 1
    assert c["bytes"] == 0      # copied into the existing storages
    for (n, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(p.numpy(), q.numpy(), err_msg=n)


def test_state_dict_is_an_alias_not_a_copy():
    net = nn.Linear(2, 2)
    with exact_counting() as c:
        sd = net.state_dict()
    assert c["bytes"] == 0 and sd["weight"].data_ptr() == net.weight.data_ptr()
    assert not sd["weight"].requires_grad


def test_load_state_dict_reports_every_problem_before_writing():
    net = _mlp()
    sd = dict(_mlp().state_dict())
    del sd["0.bias"]
    sd["extra"] = mg.zeros([1])
    sd["3.weight"] = mg.zeros([3, 8])
    before = net[0].weight.numpy().copy()
    v = net[0].weight._version
    with pytest.raises(nn.StateDictError) as e:
        net.load_state_dict(sd)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Sequential:")
    assert 'Missing key(s) in state_dict: "0.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "extra".' in msg
    assert ("size mismatch for 3.weight: copying a param with shape [3, 8] from checkpoint, "
            "the shape in current model is [2, 8].") in msg
    assert isinstance(e.value, RuntimeError)
    np.testing.assert_array_equal(net[0].weight.numpy(), before)
    assert net[0].weight._version == v


def test_load_state_dict_non_strict_returns_the_keys_but_still_refuses_bad_shapes():
    net = _mlp()
    sd = dict(_mlp().state_dict())
    del sd["0.bias"]
    sd["extra"] = mg.zeros([1])
    res = net.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["0.bias"] and res.unexpected_keys == ["extra"]
    sd["0.weight"] = mg.zeros([1])
    with pytest.raises(nn.StateDictError, match="size mismatch for 0.weight"):
        net.load_state_dict(sd, strict=False)


# ---- layers --------------------------------------------------------------------------------
def test_batchnorm_running_stats_update_in_place_under_no_grad():
    bn = nn.BatchNorm2d(3)
    rm = bn.running_mean
    x = mg.randn([4, 3, 2, 2]) * 2 + 1
    y = bn(x)
    assert bn.running_mean is rm and rm._version == 2 and int(bn.num_batches_tracked) == 1
    xd = x.numpy()
    np.testing.assert_allclose(rm.numpy(), 0.1 * xd.mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(),
                               0.9 + 0.1 * xd.var(axis=(0, 2, 3), ddof=1), rtol=1e-5)
    assert y.requires_grad and not rm.requires_grad
    bn.eval()
    out = bn(x).numpy()
    ref = (xd - rm.numpy()[:, None, None]) / np.sqrt(bn.running_var.numpy()[:, None, None]
                                                       + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_batchnorm_errors():
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        nn.BatchNorm2d(3)(mg.randn([2, 3]))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(mg.randn([1, 3]))


def test_embedding_padding_row_is_zero_and_gets_no_gradient():
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert not emb.weight.numpy()[1].any()
    emb(mg.tensor([[1, 2], [1, 1]])).sum().backward()
    g = emb.weight.grad.numpy()
    assert not g[1].any() and (g[2] == 1).all() and not g[0].any()


def test_relu_inplace_module_returns_its_input():
    x = mg.randn([3]) * 1.0
    assert nn.ReLU(inplace=True)(x) is x
    assert nn.ReLU()(x) is not x
    assert nn.Identity()(x) is x


# ---- init ----------------------------------------------------------------------------------
INITS = [
    ("uniform_", {"a": -0.5, "b": 0.5}, lambda a: a.min() >= -0.5 and a.max() < 0.5),
    ("normal_", {"mean": 1.0, "std": 0.1}, lambda a: abs(a.mean() - 1) < 0.02),
    ("constant_", {"val": 0.3}, lambda a: np.allclose(a, 0.3)),
    ("zeros_", {}, lambda a: not a.any()),
    ("ones_", {}, lambda a: (a == 1).all()),
    ("xavier_uniform_", {}, lambda a: abs(a).max() <= math.sqrt(6 / (64 + 32))),
    ("xavier_normal_", {}, lambda a: abs(a.std() - math.sqrt(2 / 96)) < 0.02),
    ("kaiming_uniform_", {"nonlinearity": "relu"}, lambda a: abs(a).max() <= math.sqrt(6 / 32)),
    ("kaiming_normal_", {"mode": "fan_out"}, lambda a: abs(a.std() - math.sqrt(2 / 64)) < 0.02),
    ("orthogonal_", {}, lambda a: np.allclose(a.T @ a, np.eye(32), atol=1e-5)),
    # N(0, 0.02) cut at +-0.03 (1.5 std): the std of that truncated normal is 0.0148
    ("trunc_normal_", {"std": 0.02, "a": -0.03, "b": 0.03},
     lambda a: abs(a).max() <= 0.03 and abs(a.mean()) < 0.002 and abs(a.std() - 0.0148) < 0.001),
    ("trunc_normal_", {"mean": 1.0, "std": 1.0, "a": 1.5, "b": 4.0},
     lambda a: a.min() >= 1.5 and a.max() <= 4.0 and abs(a.mean() - 2.13) < 0.06),
]


@pytest.mark.parametrize("name,kw,check", INITS, ids=[f"{n}-{i}" for i, (n, _, _) in
                                                      enumerate(INITS)])
def test_init_writes_in_place_on_a_parameter(name, kw, check):
    p = nn.Parameter(mg.empty([64, 32]))
    ptr = p.data_ptr()
    with exact_counting() as c:
        r = getattr(nn.init, name)(p, **kw)
    assert r is p and p.data_ptr() == ptr and p._version == 1 and p.requires_grad
    assert c["bytes"] == 0
    assert check(p.numpy())


def test_init_errors():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(mg.empty([3]))
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        nn.init.kaiming_normal_(mg.empty([3, 3]), nonlinearity="foo")
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))


# ---- gradient clipping ---------------------------------------------------------------------
def test_clip_grad_norm_scales_in_place_and_returns_the_total_norm():
    a = mg.tensor([3.0, 0.0], requires_grad=True)
    b = mg.tensor([[4.0]], requires_grad=True)
    a.grad, b.grad = mg.tensor([3.0, 0.0]), mg.tensor([[4.0]])
    g = a.grad
    total = nn.clip_grad_norm_([a, b], 1.0)
    assert float(total) == pytest.approx(5.0)
    assert a.grad is g and g._version == 1
    np.testing.assert_allclose(a.grad.numpy(), [0.6, 0.0], rtol=1e-5)
    assert float(nn.clip_grad_norm_([a, b], 10.0, norm_type="inf")) == pytest.approx(0.8,
                                                                                       rel=1e-5)
    nn.clip_grad_value_([a, b], 0.5)
    np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.0])


# ---- whole models against PyTorch ----------------------------------------------------------
def _copy_to_torch(torch, ours, theirs):
    sd = {k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(sd)


@pytest.mark.torch
def test_cnn_matches_pytorch_in_train_and_eval_mode():
    torch = pytest.importorskip("torch")
    tn = torch.nn

    def build(m, inplace):
        return m.Sequential(
            m.Conv2d(2, 6, 3, padding=1, groups=2), m.BatchNorm2d(6), m.ReLU(inplace=inplace),
            m.Conv2d(6, 8, 3, stride=2, dilation=1), m.LeakyReLU(0.1), m.MaxPool2d(2, 1),
            m.AvgPool2d(2, 1, padding=1), m.AdaptiveAvgPool2d((2, 2)), m.Flatten(),
            m.Linear(32, 16), m.LayerNorm(16), m.GELU(), m.Dropout(0.0), m.Linear(16, 5))

    ours = build(nn, True).double()
    theirs = build(tn, True).double()
    _copy_to_torch(torch, ours, theirs)
    rng = np.random.default_rng(0)
    for step in range(3):
        x = rng.standard_normal((4, 2, 9, 9))
        y = rng.integers(0, 5, 4)
        out = ours(mg.tensor(x))
        ref = theirs(torch.tensor(x))
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-10)
        mg.nn.functional.cross_entropy(out, mg.tensor(y)).backward()
        torch.nn.functional.cross_entropy(ref, torch.tensor(y)).backward()
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=n)
    for (n, b), (_, c) in zip(ours.named_buffers(), theirs.named_buffers()):
        np.testing.assert_allclose(b.numpy(), c.numpy(), rtol=1e-9, err_msg=n)
    ours.eval()
    theirs.eval()
    x = rng.standard_normal((3, 2, 9, 9))
    np.testing.assert_allclose(ours(mg.tensor(x)).numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-9, atol=1e-10)


@pytest.mark.torch
def test_default_init_bounds_match_pytorch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    for ours, theirs, fan_in in ((nn.Linear(300, 200), torch.nn.Linear(300, 200), 300),
                                 (nn.Conv2d(40, 60, 3), torch.nn.Conv2d(40, 60, 3), 360),
                                 (nn.ConvTranspose2d(60, 40, 3),
                                  torch.nn.ConvTranspose2d(60, 40, 3), 360)):
        bound = 1 / math.sqrt(fan_in)     # kaiming_uniform_(a=sqrt(5)) and the bias rule
        for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert p.shape == list(q.shape), n
            for arr in (p.numpy(), q.detach().numpy()):
                # 60 biases: P(max |b| < 0.8 bound) = 0.8 ** 60, about 1e-6
                assert abs(arr).max() <= bound and abs(arr).max() > 0.8 * bound, n


@pytest.mark.torch
def test_conv1d_group_and_rms_norm_modules_match_pytorch():
    torch = pytest.importorskip("torch")
    tn = torch.nn

    def build(m):
        return m.Sequential(m.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), m.GroupNorm(3, 6),
                            m.GELU(), m.Conv1d(6, 8, 2, dilation=2, bias=False),
                            m.RMSNorm([8, 2]), m.Flatten(), m.Linear(16, 3))
    ours, theirs = build(nn).double(), build(tn).double()
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    _copy_to_torch(torch, ours, theirs)
    x = np.random.default_rng(0).standard_normal((2, 4, 7))
    out, ref = ours(mg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=n)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        nn.GroupNorm(4, 6)


def test_parameter_list_registers_in_order_and_trains():
    pl = nn.ParameterList([mg.ones([2]), nn.Parameter(mg.zeros([3]))])
    pl.append(mg.full([1], 2.0))
    assert len(pl) == 3 and [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in pl)
    assert isinstance(pl[1:], nn.ParameterList) and len(pl[1:]) == 2
    pl[0] = mg.full([2], 5.0)
    assert pl[0].tolist() == [5.0, 5.0] and list(pl.state_dict()) == ["0", "1", "2"]
    opt = mg.optim.SGD(pl.parameters(), lr=1.0)
    sum((p * p).sum() for p in pl).backward()
    opt.step()
    assert pl[2].tolist() == [-2.0]


def test_deepcopy_of_a_model_copies_parameters_buffers_and_grads_keeping_ties():
    import copy
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    b.weight = a.weight                                  # tied
    net = nn.Sequential(a, b, nn.BatchNorm1d(2))
    a.weight.grad = mg.ones([2, 2])
    a.weight.name = "w"
    twin = copy.deepcopy(net)
    assert twin[0].weight is twin[1].weight and twin[0].weight is not a.weight
    assert isinstance(twin[0].weight, nn.Parameter) and twin[0].weight.is_leaf
    assert twin[0].weight.requires_grad and twin[0].weight.name == "w"
    assert twin[0].weight.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert len(list(twin.parameters())) == len(list(net.parameters()))
    with mg.no_grad():
        twin[0].weight.fill_(0.0)
        twin[2].running_mean.fill_(5.0)
    assert a.weight.abs().sum().item() > 0 and net[2].running_mean.tolist() == [0.0, 0.0]
    x = mg.randn([4, 2])
    np.testing.assert_allclose(copy.deepcopy(net)(x).numpy(), net(x).numpy())
    h = a.weight * 2
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(h)
    sd = copy.deepcopy(mg.optim.Adam(net.parameters()).state_dict())
    assert "param_groups" in sd


MORE_MODULES = [("Softplus", (2.0, 5.0)), ("Mish", ()), ("Hardswish", ()), ("Hardsigmoid", ()),
                ("Hardtanh", (-0.5, 0.5)), ("SELU", ()), ("CELU", (0.5,)), ("Softsign", ()),
                ("Tanhshrink", ()), ("LogSigmoid", ()), ("Softshrink", (0.3,)),
                ("Hardshrink", (0.3,)), ("PReLU", (3,))]


@pytest.mark.torch
@pytest.mark.parametrize("name,args", MORE_MODULES, ids=[m[0] for m in MORE_MODULES])
def test_more_activation_modules_match_pytorch(name, args):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args).double(), getattr(torch.nn, name)(*args).double()
    _copy_to_torch(torch, ours, theirs)
    x = np.random.default_rng(0).uniform(-3, 3, (2, 3, 4))
    x = np.where(np.abs(np.abs(x) - 0.3) < 0.05, x + 0.1, x)     # away from the shrink kinks
    t, r = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, ref = ours(t), theirs(r)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-9, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    # (PyTorch's float64 hardsigmoid gradient uses 1/6 rounded to float32)
    np.testing.assert_allclose(t.grad.numpy(), r.grad.numpy(), rtol=1e-7, atol=1e-12)
    for (n, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, err_msg=n)


@pytest.mark.torch
def test_more_loss_and_similarity_modules_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    logp = a - np.log(np.exp(a).sum(1, keepdims=True))
    p = np.exp(b) / np.exp(b).sum(1, keepdims=True)
    cases = [("HuberLoss", {"delta": 0.5}, a, b),
             ("KLDivLoss", {"reduction": "batchmean"}, logp, p),
             ("KLDivLoss", {"log_target": True, "reduction": "sum"}, logp, np.log(p)),
             ("CosineSimilarity", {"dim": 1}, a, b)]
    for name, kw, x, y in cases:
        got = getattr(nn, name)(**kw)(mg.tensor(x), mg.tensor(y)).numpy()
        want = getattr(torch.nn, name)(**kw)(torch.tensor(x), torch.tensor(y)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=name)
    x = mg.ones([2, 6, 3, 3])
    out = nn.Dropout2d(0.5)(x)
    per_channel = out.numpy().reshape(12, 9)
    assert all(len(set(row)) == 1 for row in per_channel)   # whole channels kept or zeroed
