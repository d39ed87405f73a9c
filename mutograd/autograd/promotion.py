"""Dtype promotion around an op's forward, beyond NumPy's own: the runner's rule for 0-d
tensors and Python floats (``_promote``), and the default float dtype for ops with a float result
given only integer inputs (``_in_default_float``, applied to the forward at declaration).
"""
import numpy as np

from .. import dtypes


def _promote(arrays):
    """Note [0-d tensors and Python floats in promotion]
    NumPy's promotion (NEP 50) treats a 0-d array like any other array and gives float64 for an
    integer array times a Python float. PyTorch and Paddle let neither decide a result's size:
    ``float32 tensor * float64 0-d tensor`` is float32 and ``int tensor * 2.5`` is the default
    float dtype. So a 0-d float operand takes the float dtype of the tensors with dimensions,
    and integer tensors meeting a Python float become the default float dtype, before the
    forward runs. Returns ``arrays`` itself when nothing changes (the common case)."""
    zero = ints = scalar = False
    for a in arrays:
        if type(a) is float:
            scalar = True
        elif getattr(a, "ndim", None) is not None:
            kind = a.dtype.kind
            if not a.ndim:
                zero = zero or kind == "f"
            elif kind in "iu":
                ints = True
    if zero:   # the float dtype the operands with dimensions give, if any
        nd = [a.dtype for a in arrays
              if getattr(a, "ndim", None) and a.dtype.kind == "f"]
        if not nd:
            return arrays
        target = np.result_type(*nd)
    elif ints and scalar:
        if any(getattr(a, "ndim", None) and a.dtype.kind in "fc" for a in arrays):
            return arrays
        target = dtypes.default_float.np
    else:
        return arrays
    return [a.astype(target) if getattr(a, "dtype", None) is not None and a.dtype != target and
            (a.ndim == 0 and a.dtype.kind == "f" or a.ndim and a.dtype.kind in "iu") else a
            for a in arrays]


def _in_default_float(fwd, n):
    """``fwd`` with integer and bool inputs cast to the default float dtype when none of its
    ``n`` inputs is a float (Note [Float results of integer inputs])."""
    def run(xp, *args, **kw):
        arrays = args[:n]
        if not any(getattr(a, "dtype", None) is not None and a.dtype.kind not in "biu"
                   for a in arrays) and any(hasattr(a, "dtype") for a in arrays):
            f = dtypes.default_float.np
            args = tuple(a.astype(f) if hasattr(a, "dtype") else a for a in arrays) + args[n:]
        return fwd(xp, *args, **kw)
    run.__wrapped__ = fwd
    return run
