"""Writes at computed positions: index_add, index_fill, index_copy, scatter, scatter_add,
masked_scatter and put (``x[index] = value`` and ``index_put`` are in indexing.py, the reducing
forms ``scatter_reduce``/``index_reduce`` in scatter_reduce.py), and the writes of a region into
a copy: select_scatter, slice_scatter, diagonal_scatter.

Each is one ``defop`` declaration, so it gets an out-of-place function, an in-place ``op_`` form,
a backward node and the in-place machinery (leaf rule, version bump, writes through views). The
public functions below read PyTorch's argument order (``axis=`` is ``dim=`` by keyword, and
``value=`` a source's keyword) and pass the declared op its inputs:

    x.index_add_(0, index, source, alpha=2)      # (dim, index, source)
    x.scatter_(1, index, src, reduce="add")
    x.put_(index, source, accumulate=True)

Paddle's orders (``index_add(x, index, axis, value)``, ``index_fill(x, index, axis, value)``,
``scatter(x, index, updates, overwrite=True)``) are in ``mutograd.compat.paddle``; here an index
in the place of ``dim`` is a TypeError that names both forms.

Gradients: the written tensor's gradient passes through except where a value was replaced (there
it is zero); a source's gradient is the incoming gradient gathered at the positions it went to.
Where an index repeats, ``index_add``/``scatter_add``/``put(accumulate=True)`` add every
contribution and the assigning forms keep the last write, as NumPy does, and only that write
receives a gradient.

    >>> import mutograd as mg
    >>> mg.zeros([3]).index_add(0, mg.tensor([0, 0, 2]), mg.ones([3])).tolist()
    [2.0, 0.0, 1.0]
    >>> mg.select_scatter(mg.zeros([2, 2]), mg.ones([2]), 0, 1).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
"""
import numpy as np

from ..errors import IndexRangeError, ShapeError
from .axes import canon_dim, is_axis, lift_0d, paddle_order
from .registry import OPS, call, call_inplace, defop
from .scatter_reduce import _combine_at, _index_array, _others_product
from .shaping import _flat_pos, _full_index


def _check_index(xp, index, what):
    if index.dtype.kind not in "iu":
        raise TypeError(f"{what}: the index must be an integer tensor, got dtype {index.dtype}")


def _along(ndim, axis, index):
    """The NumPy index that picks ``index`` along ``axis`` (all of every other axis)."""
    return (slice(None),) * (axis % ndim) + (index,)


def _last_writes(xp, shape, index, n_shape):
    """For an assignment ``a[index] = v`` (``v`` of shape ``n_shape``): which writes survive."""
    n = 1
    for d in n_shape:
        n *= d
    order = xp.arange(n).reshape(n_shape)
    ids = xp.zeros(shape, order.dtype) - 1   # a constant tensor in a formula on tensors
    ids[index] = order
    return ids[index] == order


def _has_repeats(xp, index):
    flat = xp.ravel(index)
    return flat.size > 1 and xp.unique(flat).size < flat.size


# ---- index_add / index_copy / index_fill ----------------------------------------------------
def _axis_source(x, index, source, axis, what):
    if index.ndim > 1:
        raise ShapeError(f"{what}: index must be at most 1-D, got shape {list(index.shape)}")
    a = canon_dim(axis, x.ndim, what)
    want = x.shape[:a] + (index.size,) + x.shape[a + 1:]
    if getattr(source, "shape", want) not in (want, ()):
        raise ShapeError(f"{what}: source has shape {list(source.shape)} but indexing "
                         f"{index.size} entries along dimension {a} of a tensor of shape "
                         f"{list(x.shape)} needs shape {list(want)}")


def _index_add(xp, x, index, source, *, axis=0, alpha=1, out=None):
    _check_index(xp, index, "index_add")
    _axis_source(x, index, source, axis, "index_add")
    out = x.copy() if out is None else out
    xp.add.at(out, _along(x.ndim, axis, index), source if alpha == 1 else source * alpha)
    return out


defop("index_add", _index_add, kind="index", result="same", method=False,
      grad=(lambda g: g, None,
            lambda g, index, axis, alpha, xp: xp.take(g, index, axis) * alpha))


def _index_copy(xp, x, index, source, *, axis=0, out=None):
    _check_index(xp, index, "index_copy")
    _axis_source(x, index, source, axis, "index_copy")
    out = x.copy() if out is None else out
    out[_along(x.ndim, axis, index)] = source
    return out


