"""Recurrent layers with PyTorch's parameter names, gate order and layouts: ``RNN``, ``LSTM``
(with ``proj_size`` projections), ``GRU`` (stacked, bidirectional, ``batch_first``, dropout
between layers, unbatched inputs as a batch of one) and their one-step cells ``RNNCell``,
``LSTMCell``, ``GRUCell``. Each is composed from ops that have gradients; the input-to-hidden
products of a whole sequence are one matrix product per layer and direction.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> lstm = nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(mg.randn([4, 7, 3]))
    >>> out.shape, h.shape, c.shape
    ([4, 7, 5], [2, 4, 5], [2, 4, 5])
"""
import math
import numbers
import warnings

from ...errors import ArgumentError, ShapeError
from ...ops.shaping import cat, stack
from ...ops.creation import empty, zeros
from ...ops.indexing import index_select
from .. import functional as F
from .. import init
from ..module import Module, Parameter
from ..utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_NONLINEARITIES = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}


def _step(mode, gi, h, c, w_hh, b_hh, w_hr=None):
    """One time step from the input's gate pre-activations ``gi`` (N, G*H); ``w_hr`` projects
    an LSTM's hidden state (``proj_size``)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        return (h if w_hr is None else F.linear(h, w_hr)), c
    if mode == "GRU":
        ir, iz, in_ = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
        n = (in_ + r * hn).tanh()
        return n + z * (h - n), None          # (1 - z) * n + z * h
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


# ---- checks with PyTorch's words -------------------------------------------------------------
def _check_int(name, value):
    if not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")


def _check_positive_int(name, value):
    _check_int(name, value)
    if value <= 0:
        raise ArgumentError(f"{name} must be greater than zero")


def _check_bool(name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")


def _dims(ts):
    return ", ".join(f"{t.ndim}-D" for t in ts)


def _check_layer_states(mode, unbatched, states):
    """The first states have the input's batched-ness: 2-D for a 2-D input, else 3-D."""
    want, kind = (2, "unbatched 2-D") if unbatched else (3, "batched 3-D")
    if any(s is not None and s.ndim != want for s in states):
        if mode == "LSTM":
            raise ShapeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                             f"({_dims(states)}) tensors")
        raise ShapeError(f"For {kind} input, hx should also be {want}-D but got "
                         f"{states[0].ndim}-D tensor")


def _check_layer_state(mode, which, state, expected):
    if tuple(state.shape) != expected:
        what = "hidden" if mode != "LSTM" else f"hidden[{which}]"
        raise ShapeError(f"Expected {what} size {expected}, got {list(state.shape)}")


def _check_cell(input, states, w_ih, widths):
    """ATen's checks of a cell step on a batch: input width, then each state's batch and
    width (``widths``: h's, then c's)."""
    if input.shape[1] != w_ih.shape[1]:
        raise ShapeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                         f"{w_ih.shape[1]}")
    for k, (s, width) in enumerate(zip(states, widths)):
        if s.shape[0] != input.shape[0]:
            raise ShapeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch "
                             f"size {s.shape[0]}")
        if s.ndim != 2 or s.shape[1] != width:
            got = s.shape[1] if s.ndim > 1 else None
            raise ShapeError(f"hidden{k} has inconsistent hidden_size: got {got}, expected "
                             f"{width}")


