"""Special functions for the backend in use: SciPy's on the CPU."""


def erf(xp, x):
    import scipy.special
    return scipy.special.erf(x)


def module(xp):
    """The special-function module for backend ``xp``: ``scipy.special`` for NumPy,
    ``cupyx.scipy.special`` for CuPy (imported only when a GPU tensor needs it)."""
    if getattr(xp, "__name__", "numpy") == "cupy":
        from cupyx.scipy import special
    else:
        from scipy import special
    return special
