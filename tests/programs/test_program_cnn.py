"""examples/cnn.py and examples/cnn_paddle.py (the same CNN in both dialects): on mutograd and on
the real framework with identical weights and batches, losses, gradients, 10 SGD-momentum steps
with weight decay and the BatchNorm statistics agree; the two dialects agree with each other on
mutograd (no real framework needed)."""
import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss, assert_trajectory,
                                            grads, hand_over, load, params, to_numpy)

import mutograd as mg

STEPS = 10


def _batches(ns, steps=STEPS, batch=16):
    x, y = ns["digits"](seed=0, n=steps * batch)
    return [(x[i:i + batch], y[i:i + batch]) for i in range(0, steps * batch, batch)]


def _train_torch_style(ns, model, batches, lr=0.05):
    """The program's own train_epoch over a list-of-tensors 'loader'; first gradients too."""
    torch = ns["torch"]
    model.dropout.p = 0.0          # dropout draws differ between frameworks
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    loader = [(torch.tensor(x), torch.tensor(y)) for x, y in batches]
    model.train()
    loss = ns["F"].cross_entropy(model(loader[0][0]), loader[0][1])
    loss.backward()
    first = grads(model)
    opt.zero_grad()
    losses = [ns["train_epoch"](model, [b], opt) for b in loader]
    return losses, first


def _train_paddle_style(ns, model, batches, lr=0.05):
    paddle = ns["paddle"]
    model.dropout.p = 0.0
    opt = paddle.optimizer.Momentum(learning_rate=lr, momentum=0.9,
                                    parameters=model.parameters(), weight_decay=5e-4)
    loader = [(paddle.to_tensor(x), paddle.to_tensor(y)) for x, y in batches]
    model.train()
    loss = ns["F"].cross_entropy(model(loader[0][0]), loader[0][1])
    loss.backward()
    first = grads(model)
    opt.clear_grad()
    losses = [ns["train_epoch"](model, [b], opt) for b in loader]
    return losses, first


def _buffers(model, names):
    sd = model.state_dict()
    return {k: to_numpy(sd[k]) for k in names}


@pytest.mark.torch
def test_cnn_matches_pytorch():
    nt, nm = load("cnn", "torch"), load("cnn", "mutograd")
    import torch
    torch.manual_seed(0)
    tmodel = nt["Net"]()
    mmodel = nm["Net"]()
    hand_over(tmodel, mmodel)
    start = params(tmodel)
    batches = _batches(nt)
    lt, gt = _train_torch_style(nt, tmodel, batches)
    lm, gm = _train_torch_style(nm, mmodel, batches)
    assert_close_dict(gm, gt, rtol=2e-3, atol=1e-5)
    for a, b in zip(lm, lt):
        assert_loss(a, b)
    assert_trajectory(start, params(mmodel), params(tmodel))
    stats = ["bn1.running_mean", "bn1.running_var", "bn2.running_mean", "bn2.running_var"]
    assert_close_dict(_buffers(mmodel, stats), _buffers(tmodel, stats), rtol=1e-4, atol=1e-6,
                      what="BatchNorm statistic")
    assert int(mmodel.state_dict()["bn1.num_batches_tracked"]) == STEPS + 1
    # evaluation (no_grad decorator, argmax accuracy) gives PyTorch's numbers
    x, y = nt["digits"](seed=5, n=40)
    tl = [(torch.tensor(x), torch.tensor(y))]
    mres = nm["test"](mmodel, [(nm["torch"].tensor(x), nm["torch"].tensor(y))])
    tres = nt["test"](tmodel, tl)
    assert abs(mres[0] - tres[0]) <= 1e-4 * abs(tres[0]) and mres[1] == tres[1]


def _dialect_models():
    nmt, nmp = load("cnn", "mutograd"), load("cnn_paddle", "mutograd", dialect="paddle")
    mg.seed(0)
    tmodel = nmt["Net"]()
    pmodel = nmp["Net"]()
    return nmt, nmp, tmodel, pmodel


def _torch_to_paddle_state(sd):
    """A torch-layout state dict in Paddle's layout: Linear weights transposed, BatchNorm
    statistics named ``_mean``/``_variance``, no batch count."""
    out = {}
    for k, v in sd.items():
        a = to_numpy(v)
        if k.endswith("num_batches_tracked"):
            continue
        k = k.replace("running_mean", "_mean").replace("running_var", "_variance")
        if k.startswith("fc") and k.endswith("weight"):
            a = a.T
        out[k] = a
    return out


def test_cnn_paddle_dialect_matches_torch_dialect_on_mutograd():
    nmt, nmp, tmodel, pmodel = _dialect_models()
    state = _torch_to_paddle_state(tmodel.state_dict())
    assert list(state) == list(pmodel.state_dict())
    pmodel.set_state_dict({k: mg.tensor(v) for k, v in state.items()})
    start = _torch_to_paddle_state(dict(tmodel.named_parameters()))
    batches = _batches(nmt)
    lt, gt = _train_torch_style(nmt, tmodel, batches)
    lp, gp = _train_paddle_style(nmp, pmodel, batches)
    np.testing.assert_allclose(lp, lt, rtol=1e-5)
    assert_close_dict(gp, _torch_to_paddle_state(gt), rtol=1e-4, atol=1e-7)
    assert_trajectory(start, params(pmodel), _torch_to_paddle_state(params(tmodel)))
    # the running variance differs by design: PyTorch keeps the unbiased batch variance, Paddle
    # the biased one (checked against real Paddle below)
    want = {k: v for k, v in _torch_to_paddle_state(tmodel.state_dict()).items()
            if "_variance" not in k}
    got = {k: to_numpy(v) for k, v in pmodel.state_dict().items() if k in want}
    assert_close_dict(got, want, rtol=1e-4, atol=1e-6, what="state")
    t_var = to_numpy(tmodel.state_dict()["bn2.running_var"])
    p_var = to_numpy(pmodel.state_dict()["bn2._variance"])
    assert np.all(p_var < t_var) and np.allclose(p_var, t_var, rtol=2e-2)


def test_cnn_matches_real_paddle():
    npd = load("cnn_paddle", "paddle")
    nmp = load("cnn_paddle", "mutograd", dialect="paddle")
    import paddle
    paddle.seed(0)
    rmodel = npd["Net"]()
    pmodel = nmp["Net"]()
    pmodel.set_state_dict({k: mg.tensor(to_numpy(v))
                           for k, v in rmodel.state_dict().items()})
    start = params(rmodel)
    batches = _batches(npd)
    lr, gr = _train_paddle_style(npd, rmodel, batches)
    lp, gp = _train_paddle_style(nmp, pmodel, batches)
    assert_close_dict(gp, gr, rtol=2e-3, atol=1e-5)
    for a, b in zip(lp, lr):
        assert_loss(a, b)
    assert_trajectory(start, params(pmodel), params(rmodel))
    want = {k: to_numpy(v) for k, v in rmodel.state_dict().items()}
    assert_close_dict({k: to_numpy(v) for k, v in pmodel.state_dict().items()}, want,
                      rtol=1e-3, atol=1e-5, what="state")
