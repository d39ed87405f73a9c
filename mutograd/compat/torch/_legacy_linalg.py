"""PyTorch's top-level linear algebra (the forms older than ``torch.linalg``), over
``mutograd.linalg``: their conventions differ from ``torch.linalg``'s (``svd`` gives ``V``, not
``Vh``; ``qr`` takes ``some``; ``triangular_solve`` takes ``b`` first and gives the coefficient
back too), and their gradients come from the ``linalg`` ops they are written in.

    >>> import mutograd.compat.torch as torch
    >>> a = torch.tensor([[4., 2.], [2., 3.]])
    >>> U, S, V = torch.svd(a)
    >>> torch.allclose(U @ torch.diag(S) @ V.T, a, atol=1e-5)
    True
    >>> torch.cholesky_solve(torch.tensor([[6.], [5.]]), torch.cholesky(a)).flatten().tolist()
    [1.0, 1.0]
"""
import collections

import numpy as np

import mutograd as _mg

from ... import linalg as _la
from ...ops.factorizations import permutation_of as _permutation_of
from ...tensor import _wrap

cholesky_solve, cholesky_inverse = _la.cholesky_solve, _la.cholesky_inverse

_SVD = collections.namedtuple("svd", ["U", "S", "V"])
_Geqrf = collections.namedtuple("geqrf", ["a", "tau"])
_LUUnpack = collections.namedtuple("lu_unpack", ["P", "L", "U"])
_Triangular = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def svd(input, some=True, compute_uv=True):
    """``U, S, V`` with ``input = U diag(S) V^H`` (``V``, not ``linalg.svd``'s ``Vh``); ``some``
    gives the reduced factors; without ``compute_uv``, ``U`` and ``V`` are zeros.

        >>> import mutograd.compat.torch as torch
        >>> torch.svd(torch.eye(2)).S.tolist()
        [1.0, 1.0]
    """
    m, n = input.shape[-2:]
    if not compute_uv:
        s = _la.svdvals(input)
        batch = tuple(input.shape[:-2])
        return _SVD(_mg.zeros(batch + (m, m), dtype=input.dtype),
                    s, _mg.zeros(batch + (n, n), dtype=input.dtype))
    u, s, vh = _la.svd(input, full_matrices=not some)
    return _SVD(u, s, vh.mH)


def qr(input, some=True):
    """``Q, R`` with ``input = Q R``: reduced with ``some`` (``linalg.qr``'s 'reduced'), else
    complete."""
    return _la.qr(input, "reduced" if some else "complete")


def cholesky(input, upper=False):
    """The Cholesky factor ``L`` (``A = L L^H``), or ``U`` (``A = U^H U``) with ``upper``."""
    return _la.cholesky(input, upper)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``(X, A.clone())`` with ``op(A) X = b``, ``A`` triangular (upper by default), ``op`` the
    transpose with ``transpose``."""
    return _Triangular(*_la.triangular_solve(b, A, upper, transpose, unitriangular))


def lu(A, pivot=True, get_infos=False):
    """LAPACK's compact ``LU`` and 1-based ``pivots`` (and ``infos`` with ``get_infos``)."""
    return A.lu(pivot, get_infos)


def lu_solve(b, LU_data, LU_pivots):
    """``X`` with ``A X = b`` from ``A``'s ``lu`` factors."""
    return _la.lu_solve(LU_data, LU_pivots, b)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``P, L, U`` (``A = P L U``) from ``lu``'s compact factors; a part not asked for is
    empty."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = _mg.zeros(0, dtype=LU_data.dtype)
    low = up = p = empty
    if unpack_data:
        eye = _wrap(LU_data._place.xp.eye(m, k, dtype=LU_data._data.dtype), LU_data)
        low = LU_data[..., :, :k].tril(-1) + eye
        up = LU_data[..., :k, :].triu()
    if unpack_pivots:
        piv = LU_pivots.detach()._data.astype(np.int64) - 1
        p = _wrap(_permutation_of(LU_data._place.xp, piv, m, LU_data._data.dtype), LU_data)
    return _LUUnpack(p, low, up)


def pinverse(input, rcond=1e-15):
    """The pseudo-inverse; singular values below ``rcond`` times the largest count as zero."""
    return _la.pinv(input, rtol=rcond)


