"""Pickles read by construction: PyTorch's ``data.pkl`` and Paddle's ``.pdparams``.

Note [Reading a pickle by construction]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Filtering the globals a pickle names is not enough: an allowed ``numpy.dtype`` whose state comes
from the file can describe object pointers or a subarray larger than its buffer, and NumPy's own
``__setstate__`` then reads or frees memory as the file says. So nothing from the file is ever
asked to restore itself:

- every global resolves, by (module, name) and without importing anything, to an
  :class:`Emulated` function of ours or to a :class:`Name` that stands for itself; any other
  global is refused by name;
- REDUCE calls only an :class:`Emulated` function, with a tuple;
- the emulated functions build plain values: containers, numbers, and arrays made by
  :func:`~mutograd.serialization.arrays.build` from an allow-listed dtype name, a byte order, a
  shape and the bytes present;
- BUILD (setting an object's state) reaches only our placeholders: ``numpy.dtype(...)`` gives a
  :class:`DTypeSpec` and ``_reconstruct`` a :class:`PendingArray`, whose ``__setstate__`` is our
  checker; a placeholder that no BUILD completes is refused, never returned uninitialised;
- APPEND(S), SETITEM(S) and ADDITEMS reach only lists, dicts and sets; the opcodes that make
  instances of classes, call extension registries or take out-of-band buffers are refused;
  BYTEARRAY8 reads its bytes before it allocates;
- every opcode charges what it can make (objects, memo entries, container items) to the load's
  budget before it runs; strings and bytes are bounded by the file, charged once for all.

This is why the class extends the pure-Python ``pickle._Unpickler``: its dispatch table is
per opcode, so the table below holds exactly the opcodes allowed, each charged, and its memo is
a dict (the C unpickler grows an array to the largest index a file names).
"""
import io
import pickle
import pickletools
import struct

import numpy as np

from ..errors import CheckpointError, WeightsOnlyError
from .arrays import NUMPY_CODES, RawTensor, build
from .text import shown


class Name:
    """A global a pickle may name that stands for itself (a torch dtype or storage type, a
    class): an immutable marker, never code."""

    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "value", value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{self!r} is immutable")

    def __repr__(self):
        return f"<{self.kind} {self.value}>"


class Emulated:
    """An allow-listed global a pickle may call: our ``function`` standing for ``name``."""

    __slots__ = ("name", "function")

    def __init__(self, name, function):
        self.name, self.function = name, function

    def __repr__(self):
        return f"<{self.name}, emulated>"


class PickledDict(dict):
    """What ``collections.OrderedDict()`` gives; its BUILD may carry PyTorch's ``_metadata``
    (state_dict version numbers), which is dropped."""

    __slots__ = ()

    def __setstate__(self, state):
        if not (type(state) is dict and set(state) <= {"_metadata"}):
            raise CheckpointError(f"an OrderedDict with the attributes {shown(state)}")


class DTypeSpec:
    """What ``numpy.dtype(code, align, copy)`` gives: an allow-listed dtype name, in the byte
    order of the BUILD that follows (native without one)."""

    __slots__ = ("name", "byteorder", "built")

    def __init__(self, name, byteorder):
        self.name, self.byteorder, self.built = name, byteorder, False

    def __setstate__(self, state):
        # NumPy's state of a plain dtype: (3, byte order, None, None, None, -1, -1, 0), and a
        # 9th item, None, for version 4. Anything else (fields, subarrays, object flags) refused.
        if self.built or not (type(state) is tuple and len(state) in (8, 9)
                              and state[0] in (3, 4) and state[1] in ("<", ">", "|", "=")
                              and state[2:] in ((None, None, None, -1, -1, 0),
                                                (None, None, None, -1, -1, 0, None))):
            raise CheckpointError(f"a numpy.dtype({self.name!r}) with the state {shown(state)} "
                                  f"(only plain numeric dtypes are read)")
        self.byteorder, self.built = state[1], True


class PendingArray:
    """What NumPy's ``_reconstruct`` gives: no array yet. The BUILD that follows brings the
    dtype, shape and bytes; ``__setstate__`` checks them and builds the array."""

    __slots__ = ("reader", "tensor")

    def __init__(self, reader):
        self.reader, self.tensor = reader, None

    def __setstate__(self, state):
        if self.tensor is not None or not (type(state) is tuple and len(state) == 5
                                           and state[0] == 1):
            raise CheckpointError(f"an array with the state {shown(state)}")
        _, shape, dtype, fortran, raw = state
        self.tensor = self.reader.array(raw, dtype, shape, fortran, "a NumPy array")


