"""Dtype promotion around an op's forward, beyond NumPy's own: PyTorch's result type of an
element-wise op (``result_dtype``, applied by the runner through ``_promote``), and the default
float dtype for ops with a float result given only integer inputs (``_in_default_float``,
applied to the forward at declaration).
"""
import numpy as np

from .. import dtypes


_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}   # bool < integers < floats < complex
_BOOL, _INT64, _COMPLEX64 = np.dtype(bool), np.dtype("int64"), np.dtype("complex64")


def promote_pair(a, b):
    """PyTorch's ``promote_types`` of two NumPy dtypes: an integer or bool meeting a float or
    complex gives that float or complex dtype (NumPy would widen ``int64 + float32`` to
    float64); within a kind, NumPy's promotion."""
    if a is b or a == b:
        return a
    ra, rb = _RANK[a.kind], _RANK[b.kind]
    if ra == rb or (ra < 2 and rb < 2) or (ra > 1 and rb > 1):
        return np.promote_types(a, b)
    return a if ra > rb else b


def _combine(higher, lower):
    """The result of a higher-priority group of operands (``higher``) and a lower one: the lower
    group decides only where it is of a higher kind (PyTorch's ``combine_categories``)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    kh, kl = higher.kind, lower.kind
    if kh == "c":
        return higher
    if kl == "c":   # a float keeps its size: float64 with a complex64 0-d is complex128
        return np.promote_types(higher, _COMPLEX64) if kh == "f" else lower
    if kh == "f":
        return higher
    if kh == "b" or kl == "f":
        return promote_pair(higher, lower)
    return higher


def result_dtype(arrays, zero_weak=True):
    """Note [Type promotion]
    The dtype of an element-wise op's result, by PyTorch's rule (``torch.result_type``), which
    Paddle shares where it promotes at all. Operands fall in three groups: tensors with
    dimensions, 0-d tensors, Python numbers. Within a group dtypes promote as
    :func:`promote_pair` says; a lower group changes the result only where it is of a higher
    kind (bool < integer < float < complex), and then a Python float gives the default float
    dtype and a Python complex the default complex one. So ``float32 tensor * float64 0-d
    tensor`` is float32, ``int64 tensor * 2.5`` is float32, ``int64 tensor + float32 tensor``
    is float32 and ``int64 tensor + complex64 tensor`` is complex64, where NumPy would widen
    each. A comparison computes in that dtype too (its result is bool): float32 against a 0-d
    float64 compares the float32 roundings. ``zero_weak=False`` counts 0-d tensors as tensors
    with dimensions (Paddle's functions other than the arithmetic ones and its in-place forms).
    ``None`` entries (an absent bound) are skipped; the result is None when no operand has a
    dtype."""
    dim = zero = wrapped = None
    for a in arrays:
        t = type(a)
        if t is float:
            d = dtypes.default_float.np
        elif t is int:
            d = _INT64
        elif t is bool:
            d = _BOOL
        elif t is complex:
            d = np.promote_types(dtypes.default_float.np, _COMPLEX64)
        else:
            d = getattr(a, "dtype", None)
            if d is None:
                continue
            if a.ndim or not zero_weak:
                dim = d if dim is None else promote_pair(dim, d)
            else:
                zero = d if zero is None else promote_pair(zero, d)
            continue
        wrapped = d if wrapped is None else promote_pair(wrapped, d)
    return _combine(dim, _combine(zero, wrapped))


def _promote(arrays, operands=None, zero_weak=True):
    """``arrays`` with the arrays among ``operands`` (indices; all when None) cast to their
    result dtype (Note [Type promotion]); Python numbers stay, NumPy keeps them weak. Returns
    ``arrays`` itself when nothing changes (the common case)."""
    values = arrays if operands is None else [arrays[i] for i in operands]
    target = result_dtype(values, zero_weak)
    out = None
    for i, a in enumerate(arrays):
        d = getattr(a, "dtype", None)
        if d is not None and d != target and (operands is None or i in operands):
            if out is None:
                out = list(arrays)
            out[i] = a.astype(target)
    return arrays if out is None else out


def _in_default_float(fwd, n):
    """``fwd`` with integer and bool inputs cast to the default float dtype when none of its
    ``n`` inputs is a float (Note [Float results of integer inputs])."""
    def run(xp, *args, **kw):
        first = getattr(args[0], "dtype", None) if args else None
        if first is not None and first.kind in "fc":   # the common case: a float input
            return fwd(xp, *args, **kw)
        arrays = args[:n]
        if not any(getattr(a, "dtype", None) is not None and a.dtype.kind not in "biu"
                   for a in arrays) and any(hasattr(a, "dtype") for a in arrays):
            f = dtypes.default_float.np
            args = tuple(a.astype(f) if hasattr(a, "dtype") else a for a in arrays) + args[n:]
        return fwd(xp, *args, **kw)
    run.__wrapped__ = fwd
    return run
