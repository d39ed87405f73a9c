"""Checkpoints: ``mutograd.save(obj, path)`` and ``mutograd.load(path)`` without pickle.

``obj`` is a nest of dicts, lists and tuples whose leaves are tensors, NumPy arrays, numbers,
strings, booleans or None (a ``state_dict()`` of a module or an optimizer, or a dict holding
several). The tensors go into a safetensors file (the ``safetensors`` package, extra ``ckpt``) or,
when that package is absent, into an ``.npz`` archive read back with ``allow_pickle=False``. The
structure and a CRC-32 of every tensor's bytes go into the file's metadata as JSON, so nothing in
a checkpoint can run code when loaded, and a corrupted byte is reported, not loaded.

Files are written atomically: to a temporary file in the same folder, flushed to disk, then
renamed over the target, so a crash leaves the previous checkpoint intact. The format is
recognised from the file's first bytes, never from its name.

    >>> import mutograd as mg, tempfile, os
    >>> net = mg.nn.Linear(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
    >>> mg.save({"model": net.state_dict(), "epoch": 3}, path)
    >>> ck = mg.load(path)
    >>> ck["epoch"], ck["model"]["weight"].shape
    (3, [2, 3])
"""
import io
import json
import os
import struct
import tempfile
import zlib

import numpy as np

from .errors import MutogradError
from .tensor import Tensor, _wrap

_META_KEY = "mutograd"
_NPZ_META = "__mutograd__"
_VERSION = 1


class CheckpointError(MutogradError, RuntimeError, ValueError):
    """A checkpoint that cannot be written or read: truncated, corrupted, or not a checkpoint."""


def _safetensors():
    try:
        import safetensors.numpy as st
    except ImportError:
        return None
    return st


# ---- structure <-> JSON --------------------------------------------------------------------
def _encode(obj, path, arrays):
    if isinstance(obj, Tensor):
        return {"$tensor": _put(arrays, path, obj._data)}
    if isinstance(obj, np.ndarray):
        return {"$array": _put(arrays, path, obj)}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not (k is None or isinstance(k, (bool, int, float, str))):
                raise TypeError(f"mutograd.save: dict keys must be str, int, float, bool or "
                                f"None; got {type(k).__name__} at {path or 'the top level'}")
            items.append([k, _encode(v, f"{path}/{k}" if path else str(k), arrays)])
        return {"$dict": items}
    if isinstance(obj, (list, tuple)):
        enc = [_encode(v, f"{path}/{i}" if path else str(i), arrays) for i, v in enumerate(obj)]
        return enc if isinstance(obj, list) else {"$tuple": enc}
    raise TypeError(f"mutograd.save cannot store a {type(obj).__name__} (at "
                    f"{path or 'the top level'}): only tensors, arrays, numbers, strings, None "
                    f"and dicts/lists/tuples of them (checkpoints never pickle)")


def _put(arrays, path, arr):
    name = path or "tensor"
    while name in arrays:
        name += "#"
    arrays[name] = _contiguous(arr)
    return name


def _decode(enc, arrays):
    if isinstance(enc, list):
        return [_decode(v, arrays) for v in enc]
    if isinstance(enc, dict):
        if "$tensor" in enc:
            return _wrap(arrays[enc["$tensor"]])
        if "$array" in enc:
            return arrays[enc["$array"]]
        if "$tuple" in enc:
            return tuple(_decode(v, arrays) for v in enc["$tuple"])
        if "$dict" in enc:
            return {k: _decode(v, arrays) for k, v in enc["$dict"]}
        raise CheckpointError(f"unknown entry in the checkpoint structure: {sorted(enc)}")
    return enc


def _contiguous(arr):
    # not np.ascontiguousarray: it turns a 0-d array into a 1-d one
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _crc(arr):
    return zlib.crc32(_contiguous(arr).tobytes())


