"""Public functions that accept both PyTorch's and Paddle's argument orders.

Where the two frameworks order or type the arguments of one op differently and only the call
itself tells which convention is meant (an ``int`` axis versus an index tensor in second
position, a permutation versus two axes, a bool in the axis position), the main namespace
accepts both: ``gather(x, dim, index)`` and ``gather(x, index, axis)``, ``index_select``,
``transpose(x, perm)`` and ``transpose(x, dim0, dim1)`` (and ``transpose_``), ``polygamma(n, x)``
and ``polygamma(x, n)``, ``set_``'s positional shape or offset, ``var(x, unbiased)`` and
``std(x, unbiased)``, ``where`` with the condition alone, ``fill_diagonal_(value, wrap)``,
``random_(to)`` and ``random_(from, to)``, ``embedding_renorm_`` with the weight or the index
first; the forms whose attributes come before or between the inputs (``scatter_reduce(x, dim,
index, src)`` and the scatter family, ``index_put(x, indices, value)``); and ``clamp``, whose
bounds may each be missing, but not both. Each resolves to a declared op, so gradients and
errors come from that op's declaration. Conventions that do not depend on the call (keyword
spellings, a shape as varargs or a list) are in the declarations themselves (``defop``).
"""
import numpy as np

from .. import dtypes
from ..errors import GatherIndexError, IndexRangeError, ShapeError
from ..tensor import Tensor
from .axes import canon_dim, keepdim_arg, lift_0d
from .creation import _no_extra
from .indexing import _plain
from .registry import OPS, call, call_inplace
from .scatter import _check_reduce


def _axis(axis, dim, default=None):
    return default if axis is None and dim is None else axis if dim is None else dim


def _int_index(index, what):
    if not isinstance(index, Tensor):
        from .creation import tensor
        index = tensor(index)
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


@lift_0d
def gather(x, *args, axis=None, dim=None, index=None, **kw):
    """Values of ``x`` picked along an axis by an index tensor.

    ``gather(x, dim, index)`` (PyTorch): ``out[i][j] = x[i][index[i][j]]`` for ``dim=1``, the index
    having as many dimensions as ``x``. ``gather(x, index, axis=0)`` (Paddle, index tensor in
    second place): the slices of ``x`` at the 1-D ``index`` along ``axis`` (as ``index_select``).

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([[1., 2.], [3., 4.]])
        >>> mg.gather(x, 1, mg.tensor([[1], [0]])).tolist()
        [[2.0], [3.0]]
        >>> mg.gather(x, mg.tensor([1]), axis=0).tolist()
        [[3.0, 4.0]]
    """
    _no_kw(kw, "gather", ("sparse_grad",))
    paddle = args and not _is_int(args[0]) or (not args and index is not None and dim is None
                                                and axis is not None)
    if paddle:
        index = args[0] if args else index
        a = _axis(axis, args[1] if len(args) > 1 else dim, 0)
        return index_select(x, _int_index(index, "gather"), axis=a)
    a = args[0] if args else _axis(axis, dim)
    if len(args) > 1:
        index = args[1]
    if a is None or index is None:
        raise TypeError("gather() needs an axis and an index: gather(x, dim, index)")
    index = _int_index(index, "gather")
    _check_along(x, index, a, "gather")
    return call(OPS["gather"], [x, index], {"axis": a})


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
def index_select(x, *args, axis=None, dim=None, index=None, **kw):
    """Slices of ``x`` at a 1-D integer ``index`` along an axis.

    ``index_select(x, dim, index)`` (PyTorch) or ``index_select(x, index, axis=0)`` (Paddle).

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([[1., 2., 3.]])
        >>> mg.index_select(x, 1, mg.tensor([2, 0])).tolist()
        [[3.0, 1.0]]
        >>> mg.index_select(x, mg.tensor([2, 0]), axis=1).tolist()
        [[3.0, 1.0]]
    """
    _no_kw(kw, "index_select", ("sparse_grad",))
    if args and _is_int(args[0]):
        a = args[0]
        index = args[1] if len(args) > 1 else index
    else:
        index = args[0] if args else index
        a = args[1] if len(args) > 1 else _axis(axis, dim, 0)
    if index is None:
        raise TypeError("index_select() missing required argument 'index'")
    index = _int_index(index, "index_select")
    if index.ndim > 1:
        raise ShapeError(f"index_select(): index must be 1-D, got {index.ndim}-D")
    n = x.shape[canon_dim(a, x.ndim, "index_select")]
    data = index._data
    if data.size and (data.min() < -n or data.max() >= n):
        raise IndexRangeError(f"index_select(): index out of range for dimension "
                              f"{canon_dim(a, x.ndim, 'index_select')} of size {n}")
    return call(OPS["index_select"], [x, index], {"axis": a})


