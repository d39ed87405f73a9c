"""Weights written by other tools, read without running any code from the file.

``mutograd.load`` hands a file here when it is not one of mutograd's own checkpoints:

- a plain safetensors file (any writer): a dict of tensors under the names and dtypes stored;
- a PyTorch ``.pt``/``.pth`` file (``torch.save``'s zip archive: ``data.pkl`` plus one record
  per storage);
- a Paddle ``.pdparams``/``.pdopt`` file (``paddle.save``: a pickle of NumPy arrays);
- an ``.npz`` archive of arrays (``numpy.savez``), read with ``allow_pickle=False``.

Pickles are read the way ``torch.load(weights_only=True)`` reads them: an unpickler whose
allow-list admits tensors, arrays, dtypes and plain containers, by name, and refuses every other
global before it is looked up, so nothing a file names is imported or called. The torch
functions a PyTorch pickle names are emulated here (torch is never imported).

Dtypes mutograd lacks are widened with a warning naming the tensors: bfloat16 and float8 to
float32, uint16 to int32, uint32 and uint64 to int64 (a uint64 value past int64's range is an
error). Paddle stores bfloat16 as uint16 arrays, so a pickle's uint16 arrays are read as
bfloat16, as ``paddle.load`` does.

:func:`save_torch` writes the other way: a PyTorch zip file that ``torch.load(weights_only=True)``
reads (``mutograd.save(obj, path, format='torch')``), and :func:`paddle_file` one that
``paddle.load`` reads.

    >>> import mutograd as mg, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.pt")
    >>> mg.save(mg.nn.Linear(3, 2).state_dict(), path, format="torch")   # torch.load reads it
    >>> {k: v.shape for k, v in mg.load(path).items()}
    {'weight': [2, 3], 'bias': [2]}
"""
import io
import json
import pickle
import struct
import warnings
import zipfile
from collections import OrderedDict

import numpy as np

from .checkpoint import CheckpointError, storable_items

# ---- dtypes --------------------------------------------------------------------------------
# safetensors' dtype names -> the name used below (PyTorch's spelling)
_ST_DTYPES = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "U16": "uint16",
    "I32": "int32", "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16",
    "BF16": "bfloat16", "F32": "float32", "F64": "float64", "C64": "complex64",
    "C128": "complex128", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
}
# dtype name -> (NumPy dtype of the stored bytes, the mutograd dtype it is read as)
_STORED = {
    "bool": ("bool", "bool"), "uint8": ("uint8", "uint8"), "int8": ("int8", "int8"),
    "int16": ("int16", "int16"), "int32": ("int32", "int32"), "int64": ("int64", "int64"),
    "float16": ("float16", "float16"), "float32": ("float32", "float32"),
    "float64": ("float64", "float64"), "complex64": ("complex64", "complex64"),
    "complex128": ("complex128", "complex128"),
    "uint16": ("uint16", "int32"), "uint32": ("uint32", "int64"), "uint64": ("uint64", "int64"),
    "bfloat16": ("uint16", "float32"), "float8_e4m3fn": ("uint8", "float32"),
    "float8_e5m2": ("uint8", "float32"),
}
# PyTorch's legacy storage classes (``torch.FloatStorage``...) -> dtype name
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


def _e4m3fn_table():
    # float8 e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities, S.1111.111 NaN
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp, man = (b >> 3) & 0xF, b & 0x7
    val = np.where(exp == 0, man / 8 * 2.0 ** -6, (1 + man / 8) * 2.0 ** (exp - 7))
    val = np.where((exp == 0xF) & (man == 0x7), np.nan, val)
    return (sign * val).astype(np.float32)


_E4M3FN = _e4m3fn_table()


