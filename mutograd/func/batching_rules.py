"""vmap's batching rules: a NumPy function on batched arrays as one call on their values, and
the per-sample fallback for the functions without a rule.

Note [Batching rules]
    A rule sees its arguments at the highest level among them (Note [Batched arrays]): the
    values of the batched ones, the batch along axis 0, and the others as they are.

    - Element-wise functions (every ufunc, ``where``, ``clip``, ``round``, ...): batched values
      are reshaped so that the ranks of one sample line up (``(B, 1, ..., 1, n)``) and NumPy's
      broadcasting does the rest; an unbatched operand broadcasts as it is.
    - Functions along an ``axis`` (reductions, ``cumsum``, ``sort``, ``argmax``, ``flip``): the
      axis moves by one; ``axis=None`` means every axis of a sample, or the flattened sample.
    - Shape functions (``reshape``, ``transpose``, ``concatenate``, ``stack``, ``pad``,
      indexing, ...): the same with the batch axis kept in front. ``matmul``, ``einsum``,
      ``dot`` of matrices and vectors, and the stacked linear algebra (``inv``, ``solve``,
      ``cholesky``, ...) map over leading axes already.
    - Everything else runs once per sample (:func:`per_sample`), the results stacked: correct
      for any function, at the cost of B calls instead of one (docs/higher_order.md measures
      it). A function that writes into an argument (``copyto``, ``ufunc.at``, ``out=``) needs
      that argument batched as soon as anything it writes is.
"""
import operator
import string

import numpy as np

from .batched_array import BatchedArray, VmapError, physical

_NoValue = np._NoValue
_WRITE = ("vmap: a batched value cannot be written in place into an unbatched array (a tensor "
          "made outside vmap, or an input with in_dims=None), as in PyTorch: write into a "
          "clone() of it, or make it an input of vmap.")


# ---- helpers ------------------------------------------------------------------------------
def level_of(args, kwargs=None):
    """The highest level among the batched arrays in ``args`` (and ``kwargs``), or None."""
    best = None
    for a in args:
        best = _scan(a, best, 2)
    if kwargs:
        for a in kwargs.values():
            best = _scan(a, best, 1)
    return best


def _scan(a, best, depth):
    if isinstance(a, BatchedArray):
        return a.level if best is None or a.level > best else best
    if depth and isinstance(a, (list, tuple)):
        for e in a:
            best = _scan(e, best, depth - 1)
    return best


def _batched(a, level):
    return isinstance(a, BatchedArray) and a.level == level


def _size(args, level, kwargs=None):
    for a in list(args) + list((kwargs or {}).values()):
        if _batched(a, level):
            return a.value.shape[0]
        if isinstance(a, (list, tuple)):
            n = _size(a, level)
            if n is not None:
                return n
    return None


def _nd(a, level):
    """The number of dimensions of one sample of ``a``."""
    if _batched(a, level):
        return a.value.ndim - 1
    return np.ndim(a)


def _pad(v, nd):
    """A batched value with ones inserted after the batch axis up to ``nd`` sample axes."""
    extra = nd - (v.ndim - 1)
    if extra <= 0:
        return v
    s = v.shape
    return v.reshape(s[:1] + (1,) * extra + s[1:])


def _fit(v, nd):
    """A batched value shaped to assign to ``nd`` sample axes (padded, or leading ones cut)."""
    extra = (v.ndim - 1) - nd
    if extra <= 0:
        return _pad(v, nd)
    return v.reshape(v.shape[:1] + v.shape[1 + extra:])


def _expand(a, n):
    """An unbatched array as the value of a batch of ``n`` copies (a read-only broadcast)."""
    return np.broadcast_to(a, (n,) + tuple(np.shape(a)))


def _value(a, level, n):
    return a.value if _batched(a, level) else _expand(a, n)


def wrap(r, level):
    """Results of a call on values, as batched arrays."""
    if r is None:
        return None
    if isinstance(r, tuple) and hasattr(r, "_fields"):
        return type(r)(*(wrap(x, level) for x in r))
    if isinstance(r, (tuple, list)):
        return type(r)(wrap(x, level) for x in r)
    return BatchedArray(r, level)