def _is_int(v):
    """A Python or NumPy integer (an axis), not a tensor or a list (an index)."""
    return not isinstance(v, (Tensor, bool)) and hasattr(v, "__index__") and not hasattr(
        v, "__len__")


def _no_kw(kw, what, ignored=()):
    """Refuse keywords left in ``kw`` but ``name`` and the ``ignored`` ones."""
    kw.pop("name", None)
    for k in ignored:
        kw.pop(k, None)
    if kw:
        raise TypeError(f"{what}() got an unexpected keyword argument '{next(iter(kw))}'")


def _scalar_dtype(v):
    if isinstance(v, bool):
        return dtypes.bool.np
    if isinstance(v, int):
        return dtypes.int64.np
    if isinstance(v, float):
        return dtypes.default_float.np
    return None


def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y`` (either may be a Python scalar).

    With only ``condition``: the indices of its non-zero elements, one tensor per dimension.

    Example::

        >>> import mutograd as mg
        >>> c = mg.tensor([True, False])
        >>> mg.where(c, 1.0, 0.0).tolist(), mg.where(c, 1.0, 0.0).dtype
        ([1.0, 0.0], float32)
    """
    if x is None and y is None:
        from .creation import _wrap
        return tuple(_wrap(i, condition) for i in condition._data.nonzero())
    if x is None or y is None:
        raise TypeError("where() takes a condition and both x and y, or the condition alone")
    if not isinstance(condition, Tensor):
        from .creation import tensor
        condition = tensor(condition)
    if condition._data.dtype.kind != "b":
        condition = call(OPS["ne"], [condition, 0], {})
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        # two Python scalars: the frameworks' default dtypes, not NumPy's float64
        kinds = {_scalar_dtype(x), _scalar_dtype(y)}
        if None not in kinds:
            dt = max(kinds, key=lambda d: "bif".index(d.kind))
            from .creation import full
            x = full([], x, dtype=dt)
    return call(OPS["where"], [condition, x, y], {})


def where_(condition, x, y, name=None):
    """In-place :func:`where` into ``x`` (Paddle's ``where_``; the method is
    ``x.where_(condition, y)``); returns ``x``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1.0, 2.0])
        >>> mg.where_(mg.tensor([True, False]), x, 0.0) is x, x.tolist()
        (True, [1.0, 0.0])
    """
    return OPS["where"].inplace_function(x, condition, y)


def _bounds(x, min, max, what):
    """clamp's inputs: the bounds are optional, but not both."""
    if min is None and max is None:
        raise ValueError(f"{what}(): at least one of 'min' and 'max' must be given")
    return [x, min, max]


def clamp(x, min=None, max=None, name=None):
    """``x`` limited to ``[min, max]``; bounds are scalars or tensors (then with gradients).

    Example::

        >>> import mutograd as mg
        >>> mg.clamp(mg.tensor([-2., 0.5, 3.]), -1, mg.tensor(1.)).tolist()
        [-1.0, 0.5, 1.0]
    """
    return call(OPS["clamp"], _bounds(x, min, max, "clamp"), {})


def clamp_(x, min=None, max=None, name=None):
    """In-place :func:`clamp`; returns ``x``."""
    return call_inplace(OPS["clamp"], _bounds(x, min, max, "clamp_"), {})


