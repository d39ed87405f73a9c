"""Special functions for the backend in use: SciPy's on the CPU, the backend's own elsewhere
(``cupyx.scipy.special`` on a GPU), chosen by the array namespace ``xp``."""


def module(xp):
    """The module with SciPy's special-function names for arrays of ``xp``."""
    from .places import backend_of
    b = backend_of(xp)
    if b is None or b.special is None:
        import scipy.special
        return scipy.special
    return b.special


def erf(xp, x):
    return module(xp).erf(x)


def erfinv(xp, x):
    return module(xp).erfinv(x)


def gammaln(xp, x):
    return module(xp).gammaln(x)


def digamma(xp, x):
    return module(xp).digamma(x)
