"""examples/char_lm.py (bigram, MLP, RNN and GRU from cells, bag-of-words) on mutograd and on
PyTorch: the same names through each framework's Dataset and DataLoader, the same weights; losses,
first gradients and 10 AdamW steps agree."""
import tracemalloc

import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss, assert_trajectory,
                                            grads, hand_over, load, params)

pytestmark = pytest.mark.torch

KINDS = ["bigram", "mlp", "rnn", "gru", "bow"]


def _setup(ns, words):
    chars = sorted(set("".join(words)))
    ds = ns["CharDataset"](words, chars, max(len(w) for w in words))
    cfg = ns["ModelConfig"](vocab_size=ds.get_vocab_size(), block_size=ds.get_output_length(),
                            n_embd=8, n_embd2=16)
    return ds, cfg


def _train(ns, model, ds, steps=10):
    torch = ns["torch"]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01, betas=(0.9, 0.99),
                            eps=1e-8)
    loader = torch.utils.data.DataLoader(ds, batch_size=8, shuffle=False, drop_last=True,
                                         num_workers=0, pin_memory=True)
    losses, first = [], None
    for step, (X, Y) in zip(range(steps), loader):
        assert X.shape == (8, ds.get_output_length()) and X.dtype == torch.long
        _, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        if first is None:
            first = grads(model)
        opt.step()
        losses.append(loss.item())
    assert len(losses) == steps
    return losses, first


@pytest.mark.parametrize("kind", KINDS)
def test_char_lm_matches_pytorch(kind):
    nt, nm = load("char_lm", "torch"), load("char_lm", "mutograd")
    words = nt["NAMES"][:96]
    import torch
    torch.manual_seed(0)
    ds_t, cfg_t = _setup(nt, words)
    tmodel = nt["MODELS"][kind](cfg_t)
    if kind == "bigram":       # zeros at start: give the table something to differ by
        with torch.no_grad():
            tmodel.logits.normal_(0, 0.1)
    ds_m, cfg_m = _setup(nm, words)
    mmodel = nm["MODELS"][kind](cfg_m)
    hand_over(tmodel, mmodel)
    start = params(tmodel)
    lt, gt = _train(nt, tmodel, ds_t)
    lm, gm = _train(nm, mmodel, ds_m)
    assert_close_dict(gm, gt, rtol=2e-3, atol=2e-6)
    for a, b in zip(lm, lt):
        assert_loss(a, b)
    assert_trajectory(start, params(mmodel), params(tmodel))
    if kind == "bow":       # the lambda attribute is left alone, the buffer is not a parameter
        assert callable(mmodel.context_block.mlpf)
        assert "context_block.cbow.bias" in mmodel.state_dict()
        assert "context_block.cbow.bias" not in dict(mmodel.named_parameters())


def test_char_lm_dataset_items_and_collation_match_pytorch():
    nt, nm = load("char_lm", "torch"), load("char_lm", "mutograd")
    words = nt["NAMES"][:20]
    ds_t, _ = _setup(nt, words)
    ds_m, _ = _setup(nm, words)
    x, y = ds_m[3]
    assert len(ds_m) == 20 and x.tolist() == ds_t[3][0].tolist()
    assert y.tolist() == ds_t[3][1].tolist() and y.tolist()[-1] == -1
    batch = next(iter(nm["DataLoader"](ds_m, batch_size=5)))
    assert isinstance(batch, list) and [b.shape for b in batch] == [(5, x.shape[0])] * 2


def test_infinite_loader_never_materialises_its_huge_sampler():
    nm = load("char_lm", "mutograd")
    ds, cfg = _setup(nm, nm["NAMES"][:30])
    loader = nm["InfiniteDataLoader"](ds, batch_size=4, pin_memory=True, num_workers=0)
    assert len(loader.train_loader.sampler) == 10 ** 10
    tracemalloc.start()
    try:
        for _ in range(3):
            X, Y = loader.next()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert X.shape == (4, cfg.block_size)
    # a chunk of drawn indices and a few small tensors; nothing proportional to num_samples
    assert peak < 1 << 20


@pytest.mark.parametrize("kind", ["gru", "bow"])
def test_char_lm_generate_and_evaluate(kind):
    nm = load("char_lm", "mutograd")
    torch = nm["torch"]
    ds, cfg = _setup(nm, nm["NAMES"][:40])
    model = nm["MODELS"][kind](cfg)
    loss = nm["evaluate"](model, ds, batch_size=10, max_batches=1)
    assert np.isfinite(loss) and model.training       # evaluate puts it back in training
    torch.manual_seed(0)
    start = torch.zeros(3, 1, dtype=torch.long)
    out = nm["generate"](model, start, 5, do_sample=True, top_k=3)
    greedy = nm["generate"](model, start, 5)
    assert out.shape == (3, 6) and greedy.shape == (3, 6)
    assert not out.requires_grad and not greedy.requires_grad
    assert all(0 <= v < cfg.vocab_size for v in out.reshape(-1).tolist())
    assert len(set(map(tuple, greedy.tolist()))) == 1      # greedy: same row from the same start