def _transpose_op(args, kw):
    """The view op and attributes ``transpose``'s arguments name: a permutation (Paddle:
    ``permute``) or two axes (PyTorch: ``swapaxes``); the call itself tells which."""
    perm = kw.pop("perm", None)
    if perm is None and len(args) == 1:
        perm = args[0]
    if perm is not None:
        return OPS["permute"], {"perm": tuple(perm)}
    if len(args) == 2:
        d0, d1 = args
    else:
        d0, d1 = kw.pop("dim0", kw.pop("axis0", None)), kw.pop("dim1", kw.pop("axis1", None))
    return OPS["swapaxes"], {"axis0": d0, "axis1": d1}


def transpose(x, *args, **kw):
    """``transpose(x, perm)`` (Paddle) or ``transpose(x, dim0, dim1)`` (PyTorch).

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros([2, 3, 4])
        >>> mg.transpose(x, [2, 0, 1]).shape, mg.transpose(x, 0, 2).shape
        ([4, 2, 3], [4, 3, 2])
    """
    op, attrs = _transpose_op(args, kw)
    if op is OPS["swapaxes"] and x.ndim == 0 and attrs["axis0"] in (0, -1) and \
            attrs["axis1"] in (0, -1):   # PyTorch: a 0-d tensor has dim 0/-1
        return call(OPS["permute"], [x], {"perm": ()})
    return call(op, [x], attrs)


def transpose_(x, *args, **kw):
    """In-place :func:`transpose`: ``transpose_(x, perm)`` (Paddle) or ``transpose_(x, dim0,
    dim1)`` (PyTorch) gives ``x`` the transposed geometry; returns ``x``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros([2, 3])
        >>> mg.transpose_(x, [1, 0]) is x, x.shape
        (True, [3, 2])
    """
    op, attrs = _transpose_op(args, kw)
    if op is OPS["permute"]:
        perm = attrs["perm"]
        if sorted(p % x.ndim for p in perm) != list(range(x.ndim)):
            raise ShapeError(f"transpose_(): perm {list(perm)} is not a permutation of the "
                             f"{x.ndim} axes")
    elif None in attrs.values() or kw:
        raise TypeError("transpose_() takes a permutation or two axes (dim0, dim1)")
    return call_inplace(op, [x], attrs)


def set_(x, source=None, *args, shape=None, stride=None, offset=None, storage_offset=None,
         size=None, name=None):
    """Make ``x`` look into ``source``'s storage (shape, stride, offset); returns ``x``
    (the storage swap ``set`` of ops/storage.py).

    ``offset`` is in bytes (Paddle), ``storage_offset`` in elements (PyTorch); a second
    positional argument that is an int is PyTorch's ``storage_offset``, a list Paddle's shape.

    Example::

        >>> import mutograd as mg
        >>> src = mg.tensor([1.0, 2.0, 3.0, 4.0])
        >>> mg.zeros(1).set_(src, 1, [2], [1]).tolist()
        [2.0, 3.0]
    """
    if len(args) > 3:
        raise TypeError(f"set_() takes at most 5 arguments ({len(args) + 2} given)")
    given = dict(enumerate(args))
    if args and isinstance(args[0], int):       # PyTorch: storage_offset, size, stride
        storage_offset, size, stride = given[0], given.get(1, size), given.get(2, stride)
    elif args:                                  # Paddle: shape, stride, offset
        shape, stride, offset = given[0], given.get(1, stride), given.get(2, offset)
    return call_inplace(OPS["set"], [x], {
        "source": source, "shape": size if shape is None else shape, "stride": stride,
        "offset": offset, "storage_offset": storage_offset})


def _correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def _spread(name, x, axis, unbiased, keepdim, dim, correction, keepdims):
    if isinstance(axis, bool):   # PyTorch's ``var(x, unbiased)`` overload: no axis
        axis, unbiased = None, axis
    return call(OPS[name], [x], {"axis": axis if dim is None else dim,
                                 "keepdim": keepdim_arg(keepdim, keepdims),
                                 "correction": _correction(unbiased, correction)})


