"""``x[index]`` and ``x[index] = value``.

Basic indexes (ints, slices with steps, None, Ellipsis) give a view (op ``getitem``). Indexes with
integer arrays, tensors or boolean masks give a copy (op ``index``) whose gradient scatters with
accumulation of repeated indices. ``x[index] = value`` is an in-place op on ``x`` (op
``index_put``): a write that bumps the version, refused on a leaf that requires grad, and through a
view of a base it rewrites the base's history (Note [Writing through a view]).

The functions composed from them pick elements by flat or per-dimension indices (``take``,
``take_along_dim``), and the index helpers make such indices (``tril_indices``,
``triu_indices``, ``unravel_index``). ``index_put`` is ``x[indices] = value`` as a function.

The public ``gather`` and ``index_select`` (ops declared in shaping.py) take PyTorch's order,
``(x, dim, index)``; ``axis=`` is ``dim=`` by keyword. Paddle's ``gather(x, index, axis)`` and
``index_select(x, index, axis)`` are in ``mutograd.compat.paddle``: the main functions refuse an
index in second place with a TypeError naming both forms, and never reinterpret it.

    >>> import mutograd as mg
    >>> x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> x[1].tolist(), x[:, 0].tolist(), mg.take(x, mg.tensor([0, 3])).tolist()
    ([3.0, 4.0], [1.0, 3.0], [1.0, 4.0])
    >>> mg.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
"""
import numpy as np

from ..autograd.graph_arrays import graph_mode
from ..errors import GatherIndexError, IndexRangeError, ShapeError
from ..tensor import Tensor
from . import creation
from .axes import canon_dim, is_axis, lift_0d, paddle_order
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
    if dim is None:
        return take_along_axis(x.reshape(-1), indices.reshape(-1), 0)
    return take_along_axis(x, indices, dim)


# ---- gather, index_select, take_along_axis (ops gather and index_select, in shaping.py) -------
def _int_index(index, what):
    if not isinstance(index, Tensor):
        index = creation.tensor(index)
    if index._data.dtype.kind not in "iu":
        raise TypeError(f"{what}(): index must be an integer tensor, got {index.dtype}")
    return index


def _check_along(x, index, axis, what):
    if index.ndim != x.ndim:
        raise ShapeError(f"{what}(): index has {index.ndim} dimensions but the input has "
                         f"{x.ndim}; they must have the same number")
    a = canon_dim(axis, x.ndim, what)
    n = x.shape[a]
    data = index._data
    if data.size and (data.min() < -n or data.max() >= n):
        raise GatherIndexError(f"{what}(): index out of range for dimension {a} of size {n}")


# Paddle's forms of the calls that take (x, dim, index) here: the function and the method
_PADDLE_FORMS = {"gather": ("gather(x, index, axis=None)", "gather(index, axis)"),
                 "index_select": ("index_select(x, index, axis=0)", "index_select(index, axis)")}


def _dim_then_index(what, dim, index, axis):
    """The dimension of PyTorch's ``what(x, dim, index)`` (``axis=`` for ``dim=``); an index in
    the place of ``dim`` is Paddle's order, refused."""
    if dim is not None and not is_axis(dim):
        raise paddle_order(f"{what}(x, index, ...)", f"{what}(x, dim, index)",
                           *_PADDLE_FORMS[what])
    if dim is not None and axis is not None:
        raise TypeError(f"{what}() got both 'dim' and 'axis' (the same argument)")
    dim = axis if dim is None else dim
    if dim is None or index is None:
        raise TypeError(f"{what}() needs a dimension and an index: {what}(x, dim, index); "
                        f"Paddle's {_PADDLE_FORMS[what][0]} is mutograd.compat.paddle.{what}")
    return dim


@lift_0d
def gather(x, dim=None, index=None, *, sparse_grad=False, axis=None, name=None):
    """Values of ``x`` picked along ``dim`` by an index with as many dimensions as ``x``
    (PyTorch's ``gather``): ``out[i][j] = x[i][index[i][j]]`` for ``dim=1``. Paddle's
    ``gather(x, index, axis)`` (whole slices, as ``index_select``) is
    ``mutograd.compat.paddle.gather``; an index in second place is refused here.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([[1., 2.], [3., 4.]])
        >>> mg.gather(x, 1, mg.tensor([[1], [0]])).tolist()
        [[2.0], [3.0]]
    """
    dim = _dim_then_index("gather", dim, index, axis)
    index = _int_index(index, "gather")
    _check_along(x, index, dim, "gather")
    return call(OPS["gather"], [x, index], {"axis": dim})


@lift_0d
def take_along_axis(arr, indices, axis, broadcast=True):
    """Paddle's and NumPy's ``take_along_axis(arr, indices, axis)``: PyTorch's ``gather``."""
    indices = _int_index(indices, "take_along_axis")
    if broadcast and indices.ndim == arr.ndim:
        a = canon_dim(axis, arr.ndim, "take_along_axis")
        shape = [n if i != a else indices.shape[a] for i, n in enumerate(arr.shape)]
        if list(indices.shape) != shape:
            indices = call(OPS["expand"], [indices], {"shape": tuple(shape)})
    _check_along(arr, indices, axis, "take_along_axis")
    return call(OPS["gather"], [arr, indices], {"axis": axis})


@lift_0d
def index_select(x, dim=None, index=None, *, sparse_grad=False, axis=None, name=None):
    """Slices of ``x`` at a 1-D integer ``index`` along ``dim`` (PyTorch's order; Paddle's
    ``index_select(x, index, axis)`` is ``mutograd.compat.paddle.index_select``).

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([[1., 2., 3.]])
        >>> mg.index_select(x, 1, mg.tensor([2, 0])).tolist()
        [[3.0, 1.0]]
    """
    dim = _dim_then_index("index_select", dim, index, axis)
    index = _int_index(index, "index_select")
    if index.ndim > 1:
        raise ShapeError(f"index_select(): index must be 1-D, got {index.ndim}-D")
    a = canon_dim(dim, x.ndim, "index_select")
    n = x.shape[a]
    data = index._data
    if data.size and (data.min() < -n or data.max() >= n):
        raise IndexRangeError(f"index_select(): index out of range for dimension {a} of size "
                              f"{n}")
    return call(OPS["index_select"], [x, index], {"axis": dim})


# ---- x[indices] = value as a function: the indices, a tuple of tensors between the two inputs,
# as backend arrays -------------------------------------------------------------------------------
def index_put_(x, indices, value, accumulate=False):
    """``x[indices] = value`` (or ``+=`` with ``accumulate=True``, summing repeated indices)."""
    xp = x._place.xp
    return call_inplace(OPS["index_put"], [x, value],
                        {"index": _plain(tuple(indices), xp), "accumulate": accumulate})


def index_put(x, indices, value, accumulate=False):
    """Out-of-place ``index_put_``: a copy of ``x`` with ``value`` written at ``indices``."""
    xp = x._place.xp
    return call(OPS["index_put"], [x, value],
                {"index": _plain(tuple(indices), xp), "accumulate": accumulate})


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


FUNCTIONS = {f.__name__: f for f in (take, take_along_dim, tril_indices, triu_indices,
                                     unravel_index, gather, take_along_axis, index_select,
                                     index_put, index_put_)}
