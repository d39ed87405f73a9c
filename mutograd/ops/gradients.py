"""Gradient formulas shared by several declarations (the parameter names are the save contract:
Note [In-place saving] in registry.py)."""
import numpy as np

from ..parallel import ufunc

_WORDS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def masked(g, keep, xp, into=None):
    """``g`` where ``keep`` is true and 0 elsewhere, also where ``g`` is inf or NaN, as
    PyTorch's threshold_backward, where and masked_fill give it (``g * keep`` is NaN there:
    ``relu(x).sqrt()`` at 0 would poison the whole gradient). NumPy's ``where`` runs about ten
    times slower than a multiply on a random mask, so a float array is masked by a bitwise AND
    of its bits with words of all ones or all zeros, at the speed of the multiply."""
    if type(g) is np.ndarray and g.dtype.kind == "f" and g.dtype.itemsize in _WORDS and \
            getattr(keep, "shape", None) == g.shape and (into is None or into.shape == g.shape):
        word = _WORDS[g.dtype.itemsize]
        ones = np.negative(np.asarray(keep).view(np.uint8), dtype=word, casting="unsafe")
        if into is None:
            into = np.empty_like(g)
        ufunc(np.bitwise_and, g.view(word), ones, out=into.view(word))
        return into
    return xp.where(keep, g, 0)


def zero_gradient(g, xp):
    """The gradient of a piecewise-constant op (sign, floor, ...): zero everywhere. The registry
    also gives it to the in-place form of an op declared without a gradient."""
    return xp.zeros_like(g)


def power_grad_exponent(g, x, out, xp):
    """d(x ** y)/dy = x ** y * log(x), taken as 0 where ``x <= 0`` (pow and float_power); for
    complex values the principal log, conjugated (Note [Complex gradients] in elementwise.py)."""
    if out.dtype.kind == "c":
        return g * (out * xp.log(x)).conj()
    safe = xp.where(x > 0, x, 1)
    return g * out * xp.log(safe) * (x > 0)
