"""Ops that build new storage from existing data (cat, stack, flip, roll, tile, gather, clone,
tril...), and the functions that join, split and rearrange tensors composed from them and from
views: hstack/vstack/dstack/column_stack, tensor_split/hsplit/vsplit/dsplit (views),
atleast_1d/2d/3d, movedim, ravel, broadcast_tensors, broadcast_shapes, rot90, fliplr, flipud.

    >>> import mutograd as mg
    >>> mg.hstack([mg.ones([2]), mg.zeros([1])]).tolist()
    [1.0, 1.0, 0.0]
    >>> [t.shape for t in mg.tensor_split(mg.arange(5), 3)]
    [[2], [2], [1]]
    >>> mg.movedim(mg.zeros([2, 3, 4]), 0, -1).shape
    [3, 4, 2]
"""
import itertools

import numpy as np

from .. import memory
from ..errors import ShapeError
from ..tensor import Size, Tensor
from .axes import canon_dim, real_dim
from .registry import OPS, call, defop


def _cat(xp, xs, axis=0):
    if not xs:
        raise ValueError("cat(): expected a non-empty list of tensors")
    skip = _skipped([a.shape for a in xs])
    if skip:
        xs = [a for i, a in enumerate(xs) if i not in skip]
    return _c_order(xp, xp.concatenate(xs, axis=axis))


def _skipped(shapes):
    """The inputs ``cat`` leaves out: empty 1-D tensors (shape [0]) next to tensors of more
    dimensions, as in PyTorch (all but the first when every input is one)."""
    if all(len(s) == 1 for s in shapes):
        return ()
    skip = {i for i, s in enumerate(shapes) if s == (0,)}
    return skip - {0} if len(skip) == len(shapes) else skip


def _c_order(xp, r):
    """NumPy keeps its inputs' memory order; PyTorch's cat and stack give a contiguous result,
    so that reshaping or viewing it is a view there as here."""
    return r if r.flags.c_contiguous else xp.ascontiguousarray(r)


def _cat_grad(g, shapes, xp, axis=0):
    a = axis % g.ndim
    skip = _skipped(shapes)
    kept = [i for i in range(len(shapes)) if i not in skip]
    bounds, start = [], 0
    for i in kept:
        bounds.append(start)
        start += shapes[i][a]
    parts = dict(zip(kept, xp.split(g, bounds[1:], axis=a)))
    for i in kept:
        if shapes[i] == (0,):   # PyTorch's cat gives an empty 1-D input new zeros, no history
            parts[i] = xp.zeros_like(parts[i])
    return [parts.get(i) for i in range(len(shapes))]   # None: a skipped input has no gradient


# ``out=`` is accepted and ignored, as it was by the hand-written function these replace
cat = defop("cat", _cat, grad=_cat_grad, kind="variadic", keywords={"out": None}).function


def _stack(xp, xs, axis=0):
    if not xs:
        raise ValueError("stack(): expected a non-empty list of tensors")
    canon_dim(axis, xs[0].ndim + 1, "stack")   # checked before the shapes, as PyTorch does
    return _c_order(xp, xp.stack(xs, axis=axis))


stack = defop("stack", _stack, grad=lambda g, shapes, xp, axis=0: list(xp.moveaxis(g, axis, 0)),
              kind="variadic", keywords={"out": None}).function


def _flip(xp, x, *, axis):
    return xp.flip(x, axis if isinstance(axis, int) else tuple(axis)).copy()


defop("flip", _flip, kind="other", varargs="axis", inplace=False, layout="input",
      grad=lambda g, axis, xp: _flip(xp, g, axis=axis))


def _roll(xp, x, *, shifts, axis=None):
    return xp.roll(x, shifts, axis=axis)


defop("roll", _roll, kind="other", inplace=False, layout="C",
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


def _repeat_counts(repeats):
    """``repeats`` as a Python int or list of ints: CuPy's ``repeat`` takes neither a NumPy array
    nor a tensor, and a tensor on the device has to come to the host anyway (the result's shape
    depends on it)."""
    r = repeats.tolist() if hasattr(repeats, "tolist") else repeats
    return r[0] if isinstance(r, list) and len(r) == 1 else r   # one count serves every item


def _repeat_interleave(xp, x, *, repeats, axis=None):
    if axis is not None:
        axis = real_dim(axis, x.ndim, "repeat_interleave")
    return xp.repeat(x, _repeat_counts(repeats), axis=axis)


def _repeat_interleave_grad(g, x_shape, repeats, axis, xp):
    if axis is None:
        n = 1
        for d in x_shape:
            n *= d
        a, shape = 0, (n,)
    else:
        a, shape = axis % len(x_shape), x_shape
    r = xp.broadcast_to(xp.asarray(_repeat_counts(repeats)), (shape[a],))
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
    grids = list(xp.ix_(*[xp.arange(n) for n in index.shape]))
    grids[a] = index
    return tuple(grids)


def _flat_pos(xp, shape, index):
    """The flat positions in ``shape`` that a tuple of integer arrays addresses."""
    return xp.ravel_multi_index(tuple(xp.broadcast_arrays(*index)), shape)


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
def _copy_preserving(xp, x, dtype=None):
    """A copy of ``x`` laid out as PyTorch's ``preserve_format`` lays it out, so that as_strided
    and view see the same layout (Note [Result layouts] in ops/registry.py)."""
    r = memory.empty_preserving(xp, x, dtype)
    r[...] = x
    return r


# contiguous() asks for C order
defop("clone", lambda xp, x, memory_format=None: x.copy() if memory_format == "contiguous"
      else _copy_preserving(xp, x), kind="other", inplace=False, grad=lambda g: g)


def _astype(xp, x, *, dtype):
    from ..dtypes import to_numpy
    return _copy_preserving(xp, x, to_numpy(dtype))


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


defop("tril", _tril, kind="scan", layout="C", grad=lambda g, diagonal, xp: xp.tril(g, diagonal))
defop("triu", _triu, kind="scan", layout="C", grad=lambda g, diagonal, xp: xp.triu(g, diagonal))


# ---- joining -------------------------------------------------------------------------------
def hstack(tensors):
    """Join along dimension 1 (0 for 1-D tensors)."""
    ts = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(ts, 0 if all(t.ndim == 1 for t in ts) else 1)


def vstack(tensors):
    """Join along dimension 0, 1-D tensors as rows."""
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


def dstack(tensors):
    """Join along dimension 2 (tensors made at least 3-D as (1, N, 1) / (M, N, 1))."""
    def three(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1) if t.ndim == 2 else t
    return cat([three(t) for t in tensors], 2)


def column_stack(tensors):
    """Join as columns: 0-D and 1-D tensors become (N, 1)."""
    return cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)


