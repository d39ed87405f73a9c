"""Paddle's recurrent layers over ``mutograd.nn.modules.recurrent`` (the same math and gate order):
``LSTM``, ``GRU``, ``SimpleRNN`` and their cells, with Paddle's signature (``direction=``,
``time_major=``, ``weight_ih_attr=`` ...), parameter names (``weight_ih_l0``,
``weight_hh_l0_reverse``, ...; the parameters themselves named after Paddle's cells,
``lstm_cell_0.w_0``) and layout: batch first unless ``time_major=True``; padded batches with
``sequence_length=`` (Paddle's masking, run by the shared packed-sequence path).

    >>> import mutograd.compat.paddle as paddle
    >>> lstm = paddle.nn.LSTM(4, 8, num_layers=2, direction="bidirect")
    >>> out, (h, c) = lstm(paddle.randn([2, 5, 4]))
    >>> list(out.shape), list(h.shape), list(c.shape)
    ([2, 5, 16], [4, 2, 8], [4, 2, 8])
    >>> out, h = paddle.nn.GRU(4, 8)(paddle.randn([2, 5, 4]),
    ...                              sequence_length=paddle.to_tensor([5, 3]))
    >>> float(out[1, 3:].abs().sum())        # past the second sequence's 3 steps
    0.0
"""
import math

