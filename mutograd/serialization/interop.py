"""Weights written by other tools, read without running any code from the file.

``mutograd.load`` hands a file here when it is a PyTorch or Paddle file:

- a PyTorch ``.pt``/``.pth`` file (``torch.save``'s zip archive: ``data.pkl`` plus one record
  per storage);
- a Paddle ``.pdparams``/``.pdopt`` file (``paddle.save``: a pickle of NumPy arrays).

(Plain safetensors files and ``.npz`` archives are read by
:mod:`mutograd.serialization.checkpoint`.)

Pickles are read by construction (:mod:`mutograd.serialization.unpickler`): every global a file
names resolves, without importing anything, to a function of ours or a marker, or is refused by
name; tensors and arrays are built from an allow-listed dtype name, a byte order, a shape,
strides and the bytes in the file, within the load's memory budget. The torch functions a
PyTorch pickle names are emulated here (torch is never imported).

Dtypes mutograd lacks are widened with a warning naming the tensors: bfloat16 and float8 to
float32, uint16 to int32, uint32 and uint64 to int64 (a uint64 value past int64's range is an
error). Paddle stores bfloat16 as uint16 arrays, so a pickle's uint16 arrays are read as
bfloat16, as ``paddle.load`` does.

:func:`torch_file` writes the other way: a PyTorch zip file that ``torch.load(weights_only=True)``
reads (``mutograd.save(obj, path, format='torch')``), and :func:`paddle_file` the pickle that
``paddle.save`` writes, which ``paddle.load`` reads (a state dict with its table of tensor
names; ``mutograd.compat.paddle.save`` writes it); both little-endian, whatever the arrays were.
The writers name torch's and NumPy's globals without importing them (:class:`_Global`).

    >>> import mutograd as mg, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.pt")
    >>> mg.save(mg.nn.Linear(3, 2).state_dict(), path, format="torch")   # torch.load reads it
    >>> {k: v.shape for k, v in mg.load(path).items()}
    {'weight': [2, 3], 'bias': [2]}
"""
import io
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

from ..errors import CheckpointError
from .arrays import RawTensor, build, little_endian, stored_dtypes
from .containers import MAX_DEPTH, storable_items
from .text import shown
from .unpickler import Emulated, Name, PickledDict, resolved, unpickle
from .zips import read_member

# PyTorch's storage classes (``torch.FloatStorage``...) -> dtype name
_TORCH_STORAGES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
}
_TORCH_DTYPES = {
    "float64": "float64", "double": "float64", "float32": "float32", "float": "float32",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16", "int64": "int64",
    "long": "int64", "int32": "int32", "int": "int32", "int16": "int16", "short": "int16",
    "int8": "int8", "uint8": "uint8", "bool": "bool", "complex64": "complex64",
    "cfloat": "complex64", "complex128": "complex128", "cdouble": "complex128",
    "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
}
_SCALARS = (type(None), bool, int, float, complex, str, bytes)


class _Storage:
    """A storage record of a PyTorch archive: its bytes, the dtype name they hold, its device
    and byte order, and ``key``, its name in the archive (which is its identity)."""

    __slots__ = ("raw", "dtype_name", "location", "byteorder", "key")

    def __init__(self, raw, dtype_name, location, byteorder, key):
        self.raw, self.dtype_name, self.location = raw, dtype_name, location
        self.byteorder, self.key = byteorder, key


# ---- PyTorch zip archives ------------------------------------------------------------------
_LEGACY_MAGIC = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2)


def torch_record_prefix(names):
    """The folder holding ``data.pkl`` in a zip archive written by ``torch.save``, or None."""
    for n in names:
        if n.endswith("data.pkl") and n.count("/") == 1 and n.split("/")[1] == "data.pkl":
            return n[:-len("data.pkl")]
    return None


