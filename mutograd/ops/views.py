"""View ops: results share storage and the version counter with their input (design.md table).

Each view op's forward returns a view of its input array, so the same forward replays a view's
chain on a gradient buffer (Note [Writing through a view]). ``reshape``/``flatten`` are views when
the strides allow and copies otherwise, as in PyTorch; ``view`` refuses to copy.

The view ops declared with an in-place form (``reshape_``, ``flatten_``, ``squeeze_``,
``unsqueeze_``, ``t_``, ``swapaxes_``, ``as_strided_``; ``transpose_``, ``swapaxes``' by
PyTorch's ``(dim0, dim1)`` or ``permute``'s by the keyword ``perm``) change the tensor's own
shape and strides and return it: Note [Metadata in place] in autograd/dispatch.py. ``undo``
gives the view step that takes the new geometry back to the old one, for the views made before
the change.
"""
from ..autograd.engine import RegionGrad
from ..autograd.graph_arrays import GraphArray, graph_mode
from ..errors import IndexRangeError, ShapeError
from .axes import canon_dim, is_axis, paddle_order, real_dim
from .registry import OPS, call, call_inplace, defop


def _reshape(xp, x, *, shape):
    try:
        return xp.reshape(x, shape, copy=False)
    except ValueError as e:
        if "copy" not in str(e):
            raise ShapeError(f"reshape: shape {list(shape)} is invalid for input of size "
                             f"{x.size}") from None
        return xp.reshape(x, shape)


def _view(xp, x, *, shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        raise TypeError("view(dtype) is not supported; use astype()")
    try:
        return xp.reshape(x, shape, copy=False)
    except ValueError as e:
        if "copy" in str(e):
            raise ShapeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None
        raise ShapeError(f"shape {list(shape)} is invalid for input of size {x.size}") from None


def _back(g, x_shape):
    """The gradient of every reshape."""
    return g.reshape(x_shape)

defop("reshape", _reshape, kind="view", varargs="shape", result="maybe_view", grad=_back)
defop("view", _view, kind="view", varargs="shape", grad=_back, inplace=False)


def _flatten(xp, x, start_axis=0, stop_axis=-1):
    a, b = canon_dim(start_axis, x.ndim, "flatten"), canon_dim(stop_axis, x.ndim, "flatten")
    if x.ndim == 0:
        return _reshape(xp, x, shape=(1,))
    n = 1
    for d in x.shape[a:b + 1]:
        n *= d
    return _reshape(xp, x, shape=x.shape[:a] + (n,) + x.shape[b + 1:])


defop("flatten", _flatten, kind="view", result="maybe_view", grad=_back)


def _unflatten(xp, x, *, axis, shape):
    a = real_dim(axis, x.ndim, "unflatten", ShapeError)
    shape, n = tuple(shape), x.shape[a]
    known = 1
    for s in shape:
        known *= s if s != -1 else 1
    if shape.count(-1) > 1 or (n != known if -1 not in shape else not known or n % known):
        # checked here: a reshape of an empty tensor would accept any sizes
        raise ShapeError(f"unflatten: provided sizes {list(shape)} don't multiply up to the "
                         f"size of dim {a} ({n}) in the input tensor")
    return xp.reshape(x, x.shape[:a] + tuple(shape) + x.shape[a + 1:], copy=False)


defop("unflatten", _unflatten, kind="view", grad=_back, inplace=False)
# the in-place form is ``transpose_(x, perm)``'s (Paddle), not published as ``permute_``
defop("permute", lambda xp, x, *, perm: xp.transpose(x, perm), kind="view", varargs="perm",
      inplace="internal", inplace_name="transpose_",
      undo=lambda old, attrs: (OPS["permute"], {"perm": tuple(_inverse(attrs["perm"],
                                                                        old.ndim))}),
      grad=lambda g, perm, xp: xp.transpose(g, _inverse(perm, g.ndim)))


def _inverse(perm, n):
    inv = [0] * n
    for i, p in enumerate(perm):
        inv[p % n] = i
    return inv


# ``swapaxes_`` (and ``swapdims_``) is PyTorch's ``transpose_(x, dim0, dim1)``: named so in messages
defop("swapaxes", lambda xp, x, *, axis0, axis1: xp.swapaxes(x, axis0, axis1), kind="view",
      inplace_name="transpose_", undo=lambda old, attrs: (OPS["swapaxes"], attrs),
      grad=lambda g, axis0, axis1, xp: xp.swapaxes(g, axis0, axis1),
      node_name="TransposeBackward")


def _t(xp, x):
    if x.ndim > 2:
        raise ShapeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return x.T


defop("t", _t, kind="view", undo=lambda old, attrs: (OPS["t"], {}), grad=lambda g: g.T)


def _squeeze(xp, x, axis=None):
    if axis is None:
        return xp.squeeze(x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = [canon_dim(a, x.ndim, "squeeze") for a in axes]
    axes = tuple(a for a in axes if x.ndim and x.shape[a] == 1)
    return xp.squeeze(x, axes) if axes else x[...]


def _unsqueeze(xp, x, *, axis):
    if isinstance(axis, int):
        return xp.expand_dims(x, axis)
    for a in axis:                 # Paddle: a list, applied in order
        x = xp.expand_dims(x, a)
    return x


defop("squeeze", _squeeze, kind="view", grad=_back)
defop("unsqueeze", _unsqueeze, kind="view", grad=_back)


def _expand(xp, x, *, shape):
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ShapeError(f"expand: the number of sizes provided ({len(shape)}) must be greater "
                         f"or equal to the number of dimensions in the tensor ({x.ndim})")
    full = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))
    try:
        r = xp.broadcast_to(x, full)
    except ValueError:
        raise ShapeError(f"expand: the expanded size {list(full)} must match the existing size "
                         f"{list(x.shape)} at non-singleton dimensions") from None
    if not getattr(r.flags, "writeable", True) and x.flags.writeable:
        # NumPy's broadcast_to result is read-only; the same geometry made writable lets fill_/zero_
        # (well defined on repeated elements) write, while element-wise writes are refused by
        # the overlap rule (registry.check_writable)
        r = xp.lib.stride_tricks.as_strided(x, r.shape, r.strides)
    return r


