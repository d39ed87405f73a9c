"""Moving tensors between places: ``Tensor.to(place)``, ``.cuda()``, ``.cpu()``.

A move is differentiable: its backward node brings the gradient back to the source place, so
``x.to('gpu')`` used in a loss gives ``x.grad`` on ``x``'s own place. The copy is a new counted
storage on the target place; nothing is shared between places.
"""
import numpy as np

from . import places
from .autograd.grad_mode import _state
from .autograd.node import Node, edge_of
from .tensor import Tensor, _wrap


def copy_array(arr, src, dst):
    """``arr`` (on place ``src``) copied to place ``dst``, through the backends' own copies."""
    if src.kind != "cpu" and dst.kind == "cpu":
        return places.backend(src.kind).to_host(arr)
    if dst.kind != "cpu":
        return places.backend(dst.kind).to_device(arr, dst.index)
    return arr.copy()


class ToBackward(Node):
    """Backward of a move: the gradient goes back to the place the tensor came from."""

    __slots__ = ("dst", "src")

    def apply(self, g, into=None):
        return [copy_array(g, self.dst, self.src)]

    def apply_graph(self, g, out=None):
        return [to_place(g, self.src)]

    def name(self):
        return "ToCopyBackward0"


def to_place(x, place):
    """``x`` on ``place`` (``x`` itself when it is there already)."""
    dst = places.get(place)
    src = x._place
    if dst is src:
        return x
    out = on_place(copy_array(x._data, src, dst), dst)
    if x._rg and _state.enabled:
        node = ToBackward((edge_of(x),))
        node.src, node.dst = src, dst
        out.grad_fn = node
        out._rg = True
    return out


class _At:
    """Stands for "a main tensor on ``place``" where ``_wrap`` asks for one (it reads
    ``_place`` and ``_result_class``)."""

    __slots__ = ("_place",)
    _result_class = Tensor

    def __init__(self, place):
        self._place = place


def on_place(arr, place):
    """A new tensor owning ``arr``, which already lives on ``place`` (counted there)."""
    return _wrap(arr, _At(places.get(place)))


def cuda(self, device=None, non_blocking=False):
    """This tensor on GPU ``device`` (default: the current GPU)."""
    return to_place(self, "gpu" if device is None else
                    device if not isinstance(device, int) else f"gpu:{device}")



def place_of_array(arr):
    """The place of a backend array that is not a NumPy array (None for NumPy arrays)."""
    if type(arr) is np.ndarray:
        return None
    for kind, b in places._backends.items():
        if isinstance(arr, b.xp.ndarray):
            device = getattr(arr, "device", None)
            return places.get(f"{kind}:{getattr(device, 'id', 0)}")
    return None


def wrap_for_xp(arr, xp):
    """A new tensor owning ``arr``, an array of namespace ``xp``, on its place."""
    b = places.backend_of(xp)
    if b is None:
        return _wrap(arr)
    where = place_of_array(arr) or places.get(f"{b.kind}:{places._current[0]}")
    return on_place(arr, where)


# ---- zero-copy interop --------------------------------------------------------------------
_KDL_CPU, _KDL_CUDA = 1, 2


def from_dlpack(obj):
    """A tensor sharing memory with ``obj`` (anything with ``__dlpack__``: NumPy and CuPy
    arrays, PyTorch CPU or CUDA tensors, mutograd tensors). A CUDA producer gives a tensor on
    ``gpu:N``; nothing is copied.

        >>> import numpy as np, mutograd as mg
        >>> a = np.arange(3.0)
        >>> t = mg.from_dlpack(a)
        >>> t.data_ptr() == a.ctypes.data
        True
    """
    if isinstance(obj, Tensor):
        return obj.detach()
    dev_type, dev_id = obj.__dlpack_device__()
    if dev_type == _KDL_CPU:
        return _wrap(np.from_dlpack(obj))
    if dev_type != _KDL_CUDA:
        raise places.PlaceError(f"from_dlpack: device type {dev_type} is neither the CPU (1) "
                                f"nor CUDA (2)")
    place = places.get(f"gpu:{dev_id}")
    return on_place(place.xp.from_dlpack(obj), place)


def to_dlpack(t):
    """A DLPack capsule of ``t``'s memory (shared, not copied)."""
    return t.__dlpack__()


def _cuda_array_interface(self):
    """The CUDA array interface of a GPU tensor (shared memory; CuPy, Numba, PyTorch read it)."""
    if self._place.kind != "gpu":
        raise AttributeError("__cuda_array_interface__ exists only on GPU tensors; this one is "
                             f"on {self._place}")
    return self._data.__cuda_array_interface__


TENSOR_METHODS = {"cuda": cuda, "__cuda_array_interface__": property(_cuda_array_interface)}
