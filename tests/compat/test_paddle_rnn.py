"""Paddle's recurrent layers beyond the recorded cases (test_paddle_layers_reference.py):
gradients over padded batches (``sequence_length``) against float64 finite differences, where
Paddle 3.3.1's own gradient goes wrong (a sequence of length 0), and Paddle's automatic
parameter names (read from Paddle 3.3.1)."""
import numpy as np
import pytest

import mutograd.compat.paddle as paddle


def _finite_difference(f, x, eps=1e-6):
    """Central differences of the scalar ``f()`` in each element of the array ``x``."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        keep = x[i]
        x[i] = keep + eps
        up = f()
        x[i] = keep - eps
        down = f()
        x[i] = keep
        g[i] = (up - down) / (2 * eps)
    return g


@pytest.mark.parametrize("cls, kwargs, lengths", [
    ("GRU", dict(direction="bidirect"), [0, 4, 2]),
    ("LSTM", dict(num_layers=2, direction="bidirect", time_major=True), [3, 0, 4]),
    ("SimpleRNN", dict(), [1, 4, 0]),
    ("LSTM", dict(direction="bidirect", proj_size=2), [2, 4, 0]),
])
def test_padded_batch_gradients_match_finite_differences(cls, kwargs, lengths):
    paddle.set_default_dtype("float64")
    try:
        layer = getattr(paddle.nn, cls)(3, 3, **kwargs)
    finally:
        paddle.set_default_dtype("float32")
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, [4, 3, 3] if kwargs.get("time_major") else [3, 4, 3])
    sequence_length = paddle.to_tensor(np.array(lengths, "int64"))
    weights = {}

    def loss(xt):
        out, last = layer(xt, None, sequence_length)
        total = 0.0
        for k, t in enumerate([out] + (list(last) if cls == "LSTM" else [last])):
            if k not in weights:
                weights[k] = paddle.to_tensor(rng.standard_normal(t.shape))
            total = total + (t * weights[k]).sum()
        return total

    xt = paddle.to_tensor(x, stop_gradient=False)
    loss(xt).backward()
    expected = _finite_difference(lambda: float(loss(paddle.to_tensor(x))), x)
    np.testing.assert_allclose(xt.grad.numpy(), expected, rtol=1e-5, atol=1e-7)
    w = layer.weight_hh_l0
    analytic = w.grad.numpy().copy()
    data = w.numpy().copy()

    def at():
        w.set_value(data)
        return float(loss(paddle.to_tensor(x)))
    np.testing.assert_allclose(analytic, _finite_difference(at, data), rtol=1e-5, atol=1e-7)


def test_padded_outputs_are_zeros_past_each_length_and_states_its_last_step():
    lstm = paddle.nn.LSTM(3, 4, direction="bidirect")
    x = paddle.randn([2, 5, 3])
    out, (h, c) = lstm(x, sequence_length=paddle.to_tensor([2, 5]))
    short, _ = lstm(x[:1, :2])                   # the first sequence alone, unpadded
    np.testing.assert_allclose(out[0, :2].numpy(), short[0].numpy(), rtol=1e-5, atol=1e-6)
    assert not out[0, 2:].numpy().any()
    np.testing.assert_allclose(h[0, 0].numpy(), short[0, 1, :4].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h[1, 0].numpy(), short[0, 0, 4:].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lengths", [[5, 1], [-1, 2], [1, 2, 3]])
def test_lengths_out_of_range_raise(lengths):
    with pytest.raises(ValueError, match="sequence_length"):
        paddle.nn.GRU(3, 4)(paddle.randn([2, 4, 3]), None, paddle.to_tensor(lengths))


def test_parameters_carry_paddle_s_cell_names():
    # as Paddle 3.3.1 names them; the flat names are zipped with the cells' parameters, so
    # with projections (weight_ho has no flat name) they shift past the first cell
    with paddle.base.unique_name.guard():
        lstm = paddle.nn.LSTM(3, 5, num_layers=2, direction="bidirect", proj_size=2)
        gru = paddle.nn.GRU(3, 5)
        rnn = paddle.nn.SimpleRNN(3, 5)
    named = [(k, p.name, list(p.shape)) for k, p in lstm.named_parameters()]
    assert named[:6] == [
        ("weight_ih_l0", "lstm_cell_0.w_0", [20, 3]), ("weight_hh_l0", "lstm_cell_0.w_1", [20, 2]),
        ("bias_ih_l0", "lstm_cell_0.b_0", [20]), ("bias_hh_l0", "lstm_cell_0.b_1", [20]),
        ("weight_ih_l0_reverse", "lstm_cell_0.w_2", [5, 2]),
        ("weight_hh_l0_reverse", "lstm_cell_1.w_0", [20, 3])]
    assert named[-1] == ("1.cell_bw.weight_ho", "lstm_cell_3.w_2", [5, 2])
    assert [p.name for p in gru.parameters()] == \
        ["gru_cell_0.w_0", "gru_cell_0.w_1", "gru_cell_0.b_0", "gru_cell_0.b_1"]
    assert [p.name for p in rnn.parameters()][0] == "simple_rnn_cell_0.w_0"
    assert [s.full_name() for s in lstm.sublayers()] == \
        ["bi_rnn_0", "lstm_cell_0", "lstm_cell_1", "bi_rnn_1", "lstm_cell_2", "lstm_cell_3"]
