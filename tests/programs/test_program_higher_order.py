"""The higher-order example programs, stage by stage against PyTorch: per-sample gradients
(examples/per_sample_grads.py), MAML (examples/maml.py), WGAN-GP (examples/wgan_gp.py) and, for
the Paddle-dialect physics-informed network (examples/pinn_paddle.py), the same computation
written with PyTorch in this file. Same weights, same data, float32; and the launcher runs each
file unmodified."""
import math

import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss, assert_trajectory,
                                            hand_over, load, params, run_example, to_numpy)

STEPS = 10


def _models(name, build):
    """The program's globals on both frameworks and a model of each with PyTorch's weights."""
    import torch
    nt, nm = load(name, "torch"), load(name, "mutograd")
    torch.manual_seed(0)
    tmodel = build(nt)
    mmodel = build(nm)
    hand_over(tmodel, mmodel)
    return nt, nm, tmodel, mmodel


def _np_dict(d):
    return {k: to_numpy(v) for k, v in d.items()}


# ---- per-sample gradients ---------------------------------------------------------------------
@pytest.mark.torch
def test_per_sample_gradients_match_pytorch_and_a_loop_then_dp_sgd_steps():
    nt, nm, tmodel, mmodel = _models("per_sample_grads", lambda ns: ns["Net"]())
    import torch
    x, y = nt["blobs"](16, seed=3)
    want = _np_dict(nt["per_sample_grads"](tmodel, torch.tensor(x), torch.tensor(y)))
    T = nm["torch"]
    got = _np_dict(nm["per_sample_grads"](mmodel, T.tensor(x), T.tensor(y)))
    loop = _np_dict(nm["loop_grads"](mmodel, T.tensor(x), T.tensor(y)))
    mean, norms = nm["clipped_mean"]({k: T.tensor(v) for k, v in got.items()}, 1.0)
    assert_close_dict(got, want, rtol=1e-4, atol=1e-6, what="per-sample gradient")
    assert_close_dict(got, loop, rtol=1e-5, atol=1e-7, what="per-sample gradient (loop)")
    tmean, tnorms = nt["clipped_mean"]({k: torch.tensor(v) for k, v in want.items()}, 1.0)
    assert_close_dict(_np_dict(mean), _np_dict(tmean), rtol=1e-4, atol=1e-6, what="clipped mean")
    np.testing.assert_allclose(to_numpy(norms), to_numpy(tnorms), rtol=1e-4)
    start = params(tmodel)
    xs, ys = nt["blobs"](16 * STEPS, seed=4)
    for s in range(STEPS):
        b = slice(16 * s, 16 * (s + 1))
        lt = nt["dp_sgd_step"](tmodel, torch.tensor(xs[b]), torch.tensor(ys[b]))
        lm = nm["dp_sgd_step"](mmodel, T.tensor(xs[b]), T.tensor(ys[b]))
        assert_loss(lm, lt)
    assert_trajectory(start, params(mmodel), params(tmodel))


# ---- MAML -------------------------------------------------------------------------------------
@pytest.mark.torch
def test_maml_adaptation_meta_gradient_and_meta_steps_match_pytorch():
    nt, nm, tmodel, mmodel = _models("maml", lambda ns: ns["Net"]())
    import torch
    tasks = nt["sample_tasks"](np.random.default_rng(1), 3)
    xs, ys = tasks[0][:2]
    fast_t = nt["adapt"](tmodel, dict(tmodel.named_parameters()), torch.tensor(xs),
                         torch.tensor(ys), 0.01, steps=2)
    T = nm["torch"]
    fast_m = nm["adapt"](mmodel, dict(mmodel.named_parameters()), T.tensor(xs),
                         T.tensor(ys), 0.01, steps=2)
    assert all(p.requires_grad for p in fast_m.values())
    assert_close_dict(_np_dict(fast_m), _np_dict(fast_t), rtol=1e-5, atol=1e-6,
                      what="adapted weight")
    # the meta-gradient, second order (through the inner step) and first order
    for first_order in (False, True):
        lt = nt["meta_loss"](tmodel, tasks, 0.01, first_order)
        gt = torch.autograd.grad(lt, list(tmodel.parameters()))
        lm = nm["meta_loss"](mmodel, tasks, 0.01, first_order)
        gm = T.autograd.grad(lm, list(mmodel.parameters()))
        assert_loss(lm.item(), lt.item())
        for a, b in zip(gm, gt):
            np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=2e-3, atol=2e-6)
    start = params(tmodel)
    opt_t = torch.optim.Adam(tmodel.parameters(), lr=1e-3)
    opt_m = T.optim.Adam(mmodel.parameters(), lr=1e-3)
    rng = np.random.default_rng(2)
    for _ in range(STEPS):
        batch = nt["sample_tasks"](rng, 3)
        lt = nt["meta_step"](tmodel, opt_t, batch, 0.01)
        lm = nm["meta_step"](mmodel, opt_m, batch, 0.01)
        assert_loss(lm, lt)
    assert_trajectory(start, params(mmodel), params(tmodel))