def read_torch_zip(z, budget):
    """The object in the ``torch.save`` zip archive ``z`` (a ZipFile opened by
    :func:`~mutograd.serialization.zips.open_zip`), as a tree of containers, values and
    :class:`~mutograd.serialization.arrays.RawTensor` s."""
    source = budget.source
    names = z.namelist()
    prefix = torch_record_prefix(names)
    if prefix is None:
        raise CheckpointError(f"{source} is a zip archive without <folder>/data.pkl")
    if any(n.startswith(prefix + "code/") for n in names):
        raise CheckpointError(f"{source} is a TorchScript archive (torch.jit.save), whose model "
                              f"is code; in PyTorch, save torch.jit.load(path).state_dict() with "
                              f"torch.save or safetensors.torch.save_file and load that")

    def record(name):
        try:
            info = z.getinfo(prefix + name)
        except KeyError as e:
            raise CheckpointError(f"{source} is truncated or corrupted: the record "
                                  f"{prefix + name!r:.80} is missing") from e
        return read_member(z, info, budget)

    byteorder = "<"
    if prefix + "byteorder" in names:
        text = bytes(record("byteorder")).decode("ascii", "replace").strip()
        if text not in ("little", "big"):
            raise CheckpointError(f"{source}: unknown byte order {text!r:.40}")
        byteorder = "<" if text == "little" else ">"
    storages = {}

    def persistent_load(pid):
        if not (type(pid) is tuple and len(pid) == 5 and pid[0] == "storage"):
            raise CheckpointError(f"{source}: unknown persistent id {shown(pid)}")
        _, stype, key, location, numel = pid
        if not (type(stype) is Name and stype.kind == "torch storage" and type(key) is str
                and type(location) is str and type(numel) is int):
            raise CheckpointError(f"{source}: a storage with the id {shown(pid)}")
        if key not in storages:
            raw = record(f"data/{key}")
            itemsize = stored_dtypes(stype.value, source, f"the storage {key!r:.40}")[0].itemsize
            if len(raw) != numel * itemsize:
                raise CheckpointError(f"{source} is truncated or corrupted: the storage record "
                                      f"{key!r:.40} holds {len(raw):,} bytes, its id says "
                                      f"{shown(numel)} {stype.value} elements")
            storages[key] = _Storage(raw, stype.value, location, byteorder, key)
        if storages[key].dtype_name != stype.value:
            raise CheckpointError(f"{source}: the storage {key!r:.40} read as both "
                                  f"{storages[key].dtype_name} and {stype.value}")
        return storages[key]

    obj = unpickle(record("data.pkl"), budget, _torch_names, persistent_load)
    return _finish(obj, budget)


