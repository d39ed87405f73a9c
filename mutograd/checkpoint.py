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
import zipfile
import zlib

import numpy as np

from . import places
from .errors import MutogradError, PlaceError
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
def storable_items(d, path, sep, prefix=""):
    """``(key, value, key path)`` for each item of dict ``d``, whose keys a file can store
    (str, int, float, bool or None; a TypeError, starting with ``prefix``, names the first
    other key). ``path`` is the dict's own path, ``sep`` joins it to a key.

        >>> [p for _, _, p in storable_items({"w": 1, 2: 3}, "layer", ".")]
        ['layer.w', 'layer.2']
    """
    for k, v in d.items():
        if not (k is None or isinstance(k, (bool, int, float, str))):
            raise TypeError(f"{prefix}dict keys must be str, int, float, bool or None; got "
                            f"{type(k).__name__} at {path or 'the top level'}")
        yield k, v, f"{path}{sep}{k}" if path else str(k)


def _encode(obj, path, arrays):
    if isinstance(obj, Tensor):
        if obj._place.kind != "cpu":   # stored from host memory, with the place it came from
            return {"$tensor": _put(arrays, path, obj.cpu()._data), "place": str(obj._place)}
        return {"$tensor": _put(arrays, path, obj._data)}
    if isinstance(obj, np.ndarray):
        return {"$array": _put(arrays, path, obj)}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        return {"$dict": [[k, _encode(v, p, arrays)]
                          for k, v, p in storable_items(obj, path, "/", "mutograd.save: ")]}
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


class _MappedStorage:
    """What a ``map_location`` function gets in place of a storage, as in PyTorch's
    ``lambda storage, loc: storage`` or ``storage.cuda(1)``: it records where it is moved."""

    def __init__(self, place):
        self.place = place

    def cpu(self):
        return _MappedStorage("cpu")

    def cuda(self, device=None, non_blocking=False):
        if device is None:
            return _MappedStorage("cuda")
        index = device if isinstance(device, int) else places.get_name(device).split(":")[1]
        return _MappedStorage(f"cuda:{index}")

    def to(self, device=None, *args, **kwargs):
        return _MappedStorage(device)


def _target(saved, map_location):
    """Where a tensor saved on place ``saved`` is loaded (``map_location`` as in PyTorch: None
    keeps the saved place, a place moves everything there, a dict maps saved place names, a
    function ``f(storage, location)`` returns the storage moved, or None to keep it)."""
    if isinstance(map_location, dict):
        for k, v in map_location.items():
            if places.get_name(k) == saved:
                return v
        return saved
    if callable(map_location):
        loc = saved.replace("gpu", "cuda")   # the function sees PyTorch's device names
        moved = map_location(_MappedStorage(loc), loc)
        if moved is None:
            return saved
        if not isinstance(moved, _MappedStorage):
            raise TypeError(f"map_location returned a {type(moved).__name__}; it should return "
                            f"the storage it was given, moved (storage.cpu(), storage.cuda(i)) "
                            f"or not, or None")
        return moved.place
    return saved if map_location is None else map_location


def _place_tensor(t, saved, map_location):
    """``t`` (read from a file where it was on place ``saved``) moved where ``map_location``
    says."""
    where = _target(saved, map_location)
    if places.get_name(where) != "cpu":
        try:
            t = t.to(where)
        except PlaceError as e:
            raise PlaceError(f"{e}. The checkpoint holds a tensor saved on {saved}; load it "
                             f"with map_location='cpu' on a machine without it") from None
    return t


def _decode(enc, arrays, map_location=None):
    if isinstance(enc, list):
        return [_decode(v, arrays, map_location) for v in enc]
    if isinstance(enc, dict):
        if "$tensor" in enc:
            return _place_tensor(_wrap(arrays[enc["$tensor"]]), enc.get("place", "cpu"),
                                 map_location)
        if "$array" in enc:
            return arrays[enc["$array"]]
        if "$tuple" in enc:
            return tuple(_decode(v, arrays, map_location) for v in enc["$tuple"])
        if "$dict" in enc:
            return {k: _decode(v, arrays, map_location) for k, v in enc["$dict"]}
        raise CheckpointError(f"unknown entry in the checkpoint structure: {sorted(enc)}")
    return enc


def _contiguous(arr):
    # not np.ascontiguousarray: it turns a 0-d array into a 1-d one
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _crc(arr):
    return zlib.crc32(_contiguous(arr).tobytes())


# ---- saving --------------------------------------------------------------------------------
def save(obj, path, format=None):
    """Write ``obj`` (see the module docstring) to ``path`` atomically (or into a file opened
    in binary mode).

    ``format`` is ``'safetensors'`` (the default when the package is installed) or ``'npz'``;
    a ``state_dict()`` saved as safetensors is a plain safetensors file other tools read (its
    keys are the tensors' names). For other tools there are also ``'torch'`` (a PyTorch zip
    file for ``torch.load(path, weights_only=True)``) and ``'paddle'`` (a ``.pdparams`` pickle
    of NumPy arrays for ``paddle.load``); both hold tensors, arrays, numbers, strings and
    containers, without mutograd's checksums and places.
    """
    if format in ("torch", "paddle"):
        from . import interop
        data = interop.torch_file(obj) if format == "torch" else interop.paddle_file(obj)
        _write(path, data)
        return
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
        metadata = {_META_KEY: meta}
        if _is_state_dict(obj):   # the metadata Hugging Face's loaders ask of PyTorch weights
            metadata["format"] = "pt"
        data = st.save(arrays, metadata=metadata)
    elif fmt == "npz":
        if _NPZ_META in arrays:
            raise CheckpointError(f"the name {_NPZ_META!r} is reserved in npz checkpoints")
        buf = io.BytesIO()
        np.savez(buf, **arrays, **{_NPZ_META: np.frombuffer(meta.encode(), np.uint8)})
        data = buf.getvalue()
    else:
        raise ValueError(f"unknown checkpoint format {format!r}; use 'safetensors', 'npz', "
                         f"'torch' or 'paddle'")
    _write(path, data)