# ---- WGAN-GP ----------------------------------------------------------------------------------
@pytest.mark.torch
def test_wgan_gp_penalty_gradients_and_steps_match_pytorch():
    import torch
    nt, nm = load("wgan_gp", "torch"), load("wgan_gp", "mutograd")
    torch.manual_seed(0)
    tc, tg = nt["mlp"](2, 1), nt["mlp"](2, 2)
    mc, mg_ = nm["mlp"](2, 1), nm["mlp"](2, 2)
    hand_over(tc, mc)
    hand_over(tg, mg_)
    T = nm["torch"]
    rng = np.random.default_rng(3)
    real, z = nt["real_samples"](rng, 32), nt["noise"](rng, 32)
    alpha = rng.uniform(0, 1, (32, 1)).astype(np.float32)
    fake_t = tg(torch.tensor(z)).detach()
    gp_t = nt["gradient_penalty"](tc, torch.tensor(real), fake_t, torch.tensor(alpha))
    gt = torch.autograd.grad(gp_t, list(tc.parameters()), allow_unused=True)
    fake_m = mg_(T.tensor(z)).detach()
    gp_m = nm["gradient_penalty"](mc, T.tensor(real), fake_m, T.tensor(alpha))
    gm = T.autograd.grad(gp_m, list(mc.parameters()), allow_unused=True)
    assert_loss(gp_m.item(), gp_t.item())
    assert gm[-1] is None and gt[-1] is None     # the last bias does not move the gradient
    for a, b in zip(gm[:5], gt[:5]):   # the penalty's gradient: a second derivative of the critic
        # (a ReLU's mask is constant in the first bias: PyTorch gives zeros there, mutograd's
        # graph has no edge and gives None)
        b = to_numpy(b)
        np.testing.assert_allclose(np.zeros_like(b) if a is None else to_numpy(a), b,
                                   rtol=2e-3, atol=2e-6)
    start = {**{"c." + k: v for k, v in params(tc).items()},
             **{"g." + k: v for k, v in params(tg).items()}}
    opts_t = [torch.optim.Adam(m.parameters(), lr=1e-3, betas=(0.5, 0.9)) for m in (tc, tg)]
    opts_m = [T.optim.Adam(m.parameters(), lr=1e-3, betas=(0.5, 0.9)) for m in (mc, mg_)]
    for s in range(STEPS):
        lt = nt["train_step"](tc, tg, *opts_t, np.random.default_rng(10 + s), 32, 2)
        lm = nm["train_step"](mc, mg_, *opts_m, np.random.default_rng(10 + s), 32, 2)
        for a, b in zip(lm, lt):
            assert abs(a - b) <= 1e-3 * max(abs(b), 1.0), (lm, lt)
    got = {**{"c." + k: v for k, v in params(mc).items()},
           **{"g." + k: v for k, v in params(mg_).items()}}
    want = {**{"c." + k: v for k, v in params(tc).items()},
            **{"g." + k: v for k, v in params(tg).items()}}
    assert_trajectory(start, got, want, rtol=5e-3)


