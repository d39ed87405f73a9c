"""How tensors pickle: ``copy.copy``, ``pickle``, multiprocessing queues, joblib, matplotlib.

Note [Pickled tensors]
    A tensor reduces to :func:`rebuild_tensor` and plain values: its class, a
    :class:`PickledStorage`, the dtype's name, shape, strides and offset (in bytes),
    ``requires_grad``, the place's name and the tensor's public attributes (``name``, a Paddle
    parameter's ``optimize_attr``, what the user set; as PyTorch keeps a tensor's ``__dict__``).
    The storage in turn reduces to
    :func:`rebuild_storage` and the raw bytes of the memory the tensor looks into. Unpickling
    calls only these two functions: the array is built from a dtype name on an allow-list
    (:data:`DTYPE_NAMES`), a shape and strides checked against the bytes present, and the class
    is only checked to be a Tensor class, never called (so no ``__init__``/``__setstate__`` of
    anything in the pickle runs).

    As in PyTorch: a tensor pickles whether or not it is a leaf; it comes back as a leaf that
    requires grad when the pickled one did (its history is not pickled), without ``.grad``.
    One :class:`PickledStorage` stands for a base and all its views (kept in the base's
    ``__dict__``; it holds no reference to the base), so the pickle memo writes a storage once:
    views of one base pickled together (``[x, x[1:]]``) share memory and the version counter
    after loading, as ``torch.save`` keeps them sharing a storage (PyTorch's plain pickle
    copies each view on its own; mutograd's whole-object checkpoints are pickles, so sharing
    here is what makes them keep views as ``torch.save`` does). ``copy.copy`` (which does not
    pickle) gives a tensor over the same memory and version counter. A tensor on a GPU pickles
    its own data from host memory (no sharing) and comes back on its place when that place
    exists here, else on the CPU.

    This is for objects in a process and between trusted processes; files go through
    ``mutograd.save``/``mutograd.load`` (mutograd/serialization), where a whole-object pickle
    is read only with ``weights_only=False``.

    >>> import pickle, mutograd as mg
    >>> x = mg.arange(4.0)
    >>> a, b = pickle.loads(pickle.dumps([x, x[1:]]))
    >>> a[1] = 9.0
    >>> b.tolist()
    [9.0, 2.0, 3.0]
"""
import numpy as np

from . import memory, places
from .autograd.node import VersionCounter
from .errors import PlaceError
from .places import CPU
from .tensor import Tensor, _fresh

