"""Paddle's recurrent layers over ``mutograd.nn.modules.recurrent`` (the same math and gate order):
``LSTM``, ``GRU``, ``SimpleRNN`` and their cells, with Paddle's signature (``direction=``,
``time_major=``, ``weight_ih_attr=`` ...), parameter names (``weight_ih_l0``,
``weight_hh_l0_reverse``, ...) and layout: batch first unless ``time_major=True``.

    >>> import mutograd.compat.paddle as paddle
    >>> lstm = paddle.nn.LSTM(4, 8, num_layers=2, direction="bidirect")
    >>> out, (h, c) = lstm(paddle.randn([2, 5, 4]))
    >>> list(out.shape), list(h.shape), list(c.shape)
    ([2, 5, 16], [4, 2, 8], [4, 2, 8])
"""
import math

from .... import nn as _nn
from . import initializer as I
from .layers import Layer

_DIRECTIONS = {"forward": False, "bidirect": True, "bidirectional": True}


def _bidirectional(direction):
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                         f"received direction = {direction}")
    return _DIRECTIONS[direction]


class _PaddleRNN:
    """What Paddle's LSTM/GRU/SimpleRNN add to the shared layers."""

    def _paddle_setup(self, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                      bias_hh_attr):
        """Paddle's initializers: U(-1/sqrt(hidden), 1/sqrt(hidden)) unless an attr says
        otherwise; ``bias_*_attr=False`` drops those biases."""
        attrs = {"weight_ih": weight_ih_attr, "weight_hh": weight_hh_attr,
                 "bias_ih": bias_ih_attr, "bias_hh": bias_hh_attr}
        bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        default = I.Uniform(-bound, bound)
        for name in list(self._parameters):
            kind = name.split("_l")[0] if "_l" in name else name     # weight_ih, bias_hh, ...
            attr = attrs.get(kind)
            self._paddle_param(name, attr, default, is_bias=kind.startswith("bias"))


def _no_sequence_length(layer, sequence_length):
    if sequence_length is not None:
        raise ValueError(f"{type(layer).__name__}: sequence_length (padded batches) is not "
                         f"supported; run each length separately or pack the batch by length")


class _PaddleRNNLayer(_PaddleRNN):
    """Paddle's signature of a sequence layer's forward over the shared one's."""

    def forward(self, inputs, initial_states=None, sequence_length=None):
        _no_sequence_length(self, sequence_length)
        return super().forward(inputs, initial_states)


class RNNCellBase(Layer):
    """Base class of a recurrent cell: ``forward(inputs, states)`` returns ``(outputs,
    new_states)``; :meth:`get_initial_states` makes zeros of ``state_shape``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with ``init_value``: ``[batch] + shape`` for each shape in ``shape``
        (``state_shape`` by default; a tuple of shapes gives a tuple of states)."""
        from ....ops.creation import full
        shape = self.state_shape if shape is None else shape
        n = batch_ref.shape[batch_dim_idx]

        def make(s):
            if isinstance(s, (list, tuple)) and s and isinstance(s[0], (list, tuple)):
                return tuple(make(i) for i in s)
            return full([n] + list(s), init_value, dtype=dtype or batch_ref.dtype)
        return make(shape)

    @property
    def state_shape(self):
        h = self.hidden_size
        return ([h], [h]) if getattr(self, "mode", None) == "LSTM" else [h]


class LSTM(_PaddleRNNLayer, _nn.LSTM, Layer):
    """``outputs, (h, c) = lstm(inputs, initial_states=None)``; outputs [N, T, H * directions]
    (``[T, N, ...]`` with ``time_major=True``), h and c [num_layers * directions, N, H]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if proj_size:
            raise ValueError("LSTM: proj_size is not supported; add a Linear after the LSTM")
        _nn.LSTM.__init__(self, input_size, hidden_size, num_layers, True, not time_major,
                          dropout, _bidirectional(direction))
        self.time_major = time_major
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


class GRU(_PaddleRNNLayer, _nn.GRU, Layer):
    """``outputs, h = gru(inputs, initial_states=None)`` (layouts as :class:`LSTM`)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.GRU.__init__(self, input_size, hidden_size, num_layers, True, not time_major,
                         dropout, _bidirectional(direction))
        self.time_major = time_major
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


class SimpleRNN(_PaddleRNNLayer, _nn.RNN, Layer):
    """An Elman RNN (``activation='tanh'`` or ``'relu'``); ``outputs, h = rnn(inputs)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.RNN.__init__(self, input_size, hidden_size, num_layers, activation, True,
                         not time_major, dropout, _bidirectional(direction))
        self.time_major = time_major
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


class _PaddleCell(_PaddleRNN):
    def forward(self, inputs, states=None):
        """``(output, new_states)``: for LSTMCell ``h, (h, c)``; otherwise ``h, h``."""
        out = super().forward(inputs, states)      # the shared cell's step
        if isinstance(out, tuple):
            return out[0], out
        return out, out


class LSTMCell(_PaddleCell, _nn.LSTMCell, RNNCellBase):
    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        _nn.LSTMCell.__init__(self, input_size, hidden_size)
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


class GRUCell(_PaddleCell, _nn.GRUCell, RNNCellBase):
    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.GRUCell.__init__(self, input_size, hidden_size)
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


class SimpleRNNCell(_PaddleCell, _nn.RNNCell, RNNCellBase):
    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.RNNCell.__init__(self, input_size, hidden_size, True, activation)
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)


def _run_cell(cell, inputs, states, reverse, time_major, kwargs):
    x = inputs if time_major else inputs.permute([1, 0] + list(range(2, inputs.ndim)))
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outs = []
    for t in steps:
        y, states = cell(x[t], states, **kwargs)
        outs.append(y)
    if reverse:
        outs.reverse()
    from ....ops.shaping import stack
    out = stack(outs, 0)
    if not time_major:
        out = out.permute([1, 0] + list(range(2, out.ndim)))
    return out, states


class RNN(Layer):
    """Run ``cell`` over the time axis (batch first unless ``time_major``), from the last step
    backwards with ``is_reverse``; returns ``(outputs, final_states)``."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        _no_sequence_length(self, sequence_length)
        return _run_cell(self.cell, inputs, initial_states, self.is_reverse, self.time_major,
                         kwargs)


class BiRNN(Layer):
    """``cell_fw`` forwards and ``cell_bw`` backwards over time; outputs concatenated on the
    last axis, final states ``(fw_states, bw_states)``."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        _no_sequence_length(self, sequence_length)
        fw0, bw0 = initial_states if initial_states is not None else (None, None)
        out_fw, s_fw = _run_cell(self.cell_fw, inputs, fw0, False, self.time_major, kwargs)
        out_bw, s_bw = _run_cell(self.cell_bw, inputs, bw0, True, self.time_major, kwargs)
        from ....ops.shaping import cat
        return cat([out_fw, out_bw], -1), (s_fw, s_bw)
