"""Arrays built from what a file declares and holds, and from nothing else.

A file gives a dtype **name** (looked up in :data:`STORED`, the allow-list), a byte order, a shape,
strides and an offset (in elements), and a buffer of the bytes it actually holds.
:func:`build` checks that every element lies inside those bytes and charges the result to the
load's :class:`~mutograd.serialization.budget.Budget` before allocating it, then copies the
elements into a new native, C-ordered, writable array, widened to a dtype mutograd has. No
object of the file is asked to restore itself, and no memory the file did not fill is returned.

    >>> import numpy as np
    >>> from mutograd.serialization.budget import Budget
    >>> data = np.arange(6, dtype=">f4").tobytes()          # big-endian, as a file may hold them
    >>> build(data, "float32", (2, 2), strides=(1, 2), byteorder=">", budget=Budget("f", 24),
    ...       what="w").tolist()
    [[0.0, 2.0], [1.0, 3.0]]
"""
import math
import sys

import numpy as np

from ..errors import CheckpointError

# dtype name (PyTorch's spelling) -> (NumPy dtype of the stored bytes, NumPy dtype mutograd reads
# it as). bool is stored as bytes so that any nonzero byte reads as True.
STORED = {
    "bool": ("uint8", "bool"), "uint8": ("uint8", "uint8"), "int8": ("int8", "int8"),
    "int16": ("int16", "int16"), "int32": ("int32", "int32"), "int64": ("int64", "int64"),
    "float16": ("float16", "float16"), "float32": ("float32", "float32"),
    "float64": ("float64", "float64"), "complex64": ("complex64", "complex64"),
    "complex128": ("complex128", "complex128"),
    "uint16": ("uint16", "int32"), "uint32": ("uint32", "int64"), "uint64": ("uint64", "int64"),
    "bfloat16": ("uint16", "float32"), "float8_e4m3fn": ("uint8", "float32"),
    "float8_e5m2": ("uint8", "float32"),
}
WIDENED = {name for name, (stored, target) in STORED.items() if stored != target and
           name != "bool"}
# NumPy's type codes ('f4', '<i8' without the order) -> dtype name, for .npy headers and pickles
NUMPY_CODES = {np.dtype(name).str[1:]: name for name in STORED
               if name not in ("bfloat16", "float8_e4m3fn", "float8_e5m2")}
BYTE_ORDERS = {"<": "<", ">": ">", "|": "<", "=": "="}
MAX_NDIM = 64            # NumPy's own limit
_MAX_DIM = _INT64_MAX = 2 ** 63 - 1


class RawTensor:
    """An array read from a file, in the dtype mutograd reads it as, with what the file said
    about it (its dtype name, as stored, for the widening warning; PyTorch's flags and device).
    ``key`` identifies it in the file, so that one tensor met twice becomes one tensor."""

    __slots__ = ("array", "dtype_name", "requires_grad", "parameter", "location", "key")

    def __init__(self, array, dtype_name, key, location="cpu"):
        self.array, self.dtype_name, self.key, self.location = array, dtype_name, key, location
        self.requires_grad = self.parameter = False


def stored_dtypes(dtype_name, source, what, widen=True):
    """``(stored, target)`` NumPy dtypes of an allow-listed dtype name (``widen=False``: a NumPy
    dtype is read as itself); any other name is refused, naming it."""
    if not isinstance(dtype_name, str) or dtype_name not in STORED:
        raise CheckpointError(f"{source}: {what} has the dtype {dtype_name!r:.40}, which mutograd "
                              f"cannot read (it reads {', '.join(sorted(STORED))})")
    stored, target = STORED[dtype_name]
    if not widen and dtype_name in NUMPY_CODES.values():
        target = dtype_name
    return np.dtype(stored), np.dtype(target)


def dims(values, kind, source, what):
    """``values`` (a shape, strides) as a tuple of Python ints in [0, 2**63), or refused."""
    if not isinstance(values, (tuple, list)) or len(values) > MAX_NDIM or not all(
            type(v) is int and 0 <= v <= _MAX_DIM for v in values):
        from .text import shown
        raise CheckpointError(f"{source}: {what} has the {kind} {shown(values)}; a {kind} is a "
                              f"tuple of at most {MAX_NDIM} integers >= 0")
    return tuple(values)


