"""examples/word_lm.py (a word-level language model: LSTM, GRU, tanh RNN, or nn.Transformer's
encoder) on mutograd and on PyTorch, stage by stage: the same parameter layout, the same weights,
log-probabilities, loss and gradients of one batch, a whole epoch of truncated back-propagation
with clipping and SGD on ``p.data``, the evaluation's perplexity; the script's own command line."""
import math

import numpy as np
import pytest
from tests.programs.program_harness import (assert_close_dict, assert_loss,
                                            assert_same_state_layout, assert_trajectory, grads,
                                            hand_over, load, params, run_example, to_numpy)

pytestmark = pytest.mark.torch

MODELS = ["LSTM", "GRU", "RNN_TANH", "Transformer"]


def _args(ns, model):
    # no dropout: its draws differ between frameworks; the rest as the script's defaults
    return ns["parse_args"](["--model", model, "--dropout", "0", "--nlayers", "2"])


def _setup(ns, model):
    args = _args(ns, model)
    corpus = ns["Corpus"](ns["CORPUS"])
    ntokens = len(corpus.dictionary)
    train = ns["batchify"](corpus.train, args.batch_size)
    valid = ns["batchify"](corpus.valid, 1)
    return args, corpus, ntokens, train, valid


def _first_batch(ns, net, args, ntokens, train):
    torch = ns["torch"]
    data, targets = ns["get_batch"](train, 0, args.bptt)
    net.train()
    if args.model == "Transformer":
        out = net(data).view(-1, ntokens)
    else:
        out, _ = net(data, net.init_hidden(args.batch_size))
    loss = ns["nn"].NLLLoss()(out, targets)
    net.zero_grad()
    loss.backward()
    assert out.dtype == torch.float32
    return to_numpy(out), loss.item(), grads(net)


@pytest.mark.parametrize("model", MODELS)
def test_word_lm_matches_pytorch_stage_by_stage(model):
    nt, nm = load("word_lm", "torch"), load("word_lm", "mutograd")
    import torch
    torch.manual_seed(0)
    args_t, corpus_t, ntok, train_t, valid_t = _setup(nt, model)
    tnet = nt["build_model"](args_t, ntok)
    args_m, corpus_m, ntok_m, train_m, valid_m = _setup(nm, model)
    assert ntok_m == ntok and corpus_m.dictionary.idx2word == corpus_t.dictionary.idx2word
    np.testing.assert_array_equal(to_numpy(train_m), to_numpy(train_t))
    mnet = nm["build_model"](args_m, ntok)
    assert_same_state_layout(tnet, mnet)
    hand_over(tnet, mnet)
    start = params(tnet)

    out_t, loss_t, g_t = _first_batch(nt, tnet, args_t, ntok, train_t)
    out_m, loss_m, g_m = _first_batch(nm, mnet, args_m, ntok, train_m)
    np.testing.assert_allclose(out_m, out_t, rtol=1e-4, atol=1e-5)
    assert_loss(loss_m, loss_t)
    assert_close_dict(g_m, g_t, rtol=2e-3, atol=2e-6)

    crit_t = nt["nn"].NLLLoss()
    losses_t = nt["train_epoch"](tnet, train_t, args_t, ntok, crit_t, 1.0, log=lambda s: None)
    val_t = nt["evaluate"](tnet, valid_t, args_t, ntok, crit_t)
    crit_m = nm["nn"].NLLLoss()
    losses_m = nm["train_epoch"](mnet, train_m, args_m, ntok, crit_m, 1.0,
                                 log=lambda s: None)
    val_m = nm["evaluate"](mnet, valid_m, args_m, ntok, crit_m)
    assert len(losses_m) == len(losses_t) >= 3
    np.testing.assert_allclose(losses_m, losses_t, rtol=2e-3)
    assert_trajectory(start, params(mnet), params(tnet), rtol=5e-3)
    assert math.isfinite(val_m) and abs(val_m - val_t) <= 2e-3 * abs(val_t)


def test_word_lm_tied_weights_share_one_parameter():
    nm = load("word_lm", "mutograd")
    args = nm["parse_args"](["--model", "LSTM", "--tied"])
    net = nm["build_model"](args, 50)
    assert net.decoder.weight is net.encoder.weight
    assert "decoder.weight" not in dict(net.named_parameters())


@pytest.mark.parametrize("model", ["GRU", "Transformer"])
def test_word_lm_script_trains_evaluates_and_generates(model):
    out = run_example("word_lm", "--model", model, "--epochs", "2", "--words", "5")
    assert out.count("end of epoch") == 2
    last = [line for line in out.splitlines() if "end of training" in line][0]
    assert math.isfinite(float(last.split("test ppl")[1]))
    assert len(out.split("generated:")[1].split()) == 5