from .... import nn as _nn
from ....nn.modules.recurrent import run_cell
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
        otherwise; ``bias_*_attr=False`` makes those biases zeros that are not trained (they
        stay in ``state_dict``, as Paddle's)."""
        attrs = {"weight_ih": weight_ih_attr, "weight_hh": weight_hh_attr,
                 "bias_ih": bias_ih_attr, "bias_hh": bias_hh_attr}
        bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        default = I.Uniform(-bound, bound)
        for name in list(self._parameters):
            kind = name.split("_l")[0] if "_l" in name else name     # weight_ih, bias_hh, ...
            attr = attrs.get(kind)
            if kind.startswith("bias") and I.to_attr(attr) is False:
                bias = self._parameters[name]
                I.apply(bias, I.to_attr(None), I.Constant(0.0), True)
                bias.stop_gradient = True
                continue
            self._paddle_param(name, attr, default, is_bias=kind.startswith("bias"))


def _lengths(sequence_length, batch, steps):
    """``sequence_length`` (an int tensor [N]) as a list, checked against the input."""
    lengths = [int(v) for v in sequence_length.reshape([-1]).tolist()]
    if len(lengths) != batch:
        raise ValueError(f"sequence_length has {len(lengths)} lengths for a batch of {batch}")
    if any(not 0 <= n <= steps for n in lengths):
        raise ValueError(f"sequence_length {lengths} should be in [0, {steps}], the input's "
                         f"time steps")
    return lengths


# Paddle's flat names, zipped (as Paddle 3.3.1 does) with its cells' parameters in order: a
# projection's ``weight_ho`` has no flat name, so past the first cell the names shift
def _flat_names(num_layers, directions, bias_ih, bias_hh):
    names = []
    for layer in range(num_layers):
        for suffix in ["", "_reverse"][:directions]:
            kinds = ["weight_ih", "weight_hh"] + ["bias_ih"] * bias_ih + ["bias_hh"] * bias_hh
            names += [f"{k}_l{layer}{suffix}" for k in kinds]
    return names


class _PaddleRNNLayer(_PaddleRNN):
    """Paddle's signature of a sequence layer's forward over the shared one's, and Paddle's
    structure: sublayer ``i`` is the ``i``-th layer as an :class:`RNN` (or :class:`BiRNN`) of
    cells (``lstm_cell_0`` ..., whose parameters carry the cells' automatic names), and the
    layer holds the same parameters under flat names (``weight_ih_l0``, ...), so
    ``state_dict`` has both names as Paddle's. The computation is the shared layer's, on the
    cells' parameters."""

    _cell = None        # the Paddle cell class of the layers

    def _paddle_layers(self, time_major, bias_ih_attr, bias_hh_attr, cell_kwargs):
        self.time_major, self.direction = time_major, \
            "bidirect" if self.bidirectional else "forward"
        for name in list(self._parameters):      # the shared layer's: Paddle's are its cells'
            delattr(self, name)
        dirs = 2 if self.bidirectional else 1
        for i in range(self.num_layers):
            width = self.input_size if i == 0 else (self.proj_size or self.hidden_size) * dirs
            cells = [type(self)._cell(width, self.hidden_size, bias_ih_attr=bias_ih_attr,
                                      bias_hh_attr=bias_hh_attr, **cell_kwargs)
                     for _ in range(dirs)]
            wrapper = BiRNN(*cells, time_major) if self.bidirectional else \
                RNN(cells[0], time_major=time_major)
            self.add_sublayer(str(i), wrapper)
        names = _flat_names(self.num_layers, dirs, I.to_attr(bias_ih_attr) is not False,
                            I.to_attr(bias_hh_attr) is not False)
        for name, param in zip(names, self.parameters()):
            self.register_parameter(name, param)

    def _weights(self, layer, d):
        wrapper = getattr(self, str(layer))
        cell = (wrapper.cell_bw if d else wrapper.cell_fw) if self.bidirectional else \
            wrapper.cell
        return cell._shared_weights()

    def forward(self, inputs, initial_states=None, sequence_length=None):
        """``sequence_length`` (int [N]): the batch is padded; each sequence runs over its
        first steps only (the reverse direction from its last one), the outputs past it are
        zeros and the final states are those of its last step."""
        if sequence_length is None:
            return super().forward(inputs, initial_states)
        if self.proj_size:      # Paddle runs these through its cells: outputs not masked
            return self._layerwise_forward(inputs, initial_states, sequence_length)
        return self._padded_forward(inputs, initial_states, sequence_length)

    def _layerwise_forward(self, inputs, initial_states, sequence_length):
        # Paddle's path for the layers its fused kernel does not take (projections): each
        # layer's RNN/BiRNN sublayer in turn, dropout between
        from ....nn import functional as F
        from ....ops.shaping import stack
        lstm, dirs = self.mode == "LSTM", 2 if self.bidirectional else 1
        if initial_states is not None:
            initial_states = list(initial_states) if lstm else [initial_states]
        finals = []
        for i in range(self.num_layers):
            if i and self.dropout:
                inputs = F.dropout(inputs, self.dropout, training=self.training)
            states = None
            if initial_states is not None:      # [layers * dirs, N, W] -> this layer's
                per_dir = [tuple(s[i * dirs + d] for s in initial_states) for d in range(dirs)]
                per_dir = [p if lstm else p[0] for p in per_dir]
                states = tuple(per_dir) if dirs == 2 else per_dir[0]
            inputs, last = getattr(self, str(i))(inputs, states, sequence_length)
            finals += list(last) if dirs == 2 else [last]
        if lstm:
            return inputs, (stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0))
        return inputs, stack(finals, 0)

    def _padded_forward(self, inputs, initial_states, sequence_length):
        # the shared packed-sequence path on the sequences that have steps; a sequence of no
        # steps keeps its first states and gives zeros
        from ....nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
        from ....ops.creation import to_tensor, zeros
        from ....ops.indexing import index_select
        from ....ops.shaping import cat
        lstm = self.mode == "LSTM"
        t_axis, n_axis = (0, 1) if self.time_major else (1, 0)
        steps, n = inputs.shape[t_axis], inputs.shape[n_axis]
        lengths = _lengths(sequence_length, n, steps)
        if initial_states is None:
            dirs = self.num_layers * (2 if self.bidirectional else 1)
            widths = [self.proj_size or self.hidden_size, self.hidden_size][:1 + lstm]
            states = [zeros([dirs, n, w], dtype=inputs.dtype) for w in widths]
        else:
            states = list(initial_states) if lstm else [initial_states]
        ran = [b for b in range(n) if lengths[b]]
        empty = [b for b in range(n) if not lengths[b]]
        if empty:
            keep = to_tensor(ran, dtype="int64")
            x = index_select(inputs, n_axis, keep) if ran else inputs
            sub = [index_select(s, 1, keep) for s in states]
        else:
            x, sub = inputs, states
        if ran:
            packed = pack_padded_sequence(x, [lengths[b] for b in ran], not self.time_major,
                                          enforce_sorted=False)
            out, last = super().forward(packed, tuple(sub) if lstm else sub[0])
            out, _ = pad_packed_sequence(out, not self.time_major, total_length=steps)
            last = list(last) if lstm else [last]
        if empty:       # put the sequences of no steps back in their places
            order = to_tensor([(ran + empty).index(b) for b in range(n)], dtype="int64")
            gone = to_tensor(empty, dtype="int64")
            width = (self.proj_size or self.hidden_size) * (2 if self.bidirectional else 1)
            pad = zeros([steps, len(empty), width] if self.time_major else
                        [len(empty), steps, width], dtype=inputs.dtype)
            kept = [index_select(s, 1, gone) for s in states]
            if ran:
                out = index_select(cat([out, pad], n_axis), n_axis, order)
                last = [index_select(cat([a, b], 1), 1, order) for a, b in zip(last, kept)]
            else:
                out, last = pad, kept
        return out, (tuple(last) if lstm else last[0])

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major:
            s += f", time_major={self.time_major}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        return s


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
    """``outputs, (h, c) = lstm(inputs, initial_states=None, sequence_length=None)``; outputs
    [N, T, H * directions] (``[T, N, ...]`` with ``time_major=True``), h and c
    [num_layers * directions, N, H]; with ``proj_size=P`` each cell's h is projected by its
    ``weight_ho`` [H, P], so outputs and h are P wide."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if proj_size < 0 or proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size" if proj_size > 0 else
                             f"proj_size of LSTM must be greater than 0, but now equals to "
                             f"{proj_size}")
        _nn.LSTM.__init__(self, input_size, hidden_size, num_layers, True, not time_major,
                          dropout, _bidirectional(direction), proj_size)
        self._paddle_layers(time_major, bias_ih_attr, bias_hh_attr, dict(
            weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr, proj_size=proj_size))


class GRU(_PaddleRNNLayer, _nn.GRU, Layer):
    """``outputs, h = gru(inputs, initial_states=None, sequence_length=None)`` (layouts as
    :class:`LSTM`)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.GRU.__init__(self, input_size, hidden_size, num_layers, True, not time_major,
                         dropout, _bidirectional(direction))
        self._paddle_layers(time_major, bias_ih_attr, bias_hh_attr, dict(
            weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr))