def _index_copy_source_grad(g, index, axis, xp):
    sel = _along(g.ndim, axis, index)
    r = g[sel]
    if _has_repeats(xp, index):
        r = r * _last_writes(xp, g.shape, sel, r.shape)
    return r


defop("index_copy", _index_copy, kind="index", result="same", method=False,
      grad=(lambda g, index, axis: _zeroed(g, _along(g.ndim, axis, index)), None,
            _index_copy_source_grad))


def _zeroed(g, sel):
    g = g.copy()
    g[sel] = 0
    return g


def _index_fill(xp, x, index, value, *, axis=0, out=None):
    _check_index(xp, index, "index_fill")
    if getattr(value, "ndim", 0):
        raise ShapeError(f"index_fill: value must be a number or a 0-d tensor, got shape "
                         f"{list(value.shape)}")
    out = x.copy() if out is None else out
    out[_along(x.ndim, axis, index)] = value
    return out


defop("index_fill", _index_fill, kind="index", result="same", method=False,
      grad=(lambda g, index, axis: _zeroed(g, _along(g.ndim, axis, index)), None,
            lambda g, index, axis, xp: _mask(xp, g.shape, _along(g.ndim, axis, index), g)))


def _mask(xp, shape, sel, g):
    """The sum of ``g`` over the positions ``sel`` picks, each position counted once."""
    m = xp.zeros(shape, bool)
    m[sel] = True
    return (g * m).sum()


# ---- scatter / scatter_add ------------------------------------------------------------------
_REDUCE = {None: None, "none": None, "assign": None, "add": "add", "sum": "add",
           "multiply": "multiply", "mul": "multiply", "prod": "multiply"}


def _scatter_parts(xp, x, index, src, axis, what):
    _check_index(xp, index, what)
    if index.ndim != x.ndim:
        raise ShapeError(f"{what}: index has {index.ndim} dimensions but the tensor has "
                         f"{x.ndim}; they must have the same number")
    a = canon_dim(axis, x.ndim, what)
    for d, (n, m) in enumerate(zip(index.shape, x.shape)):
        if d != a and n > m:
            raise ShapeError(f"{what}: index has shape {list(index.shape)}, larger than the "
                             f"tensor's shape {list(x.shape)} at dimension {d}")
    if getattr(src, "ndim", 0):
        if src.ndim != index.ndim or any(n > m for n, m in zip(index.shape, src.shape)):
            raise ShapeError(f"{what}: index has shape {list(index.shape)}, larger than the "
                             f"source's shape {list(src.shape)}")
        src = src[tuple(slice(0, n) for n in index.shape)]
    return _full_index(xp, index, a), src


def _scatter(xp, x, index, src, *, axis, reduce=None, out=None):
    how = _REDUCE[reduce]
    sel, src = _scatter_parts(xp, x, index, src, axis, "scatter")
    out = x.copy() if out is None else out
    if how is None:
        out[sel] = src
    else:
        out = _combine_at(xp, out, sel, xp.broadcast_to(src, index.shape), getattr(xp, how))
    return out


def _scatter_grad_x(g, index, axis, reduce, xp):
    if _REDUCE[reduce] == "add":
        return g
    return _zeroed(g, _full_index(xp, index, axis % g.ndim))


def _scatter_grad_src(g, index, src_shape, axis, reduce, xp):
    sel = _full_index(xp, index, axis % g.ndim)
    picked = g[sel]
    if _REDUCE[reduce] is None and _has_repeats(xp, _flat_pos(xp, g.shape, sel)):
        picked = picked * _last_writes(xp, g.shape, sel, picked.shape)
    return _into_source(xp, picked, index, src_shape)


def _into_source(xp, picked, index, src_shape):
    """A source's gradient: ``picked`` in the region the index covers, zero elsewhere."""
    if src_shape is None or not len(src_shape):
        return picked.sum()
    z = xp.zeros(src_shape, picked.dtype)
    z[tuple(slice(0, n) for n in index.shape)] = picked
    return z


def _check_reduce(reduce):
    if reduce not in _REDUCE:
        raise ValueError(f"scatter: reduce must be one of 'add', 'multiply' or None, got "
                         f"{reduce!r}")
    return _REDUCE[reduce]