# ---- the physics-informed network (Paddle dialect) -------------------------------------------
def _torch_twin(torch, net):
    """PyTorch's version of the PINN with ``net``'s weights (Paddle stores Linear weights as
    [in, out])."""
    tnet = torch.nn.Sequential(torch.nn.Linear(1, 32), torch.nn.Tanh(), torch.nn.Linear(32, 32),
                               torch.nn.Tanh(), torch.nn.Linear(32, 1))
    state = {k.replace("net.", "", 1): (to_numpy(v).T if k.endswith("weight") else to_numpy(v))
             for k, v in net.state_dict().items()}
    tnet.load_state_dict({k: torch.tensor(v) for k, v in state.items()})
    return tnet


def _torch_loss(torch, tnet, x_col, x_bc):
    x = torch.tensor(x_col, requires_grad=True)
    u = tnet(x)
    (u_x,) = torch.autograd.grad(u.sum(), x, create_graph=True)
    (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=True)
    r = u_xx + math.pi ** 2 * torch.sin(math.pi * x)
    return (r ** 2).mean() + (tnet(torch.tensor(x_bc)) ** 2).mean(), r


@pytest.mark.torch
def test_pinn_paddle_residual_loss_gradients_and_adam_steps_match_pytorch():
    torch = pytest.importorskip("torch")
    nm = load("pinn_paddle", "mutograd", dialect="paddle")
    P = nm["paddle"]
    P.seed(0)
    net = nm["PINN"]()
    tnet = _torch_twin(torch, net)
    rng = np.random.default_rng(0)
    x_col, x_bc = nm["collocation"](rng, 16), np.array([[0.0], [1.0]], np.float32)
    lt, rt = _torch_loss(torch, tnet, x_col, x_bc)
    lt.backward()
    rm = nm["residual"](net, P.to_tensor(x_col))
    lm = nm["pinn_loss"](net, P.to_tensor(x_col), P.to_tensor(x_bc))
    lm.backward()
    np.testing.assert_allclose(to_numpy(rm), to_numpy(rt), rtol=1e-4, atol=1e-4)
    assert_loss(float(lm), float(lt))
    for (k, p), (_, q) in zip(net.named_parameters(), tnet.named_parameters()):
        g = to_numpy(p.grad)
        np.testing.assert_allclose(g.T if g.ndim == 2 else g, to_numpy(q.grad), rtol=2e-3,
                                   atol=2e-5, err_msg=k)
    net.clear_gradients()
    opt = P.optimizer.Adam(learning_rate=1e-2, parameters=net.parameters())
    topt = torch.optim.Adam(tnet.parameters(), lr=1e-2)
    start = {k: v.copy() for k, v in params(tnet).items()}
    for s in range(STEPS):
        x_col = nm["collocation"](rng, 16)
        topt.zero_grad()
        lt, _ = _torch_loss(torch, tnet, x_col, x_bc)
        lt.backward()
        topt.step()
        lm = nm["train_step"](net, opt, P.to_tensor(x_col), P.to_tensor(x_bc))
        assert_loss(lm, lt.item())
    got = {k.replace("net.", "", 1): (v.T if v.ndim == 2 else v) for k, v in params(net).items()}
    assert_trajectory(start, got, params(tnet))


# ---- the files run unmodified -----------------------------------------------------------------
@pytest.mark.parametrize("name,args,expect", [
    ("per_sample_grads", ["--steps", "2", "--batch", "8"], "largest difference"),
    ("maml", ["--steps", "2", "--tasks", "2"], "after one step"),
    ("wgan_gp", ["--steps", "2", "--batch", "16", "--critic-iters", "1"], "mean radius"),
])
def test_launcher_runs_the_torch_examples(name, args, expect):
    assert expect in run_example(name, *args)


def test_launcher_runs_the_paddle_pinn():
    import subprocess
    import sys

    from tests.programs.program_harness import EXAMPLES
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "paddle",
                        str(EXAMPLES / "pinn_paddle.py"), "--steps", "3"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "RMS error against sin(pi x)" in r.stdout