# ---- splitting (views) ---------------------------------------------------------------------
def tensor_split(input, indices_or_sections, dim=0):
    """Views: ``n`` pieces as equal as possible (the first ``size % n`` one longer), or pieces
    cut at the listed indices."""
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"number of sections must be larger than 0, got {n}")
        cuts = list(itertools.accumulate([size // n + (i < size % n) for i in range(n)]))[:-1]
    else:
        cuts = list(indices_or_sections)
    out, start = [], 0
    for c in cuts + [size]:
        c = max(min(c, size), start)
        out.append(input.narrow(dim, start, c - start))
        start = c
    return tuple(out)


def _split_along(dim_of, name):
    def split(input, indices_or_sections):
        d = dim_of(input)
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise ShapeError(f"torch.{name} attempted to split along dimension {d}, but the "
                             f"size of the dimension {input.shape[d]} is not divisible by the "
                             f"split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dimension {name[0]} (PyTorch's ``{name}``)."
    return split


hsplit = _split_along(lambda x: 0 if x.ndim == 1 else 1, "hsplit")
vsplit = _split_along(lambda x: 0, "vsplit")
dsplit = _split_along(lambda x: 2, "dsplit")


# ---- rearranging ---------------------------------------------------------------------------
def _flat(tensors):
    """The tensors of ``f(a, b)`` or ``f([a, b])``, as a list."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def _atleast(n, tensors):
    out = []
    for t in tensors:
        while t.ndim < n:
            t = t.unsqueeze(0)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*tensors):
    """Each tensor with at least one dimension (a 0-d one as shape [1])."""
    return _atleast(1, _flat(tensors))


def atleast_2d(*tensors):
    """Each tensor with at least two dimensions (leading ones added)."""
    return _atleast(2, _flat(tensors))


def atleast_3d(*tensors):
    """At least three dimensions: a vector (n,) becomes (1, n, 1), a matrix (m, n) (m, n, 1)."""
    out = []
    for t in _flat(tensors):
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


def _dims(v):
    return [v] if isinstance(v, int) else list(v)


def movedim(x, source, destination):
    """``x`` with dimensions ``source`` moved to ``destination`` (a view)."""
    src = [s % x.ndim for s in _dims(source)]
    dst = [d % x.ndim for d in _dims(destination)]
    if len(src) != len(dst):
        raise ValueError(f"movedim: source and destination differ in length ({len(src)} vs "
                         f"{len(dst)})")
    rest = [i for i in range(x.ndim) if i not in src]
    order = [None] * x.ndim
    for s, d in zip(src, dst):
        order[d] = s
    it = iter(rest)
    order = [o if o is not None else next(it) for o in order]
    return x.permute(*order)


def ravel(input):
    """``input`` flattened (a view when possible)."""
    return input.reshape(-1)


def broadcast_tensors(*tensors):
    """The tensors expanded (as views) to their common broadcast shape."""
    ts = _flat(tensors)
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(t.expand(shape) for t in ts)   # (a tuple, so that shape () binds too)


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to."""
    return Size(np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s)
                                      for s in shapes]))


def rot90(x, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the
    second axis."""
    a, b = (d % x.ndim for d in dims)
    if a == b:
        raise ValueError(f"rot90: the two dims must differ, got {list(dims)}")
    k %= 4
    if k == 0:
        return x * 1
    if k == 2:
        return x.flip(a, b)
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return x.flip(b).permute(*perm) if k == 1 else x.permute(*perm).flip(b)


TENSOR_METHODS = {"fliplr": lambda self: self.flip(1), "flipud": lambda self: self.flip(0)}

FUNCTIONS = {f.__name__: f for f in (
    hstack, vstack, dstack, column_stack, tensor_split, hsplit, vsplit, dsplit, atleast_1d,
    atleast_2d, atleast_3d, movedim, ravel, broadcast_tensors, broadcast_shapes, rot90)}
FUNCTIONS.update({"row_stack": vstack, "moveaxis": movedim,
                  "fliplr": TENSOR_METHODS["fliplr"], "flipud": TENSOR_METHODS["flipud"]})
