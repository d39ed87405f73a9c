"""``torch.optim.swa_utils`` against PyTorch: the averaged parameters and buffers of
AveragedModel (SWA, EMA by ``avg_fn`` and by ``multi_avg_fn``, ``use_buffers``) along a short
training run, and the batch-norm statistics ``update_bn`` recomputes. (SWALR's rates are in
test_lr_schedulers_vs_torch.py.)"""
import numpy as np
import pytest

import mutograd.compat.torch as mtorch

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

rng = np.random.default_rng(0)
SHAPES = [(4, 3), (4,), (4,), (4,), (2, 4), (2,)]     # Linear, BatchNorm1d, Linear
WEIGHTS = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]
BATCHES = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(4)]


def _net(ns):
    net = ns.nn.Sequential(ns.nn.Linear(3, 4), ns.nn.BatchNorm1d(4), ns.nn.ReLU(),
                           ns.nn.Linear(4, 2))
    with ns.no_grad():
        for p, w in zip(net.parameters(), WEIGHTS):
            p.copy_(ns.tensor(w))
    return net


def _state(module):
    return {k: v.detach().numpy().copy() for k, v in module.state_dict().items()}


AVERAGES = {
    "swa": lambda u: {},
    "ema-avg_fn": lambda u: {"avg_fn": u.get_ema_avg_fn(0.8)},
    "ema-multi_avg_fn": lambda u: {"multi_avg_fn": u.get_ema_multi_avg_fn(0.7)},
    "swa-use_buffers": lambda u: {"use_buffers": True},
    "ema-multi-use_buffers": lambda u: {"multi_avg_fn": u.get_ema_multi_avg_fn(0.6),
                                        "use_buffers": True},
    "swa-avg_fn": lambda u: {"avg_fn": u.get_swa_avg_fn()},
}


def _train_and_average(ns, kw):
    net = _net(ns)
    utils = ns.optim.swa_utils
    avg = utils.AveragedModel(net, **AVERAGES[kw](utils))
    opt = ns.optim.SGD(net.parameters(), lr=0.1, momentum=0.5)
    for x in BATCHES:
        opt.zero_grad()
        net(ns.tensor(x)).square().mean().backward()
        opt.step()
        avg.update_parameters(net)
    out = avg(ns.tensor(BATCHES[0])).detach().numpy()
    utils.update_bn([(ns.tensor(x), 0) for x in BATCHES], avg)
    return _state(avg), out, _state(avg)


@pytest.mark.parametrize("kw", AVERAGES, ids=AVERAGES.keys())
def test_averaged_model_and_update_bn_match_torch(kw):
    got, want = _train_and_average(mtorch, kw), _train_and_average(torch, kw)
    assert got[0].keys() == want[0].keys()
    for mine, theirs in ((got[0], want[0]), (got[2], want[2])):
        for k in theirs:
            np.testing.assert_allclose(mine[k], theirs[k], rtol=2e-5, atol=1e-6, err_msg=k)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=1e-6)


def test_averaged_model_is_a_torch_module_and_refuses_two_average_functions():
    u = mtorch.optim.swa_utils
    avg = u.AveragedModel(mtorch.nn.Linear(2, 2))
    assert isinstance(avg, mtorch.nn.Module)
    assert isinstance(avg.n_averaged, mtorch.Tensor) and avg.n_averaged.dtype == mtorch.long
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        u.AveragedModel(mtorch.nn.Linear(2, 2), avg_fn=u.get_swa_avg_fn(),
                        multi_avg_fn=u.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match="Invalid decay value 1.5"):
        u.get_ema_multi_avg_fn(1.5)
