"""Checkpoints: ``mutograd.save(obj, path)`` and ``mutograd.load(path)`` without pickle.

``obj`` is a nest of dicts, lists and tuples whose leaves are tensors, NumPy arrays, numbers,
strings, booleans or None (a ``state_dict()`` of a module or an optimizer, or a dict holding
several). The tensors go into a safetensors file (through the ``safetensors`` package, extra
``ckpt``) or, when that package is absent, into an ``.npz`` archive; the structure goes into the
file's metadata as JSON. Nothing in a checkpoint can run code when it is loaded. Any other
object (a whole module, an optimizer) is pickled instead, and loads only when the caller says
``weights_only=False`` (:mod:`mutograd.serialization.objects`).

Integrity: a SHA-256 digest of the whole file (with the digest's own 64 characters read as
zeros) is stored in it, in the safetensors metadata or the zip comment. One flipped bit anywhere
in a checkpoint, in a tensor, a name, the structure, the metadata or the digest, is an error,
never different content.

Files are written atomically (:mod:`mutograd.serialization.atomic`), little-endian. The format
is recognised from the file's first bytes, never from its name. Every load has a memory budget
(:mod:`mutograd.serialization.budget`).

    >>> import mutograd as mg, tempfile, os
    >>> net = mg.nn.Linear(3, 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
    >>> mg.save({"model": net.state_dict(), "epoch": 3}, path)
    >>> ck = mg.load(path)
    >>> ck["epoch"], ck["model"]["weight"].shape
    (3, [2, 3])
"""
import hashlib
import json
import os
import warnings
import zlib
from collections import OrderedDict

import numpy as np

from .. import places
from ..errors import CheckpointError, CheckpointPlaceError, PlaceError, WeightsOnlyError
from ..tensor import Tensor, _wrap
from . import atomic, interop, npy, objects, safetensors_io
from .arrays import NUMPY_CODES, STORED, WIDENED, RawTensor, little_endian
from .budget import Budget, json_cost
from .containers import MAX_DEPTH, storable_items
from .text import shown
from .unpickler import Name
from .zips import open_zip

__all__ = ["CheckpointError", "load", "save"]

_META_KEY = "mutograd"             # the structure, as JSON
_DIGEST_KEY = "mutograd_sha256"    # the digest (its own key, so a flip in either key is seen)
_NPZ_META = "__mutograd__"
_NPZ_COMMENT = b"mutograd-sha256:"
_VERSION = 2                       # 1: a CRC-32 per tensor, no digest of the metadata
_ZEROS = b"0" * 64


# ---- structure <-> JSON --------------------------------------------------------------------
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
                    f"{path or 'the top level'}) in a weights checkpoint: only tensors, arrays, "
                    f"numbers, strings, None and dicts/lists/tuples of them")


def _put(arrays, path, arr):
    if arr.dtype.str[1:] not in NUMPY_CODES:
        raise TypeError(f"mutograd.save cannot store an array of {arr.dtype} (at "
                        f"{path or 'the top level'}): only booleans, numbers and complex numbers")
    name = path or "tensor"
    while name in arrays:
        name += "#"
    arrays[name] = little_endian(arr)
    return name


def _decode(enc, arrays, source, depth=0):
    """The tree of containers, values, arrays and RawTensors the structure ``enc`` describes."""
    if depth > MAX_DEPTH:
        raise CheckpointError(f"{source}: containers nested more than {MAX_DEPTH} deep")
    if isinstance(enc, list):
        return [_decode(v, arrays, source, depth + 1) for v in enc]
    if not isinstance(enc, dict):
        return enc
    kind = next(iter(enc), None)
    if kind in ("$tensor", "$array"):
        if enc[kind] not in arrays:
            raise CheckpointError(f"{source}: the structure names the array {shown(enc[kind])}, "
                                  f"which the file does not hold")
        raw = arrays[enc[kind]]
        if kind == "$array":
            return raw.array
        raw.location = enc.get("place", "cpu")
        return raw
    if kind == "$tuple" and isinstance(enc[kind], list):
        return tuple(_decode(v, arrays, source, depth + 1) for v in enc[kind])
    if kind == "$dict" and isinstance(enc[kind], list) and all(
            isinstance(p, list) and len(p) == 2 and not isinstance(p[0], (list, dict))
            for p in enc[kind]):
        return {k: _decode(v, arrays, source, depth + 1) for k, v in enc[kind]}
    raise CheckpointError(f"{source}: an unknown entry in the checkpoint's structure: "
                          f"{shown(enc)}")


# ---- where tensors go ----------------------------------------------------------------------
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
            raise CheckpointPlaceError(f"{e}. The checkpoint holds a tensor saved on {saved}; "
                                       f"load it with map_location='cpu' on a machine without "
                                       f"it") from e
    return t