# ---- saving --------------------------------------------------------------------------------
def save(obj, path, format=None):
    """Write ``obj`` (see the module docstring) to ``path`` atomically.

    ``format`` is ``'safetensors'`` (the default when the package is installed) or ``'npz'``.
    """
    arrays = {}
    structure = _encode(obj, "", arrays)
    meta = json.dumps({"version": _VERSION, "structure": structure,
                       "crc32": {k: _crc(a) for k, a in arrays.items()}})
    st = _safetensors()
    fmt = format or ("safetensors" if st is not None else "npz")
    if fmt == "safetensors":
        if st is None:
            raise CheckpointError("format='safetensors' needs the safetensors package: "
                                  "pip install 'mutograd[ckpt]'")
        data = st.save(arrays, metadata={_META_KEY: meta})
    elif fmt == "npz":
        if _NPZ_META in arrays:
            raise CheckpointError(f"the name {_NPZ_META!r} is reserved in npz checkpoints")
        buf = io.BytesIO()
        np.savez(buf, **arrays, **{_NPZ_META: np.frombuffer(meta.encode(), np.uint8)})
        data = buf.getvalue()
    else:
        raise ValueError(f"unknown checkpoint format {format!r}; use 'safetensors' or 'npz'")
    _write_atomically(os.fspath(path), data)


def _write_atomically(path, data):
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---- loading -------------------------------------------------------------------------------
def detect_format(data):
    """``'safetensors'``, ``'npz'`` or None, from a file's first bytes."""
    if data[:4] == b"PK\x03\x04":
        return "npz"
    if data[8:9] == b"{":   # a little-endian header length, then the JSON header
        return "safetensors"
    return None


def load(path, map_location=None, weights_only=True):
    """Read a checkpoint written by :func:`save` (any file name; the format is detected).

    Raises :class:`CheckpointError` for a truncated, corrupted or foreign file.
    ``map_location`` and ``weights_only`` are accepted for PyTorch-style calls; everything is
    loaded on the CPU and nothing is ever unpickled.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    fmt = detect_format(data)
    if fmt is None:
        what = "an empty file" if not data else "neither a safetensors file nor an npz archive"
        raise CheckpointError(f"{path} is not a mutograd checkpoint: {what}")
    try:
        arrays, meta = (_read_safetensors if fmt == "safetensors" else _read_npz)(data)
        info = json.loads(meta)
        structure = info["structure"]
        crcs = info["crc32"]
    except CheckpointError as e:
        raise CheckpointError(f"{path}: {e}") from None
    except Exception as e:  # noqa: BLE001  (any parser error means a damaged file)
        raise CheckpointError(f"{path} is truncated or corrupted ({fmt}: "
                              f"{type(e).__name__}: {e})") from None
    bad = sorted(k for k, a in arrays.items() if crcs.get(k) != _crc(a))
    missing = sorted(set(crcs) - set(arrays))
    if bad or missing:
        raise CheckpointError(f"{path} is corrupted: the data of {', '.join(bad + missing)} "
                              f"does not match its checksum")
    return _decode(structure, arrays)


def _read_safetensors(data):
    st = _safetensors()
    if st is None:
        raise CheckpointError("this is a safetensors checkpoint; reading it needs the "
                              "safetensors package: pip install 'mutograd[ckpt]'")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise CheckpointError(f"truncated: the header claims {n} bytes, the file has "
                              f"{len(data) - 8} after the length")
    header = json.loads(data[8:8 + n])
    meta = (header.get("__metadata__") or {}).get(_META_KEY)
    if meta is None:
        raise CheckpointError("a safetensors file without mutograd's metadata (not written by "
                              "mutograd.save)")
    arrays = {k: np.array(v) for k, v in st.load(data).items()}
    return arrays, meta


def _read_npz(data):
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        if _NPZ_META not in z.files:
            raise CheckpointError("an npz archive without mutograd's metadata (not written by "
                                  "mutograd.save)")
        arrays = {k: z[k] for k in z.files if k != _NPZ_META}
        meta = z[_NPZ_META].tobytes().decode()
    return arrays, meta