def _torch_names(u):
    """The torch globals the unpickler ``u`` may meet: the rebuild functions, emulated, and
    markers for dtypes, storage types and classes."""
    def tensor(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None,
               dtype_name=None):
        if type(storage) is not _Storage:
            raise CheckpointError(f"a tensor of a {type(storage).__name__}, not a storage")
        metadata = {} if metadata is None else metadata
        if not (type(requires_grad) is bool and (hooks is None or hooks == {})
                and type(metadata) in (dict, PickledDict) and set(metadata) <= {"conj", "neg"}):
            raise CheckpointError(f"a tensor with requires_grad={shown(requires_grad)}, the "
                                  f"backward hooks {shown(hooks)} and the metadata "
                                  f"{shown(metadata)}")
        name = storage.dtype_name if dtype_name is None else dtype_name
        arr = build(storage.raw, name, size, strides=stride, offset=offset,
                    byteorder=storage.byteorder, budget=u.budget,
                    what=f"a tensor of the storage {storage.key!r:.40}")
        if metadata.get("conj"):   # PyTorch's lazy conjugate and negative bits
            np.conjugate(arr, out=arr)
        if metadata.get("neg"):
            np.negative(arr, out=arr)
        t = RawTensor(arr, name, u.key("tensor"), storage.location)
        t.requires_grad = requires_grad
        return t

    def v1(storage, offset, size, stride):
        return tensor(storage, offset, size, stride)

    def v3(storage, offset, size, stride, requires_grad, hooks, dtype, metadata=None):
        if not (type(dtype) is Name and dtype.kind == "torch dtype"):
            raise CheckpointError(f"_rebuild_tensor_v3 with the dtype {shown(dtype)}")
        return tensor(storage, offset, size, stride, requires_grad, hooks, metadata, dtype.value)

    rebuilds = {"_rebuild_tensor": Emulated("torch._utils._rebuild_tensor", v1),
                "_rebuild_tensor_v2": Emulated("torch._utils._rebuild_tensor_v2", tensor),
                "_rebuild_tensor_v3": Emulated("torch._utils._rebuild_tensor_v3", v3)}

    def parameter(data, requires_grad, hooks, state=None):
        if type(data) is not RawTensor or type(requires_grad) is not bool:
            raise CheckpointError(f"a Parameter of a {type(data).__name__}, not a tensor")
        if requires_grad and data.array.dtype.kind not in "fc":
            raise CheckpointError(f"a Parameter of {data.dtype_name} that requires grad (only "
                                  f"floating-point and complex tensors have gradients)")
        data.requires_grad, data.parameter = requires_grad, True
        return data

    def from_type(func, new_type, args, state):
        # a tensor with Python attributes: its rebuild function, its class and its attributes
        # (dropped: mutograd keeps only the data)
        if func not in rebuilds.values() or type(args) is not tuple or new_type not in (
                tensor_class, parameter_class):
            raise CheckpointError(f"_rebuild_from_type_v2 of {shown(func)} for "
                                  f"{shown(new_type)}")
        t = func.function(*args)
        return parameter(t, True, None) if new_type is parameter_class else t

    def device(spec, index=None):
        if type(spec) is not str or (index is not None and type(index) is not int):
            raise CheckpointError(f"torch.device({shown(spec)}, {shown(index)})")
        return spec if index is None else f"{spec}:{index}"

    tensor_class = Name("torch class", "torch.Tensor")
    parameter_class = Name("torch class", "torch.nn.parameter.Parameter")
    table = {("torch._utils", k): v for k, v in rebuilds.items()}
    table.update({
        ("torch._utils", "_rebuild_parameter"): Emulated("torch._utils._rebuild_parameter",
                                                         parameter),
        ("torch._utils", "_rebuild_parameter_with_state"): Emulated(
            "torch._utils._rebuild_parameter_with_state", parameter),
        ("torch._tensor", "_rebuild_from_type_v2"): Emulated(
            "torch._tensor._rebuild_from_type_v2", from_type),
        ("torch", "Size"): u.names[("builtins", "tuple")],
        ("torch", "device"): Emulated("torch.device", device),
        ("torch", "Tensor"): tensor_class,
        ("torch.nn.parameter", "Parameter"): parameter_class,
        ("torch.storage", "UntypedStorage"): Name("torch storage", "uint8"),
        ("torch", "UntypedStorage"): Name("torch storage", "uint8"),
    })
    for cls, dtype_name in _TORCH_STORAGES.items():
        table[("torch", cls)] = Name("torch storage", dtype_name)
    for name, dtype_name in _TORCH_DTYPES.items():
        table[("torch", name)] = Name("torch dtype", dtype_name)
    return table


# ---- pickles (Paddle, and PyTorch's legacy format) -----------------------------------------
def read_pickle(data, budget):
    """The object in a pickle of arrays and containers (Paddle's ``.pdparams``/``.pdopt``), as
    a tree of containers, values and :class:`~mutograd.serialization.arrays.RawTensor` s."""
    if data.startswith(_LEGACY_MAGIC):
        raise CheckpointError(
            f"{budget.source} is a PyTorch file in the legacy format (before PyTorch 1.6), which "
            f"mutograd does not read; re-save it in PyTorch: torch.save(torch.load(path), path) "
            f"(the zip format), or safetensors.torch.save_file(torch.load(path), "
            f"'model.safetensors')")
    obj = _finish(unpickle(data, budget, uint16_name="bfloat16"), budget, paddle=True)
    return _paddle_unpack(obj, budget) if isinstance(obj, dict) else obj


