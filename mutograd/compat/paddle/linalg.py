"""``paddle.linalg``: ``mutograd.linalg`` (and the torch dialect's older forms: ``lu_unpack``
and the low-rank SVDs) with Paddle's signatures and result conventions: ``svd`` reduced by
default, ``slogdet`` one stacked ``[2, ...]`` tensor, ``triangular_solve(x, y)`` with the
triangular ``x`` first, ``lstsq``'s 4-tuple with the parts its driver leaves empty, ``norm``'s
``p`` (``'fro'``, ``'nuc'``, numbers, ``inf``) and ``axis`` rules. Gradients come from the ops
these are written in.

    >>> import mutograd.compat.paddle as paddle
    >>> a = paddle.to_tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> paddle.linalg.slogdet(a).tolist()
    [1.0, 2.079441547393799]
    >>> paddle.linalg.norm(a, p="fro").item(), paddle.linalg.norm(a, p=1, axis=[0, 1]).item()
    (4.4721360206604, 4.0)
"""
import inspect as _inspect

import mutograd as _mg

from ... import linalg as _la
from ..torch import _legacy_linalg
from .tensor_ops import matrix_transpose  # noqa: F401

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "cross",
           "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "householder_product", "inv",
           "lstsq", "lu", "lu_solve", "lu_unpack", "matmul", "matrix_exp", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "ormqr",
           "pca_lowrank", "pinv", "qr", "slogdet", "solve", "svd", "svd_lowrank", "svdvals",
           "triangular_solve", "vecdot", "vector_norm"]

# the torch dialect's functions without its tensor-type wrapper (this namespace adds its own)
_lu_unpack, _svd_lowrank, _pca_lowrank = (
    _inspect.unwrap(getattr(_legacy_linalg, n))
    for n in ("lu_unpack", "svd_lowrank", "pca_lowrank"))


