"""Note [Ufunc fast path]

Many forwards, called with their default attributes and no ``out``, are exactly one NumPy ufunc
(``add`` with ``alpha=1`` is ``numpy.add``). For those, the registry's ``call`` runs the ufunc
directly when the attributes are the defaults (the caller passed none) and the backend is NumPy,
skipping the forward's Python frame and keyword passing: the largest fixed cost left on the
per-op path of small tensors. ``tests/test_perf.py`` checks, for every entry, that the ufunc and
the declared forward give the same values and dtypes on every dtype of the op table, so a changed
declaration cannot silently diverge from its fast path. An op whose forward works around a
NumPy problem (``neg``: in-place negation on some strided views) or that differs from NumPy on
some dtype (``square``: a bool squares to int64, as in PyTorch; NumPy gives int8) is not listed.
An op with a float result is run through its ufunc only for a float first input (Note [Float
results of integer inputs] in registry.py).
"""
import numpy as np

from .registry import OPS

UFUNCS = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "abs": np.absolute, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "maximum": np.maximum, "minimum": np.minimum,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal,
}


def install():
    """Attach each ufunc to its op (ops that another module removed are skipped)."""
    for name, uf in UFUNCS.items():
        op = OPS.get(name)
        if op is not None:
            op.ufunc = uf


install()