def _paddle_unpack(d, budget):
    """Undo ``paddle.save``'s bookkeeping: drop its name table and join the slices it cut
    arrays over 4 GiB into (protocols below 4)."""
    d = type(d)((k, v) for k, v in d.items() if k != PADDLE_NAME_TABLE)
    info = d.pop("UnpackBigParamInfor@@", None)
    for name, parts in (info.items() if isinstance(info, dict) else ()):
        try:
            pieces = [d.pop(s) for s in parts["slices"]]
            shape = tuple(parts["OriginShape"])
            arrays = [p.array.reshape(-1) for p in pieces]
            budget.charge(sum(a.nbytes for a in arrays), f"the joined array {name!r:.80}")
            d[name] = RawTensor(np.concatenate(arrays).reshape(shape), pieces[0].dtype_name,
                                ("joined", name))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise CheckpointError(f"{budget.source} is corrupted: the slices of {name!r:.80} "
                                  f"do not make the array") from e
    return d


# ---- the tree a pickle gave ----------------------------------------------------------------
def _finish(obj, budget, paddle=False):
    """``obj`` (what a pickle gave) with its placeholders and storages replaced by the arrays
    they stand for: a tree of dicts, lists and tuples at most ``MAX_DEPTH`` deep, whose leaves
    are values and RawTensors. Parts the pickle shared stay shared; a part that contains itself
    is refused."""
    source = budget.source
    done, open_, storages = {}, set(), {}

    def leaf(x):
        x = resolved(x, source)
        if type(x) is _Storage:   # a bare storage: its elements, once per storage key
            if x.key not in storages:
                n = len(x.raw) // stored_dtypes(x.dtype_name, source, "a storage")[0].itemsize
                arr = build(x.raw, x.dtype_name, (n,), byteorder=x.byteorder, budget=budget,
                            what=f"the storage {x.key!r:.40}")
                storages[x.key] = RawTensor(arr, x.dtype_name, ("storage", x.key), x.location)
            return storages[x.key]
        if type(x) is Emulated:
            raise CheckpointError(f"{source}: the function {x.name} as a value")
        return x

    def key(k):
        if type(k) in _SCALARS or (type(k) is tuple and all(type(v) in _SCALARS for v in k)):
            return k
        raise CheckpointError(f"{source}: a dict key of the type {type(k).__name__}")

    def walk(x, depth):
        x = leaf(x)
        if type(x) not in (dict, PickledDict, list, tuple, set, frozenset):
            return x
        if id(x) in done:
            return done[id(x)]
        if id(x) in open_:
            raise CheckpointError(f"{source}: a container that contains itself")
        if depth > MAX_DEPTH:
            raise CheckpointError(f"{source}: containers nested more than {MAX_DEPTH} deep")
        open_.add(id(x))
        if type(x) in (dict, PickledDict):
            out = (OrderedDict if type(x) is PickledDict else dict)(
                (key(k), walk(v, depth + 1)) for k, v in x.items())
        elif type(x) in (set, frozenset):
            out = type(x)(key(v) for v in x)
        elif paddle and type(x) is tuple and len(x) == 2 and type(x[0]) is str \
                and type(leaf(x[1])) is RawTensor:
            out = leaf(x[1])   # paddle.save writes a tensor as (its name, its array)
        else:
            out = type(x)(walk(v, depth + 1) for v in x)
        open_.discard(id(x))
        done[id(x)] = out
        return out

    return walk(obj, 0)


# ---- writing files other tools read --------------------------------------------------------

_STORAGE_OF = {v: k for k, v in _TORCH_STORAGES.items() if v != "bfloat16"}


