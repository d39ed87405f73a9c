"""examples/gpt.py (a GPT-style decoder) on mutograd and on PyTorch: same weights, same batches,
same losses, gradients and 10 AdamW steps; and the launcher runs the file unmodified."""
import subprocess
import sys

import numpy as np
import pytest
from tests.programs.program_harness import (EXAMPLES, assert_close_dict, assert_loss,
                                            assert_trajectory, grads, hand_over, load, params,
                                            to_numpy)

import mutograd as mg

pytestmark = pytest.mark.torch

CFG = dict(block_size=16, vocab_size=20, n_layer=2, n_head=2, n_embd=16, dropout=0.0)


def _batches(steps=10, accum=2, batch=4, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        micro = []
        for _ in range(accum):
            x = rng.integers(0, CFG["vocab_size"], (batch, CFG["block_size"]))
            y = np.roll(x, -1, axis=1)
            y[0, -3:] = -1          # ignore_index=-1 positions
            micro.append((x, y))
        out.append(micro)
    return out


def _run(ns, torch, model, batches, steps):
    opt = model.configure_optimizers(0.1, 3e-3, (0.9, 0.95))
    losses, norms, first_grads = [], [], None
    for it in range(steps):
        mb = [(torch.tensor(x), torch.tensor(y)) for x, y in batches[it]]
        lr = ns["get_lr"](it, 3e-3, 3, steps, 3e-4)
        if it == 0:     # gradients of the first step, before clipping and the update
            for X, Y in mb:
                _, loss = model(X, Y)
                (loss / len(mb)).backward()
            first_grads = grads(model)
            model.zero_grad(set_to_none=True)
        loss, norm = ns["train_step"](model, opt, mb, lr, 1.0)
        losses.append(loss)
        norms.append(float(norm))
    return losses, norms, first_grads, opt


def _both():
    nt, nm = load("gpt", "torch"), load("gpt", "mutograd")
    import torch
    torch.manual_seed(0)
    tmodel = nt["GPT"](nt["GPTConfig"](**CFG))
    mmodel = nm["GPT"](nm["GPTConfig"](**CFG))
    hand_over(tmodel, mmodel)
    return nt, nm, tmodel, mmodel


def test_gpt_matches_pytorch_losses_gradients_and_10_adamw_steps():
    nt, nm, tmodel, mmodel = _both()
    import torch
    start = params(tmodel)
    assert list(params(mmodel)) == list(start)
    # weight tying: one parameter, reached under both names in the state dict
    assert mmodel.lm_head.weight is mmodel.transformer.wte.weight
    assert "lm_head.weight" not in dict(mmodel.named_parameters())
    batches = _batches()
    lt, nt_, gt, opt_t = _run(nt, torch, tmodel, batches, 10)
    lm, nm_, gm, opt_m = _run(nm, nm["torch"], mmodel, batches, 10)
    assert_close_dict(gm, gt, rtol=2e-3, atol=2e-6)
    for a, b in zip(lm, lt):
        assert_loss(a, b)
    np.testing.assert_allclose(nm_, nt_, rtol=1e-3)
    assert_trajectory(start, params(mmodel), params(tmodel))
    assert mmodel.lm_head.weight is mmodel.transformer.wte.weight
    # the optimizer's groups as the program set them, read back the same on both
    assert [g["weight_decay"] for g in opt_m.param_groups] == [0.1, 0.0]
    assert [len(g["params"]) for g in opt_m.param_groups] == [
        len(g["params"]) for g in opt_t.param_groups]
    assert opt_m.param_groups[0]["lr"] == opt_t.param_groups[0]["lr"]


def test_gpt_generate_top_k_samples_only_from_the_k_best():
    _, nm, _, mmodel = _both()
    torch = nm["torch"]
    mmodel.eval()
    torch.manual_seed(3)
    idx = torch.tensor([[1, 2, 3]])
    logits, loss = mmodel(idx)
    assert loss is None and logits.shape == (1, 1, CFG["vocab_size"])
    best = set(np.argsort(-to_numpy(logits)[0, -1])[:2].tolist())
    out = mmodel.generate(idx, 1, top_k=2)
    assert out.shape == (1, 4) and out[0, :3].tolist() == [1, 2, 3]
    assert out[0, 3].item() in best
    assert out.requires_grad is False


def test_launcher_runs_gpt_example_unmodified():
    r = subprocess.run([sys.executable, "-m", "mutograd", "run", "--as", "torch",
                        str(EXAMPLES / "gpt.py"), "--steps", "2", "--batch", "2", "--accum", "1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "iter 1: loss" in r.stdout and "sample: F" in r.stdout


def test_launcher_state_is_restored():
    """After run_script the real import system is back: no 'torch' alias left behind."""
    import mutograd.compat as compat
    before = sys.modules.get("torch")
    compat.run_script(str(EXAMPLES / "gpt.py"), "torch", ["--steps", "1", "--batch", "1",
                                                          "--accum", "1"])
    assert sys.modules.get("torch") is before
    assert type(mg.zeros([1])) is mg.Tensor and repr(mg.zeros([1])).startswith("Tensor(")