def var(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Variance (unbiased by default, as both frameworks); ``var(x, unbiased)`` (PyTorch: a bool
    in the axis position) reduces over every axis.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1.0, 2.0, 3.0])
        >>> mg.var(x).item(), mg.var(x, False).item() == mg.var(x, correction=0).item()
        (1.0, True)
    """
    return _spread("var", x, axis, unbiased, keepdim, dim, correction, keepdims)


def std(x, axis=None, unbiased=None, keepdim=False, dim=None, correction=None, keepdims=None,
        name=None):
    """Standard deviation (unbiased by default; ``std(x, unbiased)`` as for :func:`var`)."""
    return _spread("std", x, axis, unbiased, keepdim, dim, correction, keepdims)


def polygamma(*args, **kw):
    """The n-th derivative of digamma: ``polygamma(x, n)`` (Paddle) or ``polygamma(n, x)``
    (PyTorch); the integer tells them apart. The method and ``polygamma_`` take ``(x, n)``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.tensor([1.0])
        >>> mg.polygamma(1, x).tolist() == mg.polygamma(x, 1).tolist()
        True
    """
    if args and isinstance(args[0], int) and len(args) > 1 and isinstance(args[1], Tensor):
        args = (args[1], args[0]) + args[2:]
    return OPS["polygamma"].function(*args, **kw)


# ---- fills (declared in fills.py) -----------------------------------------------------------
def random_(x, *args, generator=None, **kw):
    """``random_()``, ``random_(to)`` or ``random_(from, to)``: integers in ``[from, to)``;
    without ``to``, the whole range the dtype holds exactly (``2**24`` for float32)."""
    low = kw.pop("from", kw.pop("from_", None))      # PyTorch's keyword, Paddle's keyword
    high = kw.pop("to", None)
    _no_extra(kw, "random_")
    if len(args) == 1:
        high = args[0]
    elif len(args) == 2:
        low, high = args
    elif args:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    return call_inplace(OPS["random"], [x], {"low": 0 if low is None else low, "high": high,
                                             "generator": generator})


def fill_diagonal_(x, value=None, offset=0, wrap=False, *, fill_value=None, name=None):
    """Fill the diagonal of ``x`` with ``value`` in place; returns ``x``.

    Paddle's ``fill_diagonal_(value, offset=0, wrap=False)`` and PyTorch's
    ``fill_diagonal_(fill_value, wrap=False)``: a bool in second place is PyTorch's ``wrap``.
    """
    if isinstance(offset, bool):
        offset, wrap = 0, offset
    value = fill_value if value is None else value
    if value is None:
        raise TypeError("fill_diagonal_() missing required argument 'value' (or 'fill_value')")
    return call_inplace(OPS["fill_diagonal"], [x, value], {"offset": offset, "wrap": wrap})


# ---- the scatter family: index_add, index_copy, index_fill, scatter, scatter_add, masked_scatter,
# put (declared in scatter.py) -------------------------------------------------------------------
def _pick(kw, *names, default=None):
    for n in names:
        if n in kw:
            return kw.pop(n)
    return default


def _axis_form(name, source_names):
    """(dim, index, source) as PyTorch, or (index, axis, source) as Paddle, or keywords."""
    def parse(x, args, kw):
        args = list(args)
        if args and _is_int(args[0]):                    # PyTorch order
            axis, rest = args[0], args[1:]
        elif len(args) >= 2 and _is_int(args[1]):        # Paddle order
            axis, rest = args[1], args[:1] + args[2:]
        else:
            axis, rest = _pick(kw, "dim", "axis", default=0), args
        index = rest.pop(0) if rest else _pick(kw, "index")
        source = rest.pop(0) if rest else _pick(kw, *source_names)
        if index is None or source is None:
            raise TypeError(f"{name}() missing required argument(s): index, "
                            f"{source_names[0]}")
        attrs = {"axis": axis}
        if name == "index_add":
            attrs["alpha"] = rest.pop(0) if rest else _pick(kw, "alpha", default=1)
        if rest:
            raise TypeError(f"{name}() got too many positional arguments")
        _no_kw(kw, name)
        return name, [x, _index_array(index), source], attrs
    return parse


def _index_array(index):
    if isinstance(index, Tensor):
        return index
    return np.asarray(index)


def _parse_scatter(name):
    def parse(x, args, kw):
        args = list(args)
        if args and not _is_int(args[0]) and not isinstance(args[0], Tensor):
            raise TypeError(f"{name}(): expected dim (an int) first, got "
                            f"{type(args[0]).__name__}")
        axis = args.pop(0) if args and _is_int(args[0]) else _pick(kw, "dim", "axis")
        index = args.pop(0) if args else _pick(kw, "index")
        src = args.pop(0) if args else _pick(kw, "src", "value", "values", "source")
        if axis is None or index is None or src is None:
            raise TypeError(f"{name}() missing required argument(s): dim, index, src")
        attrs, op = {"axis": axis}, name
        if name == "scatter":
            how = _check_reduce(args.pop(0) if args else _pick(kw, "reduce"))
            if how == "multiply":
                op = "scatter_mul"
            else:
                attrs["reduce"] = how
        if args:
            raise TypeError(f"{name}() got too many positional arguments")
        _no_kw(kw, name)
        return op, [x, _index_array(index), src], attrs
    return parse


def _parse_masked_scatter(x, args, kw):
    args = list(args)
    mask = args.pop(0) if args else _pick(kw, "mask")
    source = args.pop(0) if args else _pick(kw, "source", "value")
    if mask is None or source is None or args:
        raise TypeError("masked_scatter() takes a mask and a source")
    _no_kw(kw, "masked_scatter")
    return "masked_scatter", [x, mask, source], {}


def _parse_put(x, args, kw):
    args = list(args)
    index = args.pop(0) if args else _pick(kw, "index")
    source = args.pop(0) if args else _pick(kw, "source")
    accumulate = args.pop(0) if args else _pick(kw, "accumulate", default=False)
    if index is None or source is None or args:
        raise TypeError("put() takes index, source and accumulate=False")
    _no_kw(kw, "put")
    return "put", [x, _index_array(index), source], {"accumulate": bool(accumulate)}


def _forms(name, parse):
    def function(x, *args, **kw):
        op, inputs, attrs = parse(x, args, kw)
        return call(OPS[op], inputs, attrs)

    def inplace(x, *args, **kw):
        op, inputs, attrs = parse(x, args, kw)
        return call_inplace(OPS[op], inputs, attrs)

    function.__name__ = function.__qualname__ = name
    inplace.__name__ = inplace.__qualname__ = name + "_"
    function, inplace = lift_0d(function), lift_0d(inplace)
    function.__doc__ = f"``{name}`` out of place (see the docstring of mutograd.ops.scatter)."
    inplace.__doc__ = f"``{name}`` written into its first argument, which is returned."
    return {name: function, name + "_": inplace}


def _paddle_scatter(fill):
    """Paddle's ``scatter(x, index, updates, overwrite=True)``: rows along axis 0."""
    def scatter(x, *args, **kw):
        if args and _is_int(args[0]) or "dim" in kw:
            return fill[0](x, *args, **kw)
        args = list(args)
        index = args.pop(0) if args else _pick(kw, "index")
        updates = args.pop(0) if args else _pick(kw, "updates")
        overwrite = args.pop(0) if args else _pick(kw, "overwrite", default=True)
        _no_kw(kw, "scatter")
        index = _index_array(index)
        if overwrite:
            return fill[1](OPS["index_copy"], [x, index, updates], {"axis": 0})
        # Paddle: the rows written are first zeroed, then every update is added
        x = fill[1](OPS["index_fill"], [x, index, 0.0], {"axis": 0})
        return fill[1](OPS["index_add"], [x, index, updates], {"axis": 0, "alpha": 1})
    return scatter