class SimpleRNN(_PaddleRNNLayer, _nn.RNN, Layer):
    """An Elman RNN (``activation='tanh'`` or ``'relu'``); ``outputs, h = rnn(inputs)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        _nn.RNN.__init__(self, input_size, hidden_size, num_layers, activation, True,
                         not time_major, dropout, _bidirectional(direction))
        self.activation = activation
        self._paddle_layers(time_major, bias_ih_attr, bias_hh_attr, dict(
            activation=activation, weight_ih_attr=weight_ih_attr,
            weight_hh_attr=weight_hh_attr))


class _PaddleCell(_PaddleRNN):
    def forward(self, inputs, states=None):
        """``(output, new_states)``: for LSTMCell ``h, (h, c)``; otherwise ``h, h``."""
        h, c = states if self.mode == "LSTM" and states is not None else (states, None)
        h, c = run_cell(self._step_mode(), inputs, h, c, *self._shared_weights())
        return (h, (h, c)) if self.mode == "LSTM" else (h, h)

    def _shared_weights(self):
        """``(w_ih, w_hh, b_ih, b_hh[, w_hr])`` as the shared functions take them."""
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", activation={self.nonlinearity}"
        return s


class LSTMCell(_PaddleCell, _nn.LSTMCell, RNNCellBase):
    """With ``proj_size=P``: ``weight_hh`` [4H, P] and ``weight_ho`` [H, P] (``h @
    weight_ho``), h P wide."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        _nn.LSTMCell.__init__(self, input_size, hidden_size)
        self.proj_size = proj_size
        if proj_size:
            from ....ops.creation import empty
            self.weight_hh = _nn.Parameter(empty([4 * hidden_size, proj_size]))
            self.register_parameter("weight_ho", _nn.Parameter(empty([hidden_size, proj_size])))
        self._paddle_setup(hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                           bias_hh_attr)

    def _shared_weights(self):
        ws = super()._shared_weights()
        return ws + (self.weight_ho.T,) if self.proj_size else ws

    @property
    def state_shape(self):
        return ([self.proj_size or self.hidden_size], [self.hidden_size])


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


