"""safetensors files, read and written through the ``safetensors`` library, so that the format's
own validation applies: what the library refuses (bad offsets, overlaps, gaps, shapes that are
not integers, a header that is not JSON, trailing bytes) is refused, and a file with the same
tensor name twice is refused too."""
import json
from collections import OrderedDict

from ..errors import CheckpointError
from .arrays import RawTensor, build
from .budget import json_cost

# safetensors' dtype names -> mutograd's names for the dtypes it reads
DTYPES = {
    "BOOL": "bool", "U8": "uint8", "I8": "int8", "I16": "int16", "U16": "uint16",
    "I32": "int32", "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16",
    "BF16": "bfloat16", "F32": "float32", "F64": "float64", "C64": "complex64",
    "C128": "complex128", "F8_E4M3": "float8_e4m3fn", "F8_E5M2": "float8_e5m2",
}


def library(source=""):
    """The ``safetensors`` package, or a :class:`CheckpointError` saying how to install it."""
    try:
        import safetensors
        import safetensors.numpy
    except ImportError as e:
        raise CheckpointError(f"{source}{': ' if source else ''}reading and writing safetensors "
                              f"files needs the safetensors package: pip install "
                              f"'mutograd[ckpt]'") from e
    return safetensors


def write(arrays, metadata):
    """The bytes of a safetensors file of ``arrays`` (little-endian, C-ordered) and
    ``metadata`` (str -> str)."""
    return library().numpy.save(arrays, metadata=metadata)


def header(data, budget):
    """``(header, end)``: the JSON header of a safetensors file (its metadata included) and
    where the data starts. Only the header's length is checked here; the library checks the
    rest when the tensors are read."""
    n = int.from_bytes(data[:8], "little")
    if len(data) < 8 or n > len(data) - 8:
        raise CheckpointError(f"{budget.source} is truncated: the header claims {n:,} bytes, the "
                              f"file has {max(len(data) - 8, 0):,} after the length")
    text = data[8:8 + n]
    budget.charge(json_cost(text), "the safetensors header")
    parsed = json.loads(text, object_pairs_hook=_unique_keys)
    if type(parsed) is not dict:
        raise CheckpointError(f"{budget.source}: the safetensors header is not a JSON object")
    return parsed, 8 + n


def _unique_keys(pairs):
    # the library takes the last of two equal names; a name given twice is refused here
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise CheckpointError(f"the name {twice!r:.80} appears twice in the safetensors header")
    return out


def tensors(data, header, budget, widen=True):
    """``{name: RawTensor}`` of a safetensors file whose :func:`header` is ``header``, in the
    header's order, read through the library."""
    st = library(budget.source)
    budget.charge(len(data), "the tensors' bytes")   # the library copies them out
    try:
        entries = dict(st.deserialize(data))
    except st.SafetensorError as e:
        raise CheckpointError(f"{budget.source} is not a valid safetensors file: {e}") from e
    out = OrderedDict()
    for name in header:
        if name == "__metadata__":
            continue
        info = entries.pop(name)   # each tensor's bytes are freed once it is built
        dtype_name = DTYPES.get(info["dtype"], info["dtype"])
        arr = build(info["data"], dtype_name, tuple(info["shape"]), budget=budget,
                    what=f"the tensor {name!r:.80}", whole=True, widen=widen)
        out[name] = RawTensor(arr, dtype_name, ("tensor", name))
    return out