_SCATTERS = {}
for _name, _parse in (("index_add", _axis_form("index_add", ("source", "value", "tensor"))),
                      ("index_copy", _axis_form("index_copy", ("source", "value", "tensor"))),
                      ("index_fill", _axis_form("index_fill", ("value", "fill_value"))),
                      ("scatter", _parse_scatter("scatter")),
                      ("scatter_add", _parse_scatter("scatter_add")),
                      ("masked_scatter", _parse_masked_scatter),
                      ("put", _parse_put)):
    _SCATTERS.update(_forms(_name, _parse))
_SCATTERS["scatter"] = _paddle_scatter((_SCATTERS["scatter"], call))
_SCATTERS["scatter_"] = _paddle_scatter((_SCATTERS["scatter_"], call_inplace))
_SCATTERS["scatter"].__doc__ = "``x.scatter(dim, index, src, reduce=None)`` (PyTorch) or " \
    "``scatter(x, index, updates, overwrite=True)`` (Paddle)."
_SCATTERS["scatter_"].__doc__ = "In-place ``scatter`` (both conventions)."
_SCATTERS["scatter"].__name__, _SCATTERS["scatter_"].__name__ = "scatter", "scatter_"


# ---- x[indices] = value as a function (declared in indexing.py): the indices, a tuple of tensors
# between the two inputs, as backend arrays ------------------------------------------------------
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


