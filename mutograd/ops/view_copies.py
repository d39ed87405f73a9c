"""The ``*_copy`` forms of the views (PyTorch's ``t_copy``, ``narrow_copy``, ...): each runs the
view and clones the result, so it owns new storage and its gradient is the view's.

    >>> import mutograd as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> y = mg.t_copy(x)
    >>> y.tolist(), y.data_ptr() == x.data_ptr()
    ([[1.0, 3.0], [2.0, 4.0]], False)
"""
from . import views
from .registry import OPS


def _copy_of(name, view):
    def fn(*args, **kw):
        r = view(*args, **kw)
        return tuple(t.clone() for t in r) if isinstance(r, (tuple, list)) else r.clone()
    fn.__name__ = name
    fn.__doc__ = f"A copy (new storage) of the view ``{name[:-5]}`` gives."
    return fn


_VIEWS = {
    "alias_copy": lambda x: x, "detach_copy": lambda x: x.detach(),
    "expand_copy": lambda x, size, *, implicit=False: x.expand(*size),
    "permute_copy": lambda x, dims: x.permute(*dims), "t_copy": lambda x: x.t(),
    "transpose_copy": lambda x, dim0, dim1: views.transpose(x, dim0, dim1),
    "unsqueeze_copy": lambda x, dim: x.unsqueeze(dim),
    "squeeze_copy": lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim),
    "view_copy": lambda x, *shape: x.view(*shape),
    "select_copy": lambda x, dim, index: x.select(dim, index),
    "slice_copy": lambda x, dim=0, start=None, end=None, step=1: x[
        (slice(None),) * (dim % x.ndim) + (slice(start, end, step),)],
    "split_copy": lambda x, split_size, dim=0: views.split(x, split_size, dim),
    "split_with_sizes_copy": lambda x, split_sizes, dim=0: views.split(x, list(split_sizes), dim),
    "unbind_copy": lambda x, dim=0: views.unbind(x, dim),
    "narrow_copy": lambda x, dim, start, length: x.narrow(dim, start, length),
    "diagonal_copy": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "view_as_real_copy": lambda x: OPS["view_as_real"].function(x),
    "view_as_complex_copy": lambda x: OPS["view_as_complex"].function(x),
    "as_strided_copy": lambda x, size, stride, storage_offset=0: x.as_strided(
        size, stride, storage_offset),
}
FUNCTIONS = {name: _copy_of(name, view) for name, view in _VIEWS.items()}