def build(buffer, dtype_name, shape, *, budget, what, byteorder="<", offset=0, strides=None,
          fortran=False, whole=False, widen=True):
    """A new array of the elements of ``buffer`` (bytes-like) that an array of ``dtype_name``
    and ``shape`` has from element ``offset`` with ``strides`` (in elements; None: contiguous,
    C order or ``fortran``), read in ``byteorder`` ('<', '>', '|' or '=') and widened to the
    dtype mutograd reads ``dtype_name`` as (``widen=False``: a NumPy dtype stays itself).
    ``whole``: the array must be exactly ``buffer``.

    Every element is checked to lie inside ``buffer`` and the result is charged to ``budget``
    before it is allocated; each of its elements is then written from ``buffer``."""
    source = budget.source
    stored, target = stored_dtypes(dtype_name, source, what, widen)
    if byteorder not in BYTE_ORDERS or (byteorder == "|" and stored.itemsize > 1):
        raise CheckpointError(f"{source}: {what} ({dtype_name}) has the byte order "
                              f"{byteorder!r:.20}")
    stored = stored.newbyteorder(BYTE_ORDERS[byteorder])
    shape = dims(shape, "shape", source, what)
    count, size = math.prod(shape), stored.itemsize
    if strides is None:
        strides, step = [], 1
        for n in (shape if fortran else reversed(shape)):
            strides.append(step)
            step *= n
        strides = tuple(strides if fortran else reversed(strides))
    strides = dims(strides, "strides", source, what)
    if len(strides) != len(shape) or type(offset) is not int or offset < 0:
        raise CheckpointError(f"{source}: {what} has {len(shape)} dimensions, {len(strides)} "
                              f"strides and the offset {offset!r:.40}")
    have = len(buffer) // size
    if whole and (offset or len(buffer) != count * size):
        raise CheckpointError(f"{source} is truncated or corrupted: {what} ({dtype_name}, shape "
                              f"{list(shape)}) needs {count * size:,} bytes, the file holds "
                              f"{len(buffer):,} for it")
    if count and offset + sum((n - 1) * s for n, s in zip(shape, strides)) >= have:
        raise CheckpointError(f"{source} is truncated or corrupted: {what} ({dtype_name}, shape "
                              f"{list(shape)}, strides {list(strides)}, offset {offset}) reaches "
                              f"past the {have:,} elements the file holds for it")
    budget.charge(count * target.itemsize, f"{what} ({dtype_name}, shape {list(shape)})")
    out = np.empty(shape, target)
    if count:
        view = np.ndarray(shape, stored, buffer=buffer, offset=offset * size,
                          strides=[s * size for s in strides])
        _widen(view, dtype_name, out, source, what)
    return out


def little_endian(arr):
    """``arr`` as a C-ordered little-endian array (what every file is written with): ``arr``
    itself when it is one, else a copy."""
    order = arr.dtype.byteorder
    if order == ">" or (order == "=" and sys.byteorder == "big"):
        arr = arr.astype(arr.dtype.newbyteorder("<"), order="C")
    return arr if arr.flags.c_contiguous else arr.copy(order="C")   # a 0-d array stays 0-d


def _widen(view, dtype_name, out, source, what):
    """Write every element of ``view`` (the stored bits) into ``out`` (the dtype mutograd has)."""
    if dtype_name == "bool":
        np.not_equal(view, 0, out=out)
    elif dtype_name == "bfloat16":   # the top half of a float32
        np.left_shift(view, 16, out=out.view(np.uint32), dtype=np.uint32)
    elif dtype_name in _FLOAT8:
        np.take(_FLOAT8[dtype_name], view, out=out, mode="clip")   # clip: no buffered copy
    elif out.dtype.kind == "i" and dtype_name == "uint64" and view.max() > _INT64_MAX:
        raise CheckpointError(f"{source}: the uint64 tensor {what} holds values past int64's "
                              f"range (mutograd has no uint64)")
    else:
        out[...] = view


def _float8_tables():
    b = np.arange(256)
    # e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities, S.1111.111 is NaN
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp, man = (b >> 3) & 0xF, b & 0x7
    val = np.where(exp == 0, man / 8 * 2.0 ** -6, (1 + man / 8) * 2.0 ** (exp - 7))
    e4m3fn = (sign * np.where((exp == 0xF) & (man == 0x7), np.nan, val)).astype(np.float32)
    # e5m2 is the top half of a float16
    e5m2 = (b.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
    return {"float8_e4m3fn": e4m3fn, "float8_e5m2": e5m2}


_FLOAT8 = _float8_tables()
