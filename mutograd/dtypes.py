"""Data types and type promotion.

A :class:`DType` wraps a NumPy dtype so that ``mutograd.float32`` prints as ``float32`` and still
compares equal to ``numpy.float32``, the string ``"float32"`` and the same DType in every dialect.
Type promotion is NumPy's (NEP 50: Python scalars are weak, ``float32 + 1.5`` stays ``float32``).
"""
import numpy as np


class DType:
    """A dtype; each dialect has its own objects (``torch.float32`` prints as ``torch.float32``
    everywhere), equal to the main namespace's of the same NumPy dtype."""
    __slots__ = ("name", "np", "is_floating_point", "is_complex", "itemsize", "_repr")

    def __init__(self, name, prefix=""):
        self.name = name
        self.np = np.dtype(name)
        self.is_floating_point = self.np.kind == "f"
        self.is_complex = self.np.kind == "c"
        self.itemsize = self.np.itemsize
        self._repr = prefix + name

    def __repr__(self):
        return self._repr

    def __eq__(self, other):
        if isinstance(other, DType):
            return self is other or self.np == other.np
        try:
            return self.np == np.dtype(to_numpy(other))
        except (TypeError, ValueError):
            return False

    def __hash__(self):
        return hash(self.np)

    @property
    def dtype(self):
        """The NumPy dtype: NumPy's ``dtype=`` arguments accept a DType through it."""
        return self.np

    @property
    def is_signed(self):
        return self.np.kind in "fic"


_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128")
_BY_NP = {}
for _name in _NAMES:
    _d = DType(_name)
    globals()[_name] = _d
    _BY_NP[_d.np] = _d

bfloat16 = None  # NumPy has no bfloat16; asking for it is an error (see to_numpy)

_ALIASES = {
    "float": "float32", "double": "float64", "half": "float16", "int": "int64", "long": "int64",
    "short": "int16", "bool_": "bool", "fp32": "float32", "fp64": "float64", "fp16": "float16",
    "cfloat": "complex64", "cdouble": "complex128",
}

default_float = globals()["float32"]


def family(prefix):
    """A dialect's dtypes, printing as ``prefix + name``: ``{numpy dtype: DType}``."""
    return {d: DType(d.name, prefix) for d in _BY_NP}


def from_numpy(np_dtype):
    """The DType of a NumPy dtype."""
    d = _BY_NP.get(np_dtype)
    if d is None:
        d = _BY_NP.get(np.dtype(np_dtype))
        if d is None:
            raise TypeError(f"mutograd does not support the dtype {np_dtype}")
    return d


def to_numpy(dtype):
    """The NumPy dtype for a DType, a NumPy dtype, a Python type or a name such as ``'float32'``."""
    if dtype is None:
        return None
    if isinstance(dtype, DType):
        return dtype.np
    if isinstance(dtype, str):
        name = dtype.rsplit(".", 1)[-1]
        name = _ALIASES.get(name, name)
        if name == "bfloat16":
            raise TypeError("bfloat16 is not supported (NumPy has no bfloat16 type)")
        return np.dtype(name)
    if dtype is float:
        return default_float.np
    if dtype is int:
        return np.dtype("int64")
    if dtype is bool:
        return np.dtype("bool")
    return np.dtype(dtype)


def get(dtype):
    """The DType for anything :func:`to_numpy` accepts."""
    return from_numpy(to_numpy(dtype))


def set_default_dtype(dtype):
    """Set the dtype of tensors made from Python floats (float32 unless changed)."""
    global default_float
    d = get(dtype)
    if not d.is_floating_point:
        raise TypeError(f"the default dtype must be a floating dtype, got {d}")
    default_float = d


def get_default_dtype():
    return default_float


def is_floating(np_dtype):
    return np_dtype.kind in "fc"


# PyTorch's scalar-type names of the dtypes, as its error messages spell them
SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                     "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                     "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}
