"""Arrays with a batch dimension that the code computing on them does not see: vmap's values.

Note [Batched arrays]
    Inside ``vmap`` a batched tensor's ``_data`` is a :class:`BatchedArray`. Its ``value`` holds
    every sample, the batch along axis 0; the array presents the shape of one sample (its
    *logical* shape), so ops, their forwards and their gradient formulas run unchanged, written
    for one sample. It speaks NumPy's array interface: NumPy hands every function and ufunc
    called on it to ``__array_function__`` and ``__array_ufunc__`` (NEP 18 and 13), which run a
    batching rule (func/batching_rules.py) on the values, or, for a function without one, the
    function once per sample, stacking the results (the fallback, :func:`per_sample`).

    Nesting: ``value`` may itself be a BatchedArray of an outer vmap. Levels are numbered in
    the order vmaps start, so the innermost level is the outermost wrapper; a rule handles the
    highest level among its arguments and treats arrays of lower levels as unbatched there,
    which NumPy then dispatches again on the values, down to plain arrays.

    Where code needs one value (``if``, ``float()``, ``item()``), a batched array gives it when
    every sample holds the same one, so the same control flow is right for each (library checks
    such as "every target is in range" pass); PyTorch refuses them all. What vmap cannot batch
    raises :class:`VmapError`: such a value that differs between samples (data-dependent
    control flow), a batched array handed to NumPy as a plain one (``numpy()``), a batched value
    written into an unbatched array (an in-place write into a tensor made outside vmap, as
    PyTorch refuses), and results whose shapes differ from sample to sample.
"""
import numpy as np

from ..errors import MutogradError


class VmapError(MutogradError, RuntimeError, ValueError):
    """An operation vmap cannot run on batched values (Note [Batched arrays])."""


_CONTROL_FLOW = ("vmap: a batched value was used where one value is needed ({}): data-dependent "
                 "control flow (if, item(), float()) cannot follow a batch whose samples "
                 "differ. Compute with tensor ops instead (torch.where), or return the value "
                 "from the function.")


class BatchedArray:
    """A batch of arrays that shows the shape of one (Note [Batched arrays])."""

    __slots__ = ("__weakref__", "level", "value")
    __array_priority__ = 1000

    def __init__(self, value, level):
        self.value = value
        self.level = level

    # ---- what one sample looks like -------------------------------------------------------
    @property
    def shape(self):
        return self.value.shape[1:]

    @property
    def ndim(self):
        return self.value.ndim - 1

    @property
    def size(self):
        n = 1
        for d in self.value.shape[1:]:
            n *= d
        return n

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def itemsize(self):
        return self.value.itemsize

    @property
    def nbytes(self):   # every sample's bytes: what the memory counters should see
        return self.value.nbytes

    @property
    def strides(self):
        return self.value.strides[1:]

    @property
    def flags(self):
        return self.value.flags

    base = None   # never a view in the engine's ownership sense: its value is the array

    @property
    def device(self):
        return getattr(self.value, "device", "cpu")

    @property
    def T(self):   # noqa: N802 - NumPy's name
        return np.transpose(self)

    @property
    def mT(self):   # noqa: N802 - NumPy's name
        return np.swapaxes(self, -1, -2)

    @property
    def real(self):
        return np.real(self)

    @property
    def imag(self):
        return np.imag(self)

    def __len__(self):
        if self.value.ndim < 2:
            raise TypeError("len() of unsized object")
        return self.value.shape[1]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __repr__(self):
        return f"BatchedArray(level={self.level}, value={self.value!r})"

    # ---- NumPy's dispatch -----------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _rules.ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _rules.function(func, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise VmapError("vmap: a batched value reached NumPy as one plain array: an unbatched "
                        "array (a tensor made outside vmap) was written with, or indexed by, "
                        "batched values, or code converted it with numpy.asarray. Make that "
                        "tensor an input of vmap, write into a clone() of it, or return the "
                        "batched value from the function.")

    def _one(self, what):
        """The one value every sample has, for code that needs a single value (Note [Batched
        arrays]): the same control flow is then right for each sample. Samples that differ
        are data-dependent control flow, which a batch cannot follow."""
        if self.size != 1:
            raise VmapError(_CONTROL_FLOW.format(what))
        p = physical(self).reshape(-1)
        first = p[0]
        if p.size > 1 and not (p == first).all():
            raise VmapError(_CONTROL_FLOW.format(what) + " (the samples differ here)")
        return first.item()

    def __bool__(self):
        return bool(self._one("bool()"))

    def __float__(self):
        return float(self._one("float()"))

    def __int__(self):
        return int(self._one("int()"))

    def __index__(self):
        return int(self._one("an index"))

    def __complex__(self):
        return complex(self._one("complex()"))

    def item(self, *args):
        return self._one("item()")

    def tolist(self):
        self._one("tolist()")

    # ---- indexing -------------------------------------------------------------------------
    def __getitem__(self, index):
        return _rules.getitem(self, index)

    def __setitem__(self, index, value):
        _rules.setitem(self, index, value)

    # ---- methods: the NumPy functions of the same name ------------------------------------
    def reshape(self, *shape, order="C"):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return np.reshape(self, shape, order=order)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return np.transpose(self, axes or None)

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        return BatchedArray(self.value.astype(dtype, order=order, casting=casting, copy=copy),
                            self.level)

    def copy(self, order="C"):
        return BatchedArray(self.value.copy(order=order), self.level)

    __copy__ = copy

    def __deepcopy__(self, memo):
        return self.copy()

    def fill(self, value):
        if isinstance(value, BatchedArray):
            self[...] = value
        else:
            self.value.fill(value)

    def view(self, dtype=None, type=None):
        if dtype is None or np.dtype(dtype).itemsize == self.dtype.itemsize:
            return BatchedArray(self.value.view(dtype) if dtype is not None else
                                self.value.view(), self.level)
        raise VmapError("vmap: a view of a batched array as a dtype of another size")

    def flatten(self, order="C"):
        return np.copy(np.reshape(self, (-1,), order=order))

    def ravel(self, order="C"):
        return np.reshape(self, (-1,), order=order)

    def sort(self, axis=-1, kind=None, order=None):
        self[...] = np.sort(self, axis=axis, kind=kind, order=order)

    def __hash__(self):
        return id(self)