def _axis(ax, nd):
    ax = operator.index(ax)
    if not -nd <= ax < nd and not (nd == 0 and ax in (0, -1)):
        raise np.exceptions.AxisError(ax, nd)
    return (ax % nd if nd else 0) + 1


def _axes(axes, nd):
    if isinstance(axes, (tuple, list)):
        return tuple(_axis(a, nd) for a in axes)
    return _axis(axes, nd)


def _store(out, res, level, batched):
    """Write ``res`` (a batched value when ``batched``, else an unbatched result) into
    ``out``; returns ``out``."""
    if _batched(out, level):
        out.value[...] = res
    elif batched:
        raise VmapError(_WRITE)
    else:
        out[...] = res
    return out


def _out_values(out, level, batched):
    """The values of ``out`` (a ufunc's tuple or one array) to pass on."""
    one = not isinstance(out, tuple)
    outs = (out,) if one else out
    vals = []
    for o in outs:
        if o is None or _batched(o, level):
            vals.append(o if o is None else o.value)
        elif batched:
            raise VmapError(_WRITE)
        else:
            vals.append(o)
    return vals[0] if one else tuple(vals)


def _returned_out(out):
    if isinstance(out, tuple):
        return out[0] if len(out) == 1 else out
    return out


# ---- the fallback -------------------------------------------------------------------------
def _at(x, i, level, depth):
    if isinstance(x, BatchedArray):
        return x.value[i] if x.level == level else x
    if depth and isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_at(e, i, level, depth - 1) for e in x)
    return x


_WRITES = {np.copyto: 0, np.put: 0, np.place: 0, np.putmask: 0, np.put_along_axis: 0,
           np.fill_diagonal: 0}


def per_sample(func, args, kwargs, level, writes=None):
    """``func`` called once per sample, the results stacked along a new batch axis: the
    fallback for functions without a rule (Note [Batching rules])."""
    n = _size(args, level, kwargs)
    w = _WRITES.get(func) if writes is None else writes
    if w is not None and not _batched(args[w], level):
        raise VmapError(_WRITE)
    out = kwargs.get("out")
    if out is not None:
        _out_values(out, level, True)
    results = [func(*_at(args, i, level, 2), **{k: _at(v, i, level, 1)
                                                 for k, v in kwargs.items()})
               for i in range(n)]
    if w is not None:
        return None
    if out is not None:
        return _returned_out(out)
    return _stack(results, level, getattr(func, "__name__", "function"))


def _stack(results, level, name):
    first = results[0]
    if first is None:
        return None
    if isinstance(first, (tuple, list)):
        if any(len(r) != len(first) for r in results):
            raise VmapError(f"vmap: {name}() gave a different number of results for different "
                            f"samples")
        parts = [_stack([r[k] for r in results], level, name) for k in range(len(first))]
        return type(first)(*parts) if hasattr(first, "_fields") else type(first)(parts)
    try:
        return BatchedArray(np.stack(results), level)
    except ValueError:
        raise VmapError(f"vmap: {name}() gave results of different shapes for different "
                        f"samples (a shape that depends on the data), which cannot be batched "
                        f"into one array") from None


# ---- ufuncs -------------------------------------------------------------------------------
def ufunc(uf, method, inputs, kwargs):
    """``BatchedArray.__array_ufunc__``."""
    level = level_of(inputs, kwargs)
    if method == "__call__":
        if uf is np.matmul:
            return _matmul(level, *inputs, **kwargs)
        return elementwise(level, uf, inputs, kwargs)
    if method == "reduce":
        return _along(uf.reduce, "all", 0)(level, *inputs, **kwargs)
    if method == "accumulate":
        return _along(uf.accumulate, "flatten", 0)(level, *inputs, **kwargs)
    if method == "at":
        return _ufunc_at(level, uf, *inputs)
    return per_sample(getattr(uf, method), inputs, kwargs, level)


