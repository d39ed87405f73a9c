"""Gradient formulas evaluated on tensors, so that a gradient has a graph of its own.

Note [Differentiable gradient formulas]
    A gradient formula is written once, against an array namespace ``xp`` and NumPy's array
    interface (operators, ``.sum(axis=, keepdims=)``, ``.reshape``, ``z[idx] = g``,
    ``xp.add.at``). Without ``create_graph`` the engine calls it with backend arrays and ``xp``
    the backend module (NumPy or CuPy): the first-order path is untouched. With ``create_graph``
    it calls the same formula with :class:`GraphArray` values, each a tensor seen through
    NumPy's interface, and ``xp`` a :class:`GraphNamespace`: every operation runs as a mutograd
    op and records its backward node, so the gradient is itself differentiable, to any order
    (HIPS autograd's wrapped NumPy, with mutograd's ops as the primitives). Array code that
    writes (``z[idx] = g``, ``r *= 2``, ``xp.add.at``) runs as mutograd's in-place ops, so the
    version checks and the history rewriting of design.md rules 2-11 hold inside gradients too.
    ``into`` is None in graph mode; an ``out=`` given a GraphArray (a buffer the formula made
    with ``xp.empty``) is a recorded write into it, and one given a backend array is an error,
    never a silent write. A backend function without a differentiable counterpart here is an
    error that names it.
"""
import numpy as np

from ..errors import BackwardError
from .node import Node, edge_of

_mg = None


def _lib():
    global _mg
    if _mg is None:
        import mutograd
        _mg = mutograd
    return _mg