class _Widening:
    """Collects the names of the tensors read into a wider dtype, for one warning per file."""

    def __init__(self, source):
        self.source = source
        self.names = {}

    def convert(self, bits, dtype_name, name):
        """The array of ``dtype_name`` stored as ``bits`` (the stored NumPy dtype), in a dtype
        mutograd has."""
        stored, target = _STORED[dtype_name]
        if dtype_name == "bool":   # any nonzero byte is True (NumPy would keep the byte)
            return bits.view(np.uint8) != 0
        if stored == target:
            return bits
        self.names.setdefault(dtype_name, []).append(name)
        if dtype_name == "bfloat16":   # bfloat16 is the top half of a float32
            return (bits.astype(np.uint32) << 16).view(np.float32)
        if dtype_name == "float8_e5m2":   # float8 e5m2 is the top half of a float16
            return (bits.astype(np.uint16) << 8).view(np.float16).astype(np.float32)
        if dtype_name == "float8_e4m3fn":
            return _E4M3FN[bits]
        if dtype_name == "uint64" and bits.size and bits.max() > np.iinfo(np.int64).max:
            raise CheckpointError(f"{self.source}: the uint64 tensor {name!r} holds values past "
                                  f"int64's range (mutograd has no uint64)")
        return bits.astype(target)

    def warn(self):
        for dtype_name, names in self.names.items():
            target = _STORED[dtype_name][1]
            warnings.warn(f"{self.source}: {dtype_name} tensors read as {target} (mutograd has "
                          f"no {dtype_name}): {', '.join(map(str, names))}", UserWarning,
                          stacklevel=4)


def _dtype_for(dtype_name, source, name="?"):
    if dtype_name not in _STORED:
        raise CheckpointError(f"{source}: the tensor {name!r} has the dtype {dtype_name}, which "
                              f"mutograd cannot read (supported: {', '.join(sorted(_STORED))})")
    return np.dtype(_STORED[dtype_name][0])


# ---- plain safetensors ---------------------------------------------------------------------
def read_safetensors(data, source, header=None):
    """The tensors of a safetensors file (bytes), in the header's order, as
    :class:`_RawTensor` s (see :func:`to_mutograd`). Needs no package: the format is a JSON
    header, then raw little-endian data."""
    (n,) = struct.unpack("<Q", data[:8])
    if header is None:
        header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = OrderedDict()
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype_name = _ST_DTYPES.get(info["dtype"], info["dtype"])
            shape = [int(s) for s in info["shape"]]
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise CheckpointError(f"{source}: the safetensors header entry for {name!r} is "
                                  f"malformed: {info!r}") from None
        stored = _dtype_for(dtype_name, source, name)
        count = int(np.prod(shape, dtype=np.int64))
        if min(shape, default=0) < 0 or not 0 <= begin <= end <= len(body) \
                or end - begin != count * stored.itemsize:
            raise CheckpointError(f"{source} is truncated or corrupted: the tensor {name!r} "
                                  f"({info['dtype']}, shape {shape}) claims bytes {begin}..{end} "
                                  f"of {len(body)}")
        bits = np.frombuffer(body[begin:end], dtype=stored.newbyteorder("<")).reshape(shape)
        out[name] = _RawTensor(np.array(bits, dtype=stored, order="C"), dtype_name, False, "cpu")
    return out


# ---- npz without mutograd's metadata -------------------------------------------------------
def read_npz(data, source):
    """The arrays of a plain ``.npz`` archive (never unpickled), in the archive's order."""
    out = OrderedDict()
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        for k in z.files:
            out[k] = z[k]
            if not isinstance(out[k], np.ndarray):   # np.load gives other records as bytes
                raise CheckpointError(f"{source} is a zip archive but not an npz archive: its "
                                      f"record {k!r} is not a .npy array")
    return out


# ---- the restricted unpickler --------------------------------------------------------------
class _Stub:
    """A name a pickle may mention (a torch storage class, dtype, ...), standing for itself:
    an immutable marker, never code."""

    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)

    def __setattr__(self, name, value):
        raise CheckpointError(f"a checkpoint tried to set {name!r} on {self!r}")

    def __repr__(self):
        return f"<{self.kind} {self.value}>"