defop("expand", _expand, kind="view", varargs="shape", grad=lambda g: g, inplace=False)
defop("broadcast_to", _expand, kind="view", varargs="shape", keywords={"size": "shape"},
      grad=lambda g: g, inplace=False)


def _narrow(xp, x, *, axis, start, length):
    a = real_dim(axis, x.ndim, "narrow", ShapeError)
    n = x.shape[a]
    if not -n <= start <= n:   # an IndexError, as PyTorch's (a bad length is not)
        raise IndexRangeError(f"narrow: start out of range (expected to be in range of "
                              f"[{-n}, {n}], but got {start})")
    start = start + n if start < 0 else start
    if length < 0:
        raise ShapeError("narrow(): length must be non-negative")
    if start + length > n:
        raise ShapeError(f"narrow: start ({start}) + length ({length}) exceeds dimension size "
                         f"({n})")
    return x[(slice(None),) * a + (slice(start, start + length),)]


def _region_grad(fwd):
    """Gradient of a view that picks a region: ``g`` there, zero elsewhere (Note [Region
    gradients] in autograd/engine.py)."""
    def grad(g, x_shape, x_dtype, xp, **attrs):
        return RegionGrad(xp, x_shape, x_dtype, lambda z: fwd(xp, z, **attrs), g)
    return grad


def _select(xp, x, *, axis, index):
    a = real_dim(axis, x.ndim, "select")
    n = x.shape[a]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(x.shape)} at dimension {a}")
    return x[(slice(None),) * a + (index, ...)]   # the Ellipsis keeps a 0-d result a view


def _diagonal(xp, x, offset=0, axis1=0, axis2=1):
    """A writable diagonal view (NumPy's own is read-only)."""
    a1, a2 = canon_dim(axis1, x.ndim, "diagonal"), canon_dim(axis2, x.ndim, "diagonal")
    if a1 == a2:
        raise ShapeError(f"diagonal(): dimensions {axis1} and {axis2} are the same dimension")
    if type(x) is GraphArray:   # the region of a gradient in graph mode: a recorded view
        return x.diagonal(offset, a1, a2)
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    m = xp.transpose(x, rest + [a1, a2])
    m = m[..., :, offset:] if offset >= 0 else m[..., -offset:, :]
    n = max(0, min(m.shape[-2], m.shape[-1]))
    return xp.lib.stride_tricks.as_strided(m, m.shape[:-2] + (n,),
                                           m.strides[:-2] + (m.strides[-2] + m.strides[-1],))


