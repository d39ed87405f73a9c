"""RNN, LSTM and GRU layers and cells against PyTorch on identical weights: outputs, final
states and every gradient, stacked, bidirectional, batch-first, unbatched, with given states,
LSTM projections; the arguments and inputs PyTorch rejects, with its error classes."""
import warnings

import numpy as np
import pytest

import mutograd as mg
import mutograd.compat.torch as mt
from mutograd import nn

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

KINDS = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {}),
         ("LSTM", {"proj_size": 2})]
LAYOUTS = [{"num_layers": 1}, {"num_layers": 2, "bidirectional": True},
           {"num_layers": 2, "batch_first": True}, {"num_layers": 1, "bias": False}]


def _states(kind, shape, rng, proj_size=0):
    if kind == "LSTM":
        h_shape = shape[:2] + (proj_size or shape[2],)     # a projected h is narrower
        return rng.standard_normal(h_shape), rng.standard_normal(shape)
    return (rng.standard_normal(shape),)


def _as(lib, arrays):
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _pack(kind, ts):
    return tuple(ts) if kind == "LSTM" else ts[0]


def _flat(kind, result):
    out, h = result
    return [out] + (list(h) if kind == "LSTM" else [h])


@pytest.mark.parametrize("kind,kw", KINDS, ids=["rnn-tanh", "rnn-relu", "lstm", "gru",
                                                "lstm-proj"])
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
    hs = _states(kind, (layout["num_layers"] * dirs, n, 4), rng, kw.get("proj_size", 0)) \
        if given else ()
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