# ---- the opcodes allowed, and what each may make -------------------------------------------
_OBJECT = 96      # the most one opcode's new object and stack slot take (an empty dict: 72)
_MEMO = 128       # a memo entry: its int key and its share of the memo dict
_SET = 256        # an empty set
# per item on the stack since the mark: list and tuple slots, dict and set entries
_PER_ITEM = {"APPENDS": 16, "LIST": 16, "TUPLE": 16, "SETITEMS": 64, "DICT": 64,
             "ADDITEMS": 128, "FROZENSET": 128}
_COST = {"EMPTY_SET": _SET, "FROZENSET": _SET, "PUT": _MEMO, "BINPUT": _MEMO,
         "LONG_BINPUT": _MEMO, "MEMOIZE": _MEMO}
_REFUSED = {
    "INST": "makes an instance of a class", "OBJ": "makes an instance of a class",
    "NEWOBJ": "makes an instance of a class", "NEWOBJ_EX": "makes an instance of a class",
    "EXT1": "calls the extension registry", "EXT2": "calls the extension registry",
    "EXT4": "calls the extension registry", "PERSID": "is a text persistent id",
    "NEXT_BUFFER": "takes an out-of-band buffer", "READONLY_BUFFER": "takes an out-of-band buffer",
}


class _Opcodes(dict):
    def __missing__(self, code):
        raise pickle.UnpicklingError(f"the byte 0x{code:02x} is not a pickle opcode")


class WeightsUnpickler(pickle._Unpickler):
    """A pickle read by construction (Note [Reading a pickle by construction]).

    Its globals are the builtins' and NumPy's below, and those of ``more_names(unpickler)``:
    (module, name) -> an :class:`Emulated` function or a :class:`Name`. ``persistent_load(pid)``
    answers PyTorch's storage ids; ``uint16_name`` is what a NumPy uint16 array holds (Paddle
    keeps bfloat16 in them)."""

    def __init__(self, data, budget, more_names=None, persistent_load=None,
                 uint16_name="uint16"):
        super().__init__(io.BytesIO(data), encoding="latin1")
        self.budget, self.source = budget, budget.source
        self.names = {**builtin_names(self), **numpy_names(self)}
        self.names.update(more_names(self) if more_names else {})
        self._persistent = persistent_load
        self.uint16_name = uint16_name
        self.made = 0

    def find_class(self, module, name):
        if self.proto < 3:   # Python 2's names (__builtin__.set) in protocol-2 pickles
            import _compat_pickle
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        found = self.names.get((module, name))
        if found is None:
            raise WeightsOnlyError(refusal(self.source, f"{module}.{name}"))
        return found

    def persistent_load(self, pid):
        if self._persistent is None:
            raise CheckpointError(f"{self.source}: a pickle with the persistent id {shown(pid)} "
                                  f"outside a PyTorch archive")
        return self._persistent(pid)

    def key(self, kind):
        """A new identity for a tensor this pickle makes."""
        self.made += 1
        return (kind, self.made)

    def array(self, raw, dtype, shape, fortran, what):
        """A :class:`RawTensor` of NumPy's pickled form: ``raw`` holds exactly the elements of
        ``shape`` in ``dtype``, in C order or ``fortran`` order."""
        if isinstance(raw, str):   # Python 2's pickles hold bytes as latin-1 text
            self.budget.charge(len(raw), f"{what}'s bytes")
            raw = raw.encode("latin1")
        if not (isinstance(dtype, DTypeSpec) and type(fortran) is bool
                and isinstance(raw, (bytes, bytearray))):
            raise CheckpointError(f"{self.source}: {what} of the dtype {shown(dtype)} from "
                                  f"{type(raw).__name__} (only plain numeric dtypes, from bytes)")
        name = self.uint16_name if dtype.name == "uint16" else dtype.name
        arr = build(raw, name, shape, budget=self.budget, what=what, byteorder=dtype.byteorder,
                    fortran=fortran, whole=True)
        return RawTensor(arr, name, self.key("array"))

    # ---- the opcodes that reach objects: only ours, or plain containers --------------------
    def load_reduce(self):
        args = self.stack.pop()
        func = self.stack[-1]
        if type(func) is not Emulated:
            what = repr(func) if type(func) is Name else f"a {type(func).__name__}"
            raise CheckpointError(f"{self.source}: refused to call {what} (only the allow-listed "
                                  f"functions run)")
        if type(args) is not tuple:
            raise CheckpointError(f"{self.source}: {func.name} called with "
                                  f"{type(args).__name__} arguments")
        self.stack[-1] = func.function(*args)

    def load_build(self):
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) not in (PendingArray, DTypeSpec, PickledDict):
            raise CheckpointError(f"{self.source}: refused to set the state of a "
                                  f"{type(inst).__name__} (only arrays and dtypes have state)")
        inst.__setstate__(state)

    def _into(self, kinds, what):
        target = self.stack[-1]
        if type(target) not in kinds:
            raise CheckpointError(f"{self.source}: {what} a {type(target).__name__}")
        return target

    def load_append(self):
        value = self.stack.pop()
        self._into((list,), "APPEND to").append(value)

    def load_appends(self):
        items = self.pop_mark()
        self._into((list,), "APPENDS to").extend(items)

    def load_setitem(self):
        value = self.stack.pop()
        key = self.stack.pop()
        self._into((dict, PickledDict), "SETITEM on")[key] = value

    def load_setitems(self):
        items = self.pop_mark()
        target = self._into((dict, PickledDict), "SETITEMS on")
        for i in range(0, len(items), 2):
            target[items[i]] = items[i + 1]

    def load_additems(self):
        items = self.pop_mark()
        self._into((set,), "ADDITEMS to").update(items)

    def load_bytearray8(self):
        # pickle's own allocates the declared length before reading: read first, then copy
        (n,) = struct.unpack("<Q", self.read(8))
        data = self.read(n)
        if len(data) != n:
            raise pickle.UnpicklingError(f"BYTEARRAY8 of {n:,} bytes past the pickle's end")
        self.budget.charge(n, "a bytearray of the pickle")
        self.append(bytearray(data))