class GraphArray:
    """A tensor behind NumPy's array interface, for gradient formulas in graph mode."""

    __slots__ = ("t",)
    __array_ufunc__ = None   # ``ndarray * GraphArray`` defers to GraphArray.__rmul__
    base = None   # never a view in the engine's ownership sense (Note [Gradient ownership])

    def __init__(self, t):
        self.t = t

    # ---- metadata -------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple(self.t._data.shape)

    @property
    def ndim(self):
        return self.t._data.ndim

    @property
    def size(self):
        return self.t._data.size

    @property
    def dtype(self):
        return self.t._data.dtype

    @property
    def itemsize(self):
        return self.t._data.itemsize

    @property
    def nbytes(self):
        return self.t._data.nbytes

    @property
    def flags(self):
        return self.t._data.flags

    @property
    def strides(self):
        return self.t._data.strides

    def __len__(self):
        return len(self.t._data)

    def __repr__(self):
        return f"GraphArray({self.t._data!r})"

    def __array__(self, dtype=None, copy=None):
        raise BackwardError("a gradient formula handed a tensor to NumPy directly while "
                            "create_graph=True: use the xp it was given (Note [Differentiable "
                            "gradient formulas] in autograd/graph_arrays.py)")

    def __bool__(self):
        return bool(self.t._data)

    def __float__(self):
        return float(self.t._data)

    def __int__(self):
        return int(self.t._data)

    def __index__(self):
        return int(self.t._data)

    def item(self):
        return self.t._data.item()

    def tolist(self):
        return self.t._data.tolist()

    # ---- arithmetic -----------------------------------------------------------------------
    def _binary(self, other, fn):
        return box(fn(self.t, tensor_of(other, self.t)))

    def __add__(self, o): return self._binary(o, lambda a, b: a + b)   # noqa: E704
    def __radd__(self, o): return self._binary(o, lambda a, b: b + a)   # noqa: E704
    def __sub__(self, o): return self._binary(o, lambda a, b: a - b)   # noqa: E704
    def __rsub__(self, o): return self._binary(o, lambda a, b: _rop(b, a, "sub"))   # noqa: E704
    def __mul__(self, o): return self._binary(o, lambda a, b: a * b)   # noqa: E704
    def __rmul__(self, o): return self._binary(o, lambda a, b: b * a)   # noqa: E704
    def __truediv__(self, o): return self._binary(o, lambda a, b: a / b)   # noqa: E704
    def __rtruediv__(self, o): return self._binary(o, lambda a, b: _rop(b, a, "div"))  # noqa
    def __floordiv__(self, o): return self._binary(o, lambda a, b: a // b)   # noqa: E704
    def __rfloordiv__(self, o):   # noqa: E301
        return self._binary(o, lambda a, b: _rop(b, a, "floor_divide"))
    def __mod__(self, o): return self._binary(o, lambda a, b: a % b)   # noqa: E301, E704
    def __pow__(self, o): return self._binary(o, lambda a, b: a ** b)   # noqa: E704
    def __rpow__(self, o): return self._binary(o, lambda a, b: _rop(b, a, "pow"))   # noqa
    def __matmul__(self, o): return self._binary(o, lambda a, b: a @ b)   # noqa: E704
    def __rmatmul__(self, o): return self._binary(o, lambda a, b: _rop(b, a, "matmul"))  # noqa
    def __and__(self, o): return self._binary(o, lambda a, b: a & b)   # noqa: E704
    def __rand__(self, o): return self._binary(o, lambda a, b: a & b)   # noqa: E704
    def __or__(self, o): return self._binary(o, lambda a, b: a | b)   # noqa: E704
    def __ror__(self, o): return self._binary(o, lambda a, b: a | b)   # noqa: E704
    def __xor__(self, o): return self._binary(o, lambda a, b: a ^ b)   # noqa: E704
    def __rxor__(self, o): return self._binary(o, lambda a, b: a ^ b)   # noqa: E704
    def __lt__(self, o): return self._binary(o, lambda a, b: a < b)   # noqa: E704
    def __le__(self, o): return self._binary(o, lambda a, b: a <= b)   # noqa: E704
    def __gt__(self, o): return self._binary(o, lambda a, b: a > b)   # noqa: E704
    def __ge__(self, o): return self._binary(o, lambda a, b: a >= b)   # noqa: E704
    def __eq__(self, o): return self._binary(o, lambda a, b: a == b)   # noqa: E704
    def __ne__(self, o): return self._binary(o, lambda a, b: a != b)   # noqa: E704
    __hash__ = object.__hash__

    def __neg__(self):
        return box(-self.t)

    def __pos__(self):
        return self

    def __abs__(self):
        return box(_lib().abs(self.t))

    def __invert__(self):
        return box(~self.t)

    # in place: mutograd's own in-place ops, versioned and recorded (rules 2-11)
    def _inplace(self, other, name):
        getattr(self.t, name)(tensor_of(other, self.t))
        return self

    def __iadd__(self, o): return self._inplace(o, "add_")   # noqa: E704
    def __isub__(self, o): return self._inplace(o, "sub_")   # noqa: E704
    def __imul__(self, o): return self._inplace(o, "mul_")   # noqa: E704
    def __itruediv__(self, o): return self._inplace(o, "div_")   # noqa: E704

    def __getitem__(self, index):
        return box(self.t[raw_index(index)])

    def __setitem__(self, index, value):
        self.t[raw_index(index)] = tensor_of(value, self.t)

    # ---- NumPy's array methods ------------------------------------------------------------
    def sum(self, axis=None, keepdims=False, dtype=None):
        return _reduce("sum", self, axis, keepdims, dtype)

    def mean(self, axis=None, keepdims=False, dtype=None):
        return _reduce("mean", self, axis, keepdims, dtype)

    def prod(self, axis=None, keepdims=False, dtype=None):
        return _reduce("prod", self, axis, keepdims, dtype)

    def max(self, axis=None, keepdims=False):
        return _reduce("amax", self, axis, keepdims)

    def min(self, axis=None, keepdims=False):
        return _reduce("amin", self, axis, keepdims)

    def any(self, axis=None, keepdims=False):
        return _reduce("any", self, axis, keepdims)

    def all(self, axis=None, keepdims=False):
        return _reduce("all", self, axis, keepdims)

    def cumsum(self, axis=None):
        return namespace_call("cumsum", self, axis)

    def reshape(self, *shape, order="C"):
        if order != "C":
            raise BackwardError("a gradient formula reshaped in another order than C while "
                                "create_graph=True")
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return box(self.t.reshape(*shape) if shape else self.t.reshape([]))   # () is 0-d

    def ravel(self):
        return self.reshape(-1)

    flatten = ravel

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim))[::-1]
        return box(_lib().permute(self.t, axes))

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        return self.swapaxes(-1, -2)

    def swapaxes(self, a, b):
        return box(_lib().swapaxes(self.t, a, b))

    def squeeze(self, axis=None):
        return namespace_call("squeeze", self, axis)

    def astype(self, dtype, copy=True, **_):
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return box(self.t.clone()) if copy else self
        return box(_lib().cast(self.t, dtype))

    def conj(self):
        return box(_lib().conj(self.t)) if self.dtype.kind == "c" else self

    conjugate = conj

    @property
    def real(self):   # the Tensor properties: real and imag are no functions of mutograd's
        return box(self.t.real) if self.dtype.kind == "c" else self

    @property
    def imag(self):
        return box(self.t.imag)

    def copy(self, order="C"):
        return box(self.t.clone())

    def clip(self, lo=None, hi=None):
        return namespace_call("clip", self, lo, hi)

    def dot(self, other):
        return self @ other

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return box(_lib().diagonal(self.t, offset, axis1, axis2))

    def fill(self, value):
        with _lib().no_grad():
            self.t.fill_(value)