def _getitem(xp, x, *, index):
    r = x[index]
    if type(r) is not type(x):    # all integers: NumPy gives a scalar; a 0-d view is wanted
        r = x[(index if isinstance(index, tuple) else (index,)) + (...,)]
    return r


def whole_index(index, shape):
    """Whether ``index`` is Ellipsis and slices, each the full range of its dimension as
    PyTorch's indexing recognises it: start 0 or omitted, step 1 or omitted, and a stop omitted
    or at least the size (``x[-n:]`` selects all of ``x`` too, but through a view there)."""
    items = index if isinstance(index, tuple) else (index,)
    if any(i is not Ellipsis and type(i) is not slice for i in items):
        return False
    if Ellipsis in items:
        k = items.index(Ellipsis)
        dims = list(shape[:k]) + list(shape[len(shape) - (len(items) - k - 1):])
        items = items[:k] + items[k + 1:]
    else:
        dims = shape[:len(items)]
    return all(i.start in (None, 0) and i.step in (None, 1) and (i.stop is None or i.stop >= n)
               for i, n in zip(items, dims))


def _getitem_grad(g, x_shape, x_dtype, xp, index):
    if graph_mode(xp):   # the gradient is a view where PyTorch's is (Note [Indexing gradients])
        if _alias_index(index, x_shape):
            return g if None not in _items(index) else g.reshape(x_shape)
        if type(index) is tuple and index and index[0] is None:
            z = xp.zeros((1,) + tuple(x_shape), x_dtype)
            z[(slice(None),) + index[1:]] = g
            return z.reshape(x_shape)
    return RegionGrad(xp, x_shape, x_dtype, lambda z: _getitem(xp, z, index=index), g)


# Note [Indexing gradients]
#     PyTorch's ``x[index]`` applies one view op per item, left to right, skipping whole slices
#     inside a tuple: None an unsqueeze, an int a select, a slice a slice; an index of nothing
#     else is an alias. Its gradient is that chain's backwards, right to left, so the last one
#     decides whether the gradient is a tensor of its own or a view: an alias gives the
#     incoming gradient itself, a first None (``x[None, 1]``) a squeeze of what the rest gives,
#     a first int or slice a new tensor. Under create_graph a write into the gradient shows
#     the difference, so ``_getitem_grad`` follows it there.


def _items(index):
    return index if type(index) is tuple else (index,)


def _alias_index(index, shape):
    """Whether PyTorch's indexing makes ``x[index]`` an alias or unsqueeze of ``x``, not a slice:
    a bare Ellipsis or None, or a tuple of those and of whole slices (a slice alone is a slice)."""
    if type(index) is slice:
        return False
    return whole_index(tuple(i for i in _items(index) if i is not None), shape)


for _name, _fwd in (("narrow", _narrow), ("select", _select), ("diagonal", _diagonal),
                    ("getitem", _getitem)):
    defop(_name, _fwd, kind="view", inplace=False,
          grad=_getitem_grad if _name == "getitem" else _region_grad(_fwd),
          method=_name != "getitem",
          node_name={"getitem": "SliceBackward"}.get(_name))


def _as_strided(xp, x, *, size, stride, storage_offset=0):
    """Strides and offset in elements, relative to the first element of a contiguous ``x``."""
    size, stride = tuple(size), tuple(stride)
    storage_offset = 0 if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise ShapeError(f"as_strided: size {list(size)} and stride {list(stride)} differ in "
                         f"length")
    if not x.flags.c_contiguous:
        raise ShapeError("as_strided needs a contiguous tensor; call .contiguous() first")
    last = storage_offset + sum((n - 1) * s for n, s in zip(size, stride) if n > 0)
    if storage_offset < 0 or min(stride, default=0) < 0 or (x.size and last >= x.size) or (
            not x.size and any(size)):
        raise ShapeError(f"as_strided: size {list(size)}, stride {list(stride)} and offset "
                         f"{storage_offset} reach outside the tensor's {x.size} elements")
    flat = x.reshape(-1)[storage_offset:]
    return xp.lib.stride_tricks.as_strided(flat, size, [s * x.itemsize for s in stride])