def _method(func):
    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)
    method.__name__ = func.__name__
    method.__doc__ = f"``numpy.{func.__name__}`` of the batch (Note [Batched arrays])."
    return method


for _f in (np.sum, np.mean, np.prod, np.max, np.min, np.std, np.var, np.any, np.all, np.argmax,
           np.argmin, np.cumsum, np.cumprod, np.clip, np.round, np.conjugate, np.nonzero,
           np.squeeze, np.repeat, np.take, np.dot, np.trace, np.diagonal, np.argsort, np.swapaxes,
           np.searchsorted, np.ptp, np.partition, np.argpartition, np.compress, np.put):
    setattr(BatchedArray, _f.__name__, _method(_f))
BatchedArray.conj = BatchedArray.conjugate


def _binary(ufunc, reflected=False):
    if reflected:
        def op(self, other):
            return ufunc(other, self)
    else:
        def op(self, other):
            return ufunc(self, other)
    return op


def _inplace(ufunc):
    def op(self, other):
        return ufunc(self, other, out=(self,))
    return op


for _name, _u in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                  ("truediv", np.true_divide), ("floordiv", np.floor_divide), ("mod", np.remainder),
                  ("pow", np.power), ("matmul", np.matmul), ("and", np.bitwise_and),
                  ("or", np.bitwise_or), ("xor", np.bitwise_xor), ("lshift", np.left_shift),
                  ("rshift", np.right_shift), ("divmod", np.divmod)):
    setattr(BatchedArray, f"__{_name}__", _binary(_u))
    setattr(BatchedArray, f"__r{_name}__", _binary(_u, reflected=True))
    if _name != "divmod":
        setattr(BatchedArray, f"__i{_name}__", _inplace(_u))
for _name, _u in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                  ("ge", np.greater_equal), ("eq", np.equal), ("ne", np.not_equal)):
    setattr(BatchedArray, f"__{_name}__", _binary(_u))
def _unary(ufunc):
    def op(self):
        return ufunc(self)
    return op


for _name, _u in (("neg", np.negative), ("pos", np.positive), ("abs", np.absolute),
                  ("invert", np.invert)):
    setattr(BatchedArray, f"__{_name}__", _unary(_u))


def physical(a):
    """The plain array under every level of ``a``."""
    while isinstance(a, BatchedArray):
        a = a.value
    return a


from . import batching_rules as _rules  # noqa: E402  (its rules build BatchedArrays)