_REFLECTED = {"sub": "__rsub__", "div": "__rtruediv__", "floor_divide": "__rfloordiv__",
              "pow": "__rpow__", "matmul": "__rmatmul__"}


def _rop(b, a, name):
    """``b op a`` for a right-hand operator: ``b`` is a constant or scalar, ``a`` the tensor."""
    lib = _lib()
    if isinstance(b, (bool, int, float, complex)):   # one op with the scalar, as ``1 - t``
        return getattr(a, _REFLECTED[name])(b)
    if not isinstance(b, lib.Tensor):
        b = constant(b, a)
    return getattr(lib, name)(b, a)


def box(t):
    """``t`` as a GraphArray (a Python scalar stays one)."""
    return t if not isinstance(t, _lib().Tensor) else GraphArray(t)


def constant(a, like=None):
    """A backend array (or NumPy value) as a tensor with no history, on ``like``'s place."""
    from ..tensor import _wrap
    if hasattr(a, "dtype") and not isinstance(a, (np.ndarray, np.generic)):
        # an array of a place's own namespace: CuPy's, or a batched array inside vmap
        from ..places import CPU
        from ..transfer import _At
        return _wrap(a, like if like is not None else _At(CPU))
    a = np.asarray(a)
    if like is not None and like._place.kind != "cpu":
        from ..transfer import on_place
        return on_place(like._place.xp.asarray(a), like._place)
    return _wrap(a)


def tensor_of(a, like=None):
    """An operand of a recorded op: a GraphArray's tensor, a Python scalar as it is, an array
    as a constant tensor."""
    if type(a) is GraphArray:
        return a.t
    if isinstance(a, (bool, int, float, complex)) or a is None:
        return a
    if isinstance(a, _lib().Tensor):
        return a
    if isinstance(a, np.generic):
        return a.item()
    return constant(a, like)


def raw_index(index):
    """An index with its GraphArrays as plain arrays: an index has no gradient."""
    if type(index) is tuple:
        return tuple(raw_index(i) for i in index)
    if type(index) is GraphArray:
        return index.t._data
    if type(index) is list:
        return [raw_index(i) for i in index]
    return index


def _axis(axis):
    return list(axis) if type(axis) is tuple else axis


def _reduce(name, a, axis, keepdims, dtype=None):
    if axis == ():   # NumPy: no axis reduced
        return a if dtype is None else a.astype(dtype)
    lib = _lib()
    t = a.t if type(a) is GraphArray else tensor_of(a)
    if dtype is not None and np.dtype(dtype) != t._data.dtype:
        t = lib.cast(t, np.dtype(dtype))
    if name in ("any", "all"):
        r = getattr(lib, name)(t, axis=axis, keepdim=keepdims)
    else:
        r = getattr(lib, name)(t, axis=_axis(axis), keepdim=keepdims)
    return box(r)


def _like(args):
    for a in args:
        if type(a) is GraphArray:
            return a.t
    return None


def _tensors(args):
    """The operands as tensors: arrays and scalars become constants on the first tensor's
    place."""
    like = _like(args)
    out = []
    for a in args:
        t = tensor_of(a, like)
        out.append(t if isinstance(t, _lib().Tensor) else constant(np.asarray(t), like))
    return out


def _op(name, n_tensors=1, attrs=(), scalars_ok=True):
    """A namespace function calling ``mutograd.<name>`` on its first ``n_tensors`` arguments
    (as tensors, or Python scalars where the op takes them) and passing the rest on."""
    def call(*args, out=None, **kw):
        head, rest = args[:n_tensors], args[n_tensors:]
        like = _like(head)
        ts = [tensor_of(a, like) for a in head]
        if not scalars_ok:
            ts = [t if isinstance(t, _lib().Tensor) else constant(np.asarray(t), like)
                  for t in ts]
        for k, v in zip(attrs, rest):
            kw[k] = v
        return written(box(getattr(_lib(), name)(*ts, **kw)), out)
    call.__name__ = name
    return call


