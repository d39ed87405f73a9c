"""The dialect: which framework's conventions the few clashing Tensor methods follow.

Tensor is one class for every namespace, and nearly all of its methods mean the same in PyTorch
and Paddle. A handful do not; only those consult the dialect:

- ``x.split(n)``: pieces of size ``n`` (torch, and the main namespace); ``n`` equal pieces, as a
  list (paddle).
- ``x.max(dim)`` / ``x.min(dim)``: ``(values, indices)`` (torch, main); the values (paddle).
- ``x.uniform_()``: samples in [0, 1) (torch, main); in [-1, 1) (paddle).
- ``x.backward()``: needs a scalar output (torch); ones for any output shape (paddle, main).
- ``repr(x)``: ``tensor([...])`` (torch); ``Tensor(shape=..., place=...)`` (paddle, main).
- ``repr(x.shape)`` / ``str(x.dtype)``: ``torch.Size([2])``, ``torch.float32`` (torch);
  ``[2]``, ``paddle.float32`` (paddle); ``[2]``, ``float32`` (main).
- ``x.type()``: ``'torch.FloatTensor'`` (torch); ``'mutograd.float32'`` (paddle, main).

Importing ``mutograd.compat.torch`` or ``mutograd.compat.paddle`` sets the dialect (the last
import wins); :func:`set_dialect` and the :func:`dialect` context manager set it explicitly.
The setting is process-wide, like the framework a script was written for.
"""
import contextlib

from .. import dtypes, printing
from ..errors import BackwardError
from ..ops import views
from ..tensor import Size, Tensor

DIALECTS = ("torch", "paddle")
_current = None


def get_dialect():
    """The current dialect: ``'torch'``, ``'paddle'`` or ``None`` (the main namespace's rules)."""
    return _current


def set_dialect(name):
    """Make the clashing Tensor methods follow ``name`` (``'torch'``, ``'paddle'`` or ``None``).

    Example::

        >>> import mutograd as mg, mutograd.compat as compat
        >>> compat.set_dialect("paddle")
        >>> len(mg.arange(6).split(3))           # Paddle: three pieces
        3
        >>> compat.set_dialect(None)
    """
    global _current
    if name is not None and name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r}; expected one of {DIALECTS} or None")
    _current = name
    printing.set_printoptions(style="torch" if name == "torch" else "paddle")


@contextlib.contextmanager
def dialect(name):
    """Use dialect ``name`` inside a ``with`` block, then restore the previous one."""
    prev = _current
    set_dialect(name)
    try:
        yield
    finally:
        set_dialect(prev)


# ---- the clashing methods -------------------------------------------------------------------
# Each keeps the main namespace's implementation and departs from it only for its dialect.

_split, _max, _min = Tensor.split, Tensor.max, Tensor.min
_uniform_, _backward, _type = Tensor.uniform_, Tensor.backward, Tensor.type
_TORCH_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
                "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
                "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor"}
_BY_TORCH_TYPE = {v: k for k, v in _TORCH_TYPES.items()}


def split(self, split_size_or_sections, axis=0, dim=None, name=None):
    """Paddle: an int is the number of equal pieces (a list); otherwise the size of each piece."""
    if _current == "paddle":
        return views.split_sections(self, split_size_or_sections, axis if dim is None else dim)
    return _split(self, split_size_or_sections, axis, dim)


def _paddle_extreme(reduce, main):
    def method(self, axis=None, keepdim=False, name=None, dim=None, other=None, keepdims=None):
        keepdim = keepdim if keepdims is None else keepdims
        if _current == "paddle" and other is None and not isinstance(axis, Tensor):
            return reduce(self, axis if dim is None else dim, keepdim)
        return main(self, axis, keepdim, dim=dim, other=other)
    method.__name__ = main.__name__
    method.__doc__ = (f"``{main.__name__}``; with an int axis, ``(values, indices)`` (torch) or "
                      f"the values (paddle).")
    return method


def uniform_(self, *args, **kw):
    """Fill in place from a uniform distribution: [0, 1) by default, [-1, 1) in Paddle."""
    if _current == "paddle":
        low, high = (list(args) + [None, None])[:2]
        low = kw.pop("min", -1.0 if low is None else low)
        high = kw.pop("max", 1.0 if high is None else high)
        kw.pop("seed", None)
        kw.pop("name", None)
        return _uniform_(self, low, high, **kw)
    return _uniform_(self, *args, **kw)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None,
             grad_tensor=None):
    """Accumulate gradients into the leaves. A non-scalar output without ``gradient`` gets ones,
    except in the torch dialect, which requires a scalar output (as PyTorch)."""
    if gradient is None:
        gradient = grad_tensor          # Paddle's name
    if _current == "torch" and gradient is None and self._data.size != 1:
        raise BackwardError(f"grad can be implicitly created only for scalar outputs; got "
                            f"shape {list(self.shape)}")
    return _backward(self, gradient, retain_graph, create_graph, inputs)


def type_(self, dtype=None, non_blocking=False):
    """PyTorch: ``x.type()`` is ``'torch.FloatTensor'``; ``x.type(torch.DoubleTensor)`` casts."""
    if _current != "torch":
        return _type(self, dtype, non_blocking)
    if dtype is None:
        return "torch." + _TORCH_TYPES[self.dtype.name]
    name = getattr(dtype, "__name__", dtype) if not isinstance(dtype, dtypes.DType) else dtype
    if isinstance(name, str) and name.rsplit(".", 1)[-1] in _BY_TORCH_TYPE:
        dtype = _BY_TORCH_TYPE[name.rsplit(".", 1)[-1]]
    return _type(self, dtype, non_blocking)


def _size_repr(self):
    dims = ", ".join(map(str, self))
    return f"torch.Size([{dims}])" if _current == "torch" else f"[{dims}]"


def _dtype_repr(self):
    return f"{_current}.{self.name}" if _current is not None else self.name


Tensor.split = split
Tensor.max = _paddle_extreme(lambda x, a, k: x.amax(a, k), _max)
Tensor.min = _paddle_extreme(lambda x, a, k: x.amin(a, k), _min)
Tensor.uniform_ = uniform_
Tensor.backward = backward
Tensor.type = type_
Size.__repr__ = _size_repr
dtypes.DType.__repr__ = _dtype_repr
