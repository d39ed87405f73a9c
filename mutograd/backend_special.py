"""Special functions for the backend in use: SciPy's on the CPU."""


def erf(xp, x):
    import scipy.special
    return scipy.special.erf(x)
