"""RNN, LSTM and GRU layers and cells against PyTorch on identical weights: outputs, final
states and every gradient, stacked, bidirectional, batch-first, unbatched, with given states."""
import numpy as np
import pytest

import mutograd as mg
from mutograd import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

KINDS = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]
LAYOUTS = [{"num_layers": 1}, {"num_layers": 2, "bidirectional": True},
           {"num_layers": 2, "batch_first": True}, {"num_layers": 1, "bias": False}]


def _states(kind, shape, rng):
    if kind == "LSTM":
        return rng.standard_normal(shape), rng.standard_normal(shape)
    return (rng.standard_normal(shape),)


def _as(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _pack(kind, ts):
    return tuple(ts) if kind == "LSTM" else ts[0]


def _flat(kind, result):
    out, h = result
    return [out] + (list(h) if kind == "LSTM" else [h])


@pytest.mark.parametrize("kind,kw", KINDS, ids=["rnn-tanh", "rnn-relu", "lstm", "gru"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=["1", "2-bi", "2-bf", "nobias"])
@pytest.mark.parametrize("given", [False, True], ids=["zeros", "hx"])
def test_layers_match_pytorch(kind, kw, layout, given):
    rng = np.random.default_rng(0)
    ours = getattr(nn, kind)(3, 4, **kw, **layout).double()
    theirs = getattr(torch.nn, kind)(3, 4, **kw, **layout).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    steps, n = 5, 2
    x = rng.standard_normal((n, steps, 3) if layout.get("batch_first") else (steps, n, 3))
    dirs = 2 if layout.get("bidirectional") else 1
    hs = _states(kind, (layout["num_layers"] * dirs, n, 4), rng) if given else ()
    mx, *mh = _as(mg, [x, *hs])
    tx, *th = _as(torch, [x, *hs])
    got = _flat(kind, ours(mx, _pack(kind, mh) if given else None))
    want = _flat(kind, theirs(tx, _pack(kind, th) if given else None))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
    ws = [rng.standard_normal(a.shape) for a in got]
    sum((a * mg.tensor(w)).sum() for a, w in zip(got, ws)).backward()
    sum((b * torch.tensor(w)).sum() for b, w in zip(want, ws)).backward()
    for a, b in zip([mx, *mh], [tx, *th]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_match_pytorch(kind, batched):
    rng = np.random.default_rng(1)
    ours, theirs = getattr(nn, kind)(3, 4).double(), getattr(torch.nn, kind)(3, 4).double()
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    lead = (2,) if batched else ()
    x = rng.standard_normal(lead + (3,))
    hs = [rng.standard_normal(lead + (4,)) for _ in range(2 if kind == "LSTMCell" else 1)]
    mx, *mh = _as(mg, [x, *hs])
    tx, *th = _as(torch, [x, *hs])
    pack = (lambda ts: tuple(ts)) if kind == "LSTMCell" else (lambda ts: ts[0])
    got, want = ours(mx, pack(mh)), theirs(tx, pack(th))
    got, want = (list(got), list(want)) if kind == "LSTMCell" else ([got], [want])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)
    sum(a.sum() for a in got).backward()
    sum(b.sum() for b in want).backward()
    for a, b in zip([mx, *mh], [tx, *th]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_unbatched_sequences_dropout_and_errors():
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    out, (h, c) = lstm(mg.randn([6, 3]))
    assert out.shape == [6, 4] and h.shape == [2, 4] and c.shape == [2, 4]
    lstm.eval()
    x = mg.randn([5, 1, 3])
    np.testing.assert_array_equal(lstm(x)[0].numpy(), lstm(x)[0].numpy())   # no dropout in eval
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.GRU(3, 4, dropout=1.5)