class _Global:
    """A global that a writer names in its pickle (torch and NumPy are never imported)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):   # pickle wants a reduce function to be callable
        raise TypeError(f"{self.module}.{self.name} is only a name in a pickle")


class _TensorOut:
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


class _StorageOut:
    __slots__ = ("key", "array")

    def __init__(self, key, array):
        self.key, self.array = key, array


class _DTypeOut:
    """A NumPy dtype as NumPy pickles one: ``numpy.dtype(code, False, True)`` and its state."""

    __slots__ = ("code", "byteorder")

    def __init__(self, dtype):
        self.code, self.byteorder = dtype.str[1:], dtype.str[0]


def _plain(obj, path, seen, tensor=None):
    """``obj`` with tensors and arrays as :class:`_TensorOut` (each once, so shared ones stay
    shared) and NumPy scalars as Python numbers; anything else is a TypeError. ``tensor(out,
    t, path)``, when given, is what a tensor or array ``t`` becomes instead of ``out``."""
    from ..tensor import Tensor
    if isinstance(obj, (Tensor, np.ndarray)):
        if id(obj) not in seen:
            arr = obj.cpu()._data if isinstance(obj, Tensor) else obj
            if arr.dtype.name not in _STORAGE_OF:
                raise TypeError(f"cannot write a {arr.dtype} array (at {path or 'the top level'})"
                                f" to a file for other tools")
            seen[id(obj)] = (_TensorOut(little_endian(arr)), obj)
        out = seen[id(obj)][0]
        return out if tensor is None else tensor(out, obj, path)
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, complex, str)):
        return obj
    if isinstance(obj, dict):
        items = [(k, _plain(v, p, seen, tensor)) for k, v, p in storable_items(obj, path, ".")]
        return (OrderedDict if isinstance(obj, OrderedDict) else dict)(items)
    if isinstance(obj, (list, tuple)):
        out = [_plain(v, f"{path}.{i}" if path else str(i), seen, tensor)
               for i, v in enumerate(obj)]
        return out if isinstance(obj, list) else tuple(out)
    raise TypeError(f"cannot write a {type(obj).__name__} (at {path or 'the top level'}) to a "
                    f"file for other tools: only tensors, arrays, numbers, strings, None and "
                    f"dicts/lists/tuples of them")


class _NamingPickler(pickle._Pickler):
    """A pickler whose globals are :class:`_Global` names: what a file names, never imported
    here."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file, protocol):
        super().__init__(file, protocol=protocol)
        self.globals = {}

    def _global(self, module, name):
        return self.globals.setdefault((module, name), _Global(module, name))

    def save_named_global(self, obj):
        if self.proto >= 4:   # as pickle writes a class: two memoized strings, STACK_GLOBAL
            self.save(obj.module)
            self.save(obj.name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
        self.memoize(obj)
    dispatch[_Global] = save_named_global


class _TorchPickler(_NamingPickler):
    """Pickles as ``torch.save`` does (protocol 2): a tensor is
    ``torch._utils._rebuild_tensor_v2`` of a storage that is a record of the archive."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = []

    def persistent_id(self, obj):
        if isinstance(obj, _StorageOut):
            cls = _STORAGE_OF[obj.array.dtype.name]
            return ("storage", self._global("torch", cls), obj.key, "cpu", obj.array.size)
        return None

    def reducer_override(self, obj):
        if not isinstance(obj, _TensorOut):
            return NotImplemented
        arr = obj.array
        storage = _StorageOut(str(len(self.storages)), arr)
        self.storages.append(storage)
        stride = tuple(s // arr.itemsize for s in arr.strides) if arr.size else \
            tuple(int(np.prod(arr.shape[i + 1:])) for i in range(arr.ndim))
        return (self._global("torch._utils", "_rebuild_tensor_v2"),
                (storage, 0, tuple(arr.shape), stride, False, OrderedDict()))


class _NumpyPickler(_NamingPickler):
    """Pickles arrays as NumPy does (what ``paddle.save`` writes): ``_reconstruct(ndarray,
    (0,), b'b')`` whose BUILD brings ``(1, shape, dtype, False, bytes)``, the dtype
    ``numpy.dtype(code, False, True)`` with its state. The module is ``numpy.core.multiarray``,
    which NumPy 1 and 2 both read."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.dtypes = {}

    def reducer_override(self, obj):
        if isinstance(obj, _TensorOut):
            arr = obj.array
            dtype = self.dtypes.setdefault(arr.dtype.str, _DTypeOut(arr.dtype))
            return (self._global("numpy.core.multiarray", "_reconstruct"),
                    (self._global("numpy", "ndarray"), (0,), b"b"),
                    (1, tuple(arr.shape), dtype, False, arr.tobytes()))
        if isinstance(obj, _DTypeOut):
            return (self._global("numpy", "dtype"), (obj.code, False, True),
                    (3, obj.byteorder, None, None, None, -1, -1, 0))
        return NotImplemented


def torch_file(obj, archive="archive"):
    """The bytes of a PyTorch zip file holding ``obj`` (tensors, arrays, numbers, strings and
    containers), which ``torch.load(path, weights_only=True)`` reads; records are 64-byte
    aligned as ``torch.save`` writes them (so ``mmap=True`` works too)."""
    buf = io.BytesIO()
    p = _TorchPickler(buf)
    p.dump(_plain(obj, "", {}))
    records = [("data.pkl", buf.getvalue()), ("byteorder", b"little")]
    records += [(f"data/{s.key}", s.array.tobytes()) for s in p.storages]
    records += [("version", b"3\n"), (".data/serialization_id", b"0")]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, data in records:
            info = zipfile.ZipInfo(f"{archive}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            pad = -(z.fp.tell() + 30 + len(info.filename) + 4) % 64
            info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad   # miniz's "FB" padding
            z.writestr(info, data)
    return out.getvalue()


PADDLE_NAME_TABLE = "StructuredToParameterName@@"


def paddle_file(obj, protocol=4):
    """The bytes of the file ``paddle.save(obj, path)`` writes, which ``paddle.load`` reads:
    a pickle of NumPy arrays and containers (protocol 4 by default; 2 and 3 too).

    As Paddle decides: a state dict (a dict whose values are tensors, or dicts holding no
    tensor) becomes a plain dict of arrays plus the table ``'StructuredToParameterName@@'``
    (each key -> its tensor's ``name``, the key itself for a tensor without one); in any other
    object each tensor becomes the pair ``(name, array)``, arrays stay arrays."""
    from ..tensor import Tensor
    if protocol not in (2, 3, 4):
        raise ValueError(f"paddle files are pickles of protocol 2, 3 or 4, not {protocol!r}")
    seen = {}
    if _is_paddle_state_dict(obj):
        out, names = {}, {}
        for k, v, path in storable_items(obj, "", "."):
            out[k] = _plain(v, path, seen)
            if isinstance(v, Tensor):
                names[k] = v.name or path
        out[PADDLE_NAME_TABLE] = names
    else:
        out = _plain(obj, "", seen, tensor=lambda array, t, path: (
            (t.name or path, array) if isinstance(t, Tensor) else array))
    buf = io.BytesIO()
    _NumpyPickler(buf, protocol).dump(out)
    return buf.getvalue()


def _is_paddle_state_dict(obj):
    """Paddle's test: a dict whose values are tensors, or dicts without a tensor in them."""
    from ..tensor import Tensor

    def holds_tensor(x, depth=0):
        if isinstance(x, Tensor):
            return True
        if depth > MAX_DEPTH or not isinstance(x, (dict, list, tuple)):
            return False
        return any(holds_tensor(v, depth + 1) for v in (x.values() if isinstance(x, dict)
                                                         else x))
    return isinstance(obj, dict) and all(
        isinstance(v, Tensor) or (isinstance(v, dict) and not holds_tensor(v))
        for v in obj.values())
