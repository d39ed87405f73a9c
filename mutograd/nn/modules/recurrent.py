"""Recurrent layers with PyTorch's parameter names, gate order and layouts: ``RNN``, ``LSTM``,
``GRU`` (stacked, bidirectional, ``batch_first``, dropout between layers) and their one-step
cells ``RNNCell``, ``LSTMCell``, ``GRUCell``. Each is composed from ops that have gradients; the
input-to-hidden products of a whole sequence are one matrix product per layer and direction.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> lstm = nn.LSTM(input_size=3, hidden_size=5, num_layers=2, batch_first=True)
    >>> out, (h, c) = lstm(mg.randn([4, 7, 3]))
    >>> out.shape, h.shape, c.shape
    ([4, 7, 5], [2, 4, 5], [2, 4, 5])
"""
import math

from ...ops.shaping import cat, stack
from ...ops.creation import empty, zeros
from .. import functional as F
from .. import init
from ..module import Module, Parameter

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode, gi, h, c, w_hh, b_hh):
    """One time step from the input's gate pre-activations ``gi`` (N, G*H)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (gi + gh).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c.tanh(), c
    if mode == "GRU":
        ir, iz, in_ = gi.chunk(3, 1)
        hr, hz, hn = gh.chunk(3, 1)
        r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
        n = (in_ + r * hn).tanh()
        return n + z * (h - n), None          # (1 - z) * n + z * h
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


def run_layers(mode, x, h0, c0, weights, bidirectional, dropout=0.0):
    """Run stacked recurrent layers over ``x`` (steps, batch, features): ``weights`` holds
    ``(w_ih, w_hh, b_ih, b_hh)`` per layer and direction, in PyTorch's order; ``h0`` (and
    ``c0`` for an LSTM) the first states; ``dropout`` between layers. Returns the last layer's
    outputs and the last states ``h_n``, ``c_n`` (None but for an LSTM)."""
    steps = x.shape[0]
    dirs = 2 if bidirectional else 1
    last_h, last_c = [], []
    for layer in range(len(weights) // dirs):
        if layer and dropout:
            x = F.dropout(x, dropout, training=True)
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_ih, w_hh, b_ih, b_hh = weights[k]
            gates = F.linear(x, w_ih, b_ih)          # every step's input part at once
            h, c = h0[k], (None if c0 is None else c0[k])
            seq = []
            for t in (range(steps - 1, -1, -1) if d else range(steps)):
                h, c = _step(mode, gates[t], h, c, w_hh, b_hh)
                seq.append(h)
            if d:
                seq.reverse()
            outs.append(_stack(seq))
            last_h.append(h)
            last_c.append(c)
        x = outs[0] if dirs == 1 else _cat(outs, 2)
    return x, _stack(last_h), (_stack(last_c) if mode == "LSTM" else None)


class RNNCellBase(Module):
    """The parameters of a recurrent cell, PyTorch's signature: ``weight_ih``
    (num_chunks * hidden_size, input_size), ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
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

    def forward(self, input, hx=None):
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
        n = input.shape[0]
        if hx is None:
            h = zeros([n, self.hidden_size], dtype=input.dtype)
            c = h if self.mode == "LSTM" else None
        elif self.mode == "LSTM":
            h, c = hx
            if unbatched:
                h, c = h.unsqueeze(0), c.unsqueeze(0)
        else:
            h, c = (hx.unsqueeze(0) if unbatched else hx), None
        gi = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _step(self.mode, gi, h, c, self.weight_hh, self.bias_hh)
        if unbatched:
            h, c = h.squeeze(0), (None if c is None else c.squeeze(0))
        return (h, c) if self.mode == "LSTM" else h


class RNNCell(_Cell):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, device, dtype,
                         mode="RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        self.nonlinearity = nonlinearity


class LSTMCell(_Cell):
    """One LSTM step; gates in PyTorch's order input, forget, cell, output."""

    mode = "LSTM"


class GRUCell(_Cell):
    """One GRU step; gates in PyTorch's order reset, update, new."""

    mode = "GRU"


class RNNBase(Module):
    """A stack of recurrent layers, PyTorch's signature: ``mode`` is 'RNN_TANH', 'RNN_RELU',
    'LSTM' or 'GRU'; parameters ``weight_ih_l{k}[_reverse]``, ... in PyTorch's order."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if proj_size:
            raise ValueError("proj_size > 0 (LSTM projections) is not available; use a Linear "
                             "layer on the output")
        self.mode = mode
        if not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1]")
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional = bidirectional
        dirs = 2 if bidirectional else 1
        g = _GATES[self.mode] * hidden_size
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * dirs
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                setattr(self, "weight_ih" + sfx, Parameter(empty([g, width], dtype=dtype)))
                setattr(self, "weight_hh" + sfx, Parameter(empty([g, hidden_size], dtype=dtype)))
                if bias:
                    setattr(self, "bias_ih" + sfx, Parameter(empty([g], dtype=dtype)))
                    setattr(self, "bias_hh" + sfx, Parameter(empty([g], dtype=dtype)))
        self.reset_parameters()
        if device is not None:
            self.to(device)

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def _weights(self, layer, d):
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        return (getattr(self, "weight_ih" + sfx), getattr(self, "weight_hh" + sfx),
                getattr(self, "bias_ih" + sfx, None), getattr(self, "bias_hh" + sfx, None))

    def forward(self, input, hx=None):
        unbatched = input.ndim == 2
        if unbatched:
            input = input.unsqueeze(1)
            hx = None if hx is None else (
                tuple(t.unsqueeze(1) for t in hx) if self.mode == "LSTM" else hx.unsqueeze(1))
        elif self.batch_first:
            input = input.swapaxes(0, 1)
        n = input.shape[1]
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            h0 = zeros([self.num_layers * dirs, n, self.hidden_size], dtype=input.dtype)
            c0 = h0 if self.mode == "LSTM" else None
        elif self.mode == "LSTM":
            h0, c0 = hx
        else:
            h0, c0 = hx, None
        weights = [self._weights(layer, d) for layer in range(self.num_layers)
                   for d in range(dirs)]
        x, h_n, c_n = run_layers(self.mode, input, h0, c0, weights, self.bidirectional,
                                 self.dropout if self.training else 0.0)
        out = x
        if unbatched:
            out, h_n = out.squeeze(1), h_n.squeeze(1)
        elif self.batch_first:
            out = out.swapaxes(0, 1)
        if self.mode == "LSTM":
            return out, (h_n, c_n.squeeze(1) if unbatched else c_n)
        return out, h_n

    def extra_repr(self):
        # PyTorch's text: the sizes, then each setting not at its default
        s = f"{self.input_size}, {self.hidden_size}"
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


def _stack(ts):
    return stack(ts, 0)


def _cat(ts, axis):
    return cat(ts, axis)


class RNN(_RNNBase):
    """An Elman RNN, ``tanh`` or ``relu`` (``nonlinearity=``)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'")
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype,
                         mode="RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``."""

    mode = "LSTM"


class GRU(_RNNBase):
    """Gated recurrent unit."""

    mode = "GRU"
