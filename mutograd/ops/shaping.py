"""Ops that build new storage from existing data: cat, stack, flip, roll, tile, gather, clone..."""
from ..errors import ShapeError
from .axes import real_dim
from .registry import OPS, call, call_var, defop, defvar


def _cat(xp, xs, axis=0):
    if not xs:
        raise ValueError("cat(): expected a non-empty list of tensors")
    return _c_order(xp, xp.concatenate(xs, axis=axis))


def _c_order(xp, r):
    """NumPy keeps its inputs' memory order; PyTorch's cat and stack give a contiguous result,
    so that reshaping or viewing it is a view there as here."""
    return r if r.flags.c_contiguous else xp.ascontiguousarray(r)


def _cat_grad(g, shapes, xp, axis=0):
    a = axis % g.ndim
    bounds, start = [], 0
    for s in shapes:
        bounds.append(start)
        start += s[a]
    return xp.split(g, bounds[1:], axis=a)


defvar("cat", _cat, grad=_cat_grad)


def _stack(xp, xs, axis=0):
    if not xs:
        raise ValueError("stack(): expected a non-empty list of tensors")
    return _c_order(xp, xp.stack(xs, axis=axis))


defvar("stack", _stack, grad=lambda g, shapes, xp, axis=0: list(xp.moveaxis(g, axis, 0)))


def cat(tensors, axis=0, dim=None, out=None):
    """Join tensors along an existing axis; empty 1-D tensors (shape [0]) are skipped next to
    tensors of more dimensions, as in PyTorch."""
    tensors = list(tensors)
    if any(getattr(t, "ndim", 1) != 1 for t in tensors):
        tensors = [t for t in tensors if tuple(getattr(t, "shape", (1,))) != (0,)] or tensors[:1]
    return call_var(OPS["cat"], tensors, {"axis": axis if dim is None else dim})


def stack(tensors, axis=0, dim=None, out=None):
    """Join tensors along a new axis."""
    return call_var(OPS["stack"], list(tensors), {"axis": axis if dim is None else dim})


def _flip(xp, x, *, axis):
    return xp.flip(x, axis if isinstance(axis, int) else tuple(axis)).copy()


defop("flip", _flip, kind="other", varargs="axis", inplace=False,
      grad=lambda g, axis, xp: _flip(xp, g, axis=axis))


def _roll(xp, x, *, shifts, axis=None):
    return xp.roll(x, shifts, axis=axis)


defop("roll", _roll, kind="other", inplace=False,
      grad=lambda g, shifts, axis, xp: xp.roll(
          g, -shifts if isinstance(shifts, int) else tuple(-s for s in shifts), axis=axis))


def _tile(xp, x, *, reps):
    return xp.tile(x, reps)


def _tile_grad(g, x_shape, reps, xp):
    reps = tuple(reps)
    n = max(len(reps), len(x_shape))
    reps = (1,) * (n - len(reps)) + reps
    shape = (1,) * (n - len(x_shape)) + tuple(x_shape)
    split = []
    for r, s in zip(reps, shape):
        split += [r, s]
    return g.reshape(split).sum(axis=tuple(range(0, 2 * n, 2))).reshape(x_shape)


defop("tile", _tile, kind="other", varargs="reps", inplace=False, grad=_tile_grad)
defop("repeat", _tile, kind="other", varargs="reps", inplace=False, grad=_tile_grad,
      node_name="RepeatBackward")


def _repeat_interleave(xp, x, *, repeats, axis=None):
    if axis is not None:
        axis = real_dim(axis, x.ndim, "repeat_interleave")
    return xp.repeat(x, repeats, axis=axis)


def _repeat_interleave_grad(g, x_shape, repeats, axis, xp):
    if axis is None:
        n = 1
        for d in x_shape:
            n *= d
        a, shape = 0, (n,)
    else:
        a, shape = axis % len(x_shape), x_shape
    r = xp.broadcast_to(xp.asarray(repeats), (shape[a],))
    starts = xp.concatenate([xp.zeros(1, int), xp.cumsum(r)[:-1]])
    out = xp.add.reduceat(g, starts, axis=a) if g.shape[a] else xp.zeros(shape, g.dtype)
    out = out * (r > 0).reshape([-1 if i == a else 1 for i in range(len(shape))])
    return out.reshape(x_shape)


defop("repeat_interleave", _repeat_interleave, kind="other", inplace=False,
      grad=_repeat_interleave_grad)


def _gather(xp, x, index, *, axis):
    return xp.take_along_axis(x, index, axis)


def _gather_grad(g, x_shape, axis, index, xp):
    z = xp.zeros(x_shape, g.dtype)
    idx = _full_index(xp, index, axis)
    xp.add.at(z, idx, g)
    return z


def _full_index(xp, index, axis):
    """An advanced index that addresses ``x[..., index, ...]`` element by element."""
    a = axis % index.ndim
    grids = list(xp.indices(index.shape, sparse=True))
    grids[a] = index
    return tuple(grids)


defop("gather", _gather, kind="other", inplace=False, grad=(_gather_grad, None))


def _index_select(xp, x, index, *, axis=0):
    return xp.take(x, index, axis=axis)


def _index_select_grad(g, x_shape, axis, index, xp):
    z = xp.zeros(x_shape, g.dtype)
    a = axis % len(x_shape)
    xp.add.at(z, (slice(None),) * a + (index,), g)
    return z


defop("index_select", _index_select, kind="other", inplace=False,
      grad=(_index_select_grad, None))


def _masked_select(xp, x, mask):
    xb, mb = xp.broadcast_arrays(x, mask)
    return xb[mb]


def _masked_select_grad(g, x_shape, mask, xp):
    full = xp.broadcast_shapes(tuple(x_shape), mask.shape)
    z = xp.zeros(full, g.dtype)
    z[xp.broadcast_to(mask, full)] = g
    return z


defop("masked_select", _masked_select, kind="other", inplace=False,
      grad=(_masked_select_grad, None))
# clone keeps the memory order, as PyTorch's (preserve_format), so that as_strided and view see
# the same layout; contiguous() asks for C order
defop("clone", lambda xp, x, memory_format=None: x.copy(
          order="C" if memory_format == "contiguous" else "K"), kind="other", inplace=False,
      grad=lambda g: g)


def _astype(xp, x, *, dtype):
    from ..dtypes import to_numpy
    return x.astype(to_numpy(dtype))


defop("astype", _astype, kind="other", inplace=False,
      grad=lambda g, x_dtype: g.astype(x_dtype) if x_dtype.kind in "fc" else None)


def contiguous(x, memory_format=None):
    """``x`` itself when already contiguous, else a contiguous copy."""
    if x._data.flags.c_contiguous:
        return x
    return call(OPS["clone"], [x], {"memory_format": "contiguous"})


def _tril(xp, x, diagonal=0, out=None):
    return _into_tri(xp, xp.tril(_matrices(x, "tril"), diagonal), out)


def _triu(xp, x, diagonal=0, out=None):
    return _into_tri(xp, xp.triu(_matrices(x, "triu"), diagonal), out)


def _matrices(x, what):
    """``x``, a matrix or a batch of them (NumPy would take a vector as a matrix's row)."""
    if x.ndim < 2:
        raise ShapeError(f"{what}: input tensor must have at least 2 dimensions, got {x.ndim}")
    return x


def _into_tri(xp, r, out):
    if out is None:
        return r
    out[...] = r
    return out


defop("tril", _tril, kind="scan", grad=lambda g, diagonal, xp: xp.tril(g, diagonal))
defop("triu", _triu, kind="scan", grad=lambda g, diagonal, xp: xp.triu(g, diagonal))