def elementwise(level, fn, arrays, kwargs):
    """``fn(*arrays, **kwargs)`` for an element-wise ``fn`` (Note [Batching rules])."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out", None)
    where = kwargs.get("where")
    nd, n = 0, None
    for a in list(arrays) + ([where] if where is not None else []):
        if _batched(a, level):
            nd, n = max(nd, a.value.ndim - 1), a.value.shape[0]
        elif hasattr(a, "ndim"):
            nd = max(nd, a.ndim)
    args = [_pad(a.value, nd) if _batched(a, level) else a for a in arrays]
    if _batched(where, level):
        kwargs["where"] = _pad(where.value, nd)
    if out is None:
        return wrap(fn(*args, **kwargs), level)
    fn(*args, out=_out_values(out, level, n is not None), **kwargs)
    return _returned_out(out)


def _matmul(level, a, b, out=None, **kwargs):
    ba, bb = _batched(a, level), _batched(b, level)
    va, vb = (a.value if ba else a), (b.value if bb else b)
    la, lb = va.ndim - ba, vb.ndim - bb
    if la == 0 or lb == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    if la == 1:
        va = np.expand_dims(va, -2)
    if lb == 1:
        vb = np.expand_dims(vb, -1)
    r = max(la, lb, 2)
    if ba:
        va = _pad(va, r)
    if bb:
        vb = _pad(vb, r)
    res = np.matmul(va, vb, **kwargs)
    if la == 1 and lb == 1:
        res = res[..., 0, 0]
    elif la == 1:
        res = res[..., 0, :]
    elif lb == 1:
        res = res[..., 0]
    if out is not None:
        return _store(_returned_out(out), res, level, ba or bb)
    return BatchedArray(res, level) if ba or bb else res


def _ufunc_at(level, uf, a, indices, b=None):
    if not _batched(a, level):
        raise VmapError(_WRITE)
    idx = indices if isinstance(indices, tuple) else (indices,)
    if b is not None and _gatherable(idx, level):
        uf.at(a.value, *_scattered(a, idx, b, level))
        return None
    if any(_batched(c, level) for c in idx) or _split(idx):
        for i in range(a.value.shape[0]):
            args = (_at(indices, i, level, 1),) + (() if b is None else (_at(b, i, level, 0),))
            uf.at(a.value[i], *args)
        return None
    full = (slice(None),) + idx
    if b is None:
        uf.at(a.value, full)
    else:
        bv = _fit(b.value, a.value[full].ndim - 1) if _batched(b, level) else b
        uf.at(a.value, full, bv)
    return None


# ---- indexing -----------------------------------------------------------------------------
def _advanced(c):
    return not (c is None or c is Ellipsis or isinstance(c, slice) or _int(c))


def _int(c):
    return isinstance(c, (int, np.integer)) and not isinstance(c, (bool, np.bool_))


def _split(idx):
    """Whether NumPy would move the advanced-index axes to the front (advanced indices not
    next to each other), which would also move the batch axis."""
    adv = [k for k, c in enumerate(idx) if _advanced(c)]
    if not adv:
        return False
    pos = sorted(adv + [k for k, c in enumerate(idx) if _int(c)])
    return pos[-1] - pos[0] + 1 != len(pos)


class _Gather:
    """An index with batched integer arrays as one advanced index of the values: the batch
    axis indexed by ``arange(B)`` next to it, broadcast together (Note [Batching rules]).
    ``full`` indexes the value; its result has the advanced axes right after the batch axis,
    where the sample's index puts them after ``before`` basic axes (NumPy's placement when the
    advanced indices are next to each other), so ``to_sample``/``from_sample`` move them."""

    def __init__(self, idx, nd, n, level):
        k = next((j for j, c in enumerate(idx) if c is Ellipsis), None)
        if k is not None:
            idx = idx[:k] + (slice(None),) * (nd - len(idx) + 1) + idx[k + 1:]
        adv = [j for j, c in enumerate(idx) if _advanced(c) or _int(c)]
        shapes = [c.value.shape[1:] if _batched(c, level) else np.shape(c) for c in
                  (idx[j] for j in adv)]
        self.k = len(np.broadcast_shapes(*shapes))
        self.before = adv[0] if adv == list(range(adv[0], adv[-1] + 1)) else 0
        comps = tuple(_pad(c.value, self.k) if _batched(c, level) else c for c in idx)
        self.full = (np.arange(n).reshape((n,) + (1,) * self.k),) + comps

    def to_sample(self, r):
        k, b = self.k, self.before
        return np.moveaxis(r, range(1, 1 + k), range(1 + b, 1 + b + k)) if b else r

    def from_sample(self, r):
        k, b = self.k, self.before
        return np.moveaxis(r, range(1 + b, 1 + b + k), range(1, 1 + k)) if b else r


def _gatherable(idx, level):
    """Whether an index with batched parts can be one advanced index (:class:`_Gather`):
    integer arrays, integers and slices (and one Ellipsis)."""
    return all(c is Ellipsis or isinstance(c, slice) or _int(c) or (
        hasattr(c, "dtype") and c.dtype.kind in "iu") or isinstance(c, list) for c in idx) \
        and any(_batched(c, level) for c in idx)


def getitem(x, index):
    """``x[index]`` for a batched array ``x`` (or an index batched at a higher level)."""
    idx = index if isinstance(index, tuple) else (index,)
    level = level_of((x, idx))
    if _gatherable(idx, level):
        n = _size(idx, level)
        g = _Gather(idx, _nd(x, level), n, level)
        return BatchedArray(g.to_sample(_value(x, level, n)[g.full]), level)
    if level != x.level or _split(idx):
        return per_sample(operator.getitem, (x, index), {}, level)
    return BatchedArray(x.value[(slice(None),) + idx], level)


def _scattered(x, idx, value, level):
    """``(target index, value)`` for writing ``value`` at ``x[idx]`` with batched index parts:
    the value broadcast to the written region and put in the gathered order."""
    g = _Gather(idx, x.value.ndim - 1, x.value.shape[0], level)
    shape = np.broadcast_to(np.empty((), bool), x.value.shape)[g.full].shape
    region = (shape[:1] + shape[1 + g.k:1 + g.k + g.before] + shape[1:1 + g.k] +
              shape[1 + g.k + g.before:])
    v = _fit(value.value, len(region) - 1) if _batched(value, level) else value
    return g.full, g.from_sample(np.broadcast_to(v, region))


def setitem(x, index, value):
    """``x[index] = value`` for a batched array ``x``."""
    idx = index if isinstance(index, tuple) else (index,)
    level = level_of((x, idx, value))
    if level != x.level:
        raise VmapError(_WRITE)
    if _gatherable(idx, level):
        full, v = _scattered(x, idx, value, level)
        x.value[full] = v
        return
    if any(_batched(c, level) for c in idx) or _split(idx):
        for i in range(x.value.shape[0]):
            x.value[i][_at(index, i, level, 1)] = _at(value, i, level, 0)
        return
    full = (slice(None),) + idx
    if _batched(value, level):
        value = _fit(value.value, x.value[full].ndim - 1)
    x.value[full] = value


# ---- functions with an axis ---------------------------------------------------------------
_DEFAULT = object()


def _along(func, none, default=None):
    """The rule of ``func(a, axis, ...)``: ``none`` says what ``axis=None`` means, ``'all'`` the
    axes of a sample or ``'flatten'`` the flattened sample."""
    def rule(level, a, axis=_DEFAULT, *args, **kwargs):
        if axis is _DEFAULT:
            axis = default
        if not _batched(a, level) or level_of(args) == level:
            return per_sample(func, (a, axis, *args), kwargs, level)
        v = a.value
        nd, n = v.ndim - 1, v.shape[0]
        flat = axis is None and none == "flatten"
        if flat:
            v, axis = v.reshape(n, -1), 1
        elif axis is None:
            axis = tuple(range(1, nd + 1))
        else:
            axis = _axes(axis, nd)
        out = kwargs.pop("out", None)
        if out is not None:
            kwargs["out"] = _out_values(out, level, True)
        where = kwargs.get("where")
        if _batched(where, level):
            kwargs["where"] = _pad(where.value, nd)
        res = func(v, axis, *args, **kwargs)
        if out is not None:
            return out
        if flat and kwargs.get("keepdims"):
            res = res.reshape((n,) + (1,) * nd)
        return wrap(res, level)
    return rule


# ---- shape functions ----------------------------------------------------------------------
def _reshape(level, a, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    v = a.value
    kw = {} if copy is None else {"copy": copy}
    return BatchedArray(np.reshape(v, v.shape[:1] + shape, order=order, **kw), level)


def _ravel(level, a, order="C"):
    return _reshape(level, a, (-1,), order)


def _transpose(level, a, axes=None):
    v = a.value
    nd = v.ndim - 1
    perm = (0,) + (tuple(range(nd, 0, -1)) if axes is None else _axes(tuple(axes), nd))
    return BatchedArray(np.transpose(v, perm), level)


def _moveaxis(level, a, source, destination):
    nd = a.value.ndim - 1
    return BatchedArray(np.moveaxis(a.value, _axes(source, nd), _axes(destination, nd)), level)


def _swapaxes(level, a, axis1, axis2):
    nd = a.value.ndim - 1
    return BatchedArray(np.swapaxes(a.value, _axis(axis1, nd), _axis(axis2, nd)), level)


def _matrix_transpose(level, x):
    return BatchedArray(np.swapaxes(x.value, -1, -2), level)


def _expand_dims(level, a, axis):
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    nd = a.value.ndim - 1 + len(axes)
    return BatchedArray(np.expand_dims(a.value, tuple(_axis(x, nd) for x in axes)), level)


def _squeeze(level, a, axis=None):
    v = a.value
    if axis is None:
        axes = tuple(k + 1 for k, d in enumerate(v.shape[1:]) if d == 1)
    else:
        axes = _axes(axis, v.ndim - 1)
    return BatchedArray(np.squeeze(v, axis=axes), level)


def _broadcast_to(level, array, shape, subok=False):
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    v = _pad(array.value, len(shape))
    return BatchedArray(np.broadcast_to(v, v.shape[:1] + shape), level)


def _broadcast_arrays(level, *args, subok=False):
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    return tuple(_broadcast_to(level, a, shape) if _batched(a, level) else
                 np.broadcast_to(a, shape) for a in args)


def _join(func, extra_axis):
    def rule(level, arrays, axis=0, out=None, **kwargs):
        arrays = list(arrays)
        n = _size(arrays, level) or _size([out], level)
        if axis is None:
            vals = [a.value.reshape(n, -1) if _batched(a, level) else
                    np.broadcast_to(np.ravel(a), (n, np.size(a))) for a in arrays]
            ax = 1
        else:
            ax = _axis(axis, _nd(arrays[0], level) + extra_axis)
            vals = [_value(a, level, n) for a in arrays]
        res = func(vals, axis=ax, **kwargs)
        return BatchedArray(res, level) if out is None else _store(out, res, level, True)
    return rule


def _split_rule(func):
    def rule(level, ary, indices_or_sections, axis=0):
        return wrap(func(ary.value, indices_or_sections, axis=_axis(axis, ary.value.ndim - 1)),
                    level)
    return rule


def _two_axes(func):
    def rule(level, a, offset=0, axis1=0, axis2=1, *args, **kwargs):
        nd = a.value.ndim - 1
        res = func(a.value, offset, _axis(axis1, nd), _axis(axis2, nd), *args, **kwargs)
        return BatchedArray(res, level)
    return rule


def _triangle(func):
    def rule(level, m, k=0):
        if m.value.ndim < 3:
            return per_sample(func, (m, k), {}, level)
        return BatchedArray(func(m.value, k), level)
    return rule


def _pad_rule(level, array, pad_width, mode="constant", **kwargs):
    if not _batched(array, level) or level_of((), kwargs) == level:
        return per_sample(np.pad, (array, pad_width, mode), kwargs, level)
    nd = array.value.ndim - 1
    pw = np.broadcast_to(np.asarray(pad_width), (nd, 2))
    pw = np.concatenate([np.zeros((1, 2), pw.dtype), pw])
    return BatchedArray(np.pad(array.value, pw, mode, **kwargs), level)


def _roll(level, a, shift, axis=None):
    v = a.value
    if axis is None:
        return BatchedArray(np.roll(v.reshape(v.shape[0], -1), shift, axis=1).reshape(v.shape),
                            level)
    return BatchedArray(np.roll(v, shift, axis=_axes(axis, v.ndim - 1)), level)


def _tile(level, A, reps):
    reps = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    v = A.value
    nd = v.ndim - 1
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    v = _pad(v, len(reps))
    return BatchedArray(np.tile(v, (1,) + reps), level)


def _repeat(level, a, repeats, axis=None):
    if not _batched(a, level) or _batched(repeats, level):
        return per_sample(np.repeat, (a, repeats), {"axis": axis}, level)
    v = a.value
    if axis is None:
        return BatchedArray(np.repeat(v.reshape(v.shape[0], -1), repeats, axis=1), level)
    return BatchedArray(np.repeat(v, repeats, axis=_axis(axis, v.ndim - 1)), level)


def _diff(level, a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):
    if prepend is not _NoValue or append is not _NoValue or not _batched(a, level):
        return per_sample(np.diff, (a, n, axis, prepend, append), {}, level)
    return BatchedArray(np.diff(a.value, n, axis=_axis(axis, a.value.ndim - 1)), level)


def _take(level, a, indices, axis=None, out=None, mode="raise"):
    ba, bi = _batched(a, level), _batched(indices, level)
    if out is not None or (ba and bi):
        return per_sample(np.take, (a, indices, axis, out, mode), {}, level)
    if ba:
        v = a.value
        if axis is None:
            return BatchedArray(np.take(v.reshape(v.shape[0], -1), indices, axis=1, mode=mode),
                                level)
        return BatchedArray(np.take(v, indices, axis=_axis(axis, v.ndim - 1), mode=mode), level)
    if axis is None:
        return BatchedArray(np.take(a, indices.value, mode=mode), level)
    ax = _axis(axis, np.ndim(a)) - 1
    return BatchedArray(np.moveaxis(np.take(a, indices.value, axis=ax, mode=mode), ax, 0), level)


def _take_along_axis(level, arr, indices, axis=-1):
    if axis is None:
        return per_sample(np.take_along_axis, (arr, indices, None), {}, level)
    n = _size((arr, indices), level)
    ax = _axis(axis, _nd(arr, level))
    return BatchedArray(np.take_along_axis(_value(arr, level, n), _value(indices, level, n),
                                           axis=ax), level)


def _put_along_axis(level, arr, indices, values, axis):
    if not _batched(arr, level):
        raise VmapError(_WRITE)
    if axis is None:
        return per_sample(np.put_along_axis, (arr, indices, values, None), {}, level)
    n = arr.value.shape[0]
    nd = arr.value.ndim - 1
    vals = _pad(values.value, nd) if _batched(values, level) else values
    np.put_along_axis(arr.value, _value(indices, level, n), vals, axis=_axis(axis, nd))


def _copyto(level, dst, src, casting="same_kind", where=True):
    if not _batched(dst, level):
        raise VmapError(_WRITE)
    nd = dst.value.ndim - 1
    src = _pad(src.value, nd) if _batched(src, level) else src
    where = _pad(where.value, nd) if _batched(where, level) else where
    np.copyto(dst.value, src, casting=casting, where=where)


def _where(level, condition, x=_NoValue, y=_NoValue):
    if x is _NoValue and y is _NoValue:
        return per_sample(np.where, (condition,), {}, level)
    return elementwise(level, np.where, (condition, x, y), {})


def _clip(level, a, a_min=_NoValue, a_max=_NoValue, out=None, **kwargs):
    if level_of((), kwargs) == level:
        return per_sample(np.clip, (a, a_min, a_max), dict(kwargs, out=out), level)
    return elementwise(level, np.clip, (a, a_min, a_max), dict(kwargs, out=out))


def _elementwise_of(func, n_arrays=1):
    def rule(level, *args, **kwargs):
        if level_of(args[n_arrays:], kwargs) == level and "out" not in kwargs:
            return per_sample(func, args, kwargs, level)
        return elementwise(level, func, args, kwargs)
    return rule


def _like(func):
    def rule(level, a, *args, shape=None, **kwargs):
        if not _batched(a, level) or level_of(args, kwargs) == level:
            return per_sample(func, (a, *args), dict(kwargs, shape=shape), level)
        v = a.value
        if shape is not None:
            shape = v.shape[:1] + ((shape,) if isinstance(shape, int) else tuple(shape))
        return BatchedArray(func(v, *args, shape=shape, **kwargs), level)
    return rule


def _copy(level, a, order="K", subok=False):
    return BatchedArray(np.copy(a.value, order=order), level)


# ---- products and linear algebra ----------------------------------------------------------
def _einsum(level, *operands, out=None, **kwargs):
    subscripts, ops = operands[0], operands[1:]
    if not isinstance(subscripts, str):
        return per_sample(np.einsum, operands, dict(kwargs, out=out), level)
    subs = subscripts.replace(" ", "")
    ins, arrow, outs = subs.partition("->")
    terms = ins.split(",")
    if not arrow:
        counts = {}
        for c in ins.replace(".", "").replace(",", ""):
            counts[c] = counts.get(c, 0) + 1
        outs = ("..." if "..." in ins else "") + "".join(sorted(c for c, k in counts.items()
                                                                if k == 1))
    if not any(_batched(o, level) for o in ops):   # only ``out`` is batched
        return _store(out, np.einsum(subscripts, *ops, **kwargs), level, False)
    b = next(c for c in string.ascii_letters if c not in subs)
    terms = [b + t if _batched(op, level) else t for t, op in zip(terms, ops)]
    spec = ",".join(terms) + "->" + b + outs
    res = np.einsum(spec, *[o.value if _batched(o, level) else o for o in ops], **kwargs)
    return BatchedArray(res, level) if out is None else _store(out, res, level, True)


def _dot(level, a, b, out=None):
    la, lb = _nd(a, level), _nd(b, level)
    if la == 0 or lb == 0:
        return elementwise(level, np.multiply, (a, b), {"out": out})
    if la <= 2 and lb <= 2:
        return _matmul(level, a, b, out=out)
    return per_sample(np.dot, (a, b), {} if out is None else {"out": out}, level)


def _stacked(func):
    """The rule of a linear-algebra function of one matrix (or a stack of them)."""
    def rule(level, a, *args, **kwargs):
        if not _batched(a, level) or level_of(args, kwargs) == level:
            return per_sample(func, (a, *args), kwargs, level)
        return wrap(func(a.value, *args, **kwargs), level)
    return rule


def _solve(level, a, b):
    ba, bb = _batched(a, level), _batched(b, level)
    va, vb = (a.value if ba else a), (b.value if bb else b)
    la, lb = va.ndim - ba, vb.ndim - bb
    vector = lb == 1
    if vector:
        vb = np.expand_dims(vb, -1)
    r = max(la, lb + vector)
    if ba:
        va = _pad(va, r)
    if bb:
        vb = _pad(vb, r)
    res = np.linalg.solve(va, vb)
    return BatchedArray(res[..., 0] if vector else res, level)


# ---- functions of the metadata ------------------------------------------------------------
def _dtype_of(a):
    return a.dtype if isinstance(a, BatchedArray) else a


_METADATA = {
    np.shape: lambda a: a.shape if isinstance(a, BatchedArray) else np.shape(a),
    np.ndim: lambda a: a.ndim if isinstance(a, BatchedArray) else np.ndim(a),
    np.size: lambda a, axis=None: (a.size if axis is None else a.shape[axis])
    if isinstance(a, BatchedArray) else np.size(a, axis),
    np.result_type: lambda *args: np.result_type(*[_dtype_of(a) for a in args]),
    np.can_cast: lambda from_, to, casting="safe": np.can_cast(_dtype_of(from_), to, casting),
    np.iscomplexobj: lambda x: _dtype_of(x).kind == "c" if isinstance(x, BatchedArray)
    else np.iscomplexobj(x),
    np.isrealobj: lambda x: _dtype_of(x).kind != "c" if isinstance(x, BatchedArray)
    else np.isrealobj(x),
    np.may_share_memory: lambda a, b, max_work=None: np.may_share_memory(physical(a),
                                                                         physical(b)),
    np.shares_memory: lambda a, b, max_work=None: np.shares_memory(physical(a),
                                                                   physical(b)),
}


RULES = {
    np.reshape: _reshape, np.ravel: _ravel, np.transpose: _transpose,
    np.permute_dims: _transpose, np.moveaxis: _moveaxis, np.swapaxes: _swapaxes,
    np.matrix_transpose: _matrix_transpose, np.linalg.matrix_transpose: _matrix_transpose,
    np.expand_dims: _expand_dims, np.squeeze: _squeeze, np.broadcast_to: _broadcast_to,
    np.broadcast_arrays: _broadcast_arrays, np.concatenate: _join(np.concatenate, 0),
    np.concat: _join(np.concatenate, 0), np.stack: _join(np.stack, 1),
    np.split: _split_rule(np.split), np.array_split: _split_rule(np.array_split),
    np.diagonal: _two_axes(np.diagonal), np.trace: _two_axes(np.trace),
    np.tril: _triangle(np.tril), np.triu: _triangle(np.triu), np.pad: _pad_rule,
    np.roll: _roll, np.tile: _tile, np.repeat: _repeat, np.diff: _diff, np.take: _take,
    np.take_along_axis: _take_along_axis, np.put_along_axis: _put_along_axis,
    np.copyto: _copyto, np.where: _where, np.clip: _clip, np.copy: _copy,
    np.einsum: _einsum, np.dot: _dot, np.linalg.solve: _solve,
    np.linalg.matmul: lambda level, a, b: _matmul(level, a, b),
}
for _f in (np.sum, np.prod, np.mean, np.std, np.var, np.max, np.min, np.amax, np.amin, np.any,
           np.all, np.nansum, np.nanprod, np.nanmean, np.nanstd, np.nanvar, np.nanmax,
           np.nanmin, np.ptp, np.count_nonzero, np.median, np.nanmedian, np.flip,
           np.linalg.vector_norm):
    RULES[_f] = _along(_f, "all")
for _f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin, np.cumsum, np.cumprod,
           np.nancumsum, np.nancumprod):
    RULES[_f] = _along(_f, "flatten")
for _f in (np.sort, np.argsort):
    RULES[_f] = _along(_f, "flatten", -1)
for _f in (np.real, np.imag, np.round, np.around, np.nan_to_num, np.angle, np.sinc, np.fix,
           np.isneginf, np.isposinf, np.i0):
    RULES[_f] = _elementwise_of(_f)
RULES[np.isclose] = _elementwise_of(np.isclose, 2)
for _f in (np.zeros_like, np.ones_like, np.empty_like, np.full_like):
    RULES[_f] = _like(_f)
for _f in (np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky, np.linalg.eigh,
           np.linalg.eigvalsh, np.linalg.eig, np.linalg.eigvals, np.linalg.qr, np.linalg.svd,
           np.linalg.pinv, np.linalg.matrix_power, np.linalg.matrix_norm, np.linalg.svdvals):
    RULES[_f] = _stacked(_f)


def function(func, args, kwargs):
    """``BatchedArray.__array_function__``."""
    meta = _METADATA.get(func)
    if meta is not None:
        return meta(*args, **kwargs)
    level = level_of(args, kwargs)
    rule = RULES.get(func)
    if rule is None:
        return per_sample(func, args, kwargs, level)
    return rule(level, *args, **kwargs)