def written(r, out):
    """NumPy's ``out=``: ``r`` written into the GraphArray ``out`` (a recorded in-place write,
    so a buffer a formula fills keeps the history of what it is filled with)."""
    if out is None:
        return r
    if type(out) is not GraphArray:
        raise BackwardError("a gradient formula wrote into a backend array with out= while "
                            "create_graph=True (Note [Differentiable gradient formulas])")
    out[...] = r
    return out


def namespace_call(name, *args, **kw):
    """The namespace's function ``name`` (a GraphArray method NumPy spells the same way)."""
    return _FUNCTIONS[name](*args, **kw)


class _Ufunc:
    """A namespace function that also has NumPy's ``.at`` (an unbuffered in-place update)."""

    def __init__(self, fn, at=None, reduceat=None):
        self.fn = fn
        self._at = at
        self._reduceat = reduceat

    def __call__(self, *args, **kw):
        return self.fn(*args, **kw)

    def at(self, a, index, values=None):
        if self._at is None:
            raise BackwardError("a gradient formula used a ufunc's .at() that has no "
                                "differentiable form while create_graph=True")
        self._at(a, index, values)

    def reduceat(self, a, indices, axis=0):
        if self._reduceat is None:
            raise BackwardError("a gradient formula used a ufunc's .reduceat() that has no "
                                "differentiable form while create_graph=True")
        return self._reduceat(a, indices, axis)


def _add_at(a, index, values):
    """``np.add.at(a, index, values)`` as an accumulating index_put_ (repeats add up); its
    gradients (``g`` for ``a``, ``g[index]`` for the values) are themselves recorded ops."""
    lib = _lib()
    index = raw_index(index)
    values = tensor_of(values, a.t)
    if not isinstance(values, lib.Tensor):
        values = constant(np.asarray(values, a.dtype), a.t)
    lib.index_put_(a.t, index if type(index) is tuple else (index,), values, accumulate=True)


def _add_reduceat(a, indices, axis=0):
    """``np.add.reduceat``: the sums of ``a[indices[i]:indices[i + 1]]`` along ``axis`` (the one
    element ``a[indices[i]]`` where the next index is not larger), as the accumulating write of
    the picked elements into their segments."""
    a = _asarray(a)
    axis %= a.ndim
    starts = np.asarray(indices.tolist() if hasattr(indices, "tolist") else indices, np.int64)
    ends = np.append(starts[1:], a.shape[axis])
    lengths = np.where(starts < ends, ends - starts, 1)
    first = np.repeat(np.cumsum(lengths) - lengths, lengths)
    pos = np.repeat(starts, lengths) + np.arange(lengths.sum()) - first
    lead = (slice(None),) * axis
    out = _zeros(a.shape[:axis] + (len(starts),) + a.shape[axis + 1:], a.dtype, like=a.t)
    _add_at(out, lead + (np.repeat(np.arange(len(starts)), lengths),), a[lead + (pos,)])
    return out


def _split(a, indices_or_sections, axis=0):
    """``np.split`` as basic slices of ``a`` (recorded views); NumPy checks the sections."""
    lead = (slice(None),) * (axis % a.ndim)
    out = []
    for p in np.split(np.arange(a.shape[axis]), raw_index(indices_or_sections)):
        start = int(p[0]) if len(p) else 0
        out.append(a[lead + (slice(start, start + len(p)),)])
    return out


def _take(a, indices, axis=None):
    a = _asarray(a)
    if axis is None:
        return a.reshape(-1)[indices]
    return a[(slice(None),) * (axis % a.ndim) + (indices,)]


def _put_along_axis(arr, indices, values, axis):
    """``np.put_along_axis`` as a recorded write into ``arr`` (a buffer the formula made)."""
    if type(arr) is not GraphArray:
        raise BackwardError("a gradient formula wrote into a backend array with "
                            "put_along_axis while create_graph=True")
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    arange = arr.t._place.xp.arange
    index = []
    for d, n in enumerate(arr.shape):
        index.append(raw_index(indices) if d == axis % arr.ndim else
                     arange(n).reshape([n if k == d else 1 for k in range(arr.ndim)]))
    arr[tuple(index)] = values