def _charged(load, cost, per_item):
    def run(self):
        self.budget.charge(cost + per_item * len(self.stack), "the pickle's objects")
        load(self)
    return run


def _refused(name, why):
    def run(self):
        raise CheckpointError(f"{self.source}: the pickle opcode {name} {why}, which a weights "
                              f"file never needs")
    return run


def _dispatch():
    own = {"REDUCE": WeightsUnpickler.load_reduce, "BUILD": WeightsUnpickler.load_build,
           "APPEND": WeightsUnpickler.load_append, "APPENDS": WeightsUnpickler.load_appends,
           "SETITEM": WeightsUnpickler.load_setitem, "SETITEMS": WeightsUnpickler.load_setitems,
           "ADDITEMS": WeightsUnpickler.load_additems,
           "BYTEARRAY8": WeightsUnpickler.load_bytearray8}
    table = _Opcodes()
    for op in pickletools.opcodes:
        code = op.code.encode("latin1")[0]
        if op.name in _REFUSED:
            table[code] = _refused(op.name, _REFUSED[op.name])
        else:
            load = own.get(op.name, pickle._Unpickler.dispatch[code])
            table[code] = _charged(load, _COST.get(op.name, _OBJECT), _PER_ITEM.get(op.name, 0))
    return table


WeightsUnpickler.dispatch = _dispatch()


def unpickle(data, budget, more_names=None, persistent_load=None, uint16_name="uint16"):
    """The object in the pickle ``data``, read by :class:`WeightsUnpickler`; its placeholders
    are left for the caller to resolve (:func:`resolved`)."""
    # the pickle's buffer, and its strings, bytes and frames, are copies of its bytes
    budget.charge(3 * len(data), "the pickle's buffer, strings and frames")
    return WeightsUnpickler(data, budget, more_names, persistent_load, uint16_name).load()


def resolved(x, source):
    """The value a placeholder stands for; anything else as it is."""
    if type(x) is PendingArray:
        if x.tensor is None:
            raise CheckpointError(f"{source}: an array whose data never came (NumPy's "
                                  f"_reconstruct without the state that fills it)")
        return x.tensor
    if type(x) is DTypeSpec:
        return np.dtype(x.name)
    return x