def _scatter_add(xp, x, index, src, *, axis, out=None):
    return _scatter(xp, x, index, src, axis=axis, reduce="add", out=out)


# assigning and adding scatters keep no values for backward, only the index and shapes
defop("scatter", _scatter, kind="index", result="same", method=False,
      grad=(_scatter_grad_x, None, _scatter_grad_src))
defop("scatter_add", _scatter_add, kind="index", result="same", method=False,
      grad=(lambda g: g, None, lambda g, index, src_shape, axis, xp: _into_source(
          xp, g[_full_index(xp, index, axis % g.ndim)], index, src_shape)))


def _scatter_mul(xp, x, index, src, *, axis, out=None):
    return _scatter(xp, x, index, src, axis=axis, reduce="multiply", out=out)


def _scatter_mul_grad_x(g, index, src, axis, xp):
    sel, s = _scatter_parts(xp, g, index, src, axis, "scatter")
    landed = _combine_at(xp, xp.ones_like(g), sel, xp.broadcast_to(s, index.shape), xp.multiply)
    return g * landed   # out = x * (the product of what landed there)


def _scatter_mul_grad_src(g, x, index, src, src_shape, axis, xp):
    """d out / d src[j] = x times every other factor landing at src[j]'s position."""
    sel, s = _scatter_parts(xp, g, index, src, axis, "scatter")
    s = xp.broadcast_to(s, index.shape)
    return _into_source(xp, g[sel] * _others_product(xp, x, sel, s), index, src_shape)


# a multiplying scatter needs x and src in its gradient: run in place, it keeps a copy of x
defop("scatter_mul", _scatter_mul, kind="index", result="same", method=False,
      grad=(_scatter_mul_grad_x, None, _scatter_mul_grad_src))


# ---- masked_scatter / put -------------------------------------------------------------------
def _masked_scatter(xp, x, mask, source, out=None):
    if mask.dtype != bool:
        raise TypeError(f"masked_scatter: mask must be a bool tensor, got dtype {mask.dtype}")
    m = xp.broadcast_to(mask, x.shape)
    k = int(m.sum())
    if source.size < k:
        raise ShapeError(f"masked_scatter: the mask selects {k} elements but source has only "
                         f"{source.size}")
    out = x.copy() if out is None else out
    out[m] = xp.ravel(source)[:k]
    return out


def _masked_scatter_grad_source(g, mask, source_shape, xp):
    m = xp.broadcast_to(mask, g.shape)
    picked = g[m]
    z = xp.zeros(int(np.prod(source_shape)), g.dtype)
    z[:picked.size] = picked
    return z.reshape(source_shape)


defop("masked_scatter", _masked_scatter, kind="index", result="same", method=False,
      grad=(lambda g, mask, xp: g * ~xp.broadcast_to(mask, g.shape), None,
            _masked_scatter_grad_source))


def _positions(xp, shape, index, what):
    _check_index(xp, index, what)
    n = 1
    for d in shape:
        n *= d
    if index.size and (index.max() >= n or index.min() < -n):
        raise IndexRangeError(f"{what}: index out of range for a tensor of {n} elements")
    return xp.unravel_index(xp.where(index < 0, index + n, index), shape) if shape else ()


def _put(xp, x, index, source, *, accumulate=False, out=None):
    sel = _positions(xp, x.shape, index, "put")
    if getattr(source, "size", index.size) != index.size:
        raise ShapeError(f"put: source has {source.size} elements but index has {index.size}")
    out = x.copy() if out is None else out
    src = xp.reshape(source, index.shape) if getattr(source, "ndim", 0) else source
    if accumulate:
        xp.add.at(out, sel, src)
    else:
        out[sel] = src
    return out


def _put_grad_source(g, index, source_shape, accumulate, xp):
    sel = _positions(xp, g.shape, index, "put")
    r = g[sel]
    if not accumulate and _has_repeats(xp, _flat_pos(xp, g.shape, sel) if sel else index):
        r = r * _last_writes(xp, g.shape, sel, r.shape)
    return r.reshape(source_shape) if source_shape is not None else r.sum()


defop("put", _put, kind="index", result="same", method=False,
      grad=(lambda g, index, accumulate, xp: g if accumulate else _zeroed(
          g, _positions(xp, g.shape, index, "put")), None, _put_grad_source))


