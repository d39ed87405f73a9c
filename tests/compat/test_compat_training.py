"""nn, optim, data and checkpoints under both dialects' names (``mutograd.compat``)."""
import doctest
import importlib

import numpy as np
import pytest

from mutograd import compat

DOC_MODULES = ["mutograd.compat.torch.nn", "mutograd.compat.torch.optim",
               "mutograd.compat.paddle.nn", "mutograd.compat.paddle.optimizer",
               "mutograd.compat.paddle.optimizer.lr"]


@pytest.mark.parametrize("name", DOC_MODULES)
def test_docstring_examples(name):
    # an example's tensors follow the namespace that made them; nothing to set beforehand
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def _torch_script(torch, F, steps=3):
    """A training loop written against PyTorch's API (runs on mutograd or on PyTorch)."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x = torch.tensor(rng.standard_normal((12, 1, 6, 6)).astype(np.float32))
    y = torch.tensor(rng.integers(0, 3, 12))
    ds = torch.utils.data.TensorDataset(x, y)
    loader = torch.utils.data.DataLoader(ds, batch_size=4)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.ReLU(inplace=True),
                              torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(36, 3))
    return net, loader


def _train(torch, F, net, loader, steps):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(steps):
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(net(xb), yb, label_smoothing=0.1)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
        sched.step()
    return loss.item()


@pytest.mark.torch
def test_a_pytorch_training_script_gives_pytorchs_numbers(tmp_path):
    real = pytest.importorskip("torch")
    import mutograd.compat.torch.nn.functional as F
    from mutograd.compat import torch
    net, loader = _torch_script(torch, F)
    assert all(isinstance(p, torch.nn.Parameter) and isinstance(p, torch.Tensor)
               for p in net.parameters())
    ref, ref_loader = _torch_script(real, real.nn.functional)
    ref.load_state_dict({k: real.tensor(v.numpy()) for k, v in net.state_dict().items()})
    a = _train(torch, F, net, loader, 2)
    b = _train(real, real.nn.functional, ref, ref_loader, 2)
    assert a == pytest.approx(b, rel=1e-5)
    for (n, p), (_, q) in zip(net.named_parameters(), ref.named_parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4,
                                   atol=1e-6, err_msg=n)
    torch.save(net.state_dict(), tmp_path / "model.pt")
    back = torch.load(tmp_path / "model.pt", map_location="cpu", weights_only=True)
    assert list(back) == list(net.state_dict())


@pytest.fixture
def paddle():
    from mutograd.compat import paddle
    return paddle


def test_paddle_linear_uses_paddles_weight_layout(paddle):
    lin = paddle.nn.Linear(4, 3)
    assert lin.weight.shape == [4, 3] and lin.bias.shape == [3]
    assert isinstance(lin.parameters(), list)
    assert all(isinstance(p, paddle.nn.Parameter) and isinstance(p, paddle.Tensor)
               for p in lin.parameters())
    x = paddle.randn([2, 4])
    assert isinstance(lin(x), paddle.Tensor)
    np.testing.assert_allclose(lin(x).numpy(), x.numpy() @ lin.weight.numpy()
                               + lin.bias.numpy(), rtol=1e-5)
    assert paddle.nn.Linear(2, 2, bias_attr=False).bias is None


def test_paddle_training_loop_with_scheduler_and_clear_grad(paddle, tmp_path):
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(), paddle.nn.Linear(4, 2))
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
    opt = paddle.optimizer.Momentum(learning_rate=sched, momentum=0.9,
                                    parameters=net.parameters())
    x = paddle.randn([8, 3])
    y = paddle.to_tensor(np.arange(8).reshape(8, 1) % 2)
    loader = paddle.io.DataLoader(paddle.io.TensorDataset([x, y]), batch_size=4)
    losses = []
    for _ in range(3):
        for xb, yb in loader:
            loss = paddle.nn.functional.cross_entropy(net(xb), yb)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        assert opt.get_lr() == sched()
        sched.step()
    assert losses[-1] < losses[0]
    w = net[0].weight
    assert w.grad is None or not w.grad.numpy().any()
    paddle.save({"model": net.state_dict(), "opt": opt.state_dict()}, str(tmp_path / "m.pdparams"))
    ck = paddle.load(str(tmp_path / "m.pdparams"))
    net.set_state_dict(ck["model"])
    with pytest.raises(ValueError, match="should not be None"):
        paddle.optimizer.Adam(learning_rate=0.1)


@pytest.mark.torch
def test_paddle_cross_entropy_with_n1_labels_equals_pytorchs(paddle):
    torch = pytest.importorskip("torch")
    logits = np.random.default_rng(0).standard_normal((5, 4))
    labels = np.array([[0], [3], [1], [1], [2]])
    ours = paddle.nn.CrossEntropyLoss()(paddle.to_tensor(logits), paddle.to_tensor(labels))
    ref = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels[:, 0]))
    assert float(ours) == pytest.approx(float(ref), rel=1e-12)


def test_paddle_layer_semantics_that_differ(paddle):
    x = paddle.to_tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    # AvgPool2D leaves padding out of the mean by default (exclusive=True)
    out = paddle.nn.AvgPool2D(2, stride=2, padding=1)(x).numpy()
    assert out[0, 0, 0, 0] == 0.0 and out[0, 0, 2, 2] == 15.0
    # SmoothL1Loss is Huber with delta
    d = paddle.to_tensor([0.5, 3.0])
    z = paddle.zeros([2])
    loss = paddle.nn.SmoothL1Loss(reduction="none", delta=2.0)(d, z)
    np.testing.assert_allclose(loss.numpy(), [0.5 * 0.25, 2.0 * 3.0 - 0.5 * 4.0])
    # BatchNorm momentum weighs the old statistic
    bn = paddle.nn.BatchNorm1D(2, momentum=0.9)
    bn(paddle.to_tensor([[1.0, 2.0], [3.0, 6.0]]))
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 0.4], rtol=1e-6)


def test_paddle_rmsprop_follows_paddles_formula(paddle):
    w0 = np.array([1.0, -2.0, 0.5], np.float32)
    w = paddle.nn.Parameter(paddle.to_tensor(w0))
    opt = paddle.optimizer.RMSProp(learning_rate=0.1, rho=0.9, epsilon=1e-6, momentum=0.5,
                                   parameters=[w])
    p, ms, mom = w0.astype(np.float64), np.zeros(3), np.zeros(3)
    for s in range(3):
        g = np.sin(p) + s
        w.grad = paddle.to_tensor(g.astype(np.float32))
        opt.step()
        ms = 0.9 * ms + 0.1 * g * g
        mom = 0.5 * mom + 0.1 * g / np.sqrt(ms + 1e-6)
        p = p - mom
        np.testing.assert_allclose(w.numpy(), p, rtol=1e-5)


@pytest.mark.parametrize("clip,expected", [
    ("ClipGradByGlobalNorm", [0.6, 0.8, 0.0]), ("ClipGradByNorm", [0.6, 0.8, 0.0]),
    ("ClipGradByValue", [0.5, 0.5, 0.0])])
def test_paddle_grad_clip_objects_clip_before_the_step(paddle, clip, expected):
    w = paddle.nn.Parameter(paddle.zeros([3]))
    arg = 1.0 if clip != "ClipGradByValue" else 0.5
    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=[w],
                               grad_clip=getattr(paddle.nn, clip)(arg))
    w.grad = paddle.to_tensor([3.0, 4.0, 0.0])
    g = w.grad
    opt.step()
    assert w.grad is g   # clipped in place
    np.testing.assert_allclose(w.numpy(), [-e for e in expected], rtol=1e-6)
    with pytest.raises(TypeError, match="grad_clip must be"):
        paddle.optimizer.SGD(learning_rate=1.0, parameters=[w], grad_clip=1.0)


SCRIPTS = {"torch": """
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
x = torch.randn(64, 1, 8, 8)
y = torch.randint(0, 10, (64,))
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(inplace=True), nn.Flatten(),
                    nn.Linear(256, 10))
opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = StepLR(opt, 1, 0.5)
for epoch in range(2):
    for xb, yb in DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True):
        opt.zero_grad()
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
    sched.step()
    print(epoch, round(loss.item(), 4))
torch.save(net.state_dict(), PATH)
net.load_state_dict(torch.load(PATH))
print("ok")
""", "paddle": """
import paddle
import paddle.nn as nn
import paddle.nn.functional as F
from paddle.io import DataLoader, TensorDataset

paddle.seed(0)
x = paddle.randn([64, 1, 8, 8])
y = paddle.randint(0, 10, [64, 1])
net = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(256, 10))
sched = paddle.optimizer.lr.CosineAnnealingDecay(learning_rate=0.1, T_max=2)
opt = paddle.optimizer.Momentum(learning_rate=sched, parameters=net.parameters())
for epoch in range(2):
    for xb, yb in DataLoader(TensorDataset([x, y]), batch_size=16, shuffle=True):
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        opt.clear_grad()
    sched.step()
    print(epoch, round(float(loss), 4))
paddle.save(net.state_dict(), PATH)
net.set_state_dict(paddle.load(PATH))
print("ok")
"""}


@pytest.mark.parametrize("dialect", ["torch", "paddle"])
def test_an_unmodified_training_script_runs_through_the_import_hook(dialect, tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(SCRIPTS[dialect].replace("PATH", repr(str(tmp_path / "net.ckpt"))))
    g = compat.run_script(str(script), dialect)
    # the script's tensors are its framework's type (they print and behave as its own)
    ns = importlib.import_module(f"mutograd.compat.{dialect}")
    assert isinstance(g["x"], ns.Tensor) and isinstance(g["loss"], ns.Tensor)
    lines = capsys.readouterr().out.split()
    assert lines[-1] == "ok" and float(lines[3]) < float(lines[1])