def _broadcast_arrays(*args):
    if not any(type(a) is GraphArray for a in args):
        return np.broadcast_arrays(*args)   # positions (NumPy hands CuPy arrays to CuPy)
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    return [_broadcast_to(a, shape) for a in args]


def _where(cond, x=None, y=None):
    lib = _lib()
    if x is None:
        return tuple(constant(i) for i in np.nonzero(tensor_of(cond)._data))
    like = _like((cond, x, y))
    c = tensor_of(cond, like)
    if not isinstance(c, lib.Tensor):
        c = constant(np.asarray(c), like)
    xt, yt = tensor_of(x, like), tensor_of(y, like)
    if not isinstance(xt, lib.Tensor) and not isinstance(yt, lib.Tensor):
        dt = np.result_type(xt, yt)
        xt, yt = constant(np.asarray(xt, dt), like), constant(np.asarray(yt, dt), like)
    return box(lib.where(c, xt, yt))


def _zeros(shape, dtype=float, order="C", like=None):
    # the place's own namespace: inside vmap it makes a buffer with room for every sample
    from ..places import CPU
    return box(constant((CPU if like is None else like._place).xp.zeros(shape, dtype), like))


def _like_creation(fill):
    def make(a, dtype=None, shape=None, **_):
        t = tensor_of(a)
        tensor = isinstance(t, _lib().Tensor)
        arr = t._data if tensor else np.asarray(t)
        r = (t._place.xp if tensor else np).full(arr.shape if shape is None else shape, fill,
                                                 arr.dtype if dtype is None else dtype)
        return box(constant(r, t if tensor else None))
    return make


def _asarray(a, dtype=None, **_):
    if type(a) is GraphArray:
        return a if dtype is None or np.dtype(dtype) == a.dtype else a.astype(dtype)
    if isinstance(a, _lib().Tensor):
        return box(a)
    if hasattr(a, "dtype") and not isinstance(a, (np.ndarray, np.generic)):
        return box(constant(a if dtype is None else a.astype(dtype)))
    return box(constant(np.asarray(a, dtype)))


def _broadcast_to(a, shape):
    t = tensor_of(a)
    if not isinstance(t, _lib().Tensor):
        t = constant(np.asarray(t))
    # a new view even to the same shape, as PyTorch's expand: never the tensor it was given
    return box(_lib().broadcast_to(t, *shape) if shape else t.reshape([]))