# ---- the one implementation of the layers and the cells --------------------------------------
def run_cell(mode, input, h, c, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """One step of a cell on ``input`` (N, input_size), or (input_size) as a batch of one, from
    the states ``h`` (and ``c`` for an LSTM) shaped like it (None: zeros). Returns ``(h', c')``,
    ``c'`` None but for an LSTM; ``w_hr`` (proj_size, hidden_size) projects an LSTM's ``h'``
    (``h`` is then proj_size wide, ``c`` hidden_size).

        >>> import mutograd as mg
        >>> h, _ = run_cell("RNN_TANH", mg.ones([3]), None, None, mg.zeros([2, 3]),
        ...                 mg.zeros([2, 2]))
        >>> h.shape
        [2]
    """
    unbatched = input.ndim == 1
    if unbatched:
        input = input.unsqueeze(0)
    lstm = mode == "LSTM"
    widths = [w_hh.shape[1], w_hh.shape[0] // _GATES[mode]]      # h's, c's
    if h is None:
        h = zeros([input.shape[0], widths[0]], dtype=input.dtype)
        c = zeros([input.shape[0], widths[1]], dtype=input.dtype) if lstm else None
    elif unbatched:
        h, c = h.unsqueeze(0), (c.unsqueeze(0) if lstm else None)
    _check_cell(input, [h, c] if lstm else [h], w_ih, widths)
    h, c = _step(mode, F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh, w_hr)
    if unbatched:
        h, c = h.squeeze(0), (c.squeeze(0) if lstm else None)
    return h, c


def _direction(mode, gates_at, sizes, h0, c0, w_hh, b_hh, w_hr, reverse):
    """One layer in one direction: ``gates_at(t)`` the input's gate pre-activations of step
    ``t``, ``sizes[t]`` (non-increasing) how many sequences, the first rows, have that step.
    Returns each step's h and the last states of every sequence."""
    lstm = mode == "LSTM"
    h, c = h0, c0
    if reverse and sizes[-1] < h0.shape[0]:   # backwards, the longest sequences start
        h, c = h0[:sizes[-1]], (c0[:sizes[-1]] if lstm else None)
    seq, ended = [], []
    for t in (range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))):
        rows, bs = h.shape[0], sizes[t]
        if bs > rows:        # backwards: the sequences whose last step this is join
            h = cat([h, h0[rows:bs]], 0)
            c = cat([c, c0[rows:bs]], 0) if lstm else None
        elif bs < rows:      # forwards: the sequences that ended keep their last states
            ended.append((h[bs:], c[bs:] if lstm else None))
            h, c = h[:bs], (c[:bs] if lstm else None)
        h, c = _step(mode, gates_at(t), h, c, w_hh, b_hh, w_hr)
        seq.append(h)
    if reverse:
        seq.reverse()
    if ended:
        ended.reverse()      # the rows ended last come first
        h = cat([h] + [e[0] for e in ended], 0)
        c = cat([c] + [e[1] for e in ended], 0) if lstm else None
    return seq, h, c