def _write(path, data):
    if hasattr(path, "write"):   # an open binary file, as torch.save takes
        path.write(data)
    else:
        _write_atomically(os.fspath(path), data)


def _is_state_dict(obj):
    return isinstance(obj, dict) and bool(obj) and all(
        isinstance(k, str) and isinstance(v, (Tensor, np.ndarray)) for k, v in obj.items())


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
    """``'safetensors'``, ``'npz'``, ``'torch'`` (``torch.save``'s zip archive), ``'pickle'``
    (Paddle's ``.pdparams``, PyTorch's legacy format) or None, from a file's first bytes."""
    if data[:4] == b"PK\x03\x04":
        return "torch" if _is_torch_zip(data) else "npz"
    if data[8:9] == b"{":   # a little-endian header length, then the JSON header
        return "safetensors"
    if data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle"
    return None


def _is_torch_zip(data):
    """Whether a zip archive holds ``<folder>/data.pkl`` (PyTorch's files) rather than ``.npy``
    arrays; a damaged archive is judged by its first record (``torch.save`` writes
    ``data.pkl`` first)."""
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except Exception:  # noqa: BLE001  (a damaged archive: reported when it is read)
        (n,) = struct.unpack("<H", data[26:28]) if len(data) >= 30 else (0,)
        names = [data[30:30 + n].decode("utf-8", "replace")]
    return any(n.count("/") == 1 and n.endswith("/data.pkl") for n in names)


def load(path, map_location=None, weights_only=True):
    """Read a checkpoint written by :func:`save`, or weights written by another tool (any file
    name; the format is detected from the content).

    Besides mutograd's own checkpoints it reads, without running any code from the file
    (:mod:`mutograd.interop`): plain safetensors files, PyTorch ``.pt``/``.pth`` files
    (``torch.save``'s zip format), Paddle ``.pdparams``/``.pdopt`` files and plain ``.npz``
    archives. A file of weights gives a dict of tensors that ``load_state_dict`` takes.

    Raises :class:`CheckpointError` for a truncated, corrupted or unreadable file, and for a
    pickle that names anything but tensors, arrays, dtypes and containers.
    Tensors come back on the place they were saved from, unless ``map_location`` says otherwise
    (``'cpu'``, ``'cuda:0'``, a Place, a dict such as ``{'gpu:0': 'cpu'}``, or PyTorch's
    function form ``lambda storage, loc: storage``). ``weights_only`` is accepted for
    PyTorch-style calls: either way, nothing outside the allow-list is ever unpickled. ``path``
    may also be a file opened in binary mode.
    """
    if hasattr(path, "read"):   # an open binary file, as torch.load takes
        data = path.read()
        path = str(getattr(path, "name", "<file object>"))
    else:
        path = os.fspath(path)
        with open(path, "rb") as f:
            data = f.read()
    fmt = detect_format(data)
    if fmt is None:
        what = ("an empty file" if not data else "neither a safetensors file, an npz archive, "
                "a PyTorch file nor a Paddle file")
        raise CheckpointError(f"{path} is not a mutograd checkpoint: {what}")
    if fmt in ("torch", "pickle"):
        from . import interop
        obj = (interop.read_torch_zip if fmt == "torch" else interop.read_pickle)(data, path)
        return interop.to_mutograd(obj, path, map_location, paddle=fmt == "pickle")
    try:
        arrays, meta = (_read_safetensors if fmt == "safetensors" else _read_npz)(data, path)
        if meta is None:   # weights written by another tool
            from . import interop
            return interop.to_mutograd(arrays, path, map_location)
        info = json.loads(meta)
        structure = info["structure"]
        crcs = info["crc32"]
    except CheckpointError as e:
        raise CheckpointError(e if str(e).startswith(path) else f"{path}: {e}") from None
    except Exception as e:  # noqa: BLE001  (any parser error means a damaged file)
        raise CheckpointError(f"{path} is truncated or corrupted ({fmt}: "
                              f"{type(e).__name__}: {e})") from None
    bad = sorted(k for k, a in arrays.items() if crcs.get(k) != _crc(a))
    missing = sorted(set(crcs) - set(arrays))
    if bad or missing:
        raise CheckpointError(f"{path} is corrupted: the data of {', '.join(bad + missing)} "
                              f"does not match its checksum")
    return _decode(structure, arrays, map_location)


def _read_safetensors(data, path):
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise CheckpointError(f"truncated: the header claims {n} bytes, the file has "
                              f"{len(data) - 8} after the length")
    header = json.loads(data[8:8 + n])
    meta = (header.get("__metadata__") or {}).get(_META_KEY)
    if meta is None:   # a plain safetensors file: read without the package
        from . import interop
        return interop.read_safetensors(data, path, header), None
    st = _safetensors()
    if st is None:
        raise CheckpointError("this is a safetensors checkpoint; reading it needs the "
                              "safetensors package: pip install 'mutograd[ckpt]'")
    arrays = {k: np.array(v) for k, v in st.load(data).items()}
    return arrays, meta


def _read_npz(data, path):
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        if _NPZ_META not in z.files:   # arrays written by numpy.savez
            from . import interop
            return interop.read_npz(data, path), None
        arrays = {k: z[k] for k in z.files if k != _NPZ_META}
        meta = z[_NPZ_META].tobytes().decode()
    return arrays, meta