def _expand_dims(a, axis):
    t = tensor_of(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = t.ndim + len(axes)
    for ax in sorted(x % nd for x in axes):
        t = _lib().unsqueeze(t, ax)
    return box(t)


def _einsum(eq, *ops, out=None, optimize=None, dtype=None):
    like = _like(ops)
    ts = [t if isinstance(t, _lib().Tensor) else constant(t, like)
          for t in (tensor_of(o, like) for o in ops)]
    if dtype is not None:   # NumPy's dtype=: the operands cast first, as einsum computes
        ts = [t if t._data.dtype == np.dtype(dtype) else _lib().cast(t, np.dtype(dtype))
              for t in ts]
    return written(box(_lib().einsum(eq, *ts)), out)


def _concatenate(arrays, axis=0):
    like = _like(arrays)
    return box(_lib().cat([tensor_of(a, like) if type(a) is GraphArray else constant(a, like)
                           for a in arrays], axis=axis))


def _stack(arrays, axis=0):
    like = _like(arrays)
    return box(_lib().stack([tensor_of(a, like) if type(a) is GraphArray else constant(a, like)
                             for a in arrays], axis=axis))


def _moveaxis(a, src, dst):
    return box(_lib().moveaxis(tensor_of(a), src, dst))


def _transpose(a, axes=None):
    return a.transpose(*(() if axes is None else (axes,)))


def _take_along_axis(a, idx, axis):
    return box(_lib().take_along_axis(tensor_of(a), constant(raw_index(idx)), axis,
                                      broadcast=False))


def _reshape(a, shape, order="C"):
    return a.reshape(shape, order=order) if type(a) is GraphArray else \
        box(constant(np.reshape(a, shape, order=order)))


def _result_type(*args):
    return np.result_type(*[a.dtype if type(a) is GraphArray else a for a in args])


def _flip(a, axis=None):
    t = tensor_of(a)
    axes = tuple(range(t.ndim)) if axis is None else (
        tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    return box(_lib().flip(t, *axes))


def _squeeze(a, axis=None):
    t = tensor_of(a)
    if axis is None:
        return box(_lib().squeeze(t))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    for ax in sorted((x % t.ndim for x in axes), reverse=True):
        t = _lib().squeeze(t, ax)
    return box(t)


def _cum(name):
    def call(a, axis=None, dtype=None, out=None):
        t = tensor_of(a)
        if axis is None:
            t, axis = t.reshape(-1), 0
        return written(box(getattr(_lib(), name)(t, axis=axis)), out)
    return call


def _tril(name):
    def call(a, k=0):
        return box(getattr(_lib(), name)(tensor_of(a), k))
    return call


def _clip(a, lo=None, hi=None, out=None):
    like = tensor_of(a)
    return written(box(_lib().clamp(like, tensor_of(lo, like), tensor_of(hi, like))), out)


def _outer(a, b):
    return box(_lib().outer(*[t.reshape(-1) for t in _tensors((a, b))]))


def _tensordot(a, b, axes=2):
    return box(_lib().tensordot(*_tensors((a, b)), axes))


def _pad(a, pad_width, mode="constant", constant_values=0):
    t = tensor_of(a)
    if mode != "constant":
        raise BackwardError(f"pad(mode={mode!r}) in a gradient formula while create_graph=True")
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (t.ndim, 2))
    flat = []
    for lo, hi in widths[::-1]:   # mutograd's pad lists the last axis first (PyTorch's order)
        flat += [int(lo), int(hi)]
    return box(_lib().nn.functional.pad(t, flat, value=constant_values))


class _Linalg:
    """``xp.linalg`` in graph mode."""

    def __getattr__(self, name):
        fn = getattr(_lib().linalg, name, None)
        if fn is None or not callable(fn):
            raise BackwardError(f"a gradient formula called xp.linalg.{name}, which has no "
                                f"differentiable form here, while create_graph=True")

        def call(*args, **kw):
            r = fn(*[tensor_of(a) if type(a) is GraphArray else a for a in args], **kw)
            if isinstance(r, tuple):
                return tuple(box(p) for p in r)
            return box(r)
        return call


class _Special:
    """``scipy.special`` (``backends.special.module``) in graph mode: mutograd's special-function
    ops under SciPy's names, so a derivative that is a higher special function (digamma's
    polygamma, i0's i1) is differentiable again."""

    _NAMES = {"gammaln": "lgamma"}

    def polygamma(self, n, x):   # SciPy's order first, an array or a number
        return box(_lib().polygamma(int(n), tensor_of(x)))

    def __getattr__(self, name):
        fn = getattr(_lib(), self._NAMES.get(name, name), None)
        if fn is None or not callable(fn):
            raise BackwardError(f"a gradient formula called the special function {name}, which "
                                f"has no differentiable form here, while create_graph=True")

        def call(*args):
            return box(fn(*_tensors(args)))
        return call


class _Fft:
    """``xp.fft`` in graph mode: ``mutograd.fft``'s transforms under NumPy's keywords (``axes``
    and ``axis`` are their ``dim``), so that a Fourier transform's gradient, itself a transform
    (Note [Fourier gradients] in ops/fourier.py), is differentiable again."""

    def __getattr__(self, name):
        fn = getattr(_lib().fft, name, None)
        if fn is None or not callable(fn):
            raise BackwardError(f"a gradient formula called xp.fft.{name}, which has no "
                                f"differentiable form here, while create_graph=True")

        def call(a, *args, **kw):
            for numpy_name in ("axes", "axis"):
                if numpy_name in kw:
                    kw["dim"] = kw.pop(numpy_name)
            return box(fn(tensor_of(a), *args, **kw))
        return call


_FUNCTIONS = {
    # element-wise
    "add": _Ufunc(_op("add", 2), _add_at, _add_reduceat), "subtract": _op("sub", 2),
    "multiply": _op("mul", 2),
    "true_divide": _op("div", 2), "divide": _op("div", 2), "negative": _op("neg"),
    "power": _op("pow", 2), "floor_divide": _op("floor_divide", 2), "fmod": _op("fmod", 2),
    "remainder": _op("remainder", 2), "maximum": _op("maximum", 2, scalars_ok=False),
    "minimum": _op("minimum", 2, scalars_ok=False), "exp": _op("exp"), "expm1": _op("expm1"),
    "log": _op("log"), "log1p": _op("log1p"), "sqrt": _op("sqrt"), "square": _op("square"),
    "sin": _op("sin"), "cos": _op("cos"), "tan": _op("tan"), "tanh": _op("tanh"),
    "sinh": _op("sinh"), "cosh": _op("cosh"), "exp2": _op("exp2"), "arctan": _op("atan"),
    "abs": _op("abs"),
    "absolute": _op("abs"), "sign": _op("sign"), "reciprocal": _op("reciprocal"),
    "floor": _op("floor"), "ceil": _op("ceil"), "trunc": _op("trunc"), "round": _op("round"),
    "logaddexp": _op("logaddexp", 2, scalars_ok=False), "sinc": _op("sinc"),
    "arctan2": _op("atan2", 2, scalars_ok=False), "hypot": _op("hypot", 2, scalars_ok=False),
    "copysign": _op("copysign", 2), "conjugate": lambda a: a.conj() if type(a) is GraphArray
    else a, "conj": lambda a: a.conj() if type(a) is GraphArray else a,
    "isnan": _op("isnan"), "isinf": _op("isinf"), "isfinite": _op("isfinite"),
    "signbit": _op("signbit"), "logical_not": _op("logical_not"),
    "logical_and": _op("logical_and", 2), "logical_or": _op("logical_or", 2),
    "invert": lambda a: ~a, "greater": lambda a, b: a > b,
    "equal": lambda a, b: a == b, "where": _where, "clip": _clip,
    # reductions
    "sum": lambda a, axis=None, keepdims=False, dtype=None: _reduce("sum", a, axis, keepdims,
                                                                     dtype),
    "mean": lambda a, axis=None, keepdims=False: _reduce("mean", a, axis, keepdims),
    "prod": lambda a, axis=None, keepdims=False: _reduce("prod", a, axis, keepdims),
    "amax": lambda a, axis=None, keepdims=False: _reduce("amax", a, axis, keepdims),
    "amin": lambda a, axis=None, keepdims=False: _reduce("amin", a, axis, keepdims),
    "any": lambda a, axis=None, keepdims=False: _reduce("any", a, axis, keepdims),
    "all": lambda a, axis=None, keepdims=False: _reduce("all", a, axis, keepdims),
    "cumsum": _cum("cumsum"), "cumprod": _cum("cumprod"),
    # shapes
    "reshape": _reshape, "broadcast_to": _broadcast_to, "expand_dims": _expand_dims,
    "moveaxis": _moveaxis, "swapaxes": lambda a, x, y: box(_lib().swapaxes(tensor_of(a), x, y)),
    "transpose": _transpose, "squeeze": _squeeze, "flip": _flip,
    "ravel": lambda a: a.reshape(-1), "concatenate": _concatenate, "stack": _stack,
    "tril": _tril("tril"), "triu": _tril("triu"), "pad": _pad,
    "take_along_axis": _take_along_axis, "put_along_axis": _put_along_axis, "split": _split,
    "take": _take, "broadcast_arrays": _broadcast_arrays,
    "roll": lambda a, shift, axis=None: box(_lib().roll(tensor_of(a), shift, axis)),
    # products
    "matmul": _op("matmul", 2, scalars_ok=False), "einsum": _einsum, "outer": _outer,
    "tensordot": _tensordot, "dot": lambda a, b: a @ b,
    # creation: constants (no history)
    "asarray": _asarray, "array": _asarray, "ascontiguousarray": _asarray,
    "zeros": _zeros, "empty": _zeros, "zeros_like": _like_creation(0),
    "ones_like": _like_creation(1), "empty_like": _like_creation(0),
    "full_like": lambda a, v, dtype=None: _like_creation(v)(a, dtype),
    "result_type": _result_type,
}
_FUNCTIONS["linalg"] = _Linalg()
_FUNCTIONS["special"] = _Special()
_FUNCTIONS["fft"] = _Fft()


def _on_values(fn):
    """A backend function that computes indices, masks or constants: run on the values (a
    result with no gradient needs no history)."""
    def call(*args, **kw):
        return fn(*[raw_index(a) for a in args], **{k: raw_index(v) for k, v in kw.items()})
    return call


# functions whose results carry no gradient: positions, counts, masks and fresh constants
_ON_VALUES = {"ix_", "arange", "unravel_index", "ravel_multi_index", "unique", "count_nonzero",
              "nonzero", "argsort", "argmax", "argmin", "searchsorted", "isin", "bincount",
              "eye", "ones", "full", "indices", "isclose", "iscomplexobj", "may_share_memory",
              "array_equal", "shape", "ndim", "broadcast_shapes"}


class GraphNamespace:
    """The ``xp`` a gradient formula gets in graph mode: NumPy's names over mutograd ops.

    Constants, dtypes and functions that only inspect (``result_type``, ``iinfo``) come from
    the backend module; a function without a differentiable form here raises."""

    ndarray = GraphArray

    def __init__(self, backend):
        self.backend = backend if backend is not None else np

    def recorded(self, name, *args, **attrs):
        """The declared op ``name`` on ``args``, recorded as one node (Note [Fused gradients]
        in ops/registry.py)."""
        like = _like(args)
        return box(_lib().ops.OPS[name].function(*[tensor_of(a, like) for a in args], **attrs))

    def __getattr__(self, name):
        fn = _FUNCTIONS.get(name)
        if fn is not None:
            return fn
        val = getattr(self.backend, name)
        if name in _ON_VALUES:
            return _on_values(val)
        if not callable(val) or isinstance(val, type) or name in _PASSTHROUGH:
            return val
        raise BackwardError(f"a gradient formula called xp.{name}, which has no differentiable "
                            f"form here, while create_graph=True (Note [Differentiable gradient "
                            f"formulas] in autograd/graph_arrays.py)")


# backend functions that only read dtypes or shapes
_PASSTHROUGH = {"dtype", "iinfo", "finfo", "broadcast_shapes", "can_cast", "promote_types",
                "issubdtype", "iscomplexobj"}

# Note [Gradients at a kink, differentiated again]
#     relu's gradient is the incoming one where the input was positive: a mask, which has no
#     derivative, times ``g``. Evaluated on tensors, ``g * mask`` then needs no gradient when
#     ``g`` needs none, and a second derivative of ``relu(x).sum()`` finds no path to ``x``.
#     PyTorch's backward of relu, abs, hardtanh, leaky_relu and max pooling takes the input as
#     an argument with a zero derivative (threshold_backward, sgn), so that gradient requires
#     grad and differentiating it gives zeros. An op declared with ``kink=True`` gets the same:
#     under create_graph its gradient of each input carries a :class:`KinkBackward` node with
#     a second edge, which passes zeros: to the op's own node when the formula reads the output
#     (as PyTorch's edge goes to the saved result, through that tensor's hooks), else to the
#     input.


class KinkBackward(Node):
    """The gradient of a kinked op's input: ``next[0]`` the masked gradient's own history,
    ``next[1]`` the op's output or input, whose gradient here is zero."""

    __slots__ = ("shape", "dtype", "like")

    def apply(self, g, into=None):
        return [g, self.like._place.xp.zeros(self.shape, self.dtype)]

    def apply_graph(self, g, out=None):
        return [g, constant(self.like._place.xp.zeros(self.shape, self.dtype), self.like)]


def with_kink_edge(t, edge, shape, dtype):
    """Tensor ``t`` (a gradient just computed) with a zero edge of ``shape`` and ``dtype`` to
    ``edge`` (Note [Gradients at a kink, differentiated again])."""
    from ..tensor import _alias
    node = KinkBackward((edge_of(t) if t._rg else None, edge))
    node.shape, node.dtype, node.like = shape, dtype, t
    r = _alias(t, t._data)   # a new tensor: ``t`` may be one the caller holds
    r.grad_fn, r._rg = node, True
    return r


_GRAPH_NS = {}


def graph_namespace(xp):
    ns = _GRAPH_NS.get(xp)
    if ns is None:
        ns = _GRAPH_NS[xp] = GraphNamespace(xp)
    return ns


def graph_mode(xp):
    """Whether a gradient formula given ``xp`` runs in graph mode. Values kept from the forward
    (Note [Values kept from the forward] in ops/registry.py) come to it as constants there, with
    no history: a formula whose kept values depend on its inputs recomputes them from its saved
    inputs when this is true."""
    return type(xp) is GraphNamespace


__all__ = ["GraphArray", "GraphNamespace", "KinkBackward", "box", "graph_mode", "graph_namespace",
           "with_kink_edge"]