def run_layers(mode, input, h0, c0, weights, bidirectional, dropout=0.0, batch_first=False,
               batch_sizes=None):
    """Run stacked recurrent layers over ``input``: (steps, batch, features), (batch, steps,
    features) with ``batch_first``, or (steps, features) as a batch of one; with
    ``batch_sizes`` (a list, non-increasing) ``input`` is a packed sequence's data (total steps,
    features) and the output is too. ``weights`` holds ``(w_ih, w_hh, b_ih, b_hh[, w_hr])`` per
    layer and direction, in PyTorch's order (``w_hr``: an LSTM's projection); ``h0`` (and ``c0``
    for an LSTM) the first states (None: zeros); ``dropout`` between layers. Returns the last
    layer's outputs (in the input's layout) and the last states ``h_n``, ``c_n`` (None but for
    an LSTM).

        >>> import mutograd as mg
        >>> w = [(mg.zeros([2, 3]), mg.zeros([2, 2]), None, None)]
        >>> out, h_n, _ = run_layers("RNN_TANH", mg.ones([4, 3]), None, None, w, False)
        >>> out.shape, h_n.shape
        ([4, 2], [1, 2])
    """
    dirs = 2 if bidirectional else 1
    lstm = mode == "LSTM"
    packed = batch_sizes is not None
    unbatched = input.ndim == 2 and not packed
    _check_layer_states(mode, unbatched, [h0, c0] if lstm else [h0])
    if unbatched:
        input = input.unsqueeze(1)
        h0 = None if h0 is None else h0.unsqueeze(1)
        c0 = None if c0 is None else c0.unsqueeze(1)
    elif batch_first and not packed:
        input = input.swapaxes(0, 1)
    if packed:
        sizes, n = list(batch_sizes), (batch_sizes[0] if batch_sizes else 0)
        starts = [sum(sizes[:t]) for t in range(len(sizes))]
    else:
        sizes, n = [input.shape[1]] * input.shape[0], input.shape[1]
    w_ih, w_hh = weights[0][:2]
    if input.shape[-1] != w_ih.shape[1]:
        raise ShapeError(f"input.size(-1) must be equal to input_size. Expected "
                         f"{w_ih.shape[1]}, got {input.shape[-1]}")
    if not sizes:
        raise ShapeError("Expected sequence length to be larger than 0 in RNN")
    h_shape = (len(weights), n, w_hh.shape[1])             # proj_size wide with projections
    c_shape = (len(weights), n, w_hh.shape[0] // _GATES[mode])
    if h0 is None:
        h0 = zeros(list(h_shape), dtype=input.dtype)
    _check_layer_state(mode, 0, h0, h_shape)
    if lstm:
        c0 = zeros(list(c_shape), dtype=input.dtype) if c0 is None else c0
        _check_layer_state(mode, 1, c0, c_shape)
    x, last_h, last_c = input, [], []
    for layer in range(len(weights) // dirs):
        if layer and dropout:
            x = F.dropout(x, dropout, training=True)
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh, *w_hr = weights[k]
            gates = F.linear(x, w_ih, b_ih)          # every step's input part at once
            if packed:
                def gates_at(t, gates=gates):
                    return gates[starts[t]:starts[t] + sizes[t]]
            else:
                def gates_at(t, gates=gates):
                    return gates[t]
            seq, h, c = _direction(mode, gates_at, sizes, h0[k], c0[k] if lstm else None,
                                   w_hh, b_hh, w_hr[0] if w_hr else None, d == 1)
            outs.append(cat(seq, 0) if packed else stack(seq, 0))
            last_h.append(h)
            last_c.append(c)
        x = outs[0] if dirs == 1 else cat(outs, -1)
    h_n, c_n = stack(last_h, 0), (stack(last_c, 0) if lstm else None)
    if unbatched:
        x, h_n, c_n = x.squeeze(1), h_n.squeeze(1), (c_n.squeeze(1) if lstm else None)
    elif batch_first and not packed:
        x = x.swapaxes(0, 1)
    return x, h_n, c_n


class RNNCellBase(Module):
    """The parameters of a recurrent cell, PyTorch's signature: ``weight_ih``
    (num_chunks * hidden_size, input_size), ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        _check_int("input_size", input_size)
        _check_int("hidden_size", hidden_size)
        g = num_chunks * hidden_size
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = Parameter(empty([g, input_size], dtype=dtype))
        self.weight_hh = Parameter(empty([g, hidden_size], dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty([g], dtype=dtype))
            self.bias_hh = Parameter(empty([g], dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def extra_repr(self):
        # PyTorch's text: the sizes, then each setting not at its default
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class _Cell(RNNCellBase):
    mode = None

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None, *,
                 mode=None):
        mode = mode or type(self).mode
        super().__init__(input_size, hidden_size, bias, _GATES[mode], device, dtype)
        self.mode = mode

    def _step_mode(self):
        return self.mode

    def forward(self, input, hx=None):
        name, lstm = type(self).__name__, self.mode == "LSTM"
        if input.ndim not in (1, 2):
            raise ShapeError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is None:
            h = c = None
        elif lstm:
            h, c = hx
        else:
            h, c = hx, None
        for i, s in enumerate([h, c] if lstm else [h]):
            if s is not None and s.ndim not in (1, 2):
                what = f"hx[{i}]" if lstm else "hidden"
                raise ShapeError(f"{name}: Expected {what} to be 1D or 2D, got {s.ndim}D instead")
        h, c = run_cell(self._step_mode(), input, h, c, self.weight_ih, self.weight_hh,
                        self.bias_ih, self.bias_hh)
        return (h, c) if lstm else h


class RNNCell(_Cell):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype,
                         mode=_NONLINEARITIES.get(nonlinearity, "RNN_TANH"))
        self.nonlinearity = nonlinearity

    def _step_mode(self):
        # as PyTorch, the nonlinearity is looked up at the call (it may be set after __init__)
        if self.nonlinearity not in _NONLINEARITIES:
            raise ArgumentError(f"Unknown nonlinearity: {self.nonlinearity}")
        return _NONLINEARITIES[self.nonlinearity]


class LSTMCell(_Cell):
    """One LSTM step; gates in PyTorch's order input, forget, cell, output."""

    mode = "LSTM"


class GRUCell(_Cell):
    """One GRU step; gates in PyTorch's order reset, update, new."""

    mode = "GRU"


class RNNBase(Module):
    """A stack of recurrent layers, PyTorch's signature: ``mode`` is 'RNN_TANH', 'RNN_RELU',
    'LSTM' or 'GRU'; parameters ``weight_ih_l{k}[_reverse]``, ``weight_hh_...``,
    ``bias_ih_...``, ``bias_hh_...`` and, for an LSTM with ``proj_size > 0``, ``weight_hr_...``
    (proj_size, hidden_size), in PyTorch's order."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ArgumentError("dropout should be a number in range [0, 1] representing the "
                                "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        _check_positive_int("input_size", input_size)
        _check_positive_int("hidden_size", hidden_size)
        _check_positive_int("num_layers", num_layers)
        _check_bool("bias", bias)
        _check_bool("batch_first", batch_first)
        _check_int("proj_size", proj_size)
        if proj_size < 0:
            raise ArgumentError("proj_size should be a positive integer or zero to disable "
                                "projections")
        if proj_size >= hidden_size:
            raise ArgumentError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ArgumentError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        dirs = 2 if bidirectional else 1
        g = _GATES[self.mode] * hidden_size
        out = proj_size or hidden_size           # the width of h
        for layer in range(num_layers):
            width = input_size if layer == 0 else out * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                setattr(self, "weight_ih" + sfx, Parameter(empty([g, width], dtype=dtype)))
                setattr(self, "weight_hh" + sfx, Parameter(empty([g, out], dtype=dtype)))
                if bias:
                    setattr(self, "bias_ih" + sfx, Parameter(empty([g], dtype=dtype)))
                    setattr(self, "bias_hh" + sfx, Parameter(empty([g], dtype=dtype)))
                if proj_size:
                    setattr(self, "weight_hr" + sfx,
                            Parameter(empty([proj_size, hidden_size], dtype=dtype)))
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _weights(self, layer, d):
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        ws = (getattr(self, "weight_ih" + sfx), getattr(self, "weight_hh" + sfx),
              getattr(self, "bias_ih" + sfx, None), getattr(self, "bias_hh" + sfx, None))
        return ws + ((getattr(self, "weight_hr" + sfx),) if self.proj_size else ())

    @property
    def all_weights(self):
        """Each layer and direction's parameters, ``[w_ih, w_hh, b_ih, b_hh(, w_hr)]``."""
        dirs = 2 if self.bidirectional else 1
        return [[w for w in self._weights(layer, d) if w is not None]
                for layer in range(self.num_layers) for d in range(dirs)]

    def flatten_parameters(self):
        """Nothing to do: the weights are used where they are (PyTorch compacts them into one
        buffer for cuDNN)."""

    def extra_repr(self):
        # PyTorch's text: the sizes, then each setting not at its default
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class _RNNBase(RNNBase):
    """RNN, LSTM and GRU: the mode from the class (or ``mode=``), the rest as PyTorch's."""
    mode = None

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None, *,
                 mode=None):
        super().__init__(mode or type(self).mode, input_size, hidden_size, num_layers, bias,
                         batch_first, dropout, bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        name = "RNN" if self.mode.startswith("RNN") else self.mode
        packed = isinstance(input, PackedSequence)
        if packed:
            sequence = input
            input, batch_sizes, sorted_indices, unsorted_indices = sequence
            batch_sizes = [int(b) for b in batch_sizes.tolist()]
        elif input.ndim not in (2, 3):
            raise ShapeError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D"
                             f"{' tensor' if name == 'RNN' else ''} instead")
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ArgumentError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                                f"({weight.dtype}). Convert input: input.to({weight.dtype}), "
                                f"or convert model: model.to({input.dtype})")
        if hx is None:
            states = [None, None]
        elif self.mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise ArgumentError("lstm expects two hidden states")
            states = list(hx)
        else:
            states = [hx, None]
        if packed and sorted_indices is not None:     # the states follow the sorted batch
            states = [s if s is None else index_select(s, 1, sorted_indices) for s in states]
        dirs = 2 if self.bidirectional else 1
        weights = [self._weights(layer, d) for layer in range(self.num_layers)
                   for d in range(dirs)]
        out, h_n, c_n = run_layers(self.mode, input, *states, weights, self.bidirectional,
                                   self.dropout if self.training else 0.0, self.batch_first,
                                   batch_sizes if packed else None)
        if packed:
            out = PackedSequence(out, *sequence[1:])
            if unsorted_indices is not None:     # the last states in the caller's order
                h_n = index_select(h_n, 1, unsorted_indices)
                c_n = None if c_n is None else index_select(c_n, 1, unsorted_indices)
        return (out, (h_n, c_n)) if self.mode == "LSTM" else (out, h_n)


class RNN(_RNNBase):
    """An Elman RNN, ``tanh`` or ``relu`` (``nonlinearity=``)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in _NONLINEARITIES:
            raise ArgumentError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                                f"'relu'.")
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype, mode=_NONLINEARITIES[nonlinearity])
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``. With ``proj_size > 0`` each
    hidden state is projected to ``proj_size`` (``h_n`` and the output are that wide)."""

    mode = "LSTM"


class GRU(_RNNBase):
    """Gated recurrent unit."""

    mode = "GRU"
