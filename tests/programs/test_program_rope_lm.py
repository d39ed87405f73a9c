"""examples/rope_lm.py (a LLaMA-style decoder: RMSNorm, rotary embeddings through complex
numbers, grouped-query attention with an in-place key/value cache, SwiGLU) on mutograd and on
PyTorch, stage by stage: the rotary tables, the parameter layout, logits, loss and gradients
(through view_as_complex / view_as_real), AdamW steps with clipping, greedy generation through the
cache under inference_mode, top-p sampling; the script's own command line."""
import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss,
                                            assert_same_state_layout, assert_trajectory, grads,
                                            hand_over, load, params, run_example, to_numpy)

pytestmark = pytest.mark.torch


def _model(ns, vocab):
    return ns["Transformer"](ns["ModelArgs"](vocab_size=vocab))


def _batches(vocab, n=6, batch=3, block=12, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        x = rng.integers(0, vocab, (batch, block))
        out.append((x, np.roll(x, -1, axis=1)))
    return out


def _stages(ns, net, batches):
    torch, F = ns["torch"], ns["F"]
    x, y = (torch.tensor(a) for a in batches[0])
    logits = net(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    loss.backward()
    first = (to_numpy(logits), loss.item(), grads(net))
    net.zero_grad()
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=0.01)
    steps = [ns["train_step"](net, opt, torch.tensor(a), torch.tensor(b), clip=0.5)
             for a, b in batches]
    tokens = ns["generate"](net, [[1, 2, 3], [4, 5, 6]], 8, temperature=0.0)
    return first, steps, tokens


def test_rotary_tables_match_pytorch():
    nt, nm = load("rope_lm", "torch"), load("rope_lm", "mutograd")
    ft = nt["precompute_freqs_cis"](8, 16)
    fm = nm["precompute_freqs_cis"](8, 16)
    assert str(fm.dtype).endswith("complex64")
    xq = nm["torch"].randn(2, 16, 4, 8)
    xk = nm["torch"].randn(2, 16, 2, 8)
    oq, ok = nm["apply_rotary_emb"](xq, xk, fm)
    np.testing.assert_allclose(to_numpy(fm), ft.numpy(), rtol=1e-6, atol=1e-6)
    import torch
    rq, rk = nt["apply_rotary_emb"](torch.tensor(to_numpy(xq)), torch.tensor(to_numpy(xk)), ft)
    np.testing.assert_allclose(to_numpy(oq), rq.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(ok), rk.numpy(), rtol=1e-5, atol=1e-6)


def test_rope_lm_matches_pytorch_stage_by_stage():
    nt, nm = load("rope_lm", "torch"), load("rope_lm", "mutograd")
    import torch
    torch.manual_seed(0)
    vocab = 20
    tnet = _model(nt, vocab)
    mnet = _model(nm, vocab)
    assert_same_state_layout(tnet, mnet)
    hand_over(tnet, mnet)
    start = params(tnet)
    batches = _batches(vocab)
    (lt, loss_t, g_t), steps_t, tok_t = _stages(nt, tnet, batches)
    (lm, loss_m, g_m), steps_m, tok_m = _stages(nm, mnet, batches)
    np.testing.assert_allclose(lm, lt, rtol=1e-4, atol=1e-5)
    assert_loss(loss_m, loss_t)
    assert_close_dict(g_m, g_t, rtol=2e-3, atol=2e-6)
    np.testing.assert_allclose([s[0] for s in steps_m], [s[0] for s in steps_t], rtol=1e-3)
    np.testing.assert_allclose([s[1] for s in steps_m], [s[1] for s in steps_t], rtol=1e-3)
    assert_trajectory(start, params(mnet), params(tnet), rtol=5e-3)
    assert tok_m == tok_t


def test_top_p_sampling_keeps_the_nucleus_and_writes_in_place():
    nm = load("rope_lm", "mutograd")
    torch = nm["torch"]
    torch.manual_seed(0)
    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05]] * 200)
    with torch.inference_mode():
        picks = nm["sample_top_p"](probs, 0.7)
    assert picks.shape == (200, 1)
    # the nucleus of p=0.7 is the two best tokens; both come up
    assert set(picks.flatten().tolist()) == {0, 1}


def test_rope_lm_script_trains_and_generates():
    out = run_example("rope_lm", "--steps", "12", "--gen", "10")
    losses = [float(line.split("loss ")[1].split()[0]) for line in out.splitlines()
              if line.startswith("step")]
    assert len(losses) == 3 and losses[-1] < losses[0]
    assert out.split("generated: ")[1].startswith("to be")
