"""Gradient formulas shared by several declarations (the parameter names are the save contract:
Note [In-place saving] in registry.py)."""


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
