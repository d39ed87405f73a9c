"""What the linear-algebra modules (linalg.py, matmul.py, factorizations.py, spectral.py) share:
the transpose and the conjugate transpose of the last two axes of an array (``mT``, ``mH``; a
tensor's are ``x.mT``, ``x.mH``), the checks of matrix
arguments, LAPACK's errors raised as mutograd's, the triangular solve on arrays that the
``solve_triangular`` op and the factorisations' gradients run, the results of ``out=`` and
``info``, and the packing of a decomposition's several outputs into one result.

Note [Packed decompositions]
    A decomposition has several outputs (``U, S, Vh``) computed together. Each is declared as one
    op whose forward returns them packed along the last axis (the trailing dimensions of each
    output flattened, then concatenated: shape ``batch + (sum of sizes,)``), and whose gradient
    unpacks the incoming gradient the same way; the public function cuts the packed result into
    its outputs with ordinary (differentiable) slicing and reshaping. So the decomposition runs
    once, its backward node sees every output's gradient at once (zeros for unused outputs), and
    one declaration holds the whole formula. The gradients follow PyTorch's (``eigh`` and
    ``svd`` project onto the gauge-invariant part, as PyTorch does), and are checked against
    finite differences and PyTorch in tests/ops/test_linalg.py.
"""
import math

import numpy as np

from ..autograd.grad_mode import no_grad
from ..errors import LinAlgError, ShapeError
from ..tensor import _wrap
from .elementwise import conj
from .registry import OPS, call


def mT(a):
    """The transpose of the last two axes of an array (a view)."""
    return a.swapaxes(-1, -2)


def mH(a):
    """The conjugate transpose of the last two axes of an array (of a tensor: ``x.mH``)."""
    return conj(a.swapaxes(-1, -2))


def check_square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        got = f"{a.shape[-2]} by {a.shape[-1]} matrices" if a.ndim >= 2 else f"{a.ndim}-D"
        raise ShapeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                         f"{got}")


def check_matrices(name, a):
    if a.ndim < 2:
        raise ShapeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")


def lapack(name, f, *args):
    """``f(*args)``, NumPy's LinAlgError raised as mutograd's (PyTorch's) LinAlgError."""
    try:
        return f(*args)
    except np.linalg.LinAlgError as e:
        raise LinAlgError(f"linalg.{name}: {e}") from None


# ---- results of the public functions (out=, info) ----------------------------------------
def out_into(result, out):
    """``result``, or written into ``out`` (which must have its shape) and returned."""
    if out is None:
        return result
    if list(out.shape) != list(result.shape):
        raise ShapeError(f"linalg: out= has shape {list(out.shape)} but the result has shape "
                         f"{list(result.shape)}")
    with no_grad():
        out.copy_(result)
    return out


def info_of(A, value):
    return _wrap(A._place.xp.full(tuple(A.shape[:-2]), value, np.int32), A)


def with_info(result, run, A, shape, check_errors):
    try:
        return result(run(), info_of(A, 0))
    except LinAlgError:
        if check_errors:
            raise
    return result(_wrap(A._place.xp.full(shape, np.nan, A._data.dtype), A), info_of(A, 1))


# ---- packing ---------------------------------------------------------------------------------
def pack(xp, parts, batch):
    return xp.concatenate([xp.broadcast_to(p, batch + p.shape[len(batch):])
                           .reshape(batch + (-1,)) for p in parts], axis=-1)


def unpack(a, shapes):
    """The arrays (NumPy level) or tensors packed in ``a`` with trailing ``shapes``."""
    batch, out, start = tuple(a.shape[:-1]), [], 0
    for shape in shapes:
        n = math.prod(shape)
        out.append(a[..., start:start + n].reshape(batch + tuple(shape)))
        start += n
    return out


def run_packed(name, x, attrs, shapes):
    """Call the packed op ``name`` and cut its result into tensors of trailing ``shapes``."""
    return unpack(call(OPS[name], [x], attrs), shapes)


# ---- triangular solves on arrays -----------------------------------------------------------
def solve_triangular_arrays(xp, a, b, upper, left=True, unit=False, adjoint=False):
    """``X`` with ``op(A) X = B`` (``left``) or ``X op(A) = B``; ``op`` is the conjugate
    transpose when ``adjoint``; ``unit``: A's diagonal is taken as ones."""
    if not left:   # X A = B  <=>  A^H X^H = B^H
        return mH(solve_triangular_arrays(xp, a, mH(b), upper, True, unit, not adjoint))
    if adjoint:
        a, upper = mH(a), not upper
    a = xp.triu(a) if upper else xp.tril(a)
    if unit:
        idx = np.arange(a.shape[-1])
        a = a.copy()
        a[..., idx, idx] = 1
    if xp is np:
        import scipy.linalg
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        out = np.empty(batch + b.shape[-2:], np.result_type(a, b))
        for i in np.ndindex(*batch):
            out[i] = scipy.linalg.solve_triangular(a[i], b[i], lower=not upper,
                                                   check_finite=False)
        return out
    return xp.linalg.solve(a, b)