class _RawTensor:
    """A tensor read from a PyTorch pickle: its array in the stored dtype, made into a mutograd
    tensor once its name in the structure is known."""

    __slots__ = ("bits", "dtype_name", "requires_grad", "parameter", "location")

    def __init__(self, bits, dtype_name, requires_grad, location):
        self.bits = bits
        self.dtype_name = dtype_name
        self.requires_grad = bool(requires_grad)
        self.parameter = False
        self.location = location


class _Storage:
    __slots__ = ("raw", "dtype_name", "location", "byteorder")

    def __init__(self, raw, dtype_name, location, byteorder="little"):
        self.raw = raw
        self.dtype_name = dtype_name
        self.location = location
        self.byteorder = byteorder


def _tensor_from_storage(storage, offset, size, stride, dtype_name, source):
    """The elements of ``storage`` at ``offset`` with ``size`` and ``stride`` (in elements),
    copied; every index is checked to lie inside the storage first."""
    stored = _dtype_for(dtype_name, source)
    raw = storage.raw
    if len(raw) % stored.itemsize:
        raise CheckpointError(f"{source} is corrupted: a {dtype_name} storage of {len(raw)} "
                              f"bytes")
    flat = raw.view(stored.newbyteorder("<" if storage.byteorder == "little" else ">"))
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    offset = int(offset)
    if len(size) != len(stride) or min(size, default=0) < 0 or min(stride, default=0) < 0 \
            or offset < 0:
        raise CheckpointError(f"{source} is corrupted: a tensor with size {size}, stride "
                              f"{stride} and offset {offset}")
    if 0 in size:
        return np.empty(size, stored)
    last = offset + sum((n - 1) * s for n, s in zip(size, stride))
    if last >= len(flat):
        raise CheckpointError(f"{source} is corrupted: a tensor (size {size}, stride {stride}, "
                              f"offset {offset}) reaches past its storage of {len(flat)} "
                              f"elements")
    view = np.lib.stride_tricks.as_strided(flat[offset:], shape=size,
                                           strides=[s * stored.itemsize for s in stride],
                                           writeable=False)
    return np.array(view, dtype=stored, order="C")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None, _dtype=None, _source="?"):
    if not isinstance(storage, _Storage):
        raise CheckpointError(f"{_source}: a tensor without storage ({type(storage).__name__})")
    dtype_name = storage.dtype_name if _dtype is None else _dtype
    bits = _tensor_from_storage(storage, storage_offset, size, stride, dtype_name, _source)
    if metadata:   # PyTorch's lazy conjugate and negative bits
        if metadata.get("conj"):
            bits = np.conj(bits)
        if metadata.get("neg"):
            bits = -bits
    return _RawTensor(bits, dtype_name, requires_grad, storage.location)


def _rebuild_parameter(data, requires_grad, backward_hooks, state=None):
    if not isinstance(data, _RawTensor):
        raise CheckpointError(f"a Parameter of {type(data).__name__}, not a tensor")
    data.requires_grad = bool(requires_grad)
    data.parameter = True
    return data


def _codecs_encode(obj, encoding="utf-8", errors="strict"):
    # protocol-2 pickles spell bytes as _codecs.encode(str, 'latin1')
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1"):
        raise CheckpointError(f"_codecs.encode is allowed only for latin1 text, not "
                              f"{type(obj).__name__} in {encoding!r}")
    return obj.encode("latin1", errors)


def _np_reconstruct(cls, shape, typecode):
    if cls is not np.ndarray:
        raise CheckpointError(f"numpy's _reconstruct called for {cls!r}, not numpy.ndarray")
    if isinstance(typecode, bytes):
        typecode = typecode.decode("latin1")
    return np.ndarray.__new__(np.ndarray, shape, np.dtype(typecode))


def _np_dtype(spec, align=False, copy=False):
    if not isinstance(spec, str):
        raise CheckpointError(f"numpy.dtype from {type(spec).__name__}")
    return np.dtype(spec, bool(align), bool(copy))


