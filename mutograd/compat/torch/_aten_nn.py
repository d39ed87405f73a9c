"""The ``torch.*`` spellings of neural-network ops, with ATen's signatures where they differ from
``torch.nn.functional``'s (``embedding(weight, indices)``, ``batch_norm`` with the weights
first, an integer ``reduction``, ``max_pool1d_with_indices`` and ``adaptive_max_pool1d`` giving
the indices too), and the functional recurrent layers ``lstm``, ``gru``, ``rnn_tanh``,
``rnn_relu`` and their cells. Each calls the one implementation in ``mutograd.nn``.

    >>> import mutograd.compat.torch as torch
    >>> x = torch.ones(1, 2, 4)
    >>> torch.constant_pad_nd(x, (1, 1), 0.5).shape
    torch.Size([1, 2, 6])
    >>> out, h = torch.rnn_tanh(torch.zeros(3, 1, 2), torch.zeros(1, 1, 2),
    ...                         [torch.zeros(2, 2), torch.zeros(2, 2)], False, 1, 0.0, False,
    ...                         False, False)
    >>> out.shape, h.shape
    (torch.Size([3, 1, 2]), torch.Size([1, 1, 2]))
"""
import numpy as np

import mutograd as _mg

from ...nn import functional as _F
from ...nn.modules.recurrent import run_cell, run_layers

_REDUCTION = {0: "none", 1: "mean", 2: "sum"}
_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}

conv3d, conv_transpose1d, conv_transpose3d = _F.conv3d, _F.conv_transpose1d, _F.conv_transpose3d
avg_pool1d, adaptive_avg_pool1d = _F.avg_pool1d, _F.adaptive_avg_pool1d


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``nn.functional.batch_norm`` with ATen's argument order (weights first)."""
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``nn.functional.instance_norm`` with ATen's argument order (weights first)."""
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                            momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """The rows of ``weight`` at ``indices`` (ATen's order: the table first; ``padding_idx``
    -1 is none)."""
    return _F.embedding(indices, weight, None if padding_idx < 0 else padding_idx,
                        scale_grad_by_freq=scale_grad_by_freq)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """ATen's ``embedding_bag``: ``(output, offset2bag, bag_size, max_indices)``, ``mode`` 0 sum,
    1 mean, 2 max. The output is ``nn.functional.embedding_bag``'s; ``offset2bag`` is the bag of
    each index and ``bag_size`` the length of each bag (``max_indices`` repeats it unless
    ``mode`` is max, as in PyTorch, where it is the row each maximum came from)."""
    out = _F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                           mode=_BAG_MODES[mode], per_sample_weights=per_sample_weights,
                           include_last_offset=include_last_offset, padding_idx=padding_idx)
    starts = offsets.detach().numpy().astype(np.int64)
    n = indices.numel()
    bounds = starts if include_last_offset else np.append(starts, n)
    sizes = np.diff(bounds)
    offset2bag = np.repeat(np.arange(len(sizes)), sizes)
    if mode == 2:
        rows = indices.detach().numpy().reshape(-1)
        table = weight.detach().numpy()
        max_indices = np.stack([rows[b:e][table[rows[b:e]].argmax(0)] if e > b else
                                np.zeros(table.shape[1], np.int64)
                                for b, e in zip(bounds[:-1], bounds[1:])])
    else:
        max_indices = sizes
    return (out, _mg.tensor(offset2bag), _mg.tensor(sizes), _mg.tensor(max_indices))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``nn.functional.binary_cross_entropy_with_logits`` with ATen's integer ``reduction``."""
    return _F.binary_cross_entropy_with_logits(input, target, weight,
                                               _REDUCTION.get(reduction, reduction), pos_weight)