def _as_strided_grad(g, x_shape, size, stride, storage_offset, xp):
    n = 1
    for d in x_shape:
        n *= d
    idx = _as_strided(xp, xp.arange(n), size=size, stride=stride, storage_offset=storage_offset)
    z = xp.zeros(n, g.dtype)
    xp.add.at(z, idx, g)          # overlapping windows accumulate
    return z.reshape(x_shape)     # a view of the flat buffer, as PyTorch's as_strided_backward




def _as_strided_back(old, attrs):
    """Views made before ``as_strided_`` replay from the old, contiguous geometry."""
    return OPS["as_strided"], {"size": tuple(old.shape),
                               "stride": tuple(s // old.itemsize for s in old.strides),
                               "storage_offset": 0}


defop("as_strided", _as_strided, kind="view", undo=_as_strided_back, grad=_as_strided_grad)


def _unfold(xp, x, *, axis, size, step):
    """Windows of ``size`` elements every ``step`` along ``axis``, as a new last dimension
    (PyTorch's ``Tensor.unfold``); windows that overlap share memory, like an expand."""
    a = canon_dim(axis, x.ndim, "unfold")
    if x.ndim == 0:   # one element along dimension 0, as PyTorch's: [size] windows
        if not 0 <= size <= 1 or step < 1:
            raise ShapeError(f"unfold: size {size} and step {step} do not fit a 0-d tensor "
                             f"(one element along dimension 0)")
        return xp.lib.stride_tricks.as_strided(x, (size,), (x.itemsize,))
    if not 0 <= size <= x.shape[a] or step < 1:
        raise ShapeError(f"unfold: size {size} and step {step} do not fit dimension {a} of "
                         f"size {x.shape[a]}")
    n = (x.shape[a] - size) // step + 1
    return xp.lib.stride_tricks.as_strided(
        x, x.shape[:a] + (n,) + x.shape[a + 1:] + (size,),
        x.strides[:a] + (x.strides[a] * step,) + x.strides[a + 1:] + (x.strides[a],))


def _unfold_grad(g, x_shape, axis, size, step, xp):
    n = 1
    for d in x_shape:
        n *= d
    idx = _unfold(xp, xp.arange(n).reshape(x_shape), axis=axis, size=size, step=step)
    z = xp.zeros(x_shape, g.dtype)   # a tensor of its own, as PyTorch's unfold_backward
    xp.add.at(z.reshape(-1), idx, g)   # overlapping windows accumulate
    return z


defop("unfold", _unfold, kind="view", inplace=False, grad=_unfold_grad)


# ---- public helpers built on the view ops ---------------------------------------------------
def expand_as(x, y):
    """``x`` expanded to the shape of ``y`` (a view)."""
    return call(OPS["expand"], [x], {"shape": tuple(y.shape)})


def _sizes(n, sections, axis):
    if isinstance(sections, int):
        if sections <= 0:
            raise ValueError(f"split size must be positive, got {sections}")
        return [min(sections, n - i) for i in range(0, n, sections)] or [0]
    sections = list(sections)
    if -1 in sections:
        known = sum(s for s in sections if s != -1)
        sections[sections.index(-1)] = n - known
    if sum(sections) != n:
        raise ShapeError(f"split: sections {sections} do not add up to the size {n} of "
                         f"dimension {axis}")
    return sections


def split(x, split_size_or_sections, axis=0, dim=None):
    """Views of consecutive pieces along ``axis``: an int is each piece's size (PyTorch)."""
    axis = dim if dim is not None else axis
    a = real_dim(axis, x.ndim, "split", ShapeError)
    out, start = [], 0
    for s in _sizes(x.shape[a], split_size_or_sections, a):
        out.append(call(OPS["narrow"], [x], {"axis": a, "start": start, "length": s}))
        start += s
    return tuple(out)


def split_sections(x, num_or_sections, axis=0):
    """Paddle's ``split``: an int is the number of equal pieces."""
    a = real_dim(axis, x.ndim, "split", ShapeError)
    if isinstance(num_or_sections, int):
        n = x.shape[a]
        if n % num_or_sections:
            raise ShapeError(f"split: the size {n} of dimension {a} is not divisible by "
                             f"{num_or_sections}")
        num_or_sections = [n // num_or_sections] * num_or_sections
    return list(split(x, list(num_or_sections), a))


def chunk(x, chunks, axis=0, dim=None):
    """``chunks`` views of (nearly) equal size along ``axis``."""
    axis = dim if dim is not None else axis
    n = x.shape[real_dim(axis, x.ndim, "chunk", ShapeError)]
    if not isinstance(chunks, int) or chunks <= 0:
        raise ValueError(f"chunk expects `chunks` to be a positive int, got {chunks!r}")
    if not n:   # PyTorch: ``chunks`` empty pieces (a size-0 split would give one)
        return split(x, [0] * chunks, axis)
    return split(x, -(-n // chunks), axis)


def unbind(x, axis=0, dim=None):
    """Views of every index along ``axis``, with that axis removed."""
    axis = dim if dim is not None else axis
    a = real_dim(axis, x.ndim, "unbind")
    return tuple(call(OPS["select"], [x], {"axis": a, "index": i}) for i in range(x.shape[a]))


def T(x):
    return call(OPS["permute"], [x], {"perm": tuple(range(x.ndim - 1, -1, -1))})


def mT(x):
    if x.ndim == 0:   # PyTorch: the identity (a view) on a 0-d tensor
        return call(OPS["permute"], [x], {"perm": ()})
    return call(OPS["swapaxes"], [x], {"axis0": -2, "axis1": -1})


def _transpose_op(what, dim0, dim1, perm, axis0, axis1):
    """The view op and attributes of ``transpose``: PyTorch's two dimensions (``swapaxes``), or a
    permutation by the keyword ``perm`` (``permute``). A permutation in the place of ``dim0`` is
    Paddle's ``transpose(x, perm)``: refused, not reinterpreted."""
    if dim0 is not None and not is_axis(dim0):
        raise paddle_order(f"{what}(x, perm)", f"{what}(x, dim0, dim1), or mg.permute(x, perm)",
                           f"{what}(x, perm)", f"{what}(perm)")
    d0 = axis0 if dim0 is None else dim0
    d1 = axis1 if dim1 is None else dim1
    if perm is not None:
        if d0 is not None or d1 is not None:
            raise TypeError(f"{what}() takes two dimensions or perm=, not both")
        return OPS["permute"], {"perm": tuple(perm)}
    if d0 is None or d1 is None:
        raise TypeError(f"{what}() takes two dimensions: {what}(x, dim0, dim1)")
    return OPS["swapaxes"], {"axis0": d0, "axis1": d1}


def transpose(x, dim0=None, dim1=None, *, perm=None, axis0=None, axis1=None, name=None):
    """``x`` with dimensions ``dim0`` and ``dim1`` swapped (a view; PyTorch's order), or
    permuted by the keyword ``perm``. Paddle's ``transpose(x, perm)`` is
    ``mutograd.compat.paddle.transpose``; a list in second place is refused here.

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros([2, 3, 4])
        >>> mg.transpose(x, 0, 2).shape, mg.transpose(x, perm=[2, 0, 1]).shape
        ([4, 3, 2], [4, 2, 3])
    """
    op, attrs = _transpose_op("transpose", dim0, dim1, perm, axis0, axis1)
    if op is OPS["swapaxes"] and x.ndim == 0 and attrs["axis0"] in (0, -1) and \
            attrs["axis1"] in (0, -1):   # PyTorch: a 0-d tensor has dim 0/-1
        return call(OPS["permute"], [x], {"perm": ()})
    return call(op, [x], attrs)


def transpose_(x, dim0=None, dim1=None, *, perm=None, axis0=None, axis1=None, name=None):
    """In-place :func:`transpose`: ``x`` takes the geometry with ``dim0`` and ``dim1`` swapped
    (or permuted by ``perm=``); returns ``x``.

    Example::

        >>> import mutograd as mg
        >>> x = mg.zeros([2, 3])
        >>> mg.transpose_(x, 0, 1) is x, x.shape
        (True, [3, 2])
    """
    op, attrs = _transpose_op("transpose_", dim0, dim1, perm, axis0, axis1)
    if op is OPS["permute"]:
        perm = attrs["perm"]
        if sorted(p % max(x.ndim, 1) for p in perm) != list(range(x.ndim)):
            raise ShapeError(f"transpose_(): perm {list(perm)} is not a permutation of the "
                             f"{x.ndim} axes")
    return call_inplace(op, [x], attrs)


TENSOR_METHODS = {"T": property(T), "mT": property(mT)}
FUNCTIONS = {f.__name__: f for f in (expand_as, split, chunk, unbind, transpose, transpose_)}
