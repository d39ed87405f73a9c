"""``torch.nn.modules.utils``: a size given as an int or a tuple, and a state dict's key prefix.

    >>> from mutograd.compat.torch.nn.modules.utils import _pair, _triple
    >>> _pair(3), _triple((1, 2, 3))
    ((3, 3), (1, 2, 3))
"""
import collections.abc
import itertools


def _ntuple(n, name="parse"):
    """A function giving ``x`` as an ``n``-tuple: an iterable as a tuple, else ``(x,) * n``."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(itertools.repeat(x, n))
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` (and its ``_metadata``) in place, as
    a model saved inside ``DataParallel`` (``module.``) loads into the bare model.

        >>> sd = {"module.w": 1, "b": 2}
        >>> consume_prefix_in_state_dict_if_present(sd, "module.")
        >>> sd
        {'b': 2, 'w': 1}
    """
    for key in sorted(k for k in state_dict if k.startswith(prefix)):
        state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata):
            if key == prefix.rstrip("."):
                metadata[""] = metadata.pop(key)
            elif key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
