"""Special functions for the backend in use: SciPy's on the CPU, the backend's own elsewhere
(``cupyx.scipy.special`` on a GPU), chosen by the array namespace ``xp``.

Note [float32 erf on the CPU]
    SciPy evaluates ``erf`` of a float32 array in double precision one element at a time, about
    15 ns an element: 8 ms for one GELU of a small transformer, more than the matrix products
    around it. A float32 array on the CPU instead gets a float32 rational approximation
    ``x P(x^2) / Q(x^2)`` on ``|x| <= 4`` (beyond it erf rounds to +-1), the one Eigen and XLA use:
    absolute error below 5e-7 (at most 8 units in the last place, near |x| = 3.2), NaN and
    +-inf handled, computed with NumPy ufuncs over blocks that stay in cache, about 5x faster.
    float64 keeps SciPy's full precision.

Note [float32 normal CDF on the CPU]
    GELU needs Phi(x) = (1 + erf(x / sqrt 2)) / 2, and that form loses the left tail to
    cancellation in float32 (its relative error reaches 80% at x = -5). ``normal_cdf_block``
    writes it as a logistic of an odd polynomial instead, Phi(x) = 1 / (1 + exp(-x Q(x^2))),
    with Q of degree 6 fitted here to the logit of Phi on |x| <= 5. Q stays above 1.59 and
    x Q(x^2) above 15 beyond |x| = 5, so the form tends to 0 and 1 there without a clamp:
    absolute error 1.3e-7, relative error under 1.1% on the whole left side up to x = -5, in 16
    ufunc steps where the erf route takes 30.
"""
import threading

import numpy as np

from .. import memory, parallel

_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
          -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
          -1.60960333262415e-02)   # highest power of x^2 first
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
          -7.37332916720468e-03, -1.42647390514189e-02)
# -Q, highest power of x^2 first (Note [float32 normal CDF on the CPU])
_PHI_NEG_Q = (-3.512381902104607e-09, 2.6452800782788177e-07, -7.929503979689382e-06,
              1.1061246157623558e-04, 6.518979465273007e-05, -7.266616902392423e-02,
              -1.5957698829449343)
_ERF_P, _ERF_Q, _PHI_NEG_Q = (tuple(np.float32(c) for c in cs)
                              for cs in (_ERF_P, _ERF_Q, _PHI_NEG_Q))
BLOCK = 1 << 16   # elements per block: a few float32 temporaries fit in L2


def module(xp):
    """The module with SciPy's special-function names for arrays of ``xp``; a gradient
    formula's graph namespace has its own, of differentiable ops (autograd/graph_arrays.py)."""
    from ..places import backend_of
    b = backend_of(xp)
    if b is not None and b.special is not None:
        return b.special
    if xp is not np:
        graph = getattr(xp, "special", None)
        if graph is not None:
            return graph
    import scipy.special
    return scipy.special


def erf(xp, x):
    if xp is np and getattr(x, "dtype", None) == np.float32:
        return _erf_float32(x)
    return module(xp).erf(x)


def _erf_float32(x):
    """Note [float32 erf on the CPU]."""
    x = np.asarray(x, order="C")
    out = memory.empty_like(np, x)
    blockwise(lambda xb, outs, tmp: _erf_block(xb, outs[0], tmp), x, [out])
    return out


def blockwise(kernel, x, outs, scratch=3):
    """``kernel(x_block, out_blocks, scratch_blocks)`` over cache-sized blocks of the C-ordered
    arrays ``x`` and ``outs`` (of x's size), with ``scratch`` temporaries of a block's size, so a
    chain of ufuncs reads and writes L2 instead of memory. A large ``x`` is cut into contiguous
    parts run on the thread pool (mutograd.parallel), each part block by block with its own
    thread's scratch."""
    fx = x.reshape(-1)
    fouts = [o.reshape(-1) for o in outs]
    size = fx.size
    blocks = -(-size // BLOCK)
    parts = min(blocks, parallel.parts(x.nbytes))
    per = -(-blocks // parts) * BLOCK   # elements per part: whole blocks

    def part(p):
        tmp = _scratch(scratch, min(size, BLOCK), x.dtype)
        for i in range(p * per, min(size, (p + 1) * per), BLOCK):
            j = min(i + BLOCK, size)
            kernel(fx[i:j], [o[i:j] for o in fouts], [t[:j - i] for t in tmp])
    if parts == 1:
        part(0)
    else:
        parallel.run_blocks(part, -(-size // per))


_local = threading.local()


def _scratch(k, n, dtype):
    """``k`` scratch arrays of ``n`` elements, reused by the calling thread from call to call (a
    fresh block-sized array costs page faults each time)."""
    if not k:
        return []
    have = getattr(_local, "bufs", None)
    if have is None or len(have) < k or have[0].dtype != dtype or have[0].size < n:
        have = _local.bufs = [np.empty(max(n, BLOCK), dtype) for _ in range(max(k, 3))]
    return [b[:n] for b in have[:k]]


def _erf_block(x, out, tmp):
    """erf of a float32 block into ``out``, with three scratch blocks."""
    z, p, q = tmp
    np.clip(x, -4.0, 4.0, out=out)
    np.multiply(out, out, out=z)
    p = _horner(z, _ERF_P, p)
    p /= _horner(z, _ERF_Q, q)
    out *= p                           # x last, so a subnormal x keeps its precision
    np.clip(out, -1.0, 1.0, out=out)   # the rational form overshoots 1 by 4e-7 at |x| = 4


def normal_cdf_block(x, z, out):
    """Phi of a float32 block into ``out``, given ``z = x * x`` (Note [float32 normal CDF on the
    CPU]); call under ``np.errstate(over="ignore")``: exp overflows to inf far left, where the
    result is then exactly 0."""
    _horner(z, _PHI_NEG_Q, out)
    out *= x
    np.exp(out, out=out)
    out += 1.0
    np.reciprocal(out, out=out)


def _horner(z, coefs, acc):
    """The polynomial with ``coefs`` (float32 scalars, highest power first) at ``z``, in ``acc``."""
    np.multiply(z, coefs[0], out=acc)
    acc += coefs[1]
    for c in coefs[2:]:
        acc *= z
        acc += c
    return acc


def erfinv(xp, x):
    return module(xp).erfinv(x)


def gammaln(xp, x):
    return module(xp).gammaln(x)


def digamma(xp, x):
    return module(xp).digamma(x)
