"""Tensor methods that make a tensor like ``self`` or shaped like another (PyTorch's names).

``new_zeros`` & co. take ``self``'s dtype and place unless told otherwise; ``view_as``,
``reshape_as`` and ``type_as`` take the other tensor's shape or dtype; the ``unsafe_*`` splits
are PyTorch's names for pieces that may be written in place, which every split here allows
(design.md rule 6).

    >>> import mutograd as mg
    >>> x = mg.ones([2, 3], dtype="float64")
    >>> x.new_zeros(4).dtype, x.view_as(mg.zeros([3, 2])).shape, x.nelement()
    (float64, [3, 2], 6)
"""
from .ops import creation
from .ops import views as _views
from .tensor import Tensor, of_type_of


def _new(make):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
        return of_type_of(make(*size, dtype=dtype or self.dtype, device=device or self.place,
                               requires_grad=requires_grad), self)
    method.__name__ = "new_" + make.__name__
    method.__doc__ = (f"A tensor of ``size`` made by ``{make.__name__}``, with ``self``'s dtype "
                      f"and place unless ``dtype``/``device`` are given.")
    return method


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value``, with ``self``'s dtype and place."""
    return of_type_of(creation.full(size, fill_value, dtype=dtype or self.dtype,
                                    device=device or self.place, requires_grad=requires_grad),
                      self)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """A copy of ``data`` (never sharing memory), with ``self``'s dtype and place by default."""
    if isinstance(data, Tensor):
        data = data.detach().numpy()
    return of_type_of(creation.tensor(data, dtype=dtype or self.dtype,
                                      device=device or self.place, requires_grad=requires_grad),
                      self)


def view_as(self, other):
    """``self.view(other.shape)``: a view with ``other``'s shape."""
    return self.view(tuple(other.shape))


def reshape_as(self, other):
    """``self.reshape(other.shape)``."""
    return self.reshape(tuple(other.shape))


def type_as(self, other):
    """``self`` cast to ``other``'s dtype (``self`` itself when they agree)."""
    return self.type(other.dtype)


def split_with_sizes(self, split_sizes, dim=0):
    """Views of consecutive pieces of the listed sizes along ``dim``."""
    return _views.split(self, list(split_sizes), dim)


def unsafe_split(self, split_size, dim=0):
    """:meth:`split` (its pieces can be written in place here anyway)."""
    return _views.split(self, split_size, dim)


def unsafe_chunk(self, chunks, dim=0):
    """:meth:`chunk` (its pieces can be written in place here anyway)."""
    return _views.chunk(self, chunks, dim)


# name -> method, attached by the op generator (mutograd/ops/__init__.py)
TENSOR_METHODS = {
    "new_zeros": _new(creation.zeros),
    "new_ones": _new(creation.ones),
    "new_empty": _new(creation.empty),
    "new_full": new_full,
    "new_tensor": new_tensor,
    "view_as": view_as,
    "reshape_as": reshape_as,
    "type_as": type_as,
    "nelement": Tensor.numel,
    "split_with_sizes": split_with_sizes,
    "unsafe_split": unsafe_split,
    "unsafe_split_with_sizes": split_with_sizes,
    "unsafe_chunk": unsafe_chunk,
    "is_inference": lambda self: self._counter.inference,   # Note [Inference tensors]
}