def _location_name(location):
    # PyTorch's 'cuda:0' is mutograd's 'gpu:0'; other device kinds (mps, xla) load on the CPU
    try:
        return places.get_name(location)
    except Exception:  # noqa: BLE001  (PlaceError: a kind mutograd has no place for)
        return "cpu"


def _as_dtype(name):
    from .. import dtypes
    try:
        return dtypes.get(name)
    except TypeError:
        return name   # bfloat16, float8, uint16...: named by a string


def _tensors(tree, source, map_location):
    """``tree`` (what a file held) with its RawTensors made into tensors on the place
    ``map_location`` picks, one tensor per RawTensor, warning once per widened dtype."""
    from ..nn import Parameter
    made, seen, widened = {}, {}, {}

    def conv(x, name):
        if type(x) is RawTensor:
            if x.key not in made:
                t = _place_tensor(_wrap(x.array), _location_name(x.location), map_location)
                if x.parameter:
                    t = Parameter(t, requires_grad=x.requires_grad)
                elif x.requires_grad and (t.dtype.is_floating_point or t.dtype.is_complex):
                    t.requires_grad_(True)
                if x.dtype_name in WIDENED:
                    widened.setdefault(x.dtype_name, []).append(name)
                made[x.key] = t
            return made[x.key]
        if type(x) is Name:   # a torch dtype, class or storage type named as a value
            return _as_dtype(x.value) if x.kind == "torch dtype" else x.value
        if type(x) not in (dict, OrderedDict, list, tuple):
            return x
        if id(x) not in seen:   # the tree is alive while this runs: ids are stable
            if isinstance(x, dict):
                seen[id(x)] = type(x)((k, conv(v, f"{name}.{k}" if name else str(k)))
                                      for k, v in x.items())
            else:
                seen[id(x)] = type(x)(conv(v, f"{name}.{i}" if name else str(i))
                                      for i, v in enumerate(x))
        return seen[id(x)]

    out = conv(tree, "")
    for dtype_name, names in widened.items():
        warnings.warn(f"{source}: {dtype_name} tensors read as {STORED[dtype_name][1]} "
                      f"(mutograd has no {dtype_name}): {', '.join(names)}", UserWarning,
                      stacklevel=3)
    return out


# ---- saving --------------------------------------------------------------------------------
def save(obj, path, format=None):
    """Write ``obj`` (see the module docstring) to ``path`` atomically (or into a file opened
    in binary mode).

    ``format`` is ``'safetensors'`` (the default when the package is installed) or ``'npz'``;
    a ``state_dict()`` saved as safetensors is a plain safetensors file other tools read (its
    keys are the tensors' names). For other tools there are also ``'torch'`` (a PyTorch zip
    file for ``torch.load(path, weights_only=True)``) and ``'paddle'`` (a ``.pdparams`` pickle
    of NumPy arrays for ``paddle.load``); both hold tensors, arrays, numbers, strings and
    containers, without mutograd's digest and places. Every format is written little-endian.

    Anything else (a whole ``nn.Module``, an optimizer, a dict holding one, any picklable
    object) is pickled whole, as ``torch.save`` does, or with ``format='pickle'``
    (:mod:`mutograd.serialization.objects`); such a file loads only with
    ``load(path, weights_only=False)``.

    A symlinked ``path`` is written through to its target. The temporary file of a save that
    was killed is removed by the next save or load of the same path.
    """
    if format in ("torch", "paddle"):
        pieces = [interop.torch_file(obj) if format == "torch" else interop.paddle_file(obj)]
    elif format == "pickle":
        pieces = [objects.dumps(obj)]
    else:
        arrays = {}
        try:
            structure = _encode(obj, "", arrays)
        except TypeError as e:
            if format is not None:
                raise
            try:    # not weights: a whole object (mutograd/serialization/objects.py)
                pieces = [objects.dumps(obj)]
            except TypeError as e2:
                raise TypeError(f"{e}; {e2}") from e2
        else:
            pieces = _checkpoint(obj, structure, arrays, format)
    if hasattr(path, "write"):   # an open binary file, as torch.save takes
        for piece in pieces:
            path.write(piece)
    else:
        atomic.write(os.fspath(path), pieces)