def _axes(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


def cholesky(x, upper=False, name=None):
    """The Cholesky factor ``L`` (``x = L L^H``), or ``U`` (``x = U^H U``) with ``upper``."""
    return _la.cholesky(x, upper)


def cholesky_inverse(x, upper=False, name=None):
    """The inverse of ``A`` from its Cholesky factor ``x``."""
    return _la.cholesky_inverse(x, upper)


def cholesky_solve(x, y, upper=False, name=None):
    """``X`` with ``A X = x``, ``y`` the Cholesky factor of ``A``."""
    return _la.cholesky_solve(x, y, upper)


def cond(x, p=None, name=None):
    """The condition number of ``x`` in the norm ``p`` (the 2-norm by default)."""
    return _la.cond(x, p)


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the rows (``rowvar=False``: the columns) of ``x``."""
    return _mg.corrcoef(x if rowvar or x.ndim < 2 else x.T)


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance of the rows (``rowvar=False``: columns) of ``x``; ``ddof`` divides by
    ``N - 1`` rather than ``N``."""
    return _mg.cov(x if rowvar or x.ndim < 2 else x.T, correction=int(bool(ddof)),
                   fweights=fweights, aweights=aweights)


def cross(x, y, axis=9, name=None):
    """The cross product along ``axis`` (Paddle's default 9: the first axis of size 3)."""
    return _mg.cross(x, y, None if axis == 9 else axis)


def det(x, name=None):
    """The determinant of each matrix."""
    return _la.det(x)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal of the ``axis1``/``axis2`` planes, ``offset`` above the main one."""
    return x.diagonal(offset, axis1, axis2)


def eig(x, name=None):
    """The (complex) eigenvalues and eigenvectors of a general matrix."""
    return tuple(_la.eig(x))


def eigh(x, UPLO="L", name=None):
    """Eigenvalues (ascending) and eigenvectors of a Hermitian matrix from its ``UPLO`` half."""
    return tuple(_la.eigh(x, UPLO))


def eigvals(x, name=None):
    """The (complex) eigenvalues of a general matrix."""
    return _la.eigvals(x)


def eigvalsh(x, UPLO="L", name=None):
    """The eigenvalues (ascending) of a Hermitian matrix from its ``UPLO`` half."""
    return _la.eigvalsh(x, UPLO)


def householder_product(x, tau, name=None):
    """The first columns of the product of the Householder reflectors ``x``, ``tau``."""
    return _la.householder_product(x, tau)


def inv(x, name=None):
    """The inverse of each matrix."""
    return _la.inv(x)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """``(solution, residuals, rank, singular_values)`` of ``min |x X - y|``. As Paddle's, the
    default driver (``'gelsy'``) leaves the residuals empty, the singular values come only from
    ``'gelsd'`` and ``'gelss'``, and ``'gels'`` gives an empty rank."""
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise ValueError(f"paddle.linalg.lstsq: driver must be one of 'gels', 'gelsy', 'gelsd', "
                         f"'gelss' or None, got {driver!r}")
    if rcond is None:
        rcond = (1e-15 if x.dtype == _mg.float64 else 1e-7) * max(x.shape[-2:])
    solution, residuals, rank, values = _la.lstsq(x, y, rcond, driver=driver or "gelsy")
    empty = _mg.zeros(0, dtype=x.dtype)
    if driver in (None, "gelsy"):
        residuals = empty
    if driver not in ("gelsd", "gelss"):
        values = empty
    rank = _mg.zeros(0, dtype="int64") if driver == "gels" else rank.astype("int32")
    return solution, residuals, rank, values


def lu(x, pivot=True, get_infos=False, name=None):
    """LAPACK's packed ``LU`` and 1-based int32 ``pivots`` (and ``infos`` with ``get_infos``);
    :func:`lu_unpack` turns them into ``P, L, U`` with ``x = P L U``."""
    LU, pivots, info = _la.lu_factor_ex(x, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve(b, lu, pivots, trans="N", name=None):
    """``X`` with ``op(A) X = b`` from ``A``'s :func:`lu` factors; ``trans``: ``'N'`` (``A``),
    ``'T'`` (its transpose) or ``'C'`` (its conjugate transpose)."""
    if trans == "N":
        return _la.lu_solve(lu, pivots, b)
    if trans == "C" or not b.is_complex() and not lu.is_complex():
        return _la.lu_solve(lu, pivots, b, adjoint=True)
    if trans == "T":     # A^T X = b is A^H conj(X) = conj(b)
        return _la.lu_solve(lu, pivots, b.conj(), adjoint=True).conj()
    raise ValueError(f"paddle.linalg.lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """``P, L, U`` (``A = P L U``) from :func:`lu`'s packed ``x`` and pivots ``y``."""
    return tuple(_lu_unpack(x, y, unpack_ludata, unpack_pivots))


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """``paddle.matmul``: the matrix product, optionally of the transposes."""
    from . import matmul as paddle_matmul     # (the package imports this module first)
    return paddle_matmul(x, y, transpose_x, transpose_y)


def matrix_exp(x, name=None):
    """The matrix exponential of each matrix."""
    return _la.matrix_exp(x)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """The matrix norm ``p`` (``'fro'``, ``'nuc'``, ``±1``, ``±2``, ``±inf``) over the two
    ``axis``."""
    return _la.matrix_norm(x, p, _axes(axis), keepdim)


def matrix_power(x, n, name=None):
    """``x`` to the integer power ``n`` (negative: of the inverse)."""
    return _la.matrix_power(x, n)


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The number of singular values above ``tol`` (an absolute threshold), or above
    ``max(atol, rtol * largest)``; by default ``rtol`` is ``eps * max(rows, columns)``."""
    if tol is not None:
        atol, rtol = tol, 0.0
    return _la.matrix_rank(x, atol=atol, rtol=rtol, hermitian=hermitian)


def multi_dot(x, name=None):
    """The product of the matrices in the list ``x``, in the cheapest order."""
    return _la.multi_dot(list(x))


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None):
    """The vector ``p``-norm over ``axis`` (all elements by default); ``p=0`` counts nonzeros,
    ``inf`` / ``-inf`` are the largest / smallest absolute value."""
    return _la.vector_norm(x, p, _axes(axis), keepdim, dtype=dtype)


def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None, *, dim=None):
    """Paddle's ``norm``: an int ``axis`` (or none: all elements as one vector) gives a vector
    norm, two axes a matrix norm; ``p`` None is 2 (Frobenius for matrices), ``'fro'`` over no
    or one axis is the vector 2-norm, ``'nuc'`` and other strings are matrix norms. ``dim`` is
    Paddle's alias of ``axis``."""
    axis = axis if dim is None else dim
    if isinstance(axis, (list, tuple)):
        axis = axis[0] if len(axis) == 1 else list(axis)
    if dtype is not None:
        x = x.astype(dtype)
    if isinstance(p, str):
        if p == "fro" and (axis is None or isinstance(axis, int)):
            result = vector_norm(x, 2.0, axis, keepdim)
        else:
            result = matrix_norm(x, p, list(range(x.ndim)) if axis is None else axis, keepdim)
    else:
        p = 2.0 if p is None else p
        if isinstance(axis, list) and len(axis) == 2:
            result = matrix_norm(x, p, axis, keepdim)
        else:
            result = vector_norm(x, p, axis, keepdim)
    if out is not None:
        out.set_value(result)
        return out
    return result


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """``op(Q) @ y`` (``left=False``: ``y @ op(Q)``), ``Q`` the product of the Householder
    reflectors ``x``, ``tau`` as :func:`householder_product` gives it (its first ``k`` columns,
    as Paddle's), ``op`` the conjugate transpose with ``transpose``."""
    q = _la.householder_product(x, tau)
    if transpose:
        q = q.mH
    return q @ y if left else y @ q


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """``U, S, V`` of the ``q`` leading singular triplets of ``x - M`` (``q`` at most 6 by
    default); computed exactly, which Paddle's randomised estimate converges to."""
    return tuple(_svd_lowrank(x, q, niter, M))


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """``U, S, V`` of the ``q`` principal components of the rows of ``x``."""
    return tuple(_pca_lowrank(x, q, center, niter))


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The pseudo-inverse; singular values below ``rcond`` times the largest count as zero."""
    return _la.pinv(x, rtol=rcond, hermitian=hermitian)


def qr(x, mode="reduced", name=None):
    """``Q, R`` with ``x = Q R``: ``mode`` ``'reduced'`` or ``'complete'``; ``'r'`` gives ``R``
    alone."""
    q, r = _la.qr(x, mode)
    return r if mode == "r" else (q, r)


def slogdet(x, name=None):
    """The sign and the log of the absolute value of the determinant, stacked into one tensor
    of shape ``[2, *batch]``."""
    sign, logabsdet = _la.slogdet(x)
    return _mg.stack([sign, logabsdet.astype(sign.dtype)])


def solve(x, y, left=True, name=None):
    """``X`` with ``x X = y`` (``left=False``: ``X x = y``)."""
    return _la.solve(x, y, left=left)


def svd(x, full_matrices=False, name=None):
    """``U, S, VH`` with ``x = U diag(S) VH``, reduced unless ``full_matrices``."""
    return tuple(_la.svd(x, full_matrices=full_matrices))


def svdvals(x, name=None):
    """The singular values, descending."""
    return _la.svdvals(x)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """``X`` with ``op(x) X = y``, ``x`` triangular (upper by default), ``op`` its transpose
    with ``transpose``; ``unitriangular`` takes ``x``'s diagonal as ones."""
    return _la.triangular_solve(y, x, upper, transpose, unitriangular)[0]


def vecdot(x, y, axis=-1, name=None):
    """The dot product of vectors along ``axis`` (``x`` conjugated)."""
    return _la.vecdot(x, y, axis)


# paddle.Tensor's methods of these (installed over the main Tensor's, whose conventions differ)
METHODS = {n: globals()[n] for n in (
    "cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "eig",
    "eigvals", "eigvalsh", "householder_product", "lstsq", "lu", "lu_unpack", "matrix_power",
    "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv", "qr", "slogdet", "solve",
    "svd_lowrank")}