# ---- embedding_renorm_ (declared in normalization.py) -----------------------------------------
def embedding_renorm_(weight, index, max_norm, norm_type=2.0):
    """Scale the rows of ``weight`` that ``index`` names down to norm ``max_norm``; returns
    ``weight``. PyTorch passes ``(weight, input)``, Paddle's functional form ``(x, weight)``:
    the integer tensor is the index, so either order works."""
    if _is_int_tensor(weight) and not _is_int_tensor(index):
        weight, index = index, weight
    return call_inplace(OPS["embedding_renorm"], [weight, index],
                        {"max_norm": max_norm, "norm_type": norm_type})


def _is_int_tensor(t):
    """An integer tensor or array (an index), by its dtype."""
    dt = getattr(getattr(t, "_data", t), "dtype", None)
    return dt is not None and dt.kind in "iu"


# ---- the reducing scatters (declared in scatter_reduce.py): PyTorch's (dim, index, src) order,
# Paddle's put_along_axis and PyTorch's index_reduce ------------------------------------------
def _required_axis(axis, dim, what):
    a = dim if dim is not None else axis
    if a is None:
        raise TypeError(f"{what}() missing required argument 'axis' (or 'dim')")
    return a


@lift_0d
def scatter_reduce(x, axis=None, index=None, src=None, reduce="sum", *, include_self=True,
                   dim=None):
    """Out of place: ``x`` with ``src`` combined in at ``index`` along ``axis``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros(3)
        >>> mg.scatter_reduce(x, 0, mg.tensor([0, 0, 2]), mg.tensor([1., 2., 3.]), "sum").tolist()
        [3.0, 0.0, 3.0]
    """
    return call(OPS["scatter_reduce"], [x, _index_array(index), src],
                {"axis": _required_axis(axis, dim, "scatter_reduce"), "reduce": reduce,
                 "include_self": include_self})


@lift_0d
def scatter_reduce_(x, axis=None, index=None, src=None, reduce="sum", *, include_self=True,
                    dim=None):
    """In-place :func:`scatter_reduce` (PyTorch's ``Tensor.scatter_reduce_``); returns ``x``."""
    return call_inplace(OPS["scatter_reduce"], [x, _index_array(index), src],
                        {"axis": _required_axis(axis, dim, "scatter_reduce_"), "reduce": reduce,
                         "include_self": include_self})


def _along_args(arr, indices, values, axis, broadcast):
    idx = _index_array(indices)
    if broadcast:   # Paddle broadcasts the index against arr (all but the axis)
        ia = idx._data if isinstance(idx, Tensor) else idx
        a = canon_dim(axis, arr.ndim, "put_along_axis")
        shape = tuple(ia.shape[d] if d == a else max(ia.shape[d], arr.shape[d])
                      for d in range(arr.ndim)) if ia.ndim == arr.ndim else None
        if shape is not None and shape != ia.shape:
            idx = _broadcast_index(idx, shape)
    return idx


