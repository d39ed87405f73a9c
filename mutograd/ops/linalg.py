"""Linear algebra other than the products and the decompositions: inverses (and the
pseudo-inverse), determinants, solves (triangular ones, and from the factors of
factorizations.py), powers and the matrix exponential, and norms. The declarations come first,
then the public functions of ``mutograd.linalg`` built on them and on the decompositions
(factorizations.py, spectral.py). The matrix products (matmul, einsum, ...) are in matmul.py.

    >>> import mutograd as mg
    >>> a = mg.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> mg.linalg.inv(a).tolist(), mg.logdet(a).exp().item()
    ([[0.5, 0.0], [0.0, 0.25]], 8.0)
"""
import math
from collections import namedtuple

import numpy as np

from ..autograd.graph_arrays import GraphArray
from ..errors import ShapeError
from ..tensor import _wrap
from .creation import eye, ones_like
from .factorizations import permutation_of
from .linalg_shared import (check_matrices, check_square, conj, lapack, mH, mT, out_into,
                            solve_triangular_arrays, with_info)
from .registry import OPS, call, defop
from .shaping import stack
from .spectral import eigvalsh, svdvals


# ---- inverse, determinants, solving ----------------------------------------------------------
def _inv_h(xp, a):
    return mH(xp.linalg.inv(a))


def _inverse(xp, x):
    return lapack("inv", xp.linalg.inv, x)


defop("inverse", _inverse, kind="other", inplace=False,
      grad=lambda g, out, xp: -(mH(out) @ g @ mH(out)))
# d det(A) = det(A) tr(A^-1 dA): the gradient is g conj(det(A)) A^-H (A invertible; the
# conjugates of Note [Complex gradients] in elementwise.py)
defop("det", lambda xp, x: xp.linalg.det(x), kind="other", inplace=False,
      grad=lambda g, x, out, xp: (g * conj(out))[..., None, None] * _inv_h(xp, x))
defop("logabsdet", lambda xp, x: xp.linalg.slogdet(x)[1], kind="other", inplace=False,
      method=False, grad=lambda g, x, xp: g[..., None, None] * _inv_h(xp, x))
# the sign of det(A) is piecewise constant: a zero gradient, yet it is recorded as PyTorch's is
defop("slogdet_sign", lambda xp, x: xp.linalg.slogdet(x)[0], kind="other", inplace=False,
      method=False, grad=lambda g, x_shape, xp: xp.zeros(x_shape, g.dtype))


def _solve(xp, a, b, *, left=True):
    if not left:                      # X A = B is A^T X^T = B^T; X laid out as PyTorch's
        return xp.ascontiguousarray(mT(_solve(xp, mT(a), mT(b))))
    if b.ndim == a.ndim - 1:          # a batch of vectors
        return lapack("solve", xp.linalg.solve, a, b[..., None])[..., 0]
    return lapack("solve", xp.linalg.solve, a, b)


def _solve_grad_b(g, a, left, xp):
    if left:                          # A^-H g
        return _solve(xp, mH(a), g)
    return mH(_solve(xp, a, mH(g)))   # g A^-H


def _solve_grad_a(g, a, out, left, xp):
    gb = _solve_grad_b(g, a, left, xp)
    if not left:                      # X = B A^-1: -X^H g A^-H
        return -(mH(out) @ gb)
    if out.ndim == a.ndim - 1:
        return -gb[..., :, None] * conj(out[..., None, :])
    return -(gb @ mH(out))


defop("solve", _solve, kind="other", inplace=False, method=False,
      grad=(_solve_grad_a, _solve_grad_b))


