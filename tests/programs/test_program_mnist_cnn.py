"""examples/mnist_cnn.py (a convolutional classifier with its own training and evaluation loops,
Adadelta and StepLR) on mutograd and on PyTorch, stage by stage: the same parameter layout, the
same weights, the forward's log-probabilities, loss and gradients, an epoch of Adadelta steps with
the learning rate decayed by the schedule, the evaluation's loss and accuracy, saving and
reloading the weights; the script's own command line."""
import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss,
                                            assert_same_state_layout, assert_trajectory, grads,
                                            hand_over, load, params, run_example, to_numpy)

pytestmark = pytest.mark.torch

ARGV = ["--train-size", "96", "--test-size", "64", "--batch-size", "16", "--image-size", "12"]


class _Quiet:
    log_interval, dry_run = 1000, False


def _build(ns):
    args = ns["parse_args"](ARGV)
    net = ns["Net"](args.image_size)
    net.dropout1.p = net.dropout2.p = 0.0   # dropout draws differ between frameworks
    return args, net


def _fixed_loaders(ns, args):
    """The script's own data, without shuffling (the shuffle order is a framework's RNG)."""
    torch = ns["torch"]
    train, test = ns["loaders"](args)
    return (torch.utils.data.DataLoader(train.dataset, batch_size=args.batch_size),
            test)


def _stages(ns, net, args):
    torch, F = ns["torch"], ns["F"]
    train_loader, test_loader = _fixed_loaders(ns, args)
    x, y = next(iter(train_loader))
    net.train()
    out = net(x)
    loss = F.nll_loss(out, y)
    loss.backward()
    first = (to_numpy(out), loss.item(), grads(net))
    net.zero_grad()
    opt = torch.optim.Adadelta(net.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=args.gamma)
    losses = []
    for epoch in (1, 2):
        losses += ns["train"](_Quiet, net, torch.device("cpu"), train_loader, opt, epoch,
                              log=lambda s: None)
        sched.step()
    lr = opt.param_groups[0]["lr"]
    evaluation = ns["test"](net, torch.device("cpu"), test_loader, log=lambda s: None)
    return first, losses, lr, evaluation


def test_mnist_cnn_matches_pytorch_stage_by_stage(tmp_path):
    nt, nm = load("mnist_cnn", "torch"), load("mnist_cnn", "mutograd")
    import torch
    torch.manual_seed(0)
    args_t, tnet = _build(nt)
    args_m, mnet = _build(nm)
    assert_same_state_layout(tnet, mnet)
    hand_over(tnet, mnet)
    start = params(tnet)
    (out_t, loss_t, g_t), losses_t, lr_t, (tl_t, acc_t) = _stages(nt, tnet, args_t)
    (out_m, loss_m, g_m), losses_m, lr_m, (tl_m, acc_m) = _stages(nm, mnet, args_m)
    np.testing.assert_allclose(out_m, out_t, rtol=1e-4, atol=1e-5)
    assert_loss(loss_m, loss_t)
    assert_close_dict(g_m, g_t, rtol=2e-3, atol=2e-6)
    assert len(losses_m) == len(losses_t) == 12
    np.testing.assert_allclose(losses_m, losses_t, rtol=2e-3, atol=1e-5)
    assert lr_m == pytest.approx(lr_t) == pytest.approx(args_t.lr * args_t.gamma ** 2)
    assert_trajectory(start, params(mnet), params(tnet), rtol=5e-3)
    assert abs(tl_m - tl_t) <= 2e-3 * abs(tl_t) and acc_m == acc_t

    # the trained weights survive the script's own save, reloaded into a fresh model
    path = tmp_path / "mnist_cnn.pt"
    mtorch = nm["torch"]
    mtorch.save(mnet.state_dict(), str(path))
    fresh = nm["Net"](args_m.image_size)
    fresh.load_state_dict(mtorch.load(str(path)))
    for k, v in params(mnet).items():
        np.testing.assert_array_equal(params(fresh)[k], v)


def test_mnist_cnn_script_learns_the_patterns(tmp_path):
    out = run_example("mnist_cnn", "--epochs", "2", "--train-size", "256", "--test-size", "100",
                      "--image-size", "12", "--save-model", tmp_path / "w.pt")
    assert out.count("Test set") == 2
    last = [line for line in out.splitlines() if "Accuracy" in line][-1]
    assert int(last.split("Accuracy: ")[1].split("/")[0]) >= 30     # chance is 10
    assert (tmp_path / "w.pt").exists()