# ---- what NumPy and the builtins may be asked to make ---------------------------------------
def numpy_names(u):
    """The NumPy globals the unpickler ``u`` may meet."""
    ndarray = Name("numpy class", "numpy.ndarray")

    def reconstruct(cls, shape, typecode):
        if cls is not ndarray:
            raise CheckpointError(f"NumPy's _reconstruct called for {shown(cls)}")
        return PendingArray(u)

    def dtype(code, align=False, copy=False):
        name, order = None, "="
        if isinstance(code, str):
            order, code = (code[0], code[1:]) if code[:1] in ("<", ">", "|", "=") else ("=", code)
            name = NUMPY_CODES.get(code)
        if name is None:
            raise CheckpointError(f"{u.source}: the NumPy dtype {shown(code)}, which "
                                  f"mutograd cannot read (it reads "
                                  f"{', '.join(sorted(NUMPY_CODES.values()))})")
        return DTypeSpec(name, order)

    def scalar(dtype, data):
        return u.array(data, dtype, (), False, "a NumPy scalar").array[()]

    def frombuffer(buf, dtype, shape, order):
        if order not in ("C", "F"):
            raise CheckpointError(f"a NumPy array in the order {shown(order)}")
        return u.array(buf, dtype, shape, order == "F", "a NumPy array")

    table = {("numpy", "ndarray"): ndarray, ("numpy", "dtype"): Emulated("numpy.dtype", dtype)}
    for mod in ("numpy.core.multiarray", "numpy._core.multiarray"):
        table[(mod, "_reconstruct")] = Emulated("numpy's _reconstruct", reconstruct)
        table[(mod, "scalar")] = Emulated("numpy's scalar", scalar)
    for mod in ("numpy.core.numeric", "numpy._core.numeric"):
        table[(mod, "_frombuffer")] = Emulated("numpy's _frombuffer", frombuffer)
    return table


def builtin_names(u):
    """The containers and small values the unpickler ``u`` may be asked to make by name."""
    def charge(n, what):
        u.budget.charge(n, what)

    def items(values, per_item, what):
        if type(values) not in (list, tuple):
            raise CheckpointError(f"{what} of a {type(values).__name__}")
        charge(per_item * len(values) + _SET, what)
        return values

    def encode(text, encoding="utf-8", errors="strict"):
        # protocol-2 pickles spell bytes as _codecs.encode(text, 'latin1')
        if type(text) is not str or encoding not in ("latin1", "latin-1"):
            raise CheckpointError(f"_codecs.encode is read only for latin1 text, not "
                                  f"{type(text).__name__} in {shown(encoding)}")
        charge(len(text), "bytes of the pickle")
        return text.encode("latin1", errors)

    def make_bytes(text="", encoding="latin1"):
        # protocol 2 writes empty bytes as bytes(), as an array of no elements holds
        return encode(text, encoding)

    def make_bytearray(data=b"", encoding=None):
        if type(data) is str and encoding in ("latin1", "latin-1"):
            data = encode(data, encoding)
        if type(data) is not bytes:
            raise CheckpointError(f"a bytearray of a {type(data).__name__} (only of bytes)")
        charge(len(data), "a bytearray")
        return bytearray(data)

    def make_complex(real=0.0, imag=0.0):
        if not all(type(v) in (int, float) for v in (real, imag)):
            raise CheckpointError("a complex number of other than numbers")
        return complex(real, imag)

    def ordered_dict():
        return PickledDict()

    return {
        ("collections", "OrderedDict"): Emulated("collections.OrderedDict", ordered_dict),
        ("builtins", "set"): Emulated("set", lambda v=(): set(items(v, 128, "a set"))),
        ("builtins", "frozenset"): Emulated("frozenset", lambda v=(): frozenset(
            items(v, 128, "a frozenset"))),
        ("builtins", "tuple"): Emulated("tuple", lambda v=(): tuple(items(v, 16, "a tuple"))),
        ("builtins", "complex"): Emulated("complex", make_complex),
        ("builtins", "bytes"): Emulated("bytes", make_bytes),
        ("builtins", "bytearray"): Emulated("bytearray", make_bytearray),
        ("_codecs", "encode"): Emulated("_codecs.encode", encode),
    }


# ---- why a global is refused ----------------------------------------------------------------
_REFUSED_TORCH = {
    "_rebuild_qtensor": "quantized tensors", "_rebuild_sparse_tensor": "sparse tensors",
    "_rebuild_nested_tensor": "nested tensors", "_rebuild_meta_tensor_no_storage":
    "meta tensors", "_rebuild_wrapper_subclass": "tensor subclasses",
    "_rebuild_device_tensor_from_numpy": "XLA/device tensors",
    "_rebuild_device_tensor_from_cpu_tensor": "XLA/device tensors",
}


def refusal(source, global_name):
    """The message for a global a weights file may not name, with what to do instead."""
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
    return f"{source}: refused to load the global {shown(global_name)[1:-1]}{hint}"