def _np_scalar(dtype, data=None):
    if not isinstance(dtype, np.dtype) or dtype.hasobject or not isinstance(data, bytes):
        raise CheckpointError(f"a NumPy scalar of {dtype!r}")
    return np.frombuffer(data, dtype=dtype, count=1)[0]


def _np_frombuffer(buf, dtype, shape, order):
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise CheckpointError(f"a NumPy array of {dtype!r}")
    return np.frombuffer(bytes(buf), dtype=dtype).reshape(shape, order=order).copy()


_REFUSED_TORCH = {
    "_rebuild_qtensor": "quantized tensors", "_rebuild_sparse_tensor": "sparse tensors",
    "_rebuild_nested_tensor": "nested tensors", "_rebuild_meta_tensor_no_storage":
    "meta tensors", "_rebuild_wrapper_subclass": "tensor subclasses",
    "_rebuild_device_tensor_from_numpy": "XLA/device tensors",
    "_rebuild_device_tensor_from_cpu_tensor": "XLA/device tensors",
}


class _TorchRebuilder:
    """The torch functions a pickle may call, emulated, with the file's name for messages."""

    def __init__(self, source):
        self.source = source

    def v2(self, storage, storage_offset, size, stride, requires_grad=False,
           backward_hooks=None, metadata=None):
        return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                                  backward_hooks, metadata, _source=self.source)

    def v3(self, storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
           metadata=None):
        if not (isinstance(dtype, _Stub) and dtype.kind == "torch dtype"):
            raise CheckpointError(f"{self.source}: _rebuild_tensor_v3 with dtype {dtype!r}")
        return _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
                                  backward_hooks, metadata, _dtype=dtype.value,
                                  _source=self.source)

    def v1(self, storage, storage_offset, size, stride):
        return self.v2(storage, storage_offset, size, stride)

    def from_type_v2(self, func, new_type, args, state):
        if func not in self.callables or not isinstance(args, tuple):
            raise CheckpointError(f"{self.source}: _rebuild_from_type_v2 with {func!r}")
        t = func(*args)
        if isinstance(new_type, _Stub) and new_type.value == "torch.nn.parameter.Parameter":
            t = _rebuild_parameter(t, True, None)
        elif not (isinstance(new_type, _Stub) and new_type.value == "torch.Tensor"):
            raise CheckpointError(f"{self.source}: a tensor of the class {new_type!r}")
        return t

    @property
    def callables(self):
        return (self.v1, self.v2, self.v3)


def _allowed(source):
    """(module, name) -> the object a pickle gets for that global: containers, NumPy's array
    reconstruction (checked), the emulated torch rebuild functions, and markers for names."""
    torch = _TorchRebuilder(source)
    table = {
        ("collections", "OrderedDict"): OrderedDict,
        ("builtins", "set"): set, ("builtins", "frozenset"): frozenset,
        ("builtins", "tuple"): tuple, ("builtins", "list"): list, ("builtins", "dict"): dict,
        ("builtins", "complex"): complex, ("builtins", "bytearray"): bytearray,
        ("builtins", "slice"): slice,
        ("_codecs", "encode"): _codecs_encode,
        ("numpy", "ndarray"): np.ndarray, ("numpy", "dtype"): _np_dtype,
        ("torch._utils", "_rebuild_tensor"): torch.v1,
        ("torch._utils", "_rebuild_tensor_v2"): torch.v2,
        ("torch._utils", "_rebuild_tensor_v3"): torch.v3,
        ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
        ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
        ("torch._tensor", "_rebuild_from_type_v2"): torch.from_type_v2,
        ("torch", "Size"): tuple,
        ("torch", "device"): _torch_device,
        ("torch", "Tensor"): _Stub("torch class", "torch.Tensor"),
        ("torch.nn.parameter", "Parameter"): _Stub("torch class", "torch.nn.parameter.Parameter"),
        ("torch.storage", "UntypedStorage"): _Stub("torch storage", "uint8"),
    }
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        table[(mod, "_reconstruct")] = _np_reconstruct
        table[(mod, "scalar")] = _np_scalar
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        table[(mod, "_frombuffer")] = _np_frombuffer
    for cls, dtype_name in _TORCH_STORAGES.items():
        table[("torch", cls)] = _Stub("torch storage", dtype_name)
    for name, dtype_name in _TORCH_DTYPES.items():
        table[("torch", name)] = _Stub("torch dtype", dtype_name)
    return table