def _checkpoint(obj, structure, arrays, format):
    """The pieces of a mutograd checkpoint of ``obj`` (its ``structure`` and ``arrays``), the
    digest written in place of its zeros without a copy."""
    meta = json.dumps({"version": _VERSION, "structure": structure})
    fmt = format or ("safetensors" if _has_safetensors() else "npz")
    if fmt == "safetensors":
        metadata = {_META_KEY: meta, _DIGEST_KEY: _ZEROS.decode()}
        if _is_state_dict(obj):   # the metadata Hugging Face's loaders ask of PyTorch weights
            metadata["format"] = "pt"
        data = safetensors_io.write(arrays, metadata)
        at = _digest_at(data, int.from_bytes(data[:8], "little") + 8)
    elif fmt == "npz":
        if _NPZ_META in arrays:
            raise CheckpointError(f"the name {_NPZ_META!r} is reserved in npz checkpoints")
        arrays[_NPZ_META] = np.frombuffer(meta.encode(), np.uint8)
        data = npy.npz_bytes(arrays, _NPZ_COMMENT + _ZEROS)
        at = len(data) - len(_ZEROS)
    else:
        raise ValueError(f"unknown checkpoint format {format!r}; use 'safetensors', 'npz', "
                         f"'pickle', 'torch' or 'paddle'")
    view = memoryview(data)
    return [view[:at], _digest(data, at), view[at + len(_ZEROS):]]


def _has_safetensors():
    try:
        safetensors_io.library()
    except CheckpointError:
        return False
    return True


def _is_state_dict(obj):
    return isinstance(obj, dict) and bool(obj) and all(
        isinstance(k, str) and isinstance(v, (Tensor, np.ndarray)) for k, v in obj.items())


def _digest(data, at):
    """The SHA-256 digest (64 hex digits, as bytes) of ``data`` with the 64 bytes at ``at``,
    where the digest is kept, read as zeros."""
    h = hashlib.sha256()
    view = memoryview(data)
    h.update(view[:at])
    h.update(_ZEROS)
    h.update(view[at + len(_ZEROS):])
    return h.hexdigest().encode()


def _digest_at(data, end):
    """Where the digest's 64 characters are in the safetensors header ``data[8:end]``, or None
    when its key is not there exactly once with a 64-character value."""
    key = f'"{_DIGEST_KEY}":"'.encode()
    header = bytes(data[8:end])
    i = header.find(key)
    at = 8 + i + len(key)
    if i < 0 or header.find(key, i + 1) >= 0 or data[at + len(_ZEROS):at + len(_ZEROS) + 1] \
            != b'"':
        return None
    return at