def _broadcast_index(index, shape):
    """``index`` (a tensor or an array) broadcast to ``shape``. One on a device stays a tensor: the
    dispatcher takes a bare array for host data and would refuse a device array."""
    if isinstance(index, Tensor) and index._place.xp is not np:
        return index.expand(*shape)
    return np.broadcast_to(index._data if isinstance(index, Tensor) else index, shape)


@lift_0d
def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True):
    """Paddle's ``put_along_axis``: ``arr`` with ``values`` put at ``indices`` along ``axis``."""
    return call(OPS["scatter_reduce"], [arr, _along_args(arr, indices, values, axis, broadcast),
                                        values],
                {"axis": axis, "reduce": reduce, "include_self": include_self})


@lift_0d
def put_along_axis_(arr, indices, values, axis, reduce="assign", include_self=True,
                    broadcast=True):
    """In-place :func:`put_along_axis`; returns ``arr``."""
    return call_inplace(OPS["scatter_reduce"],
                        [arr, _along_args(arr, indices, values, axis, broadcast), values],
                        {"axis": axis, "reduce": reduce, "include_self": include_self})


def _index_args(x, axis, index, source):
    """``index_reduce`` as a scatter: the 1-D index repeated over the other dimensions."""
    ia = index._data if isinstance(index, Tensor) else np.asarray(index)
    sa = source._data if isinstance(source, Tensor) else np.asarray(source)
    if ia.ndim != 1:
        raise ShapeError(f"index_reduce_(): index must be 1-D, got {ia.ndim}-D")
    a = canon_dim(axis, x.ndim, "index_reduce_")
    if sa.ndim != x.ndim or sa.shape[a] != ia.shape[0]:
        raise ShapeError(f"index_reduce_(): source of shape {list(sa.shape)} must have "
                         f"{ia.shape[0]} entries along dimension {a} and {x.ndim} dimensions")
    shape = [1] * sa.ndim
    shape[a] = -1
    return _broadcast_index(index.reshape(shape) if isinstance(index, Tensor) else
                            ia.reshape(shape), sa.shape)


@lift_0d
def index_reduce_(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                  dim=None):
    """PyTorch's ``Tensor.index_reduce_(dim, index, source, reduce)`` ('prod', 'mean', 'amax',
    'amin'); returns ``x``."""
    a = _required_axis(axis, dim, "index_reduce_")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise ValueError(f"index_reduce_(): reduce must be 'prod', 'mean', 'amax' or 'amin', "
                         f"got {reduce!r}")
    return call_inplace(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                        {"axis": a, "reduce": reduce, "include_self": include_self})


@lift_0d
def index_reduce(x, axis=None, index=None, source=None, reduce=None, *, include_self=True,
                 dim=None):
    """Out-of-place :func:`index_reduce_`."""
    a = _required_axis(axis, dim, "index_reduce")
    return call(OPS["scatter_reduce"], [x, _index_args(x, a, index, source), source],
                {"axis": a, "reduce": reduce, "include_self": include_self})


FUNCTIONS = {"gather": gather, "take_along_axis": take_along_axis, "index_select": index_select,
             "where": where, "where_": where_, "clamp": clamp, "clamp_": clamp_, "clip": clamp,
             "clip_": clamp_, "transpose": transpose, "transpose_": transpose_, "set_": set_,
             "polygamma": polygamma, "var": var, "std": std, "random_": random_,
             "fill_diagonal_": fill_diagonal_, "index_put": index_put, "index_put_": index_put_,
             "embedding_renorm_": embedding_renorm_, "scatter_reduce": scatter_reduce,
             "scatter_reduce_": scatter_reduce_, "put_along_axis": put_along_axis,
             "put_along_axis_": put_along_axis_, "index_reduce": index_reduce,
             "index_reduce_": index_reduce_}
FUNCTIONS.update(_SCATTERS)