def _solve_tri(xp, a, b, upper=True, left=True, unitriangular=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError("linalg.solve_triangular: A and B must have at least 2 dimensions")
    check_square("solve_triangular", a)
    if (a.shape[-1] != b.shape[-2]) if left else (a.shape[-1] != b.shape[-1]):
        raise ShapeError(f"linalg.solve_triangular: incompatible shapes of A "
                         f"{list(a.shape)} and B {list(b.shape)}")
    return solve_triangular_arrays(xp, a, b, upper, left, unitriangular)


def _tri_grad_b(g, a, xp, upper=True, left=True, unitriangular=False):
    return solve_triangular_arrays(xp, a, g, upper, left, unitriangular, adjoint=True)


def _tri_grad_a(g, a, out, xp, upper=True, left=True, unitriangular=False):
    gb = solve_triangular_arrays(xp, a, g, upper, left, unitriangular, adjoint=True)
    ga = -(gb @ mH(out)) if left else -(mH(out) @ gb)
    ga = xp.triu(ga, 1 if unitriangular else 0) if upper else xp.tril(
        ga, -1 if unitriangular else 0)
    return ga


defop("solve_triangular", _solve_tri, grad=(_tri_grad_a, _tri_grad_b), kind="other",
      inplace=False, method=False)


# ---- pseudo-inverse, matrix exponential ------------------------------------------------------
def _pinv(xp, x, rtol=None, hermitian=False):
    check_matrices("pinv", x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(x.dtype).eps if x.dtype.kind in "fc" else 1e-15
    return xp.linalg.pinv(x, rcond=rtol, hermitian=hermitian)


def _pinv_grad(g, x, out, xp, rtol=None, hermitian=False):
    """For constant rank: ``-P^H G P^H + (I - A P)^... `` (Golub and Pereyra), with ``P`` the
    pseudo-inverse and ``G`` its gradient."""
    p, ph, gh = out, mH(out), mH(g)
    m, n = x.shape[-2:]
    left = xp.eye(m, dtype=x.dtype) - x @ p       # I - A P (m x m)
    right = xp.eye(n, dtype=x.dtype) - p @ x      # I - P A (n x n)
    return -(ph @ g @ ph) + left @ gh @ p @ ph + ph @ p @ gh @ right


defop("linalg_pinv", _pinv, grad=_pinv_grad, kind="other", inplace=False, method=False)


def _expm(xp, x):
    check_square("matrix_exp", x)
    if xp is np:
        import scipy.linalg
        return scipy.linalg.expm(x)
    if type(x) is GraphArray:   # a gradient's own exponential, in graph mode: the recorded op
        return xp.linalg.matrix_exp(x)
    import cupyx.scipy.linalg
    return cupyx.scipy.linalg.expm(x)


def _expm_grad(g, x, xp):
    """The upper-right block of ``exp([[A^H, G], [0, A^H]])`` (the Fréchet derivative)."""
    n = x.shape[-1]
    big = xp.zeros(np.broadcast_shapes(x.shape, g.shape)[:-2] + (2 * n, 2 * n),
                   xp.result_type(x, g))
    big[..., :n, :n] = mH(x)
    big[..., n:, n:] = mH(x)
    big[..., :n, n:] = g
    return _expm(xp, big)[..., :n, n:]


defop("matrix_exp", _expm, grad=_expm_grad, kind="other", inplace=False)


def slogdet(x):
    """``(sign, log|det|)`` of square matrices; the gradient flows through ``log|det|`` (the
    sign's is zero)."""
    return call(OPS["slogdet_sign"], [x], {}), call(OPS["logabsdet"], [x], {})


def matrix_power(x, n):
    """``x`` multiplied by itself ``n`` times (``n < 0``: of its inverse; 0: the identity)."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ShapeError(f"matrix_power: expected square matrices, got shape {list(x.shape)}")
    if n < 0:
        x, n = call(OPS["inverse"], [x], {}), -n
    if n == 0:
        xp = x._place.xp
        eye = xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype.np), tuple(x.shape)).copy()
        return _wrap(eye, x)
    result, base = None, x
    while n:                              # by squaring: log2(n) products
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matrix_exp(A):
    """The matrix exponential ``sum A^k / k!``."""
    return call(OPS["matrix_exp"], [A], {})


# ---- the public functions (mutograd.linalg) ----------------------------------------------
InvExResult = namedtuple("InvExResult", ["inverse", "info"])

SolveExResult = namedtuple("SolveExResult", ["result", "info"])

LstsqResult = namedtuple("LstsqResult", ["solution", "residuals", "rank", "singular_values"])



def inv(x):
    """The inverse of square matrices."""
    return call(OPS["inverse"], [x], {})


def det(x):
    """The determinant of square matrices."""
    return call(OPS["det"], [x], {})


def logdet(input):
    """``log(det(input))`` (NaN for a negative determinant, as PyTorch)."""
    return OPS["det"].function(input).log()


def solve(A, B, *, left=True, out=None):
    """``X`` with ``A @ X = B`` (``B`` a matrix, or a vector per matrix of ``A``);
    ``left=False``: ``X @ A = B``."""
    return out_into(call(OPS["solve"], [A, B], {"left": left}), out)


def inv_ex(A, check_errors=False):
    """``inv`` and ``info`` (0, or 1 where the matrices are singular: the inverse is NaN)."""
    return with_info(InvExResult, lambda: inv(A), A, list(A.shape), check_errors)


def solve_ex(A, B, *, left=True, check_errors=False):
    """``solve`` and ``info`` (0, or 1 where ``A`` is singular: the result is NaN)."""
    shape = list(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2] if B.ndim >= 2
                                                                 else ()))) + (
        list(B.shape[-2:]) if B.ndim >= 2 else list(B.shape))
    return with_info(SolveExResult, lambda: solve(A, B, left=left), A, shape, check_errors)


def tensorinv(A, ind=2):
    """The tensor ``X`` with ``tensordot(X, A, ind) = I``: ``A`` reshaped to a square matrix
    of its first ``ind`` dimensions by the rest, inverted, reshaped back."""
    shape = list(A.shape)
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise ShapeError(f"tensorinv: expected the product of the first {ind} dimensions "
                         f"({rows}) to equal that of the rest ({cols})")
    return inv(A.reshape(rows, cols)).reshape(shape[ind:] + shape[:ind])


def tensorsolve(A, B, dims=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``."""
    if dims is not None:
        order = [d % A.ndim for d in dims]
        rest = [d for d in range(A.ndim) if d not in order]
        A = A.permute(*(rest + order))
    x_shape = list(A.shape[B.ndim:])
    rows = math.prod(A.shape[:B.ndim])
    return solve(A.reshape(rows, math.prod(x_shape)), B.reshape(rows)).reshape(x_shape)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A`` (only the
    ``upper`` or lower triangle is read; ``unitriangular``: its diagonal taken as ones)."""
    return out_into(call(OPS["solve_triangular"], [A, B],
                      {"upper": upper, "left": left, "unitriangular": unitriangular}), out)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``; ``adjoint``: ``A^H`` for ``A``)
    from ``lu_factor``'s output."""
    n = LU.shape[-1]
    low = LU.tril(-1) + _wrap(LU._place.xp.eye(n, dtype=LU._data.dtype), LU)
    up = LU.triu()
    piv = pivots.detach()._data.astype(np.int64) - 1
    p = _wrap(permutation_of(LU._place.xp, piv, n, LU._data.dtype), LU)
    pt = p.swapaxes(-2, -1)
    if not adjoint:
        if left:      # P L U X = B
            y = solve_triangular(low, pt @ B, upper=False, unitriangular=True)
            return solve_triangular(up, y, upper=True)
        # X P L U = B
        y = solve_triangular(up, B, upper=True, left=False)
        return solve_triangular(low, y, upper=False, left=False, unitriangular=True) @ pt
    lh, uh = low.mH, up.mH
    if left:          # U^H L^H P^T X = B
        y = solve_triangular(uh, B, upper=False)
        return p @ solve_triangular(lh, y, upper=True, unitriangular=True)
    # X U^H L^H P^T = B
    y = solve_triangular(lh, B @ p, upper=True, left=False, unitriangular=True)
    return solve_triangular(uh, y, upper=False, left=False)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """``X`` with ``A X = B`` from ``ldl_factor``'s output (no gradient)."""
    import scipy.linalg.lapack as scipy_lapack
    ld, piv, b = LD.detach()._data, pivots.detach()._data, B.detach()._data
    if LD._place.xp is not np:
        ld, piv, b = ld.get(), piv.get(), b.get()
    fn = scipy_lapack.get_lapack_funcs("hetrs" if hermitian and ld.dtype.kind == "c" else "sytrs",
                                 (ld,))
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    out = np.empty(batch + b.shape[-2:], np.result_type(ld, b))
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    for i in np.ndindex(*batch):
        out[i], info = fn(ld[i], piv[i], b[i], lower=1)
    return _wrap(LD._place.xp.asarray(out), LD)


def cholesky_solve(self, L, upper=False):
    """``X`` with ``A X = self``, ``A = L L^H`` (``upper``: ``U^H U``) given the factor."""
    if upper:
        y = solve_triangular(L.swapaxes(-2, -1), self, upper=False)
        return solve_triangular(L, y, upper=True)
    y = solve_triangular(L, self, upper=False)
    return solve_triangular(L.swapaxes(-2, -1), y, upper=True)


def cholesky_inverse(self, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``self``."""
    n = self.shape[-1]
    return cholesky_solve(eye(n, dtype=self.dtype), self, upper)


def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """PyTorch's ``b.triangular_solve(A)``: ``(X, A)`` with ``op(A) X = b``."""
    a = A.swapaxes(-2, -1) if transpose else A
    return (solve_triangular(a, self, upper=upper != transpose, unitriangular=unitriangular),
            A.clone())


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse; singular values below ``max(atol, rtol * largest)``
    count as zero (default ``rtol``: machine epsilon times the larger dimension)."""
    if atol is not None:
        s = svdvals(A.detach())
        top = float(s.max()) if s.numel() else 0.0
        rtol = max(atol / top if top else 0.0, rtol or 0.0)
    return call(OPS["linalg_pinv"], [A], {"rtol": rtol, "hermitian": hermitian})


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (minimum norm), with ``residuals`` (squared,
    for a tall full-rank ``A``), ``rank`` and ``singular_values``."""
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    solution = pinv(A, rtol=rcond) @ Bm
    s = svdvals(A.detach())
    m, n = A.shape[-2:]
    tol = (rcond if rcond is not None else np.finfo(A._data.dtype).eps * max(m, n))
    top = s.amax(-1, keepdim=True) if s.numel() else s
    rank = (s > tol * top).sum(-1) if s.numel() else s.sum(-1).long()
    if m > n and bool((rank == n).all()):
        residuals = ((A.detach() @ solution.detach() - Bm.detach()) ** 2).sum(-2)
    else:
        residuals = _wrap(A._place.xp.empty((0,), A._data.dtype), A)
    if vector:
        solution = solution.squeeze(-1)
        if residuals.numel():
            residuals = residuals.squeeze(-1)
    return LstsqResult(solution, residuals, rank, s)



def vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` with increasing powers: ``[1, x, x^2, ...]`` along a new
    last dimension of size ``N`` (default ``x.shape[-1]``)."""
    N = x.shape[-1] if N is None else int(N)
    if N < 1:
        raise ValueError(f"N must be greater than 1, got {N}")
    cols, power = [ones_like(x)], None
    for _ in range(1, N):
        power = x if power is None else power * x
        cols.append(power)
    return stack(cols, -1)


# ---- norms ---------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """The ``ord``-norm over ``dim`` (all elements when None), as vectors."""
    if dtype is not None:
        x = x.astype(dtype)
    if dim is None:
        r = call(OPS["norm"], [x.reshape(-1)], {"p": ord, "axis": 0, "keepdim": False})
        return r.reshape([1] * x.ndim) if keepdim else r
    return call(OPS["norm"], [x], {"p": ord, "axis": dim, "keepdim": keepdim})


def matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False):
    """The Frobenius norm, the largest (``ord=1``/``inf``) or smallest (``-1``/``-inf``)
    absolute column/row sum, the largest (``2``) or smallest (``-2``) singular value, or their
    sum (``'nuc'``), over the two dimensions ``dim``."""
    r, c = (d % x.ndim for d in dim)
    if ord == "fro":
        out = (x * x).sum(axis=(r, c), keepdim=True).sqrt()
    elif ord in (1, -1, math.inf, -math.inf):
        sums = x.abs().sum(axis=r if abs(ord) == 1 else c, keepdim=True)
        pick = "amax" if ord > 0 else "amin"
        out = call(OPS[pick], [sums], {"axis": c if abs(ord) == 1 else r, "keepdim": True})
    elif ord in (2, -2, "nuc"):
        s = svdvals(x.movedim((r, c), (-2, -1)))
        out = s.sum(-1) if ord == "nuc" else call(OPS["amax" if ord == 2 else "amin"], [s],
                                                   {"axis": -1, "keepdim": False})
        return out.unsqueeze(min(r, c)).unsqueeze(max(r, c)) if keepdim else out
    else:
        raise ValueError(f"matrix_norm: ord must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                         f"got {ord!r}")
    return out if keepdim else out.squeeze((r, c) if r < c else (c, r))


def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    """``vector_norm`` for one dimension (or all, flattened, when ``ord`` is None),
    ``matrix_norm`` for two."""
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dim, keepdim)
    if dim is None and ord is not None and x.ndim == 2:
        return matrix_norm(x, ord, (-2, -1), keepdim)
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above ``max(atol, rtol * largest)`` (default ``rtol``:
    machine epsilon times the larger dimension, when ``atol`` is not given)."""
    s = (eigvalsh(A.detach()).abs() if hermitian else svdvals(A.detach()))
    m, n = A.shape[-2:]
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(A._data.dtype).eps * max(m, n)
    top = s.amax(-1, keepdim=True) if s.shape[-1] else s.sum(-1, keepdim=True)
    tol = (top * rtol).clamp(min=atol or 0.0)
    return (s > tol).sum(-1)


def cond(A, p=None):
    """The condition number in norm ``p``: the ratio of the largest to the smallest singular
    value (``None``/2; ``-2`` the inverse), else ``norm(A, p) * norm(inv(A), p)``."""
    if p in (None, 2, -2):
        s = svdvals(A)
        big, small = s[..., 0], s[..., -1]
        return big / small if p != -2 else small / big
    return matrix_norm(A, p) * matrix_norm(inv(A), p)


TENSOR_METHODS = {"logdet": logdet}
FUNCTIONS = {f.__name__: f for f in (slogdet, matrix_power, logdet)}