def constant_pad_nd(input, pad, value=0):
    """Pad with ``value``: ``pad`` lists (before, after) for the last dimensions, last first."""
    return _F.pad(input, tuple(pad), "constant", value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """A convolution over 1, 2 or 3 dimensions (from ``weight``'s), or its transpose."""
    nd = weight.ndim - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"convolution: weight must be 3-, 4- or 5-D, got {weight.ndim}-D")
    if transposed:
        f = (_F.conv_transpose1d, _F.conv_transpose2d, _F.conv_transpose3d)[nd - 1]
        return f(input, weight, bias, tuple(stride), tuple(padding), tuple(output_padding),
                 groups, tuple(dilation))
    f = (_F.conv1d, _F.conv2d, _F.conv3d)[nd - 1]
    return f(input, weight, bias, tuple(stride), tuple(padding), tuple(dilation), groups)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution of a (time, batch, channels) ``input`` with a (kernel, in, out)
    ``weight``, ``pad`` steps of zeros at both ends of time."""
    out = _F.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def _pool_stride(stride):
    return None if stride is None or (not isinstance(stride, int) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling (ATen's: an empty ``stride`` means the kernel's)."""
    return _F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """1-D max pooling and the flat positions of the maxima."""
    return _F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode,
                         return_indices=True)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling (ATen's: an empty ``stride`` means the kernel's)."""
    return _F.max_pool3d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """1-D adaptive max pooling: ``(values, indices)``, as ATen gives both."""
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    """``nn.functional.ctc_loss`` with ATen's integer ``reduction``."""
    return _F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                       _REDUCTION.get(reduction, reduction), zero_infinity)


# ---- functional recurrent layers (ATen's signatures) -----------------------------------------
def _layers(mode, input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional,
            batch_first):
    # ATen's list per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr], an LSTM having
    # projections when its h is narrower than its c
    projected = c0 is not None and h0.shape[-1] != c0.shape[-1]
    per = (4 if has_biases else 2) + projected
    dirs = 2 if bidirectional else 1
    if len(params) != per * num_layers * dirs:
        raise RuntimeError(f"{mode.lower()}: expected {per * num_layers * dirs} parameters "
                           f"({per} per layer and direction), got {len(params)}")
    weights = []
    for i in range(0, len(params), per):
        w_ih, w_hh, *rest = params[i:i + per]
        biases = tuple(rest[:2]) if has_biases else (None, None)
        weights.append((w_ih, w_hh) + biases + tuple(rest[2 if has_biases else 0:]))
    return run_layers(mode, input, h0, c0, weights, bidirectional, dropout if train else 0.0,
                      batch_first)


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """A stacked LSTM over ``input``: ``hx`` is ``(h0, c0)``, ``params`` each layer and
    direction's ``w_ih, w_hh[, b_ih, b_hh]``; returns ``(output, h_n, c_n)``."""
    return _layers("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                   bidirectional, batch_first)


def _single_state(mode):
    def layer(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
              batch_first):
        return _layers(mode, input, hx, None, params, has_biases, num_layers, dropout, train,
                       bidirectional, batch_first)[:2]
    layer.__name__ = mode.lower()
    layer.__doc__ = (f"A stacked {mode} layer over ``input`` from the first state ``hx`` and "
                     f"``params`` (as :func:`lstm`); returns ``(output, h_n)``.")
    return layer


gru, rnn_tanh, rnn_relu = (_single_state(m) for m in ("GRU", "RNN_TANH", "RNN_RELU"))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``(h', c')`` from ``hx = (h, c)``."""
    return run_cell("LSTM", input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``h'``."""
    return run_cell("GRU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step, ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    return run_cell("RNN_TANH", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ``relu``."""
    return run_cell("RNN_RELU", input, hx, None, w_ih, w_hh, b_ih, b_hh)[0]


NAMES = ["conv3d", "conv_transpose1d", "conv_transpose3d", "avg_pool1d", "adaptive_avg_pool1d",
         "batch_norm", "instance_norm", "embedding", "embedding_bag",
         "binary_cross_entropy_with_logits", "constant_pad_nd", "convolution", "conv_tbc",
         "max_pool1d", "max_pool1d_with_indices", "max_pool3d", "adaptive_max_pool1d", "ctc_loss",
         "lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell",
         "rnn_relu_cell"]