# ---- the public functions: PyTorch's order --------------------------------------------------
def _pick(kw, *names, default=None):
    for n in names:
        if n in kw:
            return kw.pop(n)
    return default


def _no_kw(kw, what):
    """Refuse the keywords left in ``kw`` but ``name`` (Paddle's, ignored)."""
    kw.pop("name", None)
    if kw:
        raise TypeError(f"{what}() got an unexpected keyword argument '{next(iter(kw))}'")


# Paddle's forms of the ops that take (dim, index, source) here: (function, method); None where
# Paddle has no op of the name
_PADDLE_FORMS = {
    "index_add": ("index_add(x, index, axis, value)", "index_add(index, axis, value)"),
    "index_fill": ("index_fill(x, index, axis, value)", "index_fill(index, axis, value)"),
    "index_copy": (None, None),
    "scatter": ("scatter(x, index, updates, overwrite=True)",
                "scatter(index, updates, overwrite)"),
    "scatter_add": (None, None),
}


def _dim_first(name, args, kw, source):
    """The ``(dim, index, source)`` that open PyTorch's call, by position or keyword; an index in
    the place of ``dim``, or Paddle's keywords ``updates``/``overwrite``, is refused."""
    if args and not is_axis(args[0]) or "updates" in kw or "overwrite" in kw:
        what = f"{name}(x, index, ...)" if args else f"{name}(x, index=, updates=, ...)"
        raise paddle_order(what, f"{name}(x, dim, index, {source})", *_PADDLE_FORMS[name])
    axis = args.pop(0) if args else _pick(kw, "dim", "axis")
    index = args.pop(0) if args else _pick(kw, "index")
    return axis, index


def _parse_axis_form(name, source_names):
    """``index_add``/``index_copy``/``index_fill``: ``(dim, index, source)`` (and ``alpha``)."""
    def parse(x, args, kw):
        args = list(args)
        axis, index = _dim_first(name, args, kw, source_names[0])
        source = args.pop(0) if args else _pick(kw, *source_names)
        if axis is None or index is None or source is None:
            raise TypeError(f"{name}() missing required argument(s): {name}(x, dim, index, "
                            f"{source_names[0]})")
        attrs = {"axis": axis}
        if name == "index_add":
            attrs["alpha"] = args.pop(0) if args else _pick(kw, "alpha", default=1)
        if args:
            raise TypeError(f"{name}() got too many positional arguments")
        _no_kw(kw, name)
        return name, [x, _index_array(index), source], attrs
    return parse


def _parse_scatter(name):
    """``scatter``/``scatter_add``: ``(dim, index, src)``, and ``reduce`` for ``scatter``."""
    def parse(x, args, kw):
        args = list(args)
        axis, index = _dim_first(name, args, kw, "src")
        src = args.pop(0) if args else _pick(kw, "src", "value", "values", "source")
        if axis is None or index is None or src is None:
            raise TypeError(f"{name}() missing required argument(s): {name}(x, dim, index, src)")
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


FUNCTIONS = {}
for _name, _parse in (("index_add", _parse_axis_form("index_add", ("source", "value", "tensor"))),
                      ("index_copy", _parse_axis_form("index_copy",
                                                      ("source", "value", "tensor"))),
                      ("index_fill", _parse_axis_form("index_fill", ("value", "fill_value"))),
                      ("scatter", _parse_scatter("scatter")),
                      ("scatter_add", _parse_scatter("scatter_add")),
                      ("masked_scatter", _parse_masked_scatter),
                      ("put", _parse_put)):
    FUNCTIONS.update(_forms(_name, _parse))
FUNCTIONS["scatter"].__doc__ = ("``scatter(x, dim, index, src, reduce=None)`` out of place "
                                "(PyTorch's order; see the docstring of mutograd.ops.scatter).")


# ---- writes of a region into a copy --------------------------------------------------------
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``index`` of ``dim``."""
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written into ``[start:end:step]`` of ``dim``."""
    out = input.clone()
    idx = (slice(None),) * (dim % input.ndim) + (slice(start, end, step),)
    out[idx] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written onto a diagonal."""
    out = input.clone()
    out.diagonal(offset, dim1, dim2).copy_(src)
    return out


FUNCTIONS.update({f.__name__: f for f in (select_scatter, slice_scatter, diagonal_scatter)})
