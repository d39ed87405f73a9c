"""Sequences of different lengths for the recurrent layers (``torch.nn.utils.rnn``): a
:class:`PackedSequence` holds the steps of a batch of sequences, longest first, without padding;
``RNN``, ``LSTM`` and ``GRU`` take one and return one. Made from a padded batch with
:func:`pack_padded_sequence`, turned back with :func:`pad_packed_sequence`.

    >>> import mutograd as mg
    >>> from mutograd.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    >>> packed = pack_padded_sequence(mg.ones([3, 2, 4]), [3, 1])
    >>> packed.data.shape, packed.batch_sizes.tolist()
    ([4, 4], [2, 1, 1])
    >>> padded, lengths = pad_packed_sequence(packed)
    >>> padded.shape, lengths.tolist()
    ([3, 2, 4], [3, 1])
"""
from collections import namedtuple

import numpy as np

from ...errors import ArgumentError
from ...ops.creation import full, tensor
from ...ops.indexing import index_select
from ...ops.shaping import cat, stack

_FIELDS = ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]


class PackedSequence(namedtuple("PackedSequence", _FIELDS)):
    """``data`` (total steps, *features): step 0 of every sequence, then step 1 of those that
    have one, ...; ``batch_sizes`` (int64) how many sequences each step has (non-increasing);
    ``sorted_indices`` the batch order by decreasing length (None: the batch was already in
    it) and ``unsorted_indices`` its inverse."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequences with ``data`` converted as ``Tensor.to`` (the indices moved)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, *(
            None if i is None else i.to(device=data.device)
            for i in (self.sorted_indices, self.unsorted_indices)))

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _invert(permutation):
    out = np.empty(len(permutation), np.int64)
    out[np.asarray(permutation.tolist(), np.int64)] = np.arange(len(permutation))
    return tensor(out)


def _lengths(lengths):
    if hasattr(lengths, "tolist"):
        lengths = lengths.tolist()
    return np.asarray(lengths, np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack ``input`` (steps, batch, *features), or (batch, steps, ...) with ``batch_first``,
    whose sequence ``b`` has ``lengths[b]`` steps. With ``enforce_sorted`` the lengths must be
    non-increasing; otherwise the batch is sorted here and ``sorted_indices`` records it.

        >>> import mutograd as mg
        >>> pack_padded_sequence(mg.ones([3, 2, 1]), [1, 3], enforce_sorted=False
        ...                      ).sorted_indices.tolist()
        [1, 0]
    """
    n = _lengths(lengths)
    batch_dim = 0 if batch_first else 1
    if len(n) != input.shape[batch_dim]:
        raise ArgumentError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                            f"{len(n)} (batch_size={input.shape[batch_dim]})")
    if len(n) and n.min() <= 0:
        raise ArgumentError("Length of all samples has to be greater than 0, but found an "
                            "element in 'lengths' that is <= 0")
    sorted_indices = None
    if enforce_sorted:
        if np.any(np.diff(n) > 0):
            raise ArgumentError("`lengths` array must be sorted in decreasing order when "
                                "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                                "to pack_padded_sequence and/or pack_sequence to sidestep this "
                                "requirement if you do not need ONNX exportability.")
    else:
        order = np.argsort(-n, kind="stable")
        n = n[order]
        sorted_indices = tensor(order.astype(np.int64))
        input = index_select(input, batch_dim, sorted_indices)
    if batch_first:
        input = input.swapaxes(0, 1)
    if len(n) and n[0] > input.shape[0]:
        raise ArgumentError(f"Expected the longest sequence ({n[0]} steps) to fit the input's "
                            f"{input.shape[0]} steps")
    sizes = [int((n > t).sum()) for t in range(int(n[0]) if len(n) else 0)]
    data = cat([input[t, :bs] for t, bs in enumerate(sizes)], 0)
    return PackedSequence(data, tensor(np.asarray(sizes, np.int64)), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch of a :class:`PackedSequence` and each sequence's length, in the order
    the batch had before packing: ``(padded, lengths)``, padded (steps, batch, *features) (or
    batch first), ``steps`` the longest length or ``total_length``."""
    data, batch_sizes, _, unsorted_indices = sequence
    sizes = [int(b) for b in batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ArgumentError(f"Expected total_length to be at least the length of the "
                                f"longest sequence in input, but got total_length="
                                f"{total_length} and max sequence length being {steps}")
        steps = total_length
    n, feature = (sizes[0] if sizes else 0), list(data.shape[1:])
    rows, start = [], 0
    for bs in sizes:
        rows.append(_padded(data[start:start + bs], n, padding_value))
        start += bs
    rows += [_padded(data[:0], n, padding_value)] * (steps - len(sizes))
    padded = stack(rows, 0) if rows else full([0, n] + feature, padding_value, dtype=data.dtype)
    lengths = np.asarray([sum(bs > b for bs in sizes) for b in range(n)], np.int64)
    if unsorted_indices is not None:
        padded = index_select(padded, 1, unsorted_indices)
        lengths = lengths[np.asarray(unsorted_indices.tolist(), np.int64)]
    return (padded.swapaxes(0, 1) if batch_first else padded), tensor(lengths)


def _padded(rows, n, value):
    """``rows`` (k, *features) with ``n - k`` rows of ``value`` after them."""
    if rows.shape[0] == n:
        return rows
    return cat([rows, full([n - rows.shape[0]] + list(rows.shape[1:]), value,
                           dtype=rows.dtype)], 0)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (length_i, *features) into (longest, batch, *features) (or
    batch first), padded with ``padding_value`` on ``padding_side`` ('right' or 'left').

        >>> import mutograd as mg
        >>> pad_sequence([mg.ones([2]), mg.ones([1])], batch_first=True).tolist()
        [[1.0, 1.0], [1.0, 0.0]]
    """
    if padding_side not in ("left", "right"):
        raise ArgumentError(f"Expected padding_side to be one of left or right, but got "
                            f"{padding_side}.")
    sequences = list(sequences)
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        pad = full([longest - s.shape[0]] + list(s.shape[1:]), padding_value, dtype=s.dtype)
        padded.append(cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Pack tensors of shape (length_i, *features) (longest first unless
    ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The tensors a padded batch was made of: sequence ``b`` cut to ``lengths[b]`` steps."""
    if not batch_first:
        padded_sequences = padded_sequences.swapaxes(0, 1)
    return [padded_sequences[b, :int(n)] for b, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences):
    """The tensors a :class:`PackedSequence` was made of, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpad_sequence", "unpack_sequence"]