def _run_cell(cell, inputs, states, reverse, time_major, sequence_length, kwargs):
    """Paddle's loop of a cell over time. With ``sequence_length`` a sequence's states stay
    as they are at the steps past its length (so backwards it starts at its last step); the
    outputs there are not masked (Paddle's RNN and BiRNN give the cell's output)."""
    from ....ops.creation import to_tensor
    from ....ops.shaping import stack
    x = inputs if time_major else inputs.permute([1, 0] + list(range(2, inputs.ndim)))
    if sequence_length is not None:
        lengths = _lengths(sequence_length, x.shape[1], x.shape[0])
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outs = []
    for t in steps:
        y, new = cell(x[t], states, **kwargs)
        if sequence_length is not None and states is not None:
            keep = to_tensor([[float(t < n)] for n in lengths], dtype=x.dtype)
            new = _map_states(lambda a, b: a * keep + b * (1.0 - keep), new, states)
        states = new
        outs.append(y)
    if reverse:
        outs.reverse()
    out = stack(outs, 0)
    if not time_major:
        out = out.permute([1, 0] + list(range(2, out.ndim)))
    return out, states


def _map_states(fn, a, b):
    if isinstance(a, (tuple, list)):
        return type(a)(_map_states(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


class RNN(Layer):
    """Run ``cell`` over the time axis (batch first unless ``time_major``), from the last step
    backwards with ``is_reverse``; returns ``(outputs, final_states)``. With
    ``sequence_length`` (int [N]) each sequence's states are taken from its first steps only
    (the outputs past them are the cell's, not zeros, as Paddle's)."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None and sequence_length is not None:
            initial_states = self.cell.get_initial_states(inputs,
                                                          batch_dim_idx=int(self.time_major))
        return _run_cell(self.cell, inputs, initial_states, self.is_reverse, self.time_major,
                         sequence_length, kwargs)


class BiRNN(Layer):
    """``cell_fw`` forwards and ``cell_bw`` backwards over time; outputs concatenated on the
    last axis, final states ``(fw_states, bw_states)``; ``sequence_length`` as :class:`RNN`."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        fw0, bw0 = initial_states if initial_states is not None else (None, None)
        if sequence_length is not None:
            axis = int(self.time_major)
            fw0 = self.cell_fw.get_initial_states(inputs, batch_dim_idx=axis) \
                if fw0 is None else fw0
            bw0 = self.cell_bw.get_initial_states(inputs, batch_dim_idx=axis) \
                if bw0 is None else bw0
        out_fw, s_fw = _run_cell(self.cell_fw, inputs, fw0, False, self.time_major,
                                 sequence_length, kwargs)
        out_bw, s_bw = _run_cell(self.cell_bw, inputs, bw0, True, self.time_major,
                                 sequence_length, kwargs)
        from ....ops.shaping import cat
        return cat([out_fw, out_bw], -1), (s_fw, s_bw)


LSTM._cell, GRU._cell, SimpleRNN._cell = LSTMCell, GRUCell, SimpleRNNCell
