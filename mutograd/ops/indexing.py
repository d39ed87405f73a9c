"""``x[index]`` and ``x[index] = value``.

Basic indexes (ints, slices with steps, None, Ellipsis) give a view (op ``getitem``). Indexes with
integer arrays, tensors or boolean masks give a copy (op ``index``) whose gradient scatters with
accumulation of repeated indices. ``x[index] = value`` is an in-place op on ``x`` (op
``index_put``): a write that bumps the version, refused on a leaf that requires grad, and through a
view of a base it rewrites the base's history (Note [Writing through a view]).

The functions composed from them pick elements by flat or per-dimension indices (``take``,
``take_along_dim``), and the index helpers make such indices (``tril_indices``,
``triu_indices``, ``unravel_index``).

    >>> import mutograd as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x[1].tolist(), x[:, 0].tolist(), mg.take(x, mg.tensor([0, 3])).tolist()
    ([3.0, 4.0], [1.0, 3.0], [1.0, 4.0])
    >>> mg.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
"""
import numpy as np

from ..autograd.graph_arrays import graph_mode
from ..errors import ShapeError
from ..tensor import Tensor
from . import creation
from .registry import OPS, call, call_inplace, defop
from .views import whole_index


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    for i in items:
        if i is None or i is Ellipsis or isinstance(i, slice):
            continue
        if isinstance(i, (bool, np.bool_)):
            return False
        if isinstance(i, (int, np.integer)):
            continue
        if isinstance(i, Tensor) and i.ndim == 0 and i.dtype.np.kind in "iu":
            continue
        return False
    return True


def _plain(index, xp):
    """The index with tensors replaced by backend arrays (and 0-d int tensors by ints)."""
    if isinstance(index, tuple):
        return tuple(_plain(i, xp) for i in index)
    if isinstance(index, Tensor):
        if index.ndim == 0 and index._data.dtype.kind in "iu":
            return int(index._data)
        return index._data
    if isinstance(index, list):
        return xp.asarray([_plain(i, xp) if isinstance(i, Tensor) else i for i in index])
    if hasattr(index, "__array_interface__") and not isinstance(index, xp.ndarray):
        return xp.asarray(index)    # a NumPy index array for a device tensor goes to the device
    return index


def _index(xp, x, *, index):
    return x[index]


def _index_grad(g, x_shape, index, xp):
    z = xp.zeros(x_shape, g.dtype)
    xp.add.at(z, index, g)      # repeated indices accumulate
    return z


defop("index", _index, kind="other", inplace=False, grad=_index_grad, method=False)


def _index_put(xp, x, value, *, index, accumulate=False, out=None):
    if out is None:
        out = x.copy()
    lead = 0   # leading size-1 axes of the value broadcast away (NumPy's mask writes refuse them)
    while lead < getattr(value, "ndim", 0) and value.shape[lead] == 1:
        lead += 1
    if lead:
        value = value.reshape(value.shape[lead:])
    try:
        if accumulate:
            xp.add.at(out, index, value)
        else:
            out[index] = value
    except ValueError as e:     # NumPy checks the shapes before it writes anything
        shape = getattr(value, "shape", ())
        raise ShapeError(f"x[index] = value: a value of shape {list(shape)} cannot be written "
                         f"into the selected region of a tensor of shape {list(x.shape)} ({e})"
                         ) from None
    return out


def _value_grad(g, index, accumulate, xp):
    """The value's gradient: ``g`` at the written positions; where an integer index repeats,
    only the write that NumPy keeps (the last) gets it, unless the writes accumulate."""
    if whole_index(index, g.shape):   # a copy into all of x: the value's gradient is g, as
        return g                      # PyTorch's copy_ gives it (the engine sums it to shape)
    r = g[index]
    if _is_basic(index):   # under create_graph a copy, as PyTorch's CopySlices gives: the
        # value's gradient must not be a view of the others (the engine copies a plain view)
        return r.copy() if graph_mode(xp) else r
    if accumulate or not _repeats(xp, index, g.shape):
        return r
    from .scatter import _last_writes
    return r * _last_writes(xp, g.shape, index, r.shape)


def _repeats(xp, index, shape):
    items = index if isinstance(index, tuple) else (index,)
    return any(getattr(i, "dtype", None) is not None and i.dtype.kind in "iu" and i.size > 1
               for i in items)


defop("index_put", _index_put, kind="index", result="same", method=False,
      grad=(lambda g, index, accumulate, xp: _zero_region(g, index, xp) if not accumulate else g,
            _value_grad)).region = "index"   # it writes only x[index]


def _zero_region(g, index, xp):
    """``g`` with the written region zeroed. An index of full slices (``x[:]``, ``x[0:]``,
    ``x[...]``) gives plain zeros: PyTorch's indexing returns ``x`` itself for it and runs the
    write as a fill or copy of the whole tensor, whose gradient has no history under
    create_graph (a write through a view such as ``x[0]`` keeps the incoming history)."""
    if whole_index(index, g.shape):
        return xp.zeros_like(g)
    g = g.copy()
    g[index] = 0
    return g


def getitem(x, index):
    xp = x._place.xp
    if _is_basic(index):
        return call(OPS["getitem"], [x], {"index": _plain(index, xp)})
    return call(OPS["index"], [x], {"index": _plain(index, xp)})


def setitem(x, index, value):
    """``x[index] = value``: an in-place write into ``x`` (see the module docstring)."""
    call_inplace(OPS["index_put"], [x, value],
                 {"index": _plain(index, x._place.xp), "accumulate": False})


TENSOR_METHODS = {"__getitem__": getitem, "__setitem__": setitem}


def take(x, index):
    """Elements of ``x`` at ``index`` into its flattened form, in ``index``'s shape."""
    return x.reshape(-1)[index]


def take_along_dim(x, indices, dim=None):
    """``take_along_axis``; without ``dim``, over the flattened ``x``."""
    from .argument_orders import take_along_axis
    if dim is None:
        return take_along_axis(x.reshape(-1), indices.reshape(-1), 0)
    return take_along_axis(x, indices, dim)


# ---- index helpers -------------------------------------------------------------------------
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the lower triangle."""
    return creation.tensor(np.stack(np.tril_indices(row, offset, col)), dtype=dtype or "int64",
                           device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the upper triangle."""
    return creation.tensor(np.stack(np.triu_indices(row, offset, col)), dtype=dtype or "int64",
                           device=device)


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``, one tensor per dimension."""
    idx = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    return tuple(creation.tensor(a) for a in np.unravel_index(idx, tuple(shape)))


FUNCTIONS = {f.__name__: f for f in (take, take_along_dim, tril_indices,
                                     triu_indices, unravel_index)}