# the dtypes a pickled tensor may name (mutograd's own; NumPy builds them from the name alone)
DTYPE_NAMES = frozenset(("bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                         "float32", "float64", "complex64", "complex128"))


class PickledStorage:
    """The memory of a base tensor as a pickle holds it: its bytes, once per pickle however
    many views of it are pickled (Note [Pickled tensors]). ``flat`` is a uint8 array over the
    memory, ``storage`` and ``counter`` the accounting record and version counter that the
    tensors rebuilt over it share."""

    __slots__ = ("counter", "flat", "source", "storage")

    def __init__(self, flat, storage, counter, source=None):
        self.flat, self.storage, self.counter, self.source = flat, storage, counter, source

    def __reduce__(self):
        return rebuild_storage, (self.flat.tobytes(),)


def rebuild_storage(data):
    """A :class:`PickledStorage` over a writable copy of the bytes ``data``."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"a pickled tensor storage holds bytes, not {type(data).__name__}")
    flat = np.frombuffer(bytearray(data), np.uint8)
    return PickledStorage(flat, memory.Storage(flat.nbytes), VersionCounter())


def rebuild_tensor(cls, storage, dtype, shape, strides, offset, requires_grad, place,
                   attrs=None):
    """A tensor of class ``cls`` over ``storage`` (Note [Pickled tensors]): what unpickling a
    tensor calls. Every argument is checked; the array is NumPy's view of the bytes with the
    allow-listed ``dtype``, which NumPy refuses when it would reach past them."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"a pickled tensor names the class {cls!r:.80}, not a Tensor class")
    if not isinstance(storage, PickledStorage):
        raise TypeError(f"a pickled tensor's storage is a {type(storage).__name__}")
    if dtype not in DTYPE_NAMES:
        raise TypeError(f"a pickled tensor has the dtype {dtype!r:.40}; mutograd reads "
                        f"{', '.join(sorted(DTYPE_NAMES))}")
    for values in (shape, strides, (offset,)):
        if not (isinstance(values, tuple) and all(type(v) is int for v in values)):
            raise TypeError(f"a pickled tensor's shape, strides and offset are ints, not "
                            f"{values!r:.80}")
    if 0 in shape:     # no element, nothing to point at
        arr = np.empty(shape, np.dtype(dtype))
    else:
        arr = np.ndarray(shape, np.dtype(dtype), buffer=storage.flat, offset=offset,
                         strides=strides)
    t = _fresh(arr, storage.storage, storage.counter, cls)
    where = _place_named(place)
    if where is not CPU:
        from .transfer import copy_array
        t = _fresh(copy_array(arr, CPU, where), memory.Storage(arr.nbytes, str(where)),
                   VersionCounter(), cls)
        t._place = where
    if requires_grad:
        t.requires_grad = True
    if attrs:
        if not (isinstance(attrs, dict) and all(isinstance(k, str) and not k.startswith("_")
                                                 for k in attrs)):
            raise TypeError(f"a pickled tensor's attributes are public names, not "
                            f"{attrs!r:.80}")
        t.__dict__.update(attrs)     # stored, never set through a setter of the class
    return t


def reduce_tensor(t):
    """``t.__reduce_ex__``'s answer (Note [Pickled tensors])."""
    attrs = {k: v for k, v in t.__dict__.items() if not k.startswith("_")} or None
    dtype = t._data.dtype.name
    if t._place is not CPU:    # host bytes of the tensor alone
        host = np.ascontiguousarray(t.cpu()._data)
        ref = PickledStorage(_bytes_of(host), None, None)
        return rebuild_tensor, (type(t), ref, dtype, host.shape, host.strides, 0,
                                t.requires_grad, str(t._place), attrs)
    base = t._base if t._base is not None else t
    ref = _storage_of(base)
    lo = _address(ref.flat)
    offset = _address(t._data) - lo
    extent = _extent(t._data)
    if extent[0] < lo or extent[1] > lo + ref.flat.nbytes:
        # the base's memory was replaced since the view was made: the view pickles alone
        ref = PickledStorage(_bytes_of(t._data), t._storage, t._counter)
        offset = _address(t._data) - _address(ref.flat)
    return rebuild_tensor, (type(t), ref, dtype, tuple(t._data.shape), tuple(t._data.strides),
                            offset, t.requires_grad, "cpu", attrs)


def _storage_of(base):
    """The base's :class:`PickledStorage`, made once per array it holds."""
    ref = base.__dict__.get("_pickled_storage")
    if ref is None or ref.source is not base._data:
        ref = PickledStorage(_bytes_of(base._data), base._storage, base._counter, base._data)
        base.__dict__["_pickled_storage"] = ref
    return ref


def _address(arr):
    return arr.__array_interface__["data"][0]


def _extent(arr):
    """The first and one-past-last byte addresses ``arr`` touches."""
    lo = hi = _address(arr)
    if arr.size == 0:
        return lo, hi
    for n, s in zip(arr.shape, arr.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + arr.itemsize


def _bytes_of(arr):
    """A uint8 array over all the memory ``arr`` touches (its elements and what lies between)."""
    lo, hi = _extent(arr)
    if hi == lo:
        return np.empty(0, np.uint8)
    first = arr[tuple(slice(-1, None) if s < 0 else slice(0, 1) for s in arr.strides)] \
        if arr.ndim else arr     # (indexing a 0-d array gives a scalar, not a view)
    start = first.reshape(1).view(np.uint8)   # the itemsize bytes at address lo
    return np.lib.stride_tricks.as_strided(start, (hi - lo,), (1,),
                                           writeable=arr.flags.writeable)


def _place_named(name):
    """The place called ``name`` when it exists here, else the CPU."""
    if name == "cpu":
        return CPU
    if not isinstance(name, str):
        raise TypeError(f"a pickled tensor's place is a name, not {name!r:.40}")
    try:
        return places.get(name)
    except PlaceError:
        return CPU
