"""``.npy`` records and ``.npz`` archives, read by construction and written little-endian.

A record's header is a Python literal (read with :func:`ast.literal_eval`, which evaluates no
code) giving a dtype code, an order and a shape; the array is built from those and the bytes
that follow (:func:`~mutograd.serialization.arrays.build`), never by ``numpy.load``.
"""
import ast
import io
import zipfile
from collections import OrderedDict

import numpy as np

from ..errors import CheckpointError
from .arrays import NUMPY_CODES, RawTensor, build
from .text import shown
from .zips import read_member

_MAGIC = b"\x93NUMPY"
_MAX_HEADER = 1 << 16


def read_npy(buf, budget, what, widen=True):
    """The array in the ``.npy`` record ``buf``, and the dtype name it was stored as."""
    source = budget.source
    if bytes(buf[:6]) != _MAGIC or len(buf) < 10 or buf[6] not in (1, 2, 3):
        raise CheckpointError(f"{source}: {what} is not a .npy array")
    width = 2 if buf[6] == 1 else 4
    start = 8 + width
    length = int.from_bytes(buf[8:start], "little")
    if length > _MAX_HEADER or start + length > len(buf):
        raise CheckpointError(f"{source} is truncated or corrupted: {what} has a header of "
                              f"{length:,} bytes")
    text = bytes(buf[start:start + length]).decode("utf-8" if buf[6] == 3 else "latin1")
    header = ast.literal_eval(text)
    if not (type(header) is dict and set(header) == {"descr", "fortran_order", "shape"}
            and type(header["descr"]) is str and type(header["fortran_order"]) is bool):
        raise CheckpointError(f"{source}: {what} has the header {shown(header)}")
    descr = header["descr"]
    name = NUMPY_CODES.get(descr[1:])
    if name is None:
        raise CheckpointError(f"{source}: {what} has the dtype {descr!r:.40}, which mutograd "
                              f"cannot read (it reads {', '.join(sorted(NUMPY_CODES.values()))})")
    arr = build(memoryview(buf)[start + length:], name, header["shape"], budget=budget,
                what=what, byteorder=descr[0], fortran=header["fortran_order"], whole=True,
                widen=widen)
    return arr, name


def read_npz(z, budget, widen=True):
    """``{name: RawTensor}`` for the records of the ``.npz`` archive ``z`` (a ZipFile opened by
    :func:`~mutograd.serialization.zips.open_zip`), in the archive's order."""
    source = budget.source
    out = OrderedDict()
    for info in z.infolist():
        key = info.filename[:-4]
        if not info.filename.endswith(".npy"):
            raise CheckpointError(f"{source} is a zip archive but not an npz archive: its record "
                                  f"{info.filename!r:.80} is not a .npy array")
        if key in out:
            raise CheckpointError(f"{source}: the record {info.filename!r:.80} appears twice")
        buf = read_member(z, info, budget)
        arr, name = read_npy(buf, budget, f"the record {info.filename!r:.80}", widen)
        out[key] = RawTensor(arr, name, ("record", key))
    return out


def npz_bytes(arrays, comment=b""):
    """An ``.npz`` archive (as ``numpy.savez`` writes it) of ``arrays`` (little-endian), with a
    zip ``comment``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, arr in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
        z.comment = comment
    return buf.getvalue()