def _torch_device(spec, index=None):
    if not isinstance(spec, str) or (index is not None and not isinstance(index, int)):
        raise CheckpointError(f"torch.device({spec!r}, {index!r})")
    return spec if index is None else f"{spec}:{index}"


class SafeUnpickler(pickle._Unpickler):
    """``pickle``'s unpickler restricted to an allow-list of globals.

    ``find_class`` answers only the (module, name) pairs of :func:`_allowed`, without importing
    anything; REDUCE, NEWOBJ and OBJ call only what it answered; BUILD (setting an object's
    state) is allowed only on NumPy arrays and dtypes. Anything else raises
    :class:`~mutograd.checkpoint.CheckpointError` naming the global and the file, before it runs.
    """

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, source, persistent_load=None):
        super().__init__(file, encoding="latin1")
        self.source = source
        self.table = _allowed(source)
        # np.ndarray is answered only as _reconstruct's argument: called directly, it would
        # make an array over a buffer with strides of the file's choosing
        self.callables = {id(v): v for v in self.table.values() if callable(v)
                          and not isinstance(v, _Stub) and v is not np.ndarray}
        self._persistent = persistent_load

    def persistent_load(self, pid):
        if self._persistent is None:
            raise CheckpointError(f"{self.source}: a pickle with a persistent id {pid!r} outside "
                                  f"a PyTorch archive")
        return self._persistent(pid)

    def find_class(self, module, name):
        if self.proto < 3:   # Python 2 names (__builtin__.set) in protocol-2 pickles
            import _compat_pickle
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        try:
            return self.table[(module, name)]
        except (KeyError, TypeError):
            pass
        raise CheckpointError(_refusal(self.source, f"{module}.{name}"))

    def _check_callable(self, func, what):
        if id(func) not in self.callables or self.callables[id(func)] is not func:
            raise CheckpointError(f"{self.source}: refused to {what} {func!r} (only the "
                                  f"allow-listed tensor, array and container constructors run)")

    def load_reduce(self):
        args = self.stack[-1]
        self._check_callable(self.stack[-2], "call")
        if not isinstance(args, tuple):
            raise CheckpointError(f"{self.source}: REDUCE with arguments {type(args).__name__}")
        super().load_reduce()
    dispatch[pickle.REDUCE[0]] = load_reduce

    def load_newobj(self):
        self._check_callable(self.stack[-2], "make an instance of")
        super().load_newobj()
    dispatch[pickle.NEWOBJ[0]] = load_newobj

    def load_newobj_ex(self):
        self._check_callable(self.stack[-3], "make an instance of")
        super().load_newobj_ex()
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex

    def load_obj(self):
        args = self.pop_mark()
        cls = args.pop(0)
        self._check_callable(cls, "call")
        self._instantiate(cls, args)
    dispatch[pickle.OBJ[0]] = load_obj

    def load_inst(self):
        module = self.readline()[:-1].decode("ascii")
        name = self.readline()[:-1].decode("ascii")
        klass = self.find_class(module, name)
        self._check_callable(klass, "call")
        self._instantiate(klass, self.pop_mark())
    dispatch[pickle.INST[0]] = load_inst

    def load_build(self):
        inst = self.stack[-2]
        if isinstance(inst, OrderedDict):
            # PyTorch keeps a state_dict's version numbers in its ``_metadata``: not needed
            self.stack.pop()
            return
        if not (type(inst) is np.ndarray or isinstance(inst, np.dtype)):
            raise CheckpointError(f"{self.source}: refused to set the state of a "
                                  f"{type(inst).__name__} (only arrays and dtypes have state)")
        super().load_build()
    dispatch[pickle.BUILD[0]] = load_build