# ---- what PyTorch rejects, rejected here with its error class (ours may subclass it) ----------
def _outcome(make):
    """The class of the error ``make()`` raises, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            make()
    except Exception as e:   # noqa: BLE001 - the class is what is compared
        return type(e)
    return None


def _same_rejection(ours, theirs):
    want = _outcome(theirs)
    got = _outcome(ours)
    assert (got is None) == (want is None), f"ours raises {got}, PyTorch {want}"
    if want is not None:
        assert issubclass(got, want), f"ours raises {got.__name__}, PyTorch {want.__name__}"


BAD_LAYER_ARGUMENTS = [
    ((0, 5), {}), ((-1, 5), {}), ((3, 0), {}), ((3, 5, 0), {}), ((3.0, 5), {}), (("3", 5), {}),
    ((3, 5.0), {}), ((True, 5), {}), ((3, 5, 2.0), {}),
    ((3, 5), {"bias": 1}), ((3, 5), {"bias": "True"}), ((3, 5), {"batch_first": 0}),
    ((3, 5), {"dropout": 1.5}), ((3, 5), {"dropout": -0.1}), ((3, 5), {"dropout": True}),
    ((3, 5), {"dropout": "0.5"}), ((3, 5, 2), {"dropout": 1}), ((3, 5), {"bidirectional": 1}),
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("args,kw", BAD_LAYER_ARGUMENTS)
def test_layer_construction_rejects_as_pytorch(kind, args, kw):
    _same_rejection(lambda: getattr(mt.nn, kind)(*args, **kw),
                    lambda: getattr(torch.nn, kind)(*args, **kw))


@pytest.mark.parametrize("kind,kw", [
    ("RNN", {"nonlinearity": "sigmoid"}), ("RNN", {"nonlinearity": None}),
    ("LSTM", {"proj_size": 5}), ("LSTM", {"proj_size": 6}), ("LSTM", {"proj_size": -1}),
    ("LSTM", {"proj_size": 2.0}), ("GRU", {"proj_size": 2}), ("LSTM", {"proj_size": 2})])
def test_layer_settings_rejected_as_pytorch(kind, kw):
    _same_rejection(lambda: getattr(mt.nn, kind)(3, 5, **kw),
                    lambda: getattr(torch.nn, kind)(3, 5, **kw))


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("args", [(0, 5), (3, 0), (-1, 5), (3.0, 5), (3, 5.0), (True, 5)])
def test_cell_construction_rejects_as_pytorch(kind, args):
    _same_rejection(lambda: getattr(mt.nn, kind)(*args), lambda: getattr(torch.nn, kind)(*args))


def _pair(lib, lstm, shape, dtype):
    def make():
        return lib.zeros(*shape, dtype=getattr(lib, dtype))
    return (make(), make()) if lstm else make()


# (input shape, input dtype, state shape or None, state dtype): a layer of 3 -> 5, two layers
LAYER_CALLS = [
    ((4, 2, 3), "float64", None, None),            # dtype differs from the weights'
    ((4, 2, 3, 1), "float64", None, None),         # 4-D input (before the dtype)
    ((4, 2, 4), "float32", None, None),            # input_size
    ((4, 3), "float32", (2, 2, 5), "float32"),     # unbatched input, batched state
    ((4, 2, 3), "float32", (2, 5), "float32"),     # batched input, unbatched state
    ((4, 2, 3), "float32", (2, 3, 5), "float32"),  # state's batch
    ((4, 2, 3), "float32", (3, 2, 5), "float32"),  # state's layers
    ((4, 2, 3), "float32", (2, 2, 6), "float32"),  # state's width
    ((0, 2, 3), "float32", None, None),            # no steps
    ((4, 0, 3), "float32", None, None),            # an empty batch is fine
    ((4, 2, 3), "float32", (2, 2, 5), "float64"),  # state's dtype
    ((4, 3), "float32", (2, 5), "float32"),        # fine
]


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("x_shape,x_dtype,h_shape,h_dtype", LAYER_CALLS)
def test_layer_calls_rejected_as_pytorch(kind, x_shape, x_dtype, h_shape, h_dtype):
    lstm = kind == "LSTM"

    def call(lib):
        layer = getattr(lib.nn, kind)(3, 5, num_layers=2)
        x = lib.zeros(*x_shape, dtype=getattr(lib, x_dtype))
        return layer(x, None if h_shape is None else _pair(lib, lstm, h_shape, h_dtype))
    _same_rejection(lambda: call(mt), lambda: call(torch))


# (input shape, state shapes or None): a cell of 10 -> 20
CELL_CALLS = [((3, 11), [(3, 20)]), ((3, 10), [(3, 21)]), ((3, 10), [(5, 20)]),
              ((3, 10), [(3, 1, 1, 20)]), ((3, 10, 1), None), ((10,), [(1, 20)]),
              ((3, 10), [(20,)]), ((10,), [(20,)]), ((10,), None), ((0, 10), None)]


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("x_shape,h_shapes", CELL_CALLS)
def test_cell_calls_rejected_as_pytorch(kind, x_shape, h_shapes):
    def call(lib):
        cell = getattr(lib.nn, kind)(10, 20)
        if h_shapes is None:
            return cell(lib.zeros(*x_shape))
        hs = [lib.zeros(*s) for s in h_shapes]
        return cell(lib.zeros(*x_shape), (hs[0], hs[0]) if kind == "LSTMCell" else hs[0])
    _same_rejection(lambda: call(mt), lambda: call(torch))


def test_cell_and_layer_calls_with_mismatched_dtypes_raise_as_pytorch():
    _same_rejection(lambda: mt.nn.GRUCell(3, 5)(mt.zeros(2, 3, dtype=mt.float64)),
                    lambda: torch.nn.GRUCell(3, 5)(torch.zeros(2, 3, dtype=torch.float64)))
    _same_rejection(lambda: mt.nn.RNNCell(3, 5, nonlinearity="x")(mt.zeros(2, 3)),
                    lambda: torch.nn.RNNCell(3, 5, nonlinearity="x")(torch.zeros(2, 3)))
    with pytest.raises(ValueError, match=r"RNN input dtype \(torch.float64\) does not match "
                                         r"weight dtype \(torch.float32\)"):
        mt.nn.LSTM(3, 5)(mt.zeros(4, 2, 3, dtype=mt.float64))


# ---- unbatched inputs are a batch of one ------------------------------------------------------
@pytest.mark.parametrize("kind,kw", KINDS, ids=["rnn-tanh", "rnn-relu", "lstm", "gru",
                                                "lstm-proj"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_layer_input_is_a_batch_of_one(kind, kw, batch_first):
    layer = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True, batch_first=batch_first,
                              **kw).double()
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 3))
    hs = _states(kind, (4, 1, 4), rng, kw.get("proj_size", 0))
    one = layer(mg.tensor(x[None] if batch_first else x[:, None]),
                _pack(kind, [mg.tensor(h) for h in hs]))
    alone = layer(mg.tensor(x), _pack(kind, [mg.tensor(h[:, 0]) for h in hs]))
    one = [t.squeeze(0 if batch_first else 1) if i == 0 else t.squeeze(1)
           for i, t in enumerate(_flat(kind, one))]
    for a, b in zip(_flat(kind, alone), one):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_unbatched_cell_input_is_a_batch_of_one(kind):
    cell = getattr(nn, kind)(3, 4).double()
    x, h = mg.randn([3]).double(), mg.randn([4]).double()
    hx = (lambda t: (t, t)) if kind == "LSTMCell" else (lambda t: t)
    alone, one = cell(x, hx(h)), cell(x[None], hx(h[None]))
    alone, one = (alone, one) if kind == "LSTMCell" else ((alone,), (one,))
    for a, b in zip(alone, one):
        np.testing.assert_array_equal(a.numpy(), b[0].numpy())


def test_forward_takes_pytorchs_parameter_names():
    out, h = mt.nn.GRU(3, 4)(input=mt.zeros(5, 3), hx=mt.zeros(1, 4))
    assert tuple(out.shape) == (5, 4) and tuple(h.shape) == (1, 4)
    h, c = mt.nn.LSTMCell(3, 4)(input=mt.zeros(3), hx=(mt.zeros(4), mt.zeros(4)))
    assert tuple(h.shape) == (4,) and tuple(c.shape) == (4,)


def test_lstm_projection_parameters_and_functional_lstm_match_pytorch():
    ours = mt.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True, bias=False).double()
    theirs = torch.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True,
                           bias=False).double()
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    rng = np.random.default_rng(3)
    x, h0, c0 = (rng.standard_normal(s) for s in [(4, 2, 3), (4, 2, 2), (4, 2, 5)])
    params = [p.detach().numpy() for p in theirs._flat_weights]
    want = torch.lstm(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)),
                      [torch.tensor(p) for p in params], False, 2, 0.0, False, True, False)
    got = mt.lstm(mt.tensor(x), (mt.tensor(h0), mt.tensor(c0)), [mt.tensor(p) for p in params],
                  False, 2, 0.0, False, True, False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


# ---- packed sequences -----------------------------------------------------------------------
def _to_ours(t):
    return mt.tensor(t.detach().numpy().copy(), requires_grad=t.requires_grad)


@pytest.mark.parametrize("kind,kw", KINDS, ids=["rnn-tanh", "rnn-relu", "lstm", "gru",
                                                "lstm-proj"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["1-dir", "2-dir"])
@pytest.mark.parametrize("lengths,given", [([5, 3, 3, 1], False), ([3, 5, 1, 3], True)],
                         ids=["sorted", "unsorted-hx"])
def test_packed_sequences_match_pytorch(kind, kw, bidirectional, lengths, given):
    from torch.nn.utils import rnn as theirs_rnn
    ours_rnn = mt.nn.utils.rnn
    rng = np.random.default_rng(4)
    theirs = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional,
                                     **kw).double()
    ours = getattr(mt.nn, kind)(3, 4, num_layers=2, bidirectional=bidirectional, **kw).double()
    ours.load_state_dict({k: _to_ours(v) for k, v in theirs.state_dict().items()})
    dirs = 2 if bidirectional else 1
    arrays = [rng.standard_normal((5, 4, 3))]
    if given:
        arrays += _states(kind, (2 * dirs, 4, 4), rng, kw.get("proj_size", 0))
    tx, *th = [torch.tensor(a, requires_grad=True) for a in arrays]
    ox, *oh = [_to_ours(t) for t in [tx, *th]]
    sort = lengths == sorted(lengths, reverse=True)
    packed_t = theirs_rnn.pack_padded_sequence(tx, lengths, enforce_sorted=sort)
    packed_o = ours_rnn.pack_padded_sequence(ox, lengths, enforce_sorted=sort)
    assert isinstance(packed_o, ours_rnn.PackedSequence) and isinstance(packed_o.data, mt.Tensor)
    out_t, h_t = theirs(packed_t, _pack(kind, th) if given else None)
    out_o, h_o = ours(packed_o, _pack(kind, oh) if given else None)
    assert isinstance(out_o, ours_rnn.PackedSequence)
    pad_t, len_t = theirs_rnn.pad_packed_sequence(out_t, batch_first=True, total_length=6)
    pad_o, len_o = ours_rnn.pad_packed_sequence(out_o, batch_first=True, total_length=6)
    assert len_o.tolist() == len_t.tolist() == lengths
    want, got = _flat(kind, (pad_t, h_t)), _flat(kind, (pad_o, h_o))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9,
                                   atol=1e-12)
    ws = [rng.standard_normal(tuple(a.shape)) for a in want]
    sum((a * mt.tensor(w)).sum() for a, w in zip(got, ws)).backward()
    sum((b * torch.tensor(w)).sum() for b, w in zip(want, ws)).backward()
    for a, b in zip([ox, *oh], [tx, *th]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


def test_padding_and_packing_helpers_match_pytorch():
    from torch.nn.utils import rnn as theirs_rnn
    ours_rnn = mt.nn.utils.rnn
    rng = np.random.default_rng(5)
    seqs = [rng.standard_normal((n, 2)) for n in (2, 4, 1)]
    for batch_first in (False, True):
        for side in ("right", "left"):
            want = theirs_rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first, -1.0,
                                           side)
            got = ours_rnn.pad_sequence([mt.tensor(s) for s in seqs], batch_first, -1.0, side)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
    want = theirs_rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    got = ours_rnn.pack_sequence([mt.tensor(s) for s in seqs], enforce_sorted=False)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, s in zip(ours_rnn.unpack_sequence(got), seqs):
        np.testing.assert_array_equal(a.numpy(), s)
    _same_rejection(lambda: ours_rnn.pack_padded_sequence(mt.zeros(3, 2, 1), [1, 3]),
                    lambda: theirs_rnn.pack_padded_sequence(torch.zeros(3, 2, 1), [1, 3]))
    _same_rejection(lambda: ours_rnn.pack_padded_sequence(mt.zeros(3, 2, 1), [3, 0]),
                    lambda: theirs_rnn.pack_padded_sequence(torch.zeros(3, 2, 1), [3, 0]))
    _same_rejection(lambda: ours_rnn.pad_packed_sequence(got, total_length=2),
                    lambda: theirs_rnn.pad_packed_sequence(want, total_length=2))
