"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict``, the deprecated ``Container`` and ``DataParallel`` (one device: the module
itself).

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> net = nn.Sequential(nn.Linear(3, 4), nn.ModuleList([nn.ReLU()])[0])
    >>> net(mg.randn([2, 3])).shape
    [2, 4]
"""
import warnings
from collections import OrderedDict

from ..module import Module, Parameter


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
        # PyTorch's text: the tensor type's name, each line indented by two more spaces
        return "\n".join(f"  ({k}): Parameter containing: [{_type_name(v)} of size "
                         f"{_size_text(v)}]" for k, v in self._parameters.items())


def _size_text(t):
    return "x".join(str(n) for n in t.shape)


def _type_name(t):
    """``torch.FloatTensor`` in the torch dialect (its ``Tensor.type()``), else the dtype."""
    return t.type() if callable(getattr(t, "type", None)) else str(t.dtype)


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


# ---- containers ----------------------------------------------------------------------------
class Sequential(Module):
    """Modules called one after the other; ``Sequential(a, b)`` or ``Sequential(OrderedDict)``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Sequential(OrderedDict(list(self._modules.items())[i]))
        return list(self._modules.values())[i]

    def __setitem__(self, i, m):
        """Replace the ``i``-th module; it keeps its place (and its name)."""
        setattr(self, list(self._modules)[i], m)

    def __delitem__(self, i):
        """Remove the ``i``-th module(s); the rest are numbered again from 0, as PyTorch."""
        keys = list(self._modules)
        for k in (keys[i] if isinstance(i, slice) else [keys[i]]):
            del self._modules[k]
        items = list(self._modules.values())
        self._modules.clear()
        for n, m in enumerate(items):
            self._modules[str(n)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, m):
        self.add_module(str(len(self)), m)
        return self


class _List(Module):
    """A list whose items are registered in ``table`` under ``'0'``, ``'1'``, ..."""

    table = None   # and ``_put(key, item)``, which registers an item: set by each subclass

    def __init__(self, items=None):
        super().__init__()
        for m in items or ():
            self.append(m)

    def append(self, item):
        self._put(str(len(self)), item)
        return self

    def extend(self, items):
        for m in items:
            self.append(m)
        return self

    def _items(self):
        return getattr(self, self.table)

    def __getitem__(self, i):
        vals = list(self._items().values())
        return type(self)(vals[i]) if isinstance(i, slice) else vals[i]

    def __setitem__(self, i, item):
        self._put(str(range(len(self))[i]), item)

    def __len__(self):
        return len(self._items())

    def __iter__(self):
        return iter(self._items().values())


class ModuleList(_List):
    """A list of sub-modules, registered under ``'0'``, ``'1'``, ..."""

    table = "_modules"

    def __init__(self, modules=None):
        super().__init__(modules)

    def _put(self, key, m):
        self.add_module(key, m)

    def _child_lines(self):
        # runs of equal items print once, as PyTorch's ``(0-2): 3 x ReLU()``
        lines, texts = [], [repr(m).replace("\n", "\n  ") for m in self._modules.values()]
        start = 0
        for i in range(1, len(texts) + 1):
            if i == len(texts) or texts[i] != texts[start]:
                n = i - start
                lines.append(f"({start}): {texts[start]}" if n == 1 else
                             f"({start}-{i - 1}): {n} x {texts[start]}")
                start = i
        return lines


class ModuleDict(Module):
    """A dict of sub-modules by name."""

    def __init__(self, modules=None):
        super().__init__()
        for k, m in (modules or {}).items():
            self.add_module(k, m)

    def __getitem__(self, k):
        return self._modules[k]

    def __setitem__(self, k, m):
        self.add_module(k, m)

    def __delitem__(self, k):
        del self._modules[k]

    def __contains__(self, k):
        return k in self._modules

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class ParameterList(_List):
    """A list of Parameters, registered under ``'0'``, ``'1'``, ... (tensors become
    Parameters)."""

    table = "_parameters"

    def __init__(self, values=None):
        super().__init__(values)

    def extra_repr(self):
        return "\n".join(f"  ({k}): Parameter containing: [{p.dtype} of size {_size_text(p)}"
                         f"{'' if p.device.type == 'cpu' else f' ({p.device})'}]"
                         for k, p in self._parameters.items())

    def _put(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))