def geqrf(input):
    """LAPACK's ``geqrf``: ``R`` on and above the diagonal, the Householder vectors below it, and
    their scales ``tau`` (``orgqr`` and ``ormqr`` use them). Not differentiable (as in PyTorch):
    use ``qr``."""
    xp = input._place.xp
    h, tau = xp.linalg.qr(input.detach()._data, mode="raw")
    return _Geqrf(_wrap(xp.ascontiguousarray(h.swapaxes(-1, -2)), input), _wrap(tau, input))


def orgqr(input, tau):
    """The first ``n`` columns of ``Q`` from ``geqrf``'s reflectors
    (``linalg.householder_product``)."""
    return _la.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False):
    """``Q @ other`` (``left=False``: ``other @ Q``; ``transpose``: ``Q^H``) with the whole
    ``m x m`` ``Q`` of ``geqrf``'s reflectors, never formed by the caller."""
    m, k = input.shape[-2], tau.shape[-1]
    full = _mg.nn.functional.pad(input, (0, m - input.shape[-1]))
    q = _la.householder_product(full, tau) if k else _mg.eye(m, dtype=input.dtype)
    if transpose:
        q = q.mH
    return q @ other if left else other @ q


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values, over ``dim`` (the last two dimensions by default);
    ``nuclear_norm(input, keepdim)`` is also accepted, as PyTorch's overload."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    return _la.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)


def svd_lowrank(A, q=6, niter=2, M=None):
    """The ``q`` leading singular triplets ``U, S, V`` of ``A - M``. PyTorch estimates them with
    random projections and ``niter`` power iterations; here they are computed exactly (a full SVD,
    truncated), which is what that estimate converges to."""
    a = A if M is None else A - M
    u, s, v = svd(a)
    q = min(6 if q is None else q, *a.shape[-2:])
    return u[..., :q], s[..., :q], v[..., :q]


def pca_lowrank(A, q=None, center=True, niter=2):
    """``U, S, V`` of the ``q`` principal components of the rows of ``A`` (the columns' means
    removed with ``center``); see :func:`svd_lowrank`."""
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    return svd_lowrank(A - A.mean(-2, keepdim=True) if center else A, q, niter)


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None,
           method=None, tracker=None, ortho_iparams=None, ortho_fparams=None,
           ortho_bparams=None):
    """The ``k`` largest (``largest=False``: smallest) eigenpairs of the symmetric problem
    ``A x = lambda B x``. PyTorch iterates (LOBPCG); here the dense problem is solved exactly
    (``linalg.eigh`` after a Cholesky reduction by ``B``), which the iteration converges to; the
    iteration's controls (``X``, ``n``, ``iK``, ``niter``, ``tol``, ``method``) are accepted."""
    k = (1 if X is None else X.shape[-1]) if k is None else k
    if B is None:
        values, vectors = _la.eigh(A)
    else:
        low = _la.cholesky(B)
        c = _la.solve_triangular(low, _la.solve_triangular(low, A, upper=False).mH, upper=False)
        values, vectors = _la.eigh(c)
        vectors = _la.solve_triangular(low.mH, vectors, upper=True)
    if largest is None or largest:
        return values[..., -k:].flip(-1), vectors[..., -k:].flip(-1)
    return values[..., :k], vectors[..., :k]


def _removed(name, instead):
    def fn(*args, **kwargs):
        raise RuntimeError(f"torch.{name} was deprecated in PyTorch 1.9 and is now removed; use "
                           f"{instead} instead")
    fn.__name__ = name
    fn.__doc__ = f"Removed by PyTorch (raises RuntimeError as it does): use ``{instead}``."
    return fn


# names PyTorch keeps only to say they were removed
eig = _removed("eig", "torch.linalg.eig")
symeig = _removed("symeig", "torch.linalg.eigh")
lstsq = _removed("lstsq", "torch.linalg.lstsq")
solve = _removed("solve", "torch.linalg.solve")

NAMES = ["svd", "qr", "cholesky", "cholesky_solve", "cholesky_inverse", "triangular_solve", "lu",
         "lu_solve", "lu_unpack", "pinverse", "geqrf", "orgqr", "ormqr", "nuclear_norm",
         "svd_lowrank", "pca_lowrank", "lobpcg", "eig", "symeig", "lstsq", "solve"]