# ---- loading -------------------------------------------------------------------------------
def _format(data):
    """``'safetensors'``, ``'zip'`` (a PyTorch file or an npz archive), ``'pickle'`` (Paddle's
    ``.pdparams``, PyTorch's legacy format) or None, from a file's first bytes."""
    if data[:4] == b"PK\x03\x04":
        return "zip"
    if data[8:9] == b"{":   # a little-endian header length, then the JSON header
        return "safetensors"
    if data[:1] == b"\x80" and data[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle"
    return None


def load(path, map_location=None, weights_only=True, *, max_bytes=None):
    """Read a checkpoint written by :func:`save`, or weights written by another tool (any file
    name; the format is detected from the content).

    Besides mutograd's own checkpoints it reads, without running any code from the file
    (:mod:`mutograd.serialization.interop`): plain safetensors files, PyTorch ``.pt``/``.pth``
    files (``torch.save``'s zip format), Paddle ``.pdparams``/``.pdopt`` files and plain
    ``.npz`` archives. A file of weights gives a dict of tensors that ``load_state_dict`` takes.

    Every problem with the file (truncated, corrupted, not a checkpoint, a pickle naming
    anything but tensors, arrays, dtypes and containers) raises :class:`CheckpointError`,
    saying what and where. Reading may make at most ``max_bytes`` bytes besides the file's own
    (default: 8 times the file's size plus 64 MiB); more raises
    :class:`~mutograd.errors.CheckpointBudgetError`, a CheckpointError.

    Tensors come back on the place they were saved from, unless ``map_location`` says otherwise
    (``'cpu'``, ``'cuda:0'``, a Place, a dict such as ``{'gpu:0': 'cpu'}``, or PyTorch's
    function form ``lambda storage, loc: storage``). ``path`` may also be a file opened in
    binary mode.

    With ``weights_only=True`` (the default, as in PyTorch since 2.6) nothing outside the
    allow-list is ever unpickled: a whole object saved by :func:`save` is refused with a
    :class:`~mutograd.errors.WeightsOnlyError` (an ``UnpicklingError`` too) that names
    ``weights_only=False``. ``weights_only=False`` loads such a file with ``pickle``, which runs
    whatever the file names: only for files from a trusted source. Weights files load the same
    either way (by the reader above).
    """
    if hasattr(path, "read"):   # an open binary file, as torch.load takes
        data = path.read()
        source = str(getattr(path, "name", "<file object>"))
    else:
        source = os.fspath(path)
        atomic.remove_leftovers(source)
        with open(source, "rb") as f:
            data = f.read()
    budget = Budget(source, len(data), max_bytes)
    try:
        tree = read(data, budget)
    except WeightsOnlyError as e:
        if _format(data) != "pickle":   # a PyTorch archive of a whole object: not ours to run
            raise
        if weights_only is False:
            return objects.loads(data, map_location)
        raise WeightsOnlyError(f"{e}\n{objects.TRUST_HINT}") from e
    return _tensors(tree, source, map_location)


def read(data, budget):
    """What the file ``data`` holds: a tree of containers, values, arrays and
    :class:`~mutograd.serialization.arrays.RawTensor` s. Every problem with the file is a
    :class:`CheckpointError` that starts with its name, the exception that showed it chained."""
    source = budget.source
    fmt = _format(data)
    try:
        if fmt is None:
            what = ("an empty file" if not data else "neither a safetensors file, an npz "
                    "archive, a PyTorch file nor a Paddle file")
            raise CheckpointError(f"{source} is not a mutograd checkpoint: {what}")
        if fmt == "pickle":
            return interop.read_pickle(data, budget)
        return (_read_safetensors if fmt == "safetensors" else _read_zip)(data, budget)
    except CheckpointError as e:
        if str(e).startswith(source):
            raise
        raise type(e)(f"{source}: {e}") from e
    except Exception as e:  # noqa: BLE001  (whatever a parser raises means a damaged file)
        raise CheckpointError(f"{source} is truncated or corrupted ({fmt}: {type(e).__name__}: "
                              f"{str(e)[:300]})") from e


def _read_safetensors(data, budget):
    header, end = safetensors_io.header(data, budget)
    meta = header.get("__metadata__") or {}
    ours = isinstance(meta, dict) and (_META_KEY in meta or _DIGEST_KEY in meta)
    if ours and _DIGEST_KEY in meta:
        _check_digest(data, _digest_at(data, end), meta[_DIGEST_KEY], budget.source)
    tensors = safetensors_io.tensors(data, header, budget, widen=not ours)
    return _own(meta, _DIGEST_KEY in meta, tensors, budget) if ours else tensors


def _read_zip(data, budget):
    z = open_zip(data, budget)
    names = z.namelist()
    if interop.torch_record_prefix(names) is not None:
        return interop.read_torch_zip(z, budget)
    ours = z.comment.startswith(_NPZ_COMMENT) or _NPZ_META + ".npy" in names
    if ours and z.comment.startswith(_NPZ_COMMENT):
        at = len(data) - len(_ZEROS)
        if z.comment != _NPZ_COMMENT + data[at:]:   # the comment, at the file's end
            at = None
        _check_digest(data, at, z.comment[len(_NPZ_COMMENT):].decode("latin1"), budget.source)
    arrays = npy.read_npz(z, budget, widen=not ours)
    if not ours:
        return arrays
    meta = arrays.pop(_NPZ_META, None)
    text = None if meta is None else meta.array.tobytes().decode()
    return _own({_META_KEY: text}, z.comment.startswith(_NPZ_COMMENT), arrays, budget)


def _check_digest(data, at, stored, source):
    if at is None or not isinstance(stored, str) or _digest(data, at) != stored.encode():
        raise CheckpointError(f"{source} is corrupted: its content does not match the SHA-256 "
                              f"digest stored in it")


def _own(meta, digested, arrays, budget):
    """The tree of a mutograd checkpoint: its metadata ``meta`` ({'mutograd': JSON}),
    ``digested`` (whether the file's digest was there and checked) and its ``arrays``."""
    source = budget.source
    text = meta.get(_META_KEY)
    if not isinstance(text, str):
        raise CheckpointError(f"{source} is corrupted: its structure is missing")
    budget.charge(json_cost(text), "the checkpoint's structure")
    info = json.loads(text)
    version = info.get("version") if isinstance(info, dict) else None
    if version == 1 and not digested:   # before the digest: a CRC-32 of each tensor
        crcs = info["crc32"]
        bad = sorted(k for k, a in arrays.items()
                     if crcs.get(k) != zlib.crc32(a.array.tobytes()))
        if bad or set(crcs) - set(arrays):
            raise CheckpointError(f"{source} is corrupted: the data of "
                                  f"{', '.join(bad + sorted(set(crcs) - set(arrays)))} does not "
                                  f"match its checksum")
    elif version != _VERSION or not digested:
        raise CheckpointError(f"{source} is corrupted or from a newer mutograd: a checkpoint of "
                              f"version {shown(version)}{'' if digested else ' without a digest'}")
    return _decode(info["structure"], arrays, source)
