"""Containers and plumbing from ``torch.nn``: ParameterDict, Unflatten, Buffer, the deprecated
Container, DataParallel (one device: the module itself), NLLLoss2d and ``factory_kwargs``.

    >>> import mutograd as mg
    >>> m = mg.nn.Module()
    >>> m.scale = mg.nn.Buffer(mg.ones([2]))
    >>> list(m.state_dict())
    ['scale']
"""
import warnings

from ..tensor import Tensor, _alias
from .layers import NLLLoss
from .module import Module, Parameter

__all__ = ["Buffer", "Container", "DataParallel", "NLLLoss2d", "ParameterDict", "Unflatten",
           "factory_kwargs"]


class _BufferMeta(type):
    # Buffer(t) is a plain Tensor marked as a buffer, so ``isinstance`` asks for the mark
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and getattr(obj, "_is_buffer", False)


class Buffer(metaclass=_BufferMeta):
    """A tensor that a module registers as a buffer when it is assigned as an attribute
    (``persistent=False`` keeps it out of ``state_dict``); shares ``data``'s storage."""

    def __new__(cls, data=None, *, persistent=True):
        from ..ops.creation import empty
        data = empty([0]) if data is None else data
        t = _alias(data, data._data)
        t.requires_grad = data.requires_grad
        t.persistent, t._is_buffer = persistent, True
        return t


class ParameterDict(Module):
    """A dict of Parameters by name (tensors become Parameters), registered in insertion
    order.

        >>> import mutograd as mg
        >>> d = ParameterDict({"a": mg.ones([2])})
        >>> d["b"] = mg.zeros([3])
        >>> [(k, v.shape) for k, v in d.items()]
        [('a', [2]), ('b', [3])]
    """

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        if value is not None and not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(key, value)

    def __delitem__(self, key):
        del self._parameters[key]

    def __contains__(self, key):
        return key in self._parameters

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __reversed__(self):
        return reversed(list(self._parameters))

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def keys(self):
        return self._parameters.keys()

    def values(self):
        return self._parameters.values()

    def items(self):
        return self._parameters.items()

    def get(self, key, default=None):
        return self._parameters.get(key, default)

    def pop(self, key):
        return self._parameters.pop(key)

    def popitem(self):
        return self._parameters.popitem()

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        self._parameters.clear()

    def copy(self):
        return ParameterDict(dict(self._parameters))

    def fromkeys(self, keys, default=None):
        return ParameterDict({k: default for k in keys})

    def update(self, parameters):
        """Add ``parameters``: (key, value) pairs, an OrderedDict or a ParameterDict in their
        order; another mapping (a plain dict) sorted by key, as PyTorch does."""
        import collections
        if isinstance(parameters, (collections.OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif hasattr(parameters, "items"):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError(f"ParameterDict update sequence element has length "
                                 f"{len(pair)}; 2 is required")
            self[pair[0]] = pair[1]

    def extra_repr(self):
        return "\n".join(f"({k}): Parameter containing: [{v.dtype} of size {v.shape}]"
                         for k, v in self._parameters.items())


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (a view when the strides allow)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(dim, int):
            raise TypeError(f"invalid type for dim: {type(dim).__name__} (int expected; named "
                            f"dimensions are not available)")
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, x):
        d = self.dim % x.ndim
        return x.reshape(*x.shape[:d], *self.unflattened_size, *x.shape[d + 1:])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Container(Module):
    """The deprecated container: keyword arguments become sub-modules (use Module)."""

    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality is now "
                      "implemented in nn.Module. Subclass that instead.", stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)


class DataParallel(Module):
    """Runs ``module`` on the one device there is (PyTorch's signature; ``device_ids`` and
    ``output_device`` are accepted); the wrapped module is ``.module``, so the state dict's keys
    start with ``module.`` as PyTorch's."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module, self.dim = module, dim
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class NLLLoss2d(NLLLoss):
    """The old name of NLLLoss for (N, C, H, W) log-probabilities."""


def factory_kwargs(kwargs):
    """The ``device``, ``dtype`` and ``memory_format`` entries of ``kwargs`` (merged with its
    ``factory_kwargs`` entry), as ``torch.nn.factory_kwargs``; any other key is an error.

        >>> factory_kwargs({"dtype": "float64", "factory_kwargs": {"device": "cpu"}})
        {'device': 'cpu', 'dtype': 'float64'}
    """
    if kwargs is None:
        return {}
    simple = ("device", "dtype", "memory_format")
    unexpected = set(kwargs) - set(simple) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for key in simple:
        if key in kwargs:
            if key in out:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            out[key] = kwargs[key]
    return out