def _refusal(source, global_name):
    last = global_name.split(".")[-1]
    if global_name.startswith("torch.") and last in _REFUSED_TORCH:
        hint = (f": {_REFUSED_TORCH[last]} are not supported; convert them to dense CPU "
                f"tensors in PyTorch first")
    elif global_name.startswith("torch.") and (last.endswith("Storage") or last.startswith(
            ("float", "int", "uint", "complex", "bits", "qint", "quint"))):
        hint = f": mutograd does not read tensors of {global_name}"
    elif global_name.startswith(("torch.", "__torch__")):
        hint = (": it pickles a whole object, not only weights (as torch.save(model) does); in "
                "PyTorch, save model.state_dict() instead, or convert the file with "
                "safetensors.torch.save_file(torch.load(path), 'model.safetensors')")
    else:
        hint = (": weights files may hold only tensors, arrays, dtypes, numbers, strings and "
                "dicts/lists/tuples of them; nothing in the file was run")
    return f"{source}: refused to load the global {global_name}{hint}"


def _unpickle(data, source, persistent_load=None):
    try:
        return SafeUnpickler(io.BytesIO(data), source, persistent_load).load()
    except CheckpointError:
        raise
    except Exception as e:  # noqa: BLE001  (any parser error means a damaged file)
        raise CheckpointError(f"{source} is truncated or corrupted (pickle: "
                              f"{type(e).__name__}: {e})") from None


# ---- PyTorch zip archives ------------------------------------------------------------------
_LEGACY_MAGIC = pickle.dumps(0x1950a86a20f9469cfc6c, protocol=2)


def torch_record_prefix(names):
    """The folder holding ``data.pkl`` in a zip archive written by ``torch.save``, or None."""
    for n in names:
        if n.endswith("data.pkl") and n.count("/") == 1 and n.split("/")[1] == "data.pkl":
            return n[:-len("data.pkl")]
    return None


def read_torch_zip(data, source):
    """The object in a ``torch.save`` zip archive: containers as pickled, tensors as
    :class:`_RawTensor` (see :func:`to_mutograd`)."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        names = z.namelist()
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"{source} is truncated or corrupted (zip: {type(e).__name__}: "
                              f"{e})") from None
    prefix = torch_record_prefix(names)
    if any(n.startswith(prefix + "code/") for n in names):
        raise CheckpointError(f"{source} is a TorchScript archive (torch.jit.save), whose model "
                              f"is code; in PyTorch, save torch.jit.load(path).state_dict() with "
                              f"torch.save or safetensors.torch.save_file and load that")
    byteorder = "little"
    if prefix + "byteorder" in names:
        byteorder = z.read(prefix + "byteorder").decode("ascii", "replace").strip()
        if byteorder not in ("little", "big"):
            raise CheckpointError(f"{source}: unknown byte order {byteorder!r}")
    storages = {}

    def persistent_load(pid):
        if not (isinstance(pid, tuple) and len(pid) >= 5 and pid[0] == "storage"):
            raise CheckpointError(f"{source}: unknown persistent id {pid!r}")
        _, stype, key, location, numel = pid[:5]
        if not (isinstance(stype, _Stub) and stype.kind == "torch storage"):
            raise CheckpointError(f"{source}: a storage of the type {stype!r}")
        key = str(key)
        if key not in storages:
            record = f"{prefix}data/{key}"
            try:
                raw = z.read(record)
            except KeyError:
                raise CheckpointError(f"{source} is truncated or corrupted: the record {record} "
                                      f"is missing") from None
            except Exception as e:  # noqa: BLE001
                raise CheckpointError(f"{source} is truncated or corrupted (the record {record}:"
                                      f" {type(e).__name__}: {e})") from None
            storages[key] = _Storage(np.frombuffer(raw, np.uint8), stype.value, str(location),
                                     byteorder)
        return storages[key]

    try:
        pkl = z.read(prefix + "data.pkl")
    except Exception as e:  # noqa: BLE001
        raise CheckpointError(f"{source} is truncated or corrupted (data.pkl: "
                              f"{type(e).__name__}: {e})") from None
    return _unpickle(pkl, source, persistent_load)


# ---- pickles (Paddle, and PyTorch's legacy format) -----------------------------------------
def read_pickle(data, source):
    """A pickle of arrays and containers (Paddle's ``.pdparams``/``.pdopt``), restricted."""
    if data.startswith(_LEGACY_MAGIC):
        raise CheckpointError(
            f"{source} is a PyTorch file in the legacy format (before PyTorch 1.6), which "
            f"mutograd does not read; re-save it in PyTorch: torch.save(torch.load(path), path) "
            f"(the zip format), or safetensors.torch.save_file(torch.load(path), "
            f"'model.safetensors')")
    obj = _unpickle(data, source)
    if isinstance(obj, dict):
        obj = _paddle_unpack(obj, source)
    return obj


def _paddle_unpack(d, source):
    """Undo ``paddle.save``'s bookkeeping: drop its name table and join the slices it cut
    arrays over 4 GiB into (protocols below 4)."""
    d = type(d)((k, v) for k, v in d.items() if k != "StructuredToParameterName@@")
    info = d.pop("UnpackBigParamInfor@@", None)
    if isinstance(info, dict):
        for name, parts in info.items():
            try:
                pieces = [d.pop(s) for s in parts["slices"]]
                d[name] = np.concatenate([p.reshape(-1) for p in pieces]).reshape(
                    parts["OriginShape"])
            except (KeyError, TypeError, ValueError, AttributeError):
                raise CheckpointError(f"{source} is corrupted: the slices of {name!r} do not "
                                      f"make the array") from None
    return d


# ---- into mutograd tensors -----------------------------------------------------------------
def to_mutograd(obj, source, map_location=None, paddle=False):
    """Replace the arrays and :class:`_RawTensor` s in ``obj`` by mutograd tensors (in dtypes
    mutograd has, warning for widened ones) on the place ``map_location`` picks."""
    from .checkpoint import _place_tensor
    from .nn import Parameter
    from .tensor import _wrap
    widen = _Widening(source)
    seen = {}

    def conv(x, name):
        if id(x) in seen:
            return seen[id(x)]
        if isinstance(x, _RawTensor):
            arr = widen.convert(x.bits, x.dtype_name, name)   # a fresh C-ordered array
            t = _place_tensor(_wrap(arr), _location_name(x.location), map_location)
            if x.parameter:
                t = Parameter(t, requires_grad=x.requires_grad)
            elif x.requires_grad and t.dtype.is_floating_point:
                t.requires_grad_(True)
            out = t
        elif isinstance(x, np.ndarray):
            if x.dtype.hasobject or x.dtype.name not in _STORED:
                raise CheckpointError(f"{source}: the array {name!r} has the dtype {x.dtype}, "
                                      f"which mutograd cannot read")
            dtype_name = "bfloat16" if (paddle and x.dtype == np.uint16) else x.dtype.name
            arr = np.array(widen.convert(x, dtype_name, name), order="C")
            out = _place_tensor(_wrap(arr), "cpu", map_location)
        elif isinstance(x, dict):
            out = type(x)((k, conv(v, f"{name}.{k}" if name else str(k))) for k, v in x.items())
        elif isinstance(x, list):
            out = [conv(v, f"{name}.{i}" if name else str(i)) for i, v in enumerate(x)]
        elif isinstance(x, tuple):
            if paddle and len(x) == 2 and isinstance(x[0], str) and isinstance(x[1], np.ndarray):
                out = conv(x[1], name)   # paddle.save writes a tensor as (its name, its array)
            else:
                out = tuple(conv(v, f"{name}.{i}" if name else str(i)) for i, v in enumerate(x))
        elif isinstance(x, _Storage):   # a bare storage: its elements as a 1-d tensor
            n = len(x.raw) // _dtype_for(x.dtype_name, source).itemsize
            return conv(_rebuild_tensor_v2(x, 0, [n], [1], _source=source), name)
        elif isinstance(x, _Stub):   # a torch dtype, storage or class named as a value
            return _as_dtype(x.value) if x.kind == "torch dtype" else x.value
        else:
            return x
        seen[id(x)] = out
        return out

    try:
        out = conv(obj, "")
    except RecursionError:
        raise CheckpointError(f"{source}: containers nested too deeply") from None
    widen.warn()
    return out


def _as_dtype(name):
    from . import dtypes
    try:
        return dtypes.get(name)
    except TypeError:
        return name   # bfloat16, float8, uint16...: named by a string


def _location_name(location):
    # PyTorch's 'cuda:0' is mutograd's 'gpu:0'; other device kinds (mps, xla) load on the CPU
    from .places import get_name
    try:
        return get_name(location)
    except Exception:  # noqa: BLE001  (PlaceError: a kind mutograd has no place for)
        return "cpu"


# ---- writing files other tools read --------------------------------------------------------
_STORAGE_OF = {v: k for k, v in _TORCH_STORAGES.items() if v != "bfloat16"}


class _Global:
    """A global that the PyTorch writer names in its pickle (torch is never imported)."""

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


def _plain(obj, path, seen):
    """``obj`` with tensors and arrays as :class:`_TensorOut` (each once, so shared ones stay
    shared) and NumPy scalars as Python numbers; anything else is a TypeError."""
    from .tensor import Tensor
    if isinstance(obj, (Tensor, np.ndarray)):
        if id(obj) not in seen:
            arr = obj.cpu()._data if isinstance(obj, Tensor) else obj
            if arr.dtype.name not in _STORAGE_OF:
                raise TypeError(f"cannot write a {arr.dtype} array (at {path or 'the top level'})"
                                f" to a file for other tools")
            seen[id(obj)] = (_TensorOut(np.array(arr, order="C")), obj)
        return seen[id(obj)][0]
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, complex, str)):
        return obj
    if isinstance(obj, dict):
        items = [(k, _plain(v, p, seen)) for k, v, p in storable_items(obj, path, ".")]
        return (OrderedDict if isinstance(obj, OrderedDict) else dict)(items)
    if isinstance(obj, (list, tuple)):
        out = [_plain(v, f"{path}.{i}" if path else str(i), seen) for i, v in enumerate(obj)]
        return out if isinstance(obj, list) else tuple(out)
    raise TypeError(f"cannot write a {type(obj).__name__} (at {path or 'the top level'}) to a "
                    f"file for other tools: only tensors, arrays, numbers, strings, None and "
                    f"dicts/lists/tuples of them")


class _TorchPickler(pickle._Pickler):
    """Pickles as ``torch.save`` does (protocol 2): a tensor is
    ``torch._utils._rebuild_tensor_v2`` of a storage that is a record of the archive."""

    dispatch = dict(pickle._Pickler.dispatch)

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = []
        self.globals = {}

    def _global(self, module, name):
        return self.globals.setdefault((module, name), _Global(module, name))

    def save_torch_global(self, obj):
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode("ascii"))
        self.memoize(obj)
    dispatch[_Global] = save_torch_global

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


def paddle_file(obj):
    """The bytes of a Paddle file holding ``obj`` (a pickle, protocol 4, of NumPy arrays and
    containers), which ``paddle.load`` reads (tensors come back as Paddle tensors)."""
    def unwrap(x):
        if isinstance(x, _TensorOut):
            return x.array
        if isinstance(x, dict):
            return type(x)((k, unwrap(v)) for k, v in x.items())
        if isinstance(x, (list, tuple)):
            return type(x)(unwrap(v) for v in x)
        return x
    return pickle.dumps(unwrap(_plain(obj, "", {})), protocol=4)
