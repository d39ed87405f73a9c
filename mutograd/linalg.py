"""``mutograd.linalg``: norms, inverse, determinants, solving and powers of matrices, with
gradients (``torch.linalg``'s names).

    >>> import mutograd as mg
    >>> a = mg.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> mg.linalg.det(a).item(), mg.linalg.solve(a, mg.tensor([2.0, 2.0])).tolist()
    (8.0, [1.0, 0.5])
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0])).item()
    5.0
"""
import math
from collections import namedtuple

import numpy as np

from .errors import ShapeError
from .ops import FUNCTIONS as _F
from .ops import OPS as _OPS
from .ops import call as _call
from .ops import decompositions as _dec
from .errors import LinAlgError
from .tensor import _wrap

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """The ``ord``-norm over ``dim`` (all elements when None), as vectors."""
    if dtype is not None:
        x = x.astype(dtype)
    if dim is None:
        r = _call(_OPS["norm"], [x.reshape(-1)], {"p": ord, "axis": 0, "keepdim": False})
        return r.reshape([1] * x.ndim) if keepdim else r
    return _call(_OPS["norm"], [x], {"p": ord, "axis": dim, "keepdim": keepdim})


def matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False):
    """The Frobenius norm, or the largest (``ord=1``/``inf``) or smallest (``-1``/``-inf``)
    absolute column/row sum, over the two dimensions ``dim``."""
    r, c = (d % x.ndim for d in dim)
    if ord == "fro":
        out = (x * x).sum(axis=(r, c), keepdim=True).sqrt()
    elif ord in (1, -1, math.inf, -math.inf):
        sums = x.abs().sum(axis=r if abs(ord) == 1 else c, keepdim=True)
        pick = "amax" if ord > 0 else "amin"
        out = _call(_OPS[pick], [sums], {"axis": c if abs(ord) == 1 else r, "keepdim": True})
    else:
        raise ValueError(f"matrix_norm: ord must be 'fro', 1, -1, inf or -inf, got {ord!r}")
    return out if keepdim else out.squeeze((r, c) if r < c else (c, r))


def norm(x, ord=None, dim=None, keepdim=False, dtype=None):
    """``vector_norm`` for one dimension (or all, flattened, when ``ord`` is None),
    ``matrix_norm`` for two."""
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, dim, keepdim)
    if dim is None and ord is not None and x.ndim == 2:
        return matrix_norm(x, ord, (-2, -1), keepdim)
    return vector_norm(x, 2 if ord is None else ord, dim, keepdim, dtype)


def inv(x):
    """The inverse of square matrices."""
    return _call(_OPS["inverse"], [x], {})


def det(x):
    """The determinant of square matrices."""
    return _call(_OPS["det"], [x], {})


def slogdet(x):
    """``(sign, log|det|)``."""
    return _F["slogdet"](x)


def solve(A, B, *, left=True, out=None):
    """``X`` with ``A @ X = B`` (``B`` a matrix, or a vector per matrix of ``A``);
    ``left=False``: ``X @ A = B``."""
    if left:
        return _out(_call(_OPS["solve"], [A, B], {}), out)
    return _out(_call(_OPS["solve"], [A.transpose(-2, -1), B.transpose(-2, -1)], {})
                .transpose(-2, -1), out)


def matrix_power(x, n):
    """``x`` to the integer power ``n``."""
    return _F["matrix_power"](x, n)


def cross(a, b, dim=-1):
    """The cross product of 3-vectors along ``dim``."""
    return _F["cross"](a, b, dim)


def vecdot(a, b, dim=-1):
    """The dot product of vectors along ``dim`` (conjugating ``a`` for complex ones)."""
    return (a.conj() * b).sum(axis=dim) if a.dtype.np.kind == "c" else (a * b).sum(axis=dim)


# ---- decompositions (mutograd/ops/decompositions.py, Note [Packed decompositions]) ----------
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])
QRResult = namedtuple("QRResult", ["Q", "R"])
LUResult = namedtuple("LUResult", ["P", "L", "U"])
LUFactorResult = namedtuple("LUFactorResult", ["LU", "pivots"])
LUFactorExResult = namedtuple("LUFactorExResult", ["LU", "pivots", "info"])
LDLFactorResult = namedtuple("LDLFactorResult", ["LD", "pivots"])
LDLFactorExResult = namedtuple("LDLFactorExResult", ["LD", "pivots", "info"])
LstsqResult = namedtuple("LstsqResult", ["solution", "residuals", "rank", "singular_values"])
CholeskyExResult = namedtuple("CholeskyExResult", ["L", "info"])
InvExResult = namedtuple("InvExResult", ["inverse", "info"])
SolveExResult = namedtuple("SolveExResult", ["result", "info"])


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric (Hermitian) matrices,
    reading the ``UPLO`` triangle.

        >>> import mutograd as mg
        >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
        [1.0, 3.0]
    """
    n = A.shape[-1]
    return EighResult(*_dec.run_packed("linalg_eigh", A, {"uplo": UPLO}, _dec.eigh_shapes(n)))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of ``eigh``."""
    return eigh(A, UPLO).eigenvalues


def eig(A):
    """Complex eigenvalues and eigenvectors (unit columns) of square matrices."""
    n = A.shape[-1]
    return EigResult(*_dec.run_packed("linalg_eig", A, {}, _dec.eigh_shapes(n)))


def eigvals(A):
    """The complex eigenvalues of square matrices."""
    return _call(_OPS["linalg_eigvals"], [A], {})


def svd(A, full_matrices=True, driver=None):
    """``U, S, Vh`` with ``A = U diag(S) Vh``, ``S`` descending (PyTorch's default
    ``full_matrices=True``; gradients need ``False`` unless ``A`` is square)."""
    m, n = A.shape[-2:]
    return SVDResult(*_dec.run_packed("linalg_svd", A, {"full_matrices": full_matrices},
                                      _dec.svd_shapes(m, n, full_matrices)))


def svdvals(A, driver=None):
    """The singular values, descending."""
    m, n = A.shape[-2:]
    return _dec.run_packed("linalg_svd", A, {"full_matrices": False},
                           _dec.svd_shapes(m, n, False))[1]


def qr(A, mode="reduced"):
    """``Q`` with orthonormal columns and upper-triangular ``R``, ``A = Q R``; ``mode``
    ``'reduced'``, ``'complete'`` or ``'r'`` (``Q`` empty)."""
    m, n = A.shape[-2:]
    return QRResult(*_dec.run_packed("linalg_qr", A, {"mode": mode},
                                     _dec.qr_shapes(m, n, mode)))


def cholesky(A, upper=False, out=None):
    """The lower (``upper=True``: upper) triangular ``L`` with ``A = L L^H``."""
    return _out(_call(_OPS["linalg_cholesky"], [A], {"upper": upper}), out)


def cholesky_ex(A, upper=False, check_errors=False):
    """``cholesky`` and ``info``: 0, or the order of the first leading minor that is not
    positive definite (``L`` is then NaN); ``check_errors=True`` raises instead."""
    try:
        return CholeskyExResult(cholesky(A, upper), _info(A, 0))
    except LinAlgError:
        if check_errors:
            raise
    xp = A._place.xp
    return CholeskyExResult(_wrap(xp.full(A.shape, np.nan, A._data.dtype), A),
                            _info(A, _dec._first_bad_minor(xp, A._data)))


def _info(A, value):
    return _wrap(A._place.xp.full(tuple(A.shape[:-2]), value, np.int32), A)


def _out(result, out):
    """``result``, or written into ``out`` (which must have its shape) and returned."""
    if out is None:
        return result
    if list(out.shape) != list(result.shape):
        raise ShapeError(f"linalg: out= has shape {list(out.shape)} but the result has shape "
                         f"{list(result.shape)}")
    with _no_grad():
        out.copy_(result)
    return out


def inv_ex(A, check_errors=False):
    """``inv`` and ``info`` (0, or 1 where the matrices are singular: the inverse is NaN)."""
    return _ex(InvExResult, lambda: inv(A), A, list(A.shape), check_errors)


def solve_ex(A, B, *, left=True, check_errors=False):
    """``solve`` and ``info`` (0, or 1 where ``A`` is singular: the result is NaN)."""
    shape = list(np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2] if B.ndim >= 2
                                                                 else ()))) + (
        list(B.shape[-2:]) if B.ndim >= 2 else list(B.shape))
    return _ex(SolveExResult, lambda: solve(A, B, left=left), A, shape, check_errors)


def _ex(result, run, A, shape, check_errors):
    try:
        return result(run(), _info(A, 0))
    except LinAlgError:
        if check_errors:
            raise
    return result(_wrap(A._place.xp.full(shape, np.nan, A._data.dtype), A), _info(A, 1))


def _no_grad():
    from .autograd.grad_mode import no_grad
    return no_grad()


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``) for triangular ``A`` (only the
    ``upper`` or lower triangle is read; ``unitriangular``: its diagonal taken as ones)."""
    return _out(_call(_OPS["solve_triangular"], [A, B],
                      {"upper": upper, "left": left, "unitriangular": unitriangular}), out)


def lu(A, pivot=True):
    """``P, L, U`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower triangular,
    ``U`` upper triangular."""
    _pivoting(pivot)
    m, n = A.shape[-2:]
    piv, low, up = _dec.run_packed("linalg_lu", A, {}, _dec.lu_shapes(m, n))
    p = _dec.permutation_of(A._place.xp, piv.detach()._data, m, A._data.dtype)
    return LUResult(_wrap(p, A), low, up)


def _pivoting(pivot):
    if not pivot:
        raise ValueError("linalg.lu: LU without pivoting is not implemented on the CPU "
                         "(as in PyTorch); use pivot=True")


def lu_factor(A, *, pivot=True):
    """LAPACK's compact ``LU`` (``L`` below the diagonal, ``U`` on and above) and the 1-based
    ``pivots`` (row ``i`` was swapped with row ``pivots[i]``)."""
    _pivoting(pivot)
    m, n = A.shape[-2:]
    k = min(m, n)
    piv, low, up = _dec.run_packed("linalg_lu", A, {}, _dec.lu_shapes(m, n))
    eye = _wrap(A._place.xp.eye(m, k, dtype=A._data.dtype), A)
    packed = _compact(low - eye, up, m, n)
    return LUFactorResult(packed, _wrap((piv.detach()._data + 1).astype(np.int32), A))


def _compact(strict_low, up, m, n):
    """``L - I`` (m x k) and ``U`` (k x n) in one m x n matrix."""
    from .nn.functional import pad
    k = min(m, n)
    return pad(strict_low, (0, n - k)) + pad(up, (0, 0, 0, m - k))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``lu_factor`` and ``info`` (0, or the 1-based index of the first zero pivot of ``U``:
    the factorisation is complete but ``U`` is singular)."""
    LU, pivots = lu_factor(A, pivot=pivot)
    d = LU.detach()._data.diagonal(0, -2, -1)
    zero = d == 0
    info = np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)
    if check_errors and info.any():
        raise LinAlgError(f"linalg.lu_factor_ex: U[{int(info.max())}, {int(info.max())}] is zero, "
                          f"singular U.")
    return LUFactorExResult(LU, pivots, _wrap(info, A))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """``X`` with ``A X = B`` (``left=False``: ``X A = B``; ``adjoint``: ``A^H`` for ``A``)
    from ``lu_factor``'s output."""
    n = LU.shape[-1]
    low = LU.tril(-1) + _wrap(LU._place.xp.eye(n, dtype=LU._data.dtype), LU)
    up = LU.triu()
    piv = pivots.detach()._data.astype(np.int64) - 1
    p = _wrap(_dec.permutation_of(LU._place.xp, piv, n, LU._data.dtype), LU)
    pt = p.transpose(-2, -1)
    if not adjoint:
        if left:      # P L U X = B
            y = solve_triangular(low, pt @ B, upper=False, unitriangular=True)
            return solve_triangular(up, y, upper=True)
        # X P L U = B
        y = solve_triangular(up, B, upper=True, left=False)
        return solve_triangular(low, y, upper=False, left=False, unitriangular=True) @ pt
    lh, uh = _adj(low), _adj(up)
    if left:          # U^H L^H P^T X = B
        y = solve_triangular(uh, B, upper=False)
        return p @ solve_triangular(lh, y, upper=True, unitriangular=True)
    # X U^H L^H P^T = B
    y = solve_triangular(lh, B @ p, upper=True, left=False, unitriangular=True)
    return solve_triangular(uh, y, upper=False, left=False)


def _adj(t):
    t = t.transpose(-2, -1)
    return t.conj() if t.dtype.np.kind == "c" else t


def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """LAPACK's Bunch-Kaufman ``LDL^T`` factorisation (``sytrf``): the compact ``LD``, the
    ``pivots`` (1-based; negative for a 2x2 block) and ``info``. No gradient (as in
    PyTorch)."""
    import scipy.linalg.lapack as lapack
    if A.requires_grad:
        from .autograd.grad_mode import is_grad_enabled
        if is_grad_enabled():
            raise LinAlgError("linalg.ldl_factor: the derivative is not implemented (as in "
                              "PyTorch); call it on A.detach()")
    a = A.detach()._data
    _dec._square("ldl_factor", a)
    if A._place.xp is not np:
        a = a.get()
    fn = lapack.get_lapack_funcs("hetrf" if hermitian and a.dtype.kind == "c" else "sytrf",
                                 (a,))
    batch = a.shape[:-2]
    ld = np.empty(a.shape, a.dtype)
    piv = np.empty(a.shape[:-1], np.int32)
    info = np.zeros(batch, np.int32)
    for i in np.ndindex(*batch):
        ldu, ipiv, inf = fn(a[i], lower=1)
        ld[i], piv[i], info[i] = np.tril(ldu), ipiv, inf
    if check_errors and info.any():
        raise LinAlgError(f"linalg.ldl_factor_ex: D[{int(info.max())}, {int(info.max())}] is "
                          f"zero, the factorization could not be completed")
    xp = A._place.xp
    return LDLFactorExResult(_wrap(xp.asarray(ld), A), _wrap(xp.asarray(piv), A),
                             _wrap(xp.asarray(info), A))


def ldl_factor(A, *, hermitian=False):
    """``ldl_factor_ex`` without ``info``."""
    LD, pivots, _ = ldl_factor_ex(A, hermitian=hermitian)
    return LDLFactorResult(LD, pivots)


def ldl_solve(LD, pivots, B, *, hermitian=False):
    """``X`` with ``A X = B`` from ``ldl_factor``'s output (no gradient)."""
    import scipy.linalg.lapack as lapack
    ld, piv, b = LD.detach()._data, pivots.detach()._data, B.detach()._data
    if LD._place.xp is not np:
        ld, piv, b = ld.get(), piv.get(), b.get()
    fn = lapack.get_lapack_funcs("hetrs" if hermitian and ld.dtype.kind == "c" else "sytrs",
                                 (ld,))
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    out = np.empty(batch + b.shape[-2:], np.result_type(ld, b))
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    piv = np.broadcast_to(piv, batch + piv.shape[-1:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    for i in np.ndindex(*batch):
        out[i], info = fn(ld[i], piv[i], b[i], lower=1)
    return _wrap(LD._place.xp.asarray(out), LD)


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse; singular values below ``max(atol, rtol * largest)``
    count as zero (default ``rtol``: machine epsilon times the larger dimension)."""
    if atol is not None:
        s = svdvals(A.detach())
        top = float(s.max()) if s.numel() else 0.0
        rtol = max(atol / top if top else 0.0, rtol or 0.0)
    return _call(_OPS["linalg_pinv"], [A], {"rtol": rtol, "hermitian": hermitian})


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


def matrix_exp(A):
    """The matrix exponential ``sum A^k / k!``."""
    return _call(_OPS["matrix_exp"], [A], {})


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


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``A.diagonal(offset, dim1, dim2)`` (a view), with the last two dimensions as default."""
    return A.diagonal(offset, dim1, dim2)


def matmul(input, other, *, out=None):
    """``input @ other``."""
    return _out(input @ other, out)


def multi_dot(tensors, *, out=None):
    """The product of a chain of matrices; the first may be a row vector, the last a column
    vector (1-D)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise ValueError("multi_dot(): expected at least 2 tensors but got "
                         f"{len(ts)}")
    result = ts[0]
    for t in ts[1:]:
        result = result @ t
    return _out(result, out)


def householder_product(A, tau):
    """The first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``, with ``v_i``
    the ``i``-th column of ``A`` below the diagonal after an implicit 1 (LAPACK's ``orgqr``);
    differentiable in ``A`` and ``tau``."""
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if not k <= n <= m:
        raise ShapeError(f"householder_product: expected m >= n >= k, got m={m}, n={n}, k={k}")
    xp = A._place.xp
    q = _wrap(xp.broadcast_to(xp.eye(m, n, dtype=A._data.dtype),
                              tuple(A.shape[:-2]) + (m, n)).copy(), A)
    below = _wrap(xp.tril(xp.ones((m, n), dtype=bool), -1), A)
    unit = _wrap(xp.eye(m, n, dtype=A._data.dtype), A)
    vs = A * below + unit
    for i in reversed(range(k)):
        v = vs[..., :, i:i + 1]
        vh = _adj(v)
        q = q - tau[..., i, None, None] * (v @ (vh @ q))
    return q


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


def vander(x, *, N=None):
    """The Vandermonde matrix of ``x`` with increasing powers: ``[1, x, x^2, ...]`` along a new
    last dimension of size ``N`` (default ``x.shape[-1]``)."""
    N = x.shape[-1] if N is None else int(N)
    if N < 1:
        raise ValueError(f"N must be greater than 1, got {N}")
    from .ops import FUNCTIONS
    from .ops.creation import ones_like
    cols, power = [ones_like(x)], None
    for _ in range(1, N):
        power = x if power is None else power * x
        cols.append(power)
    return FUNCTIONS["stack"](cols, -1)


# ---- Tensor methods of the decompositions (PyTorch's and Paddle's names) ---------------------
def _cholesky_solve(self, L, upper=False):
    """``X`` with ``A X = self``, ``A = L L^H`` (``upper``: ``U^H U``) given the factor."""
    if upper:
        y = solve_triangular(L.transpose(-2, -1), self, upper=False)
        return solve_triangular(L, y, upper=True)
    y = solve_triangular(L, self, upper=False)
    return solve_triangular(L.transpose(-2, -1), y, upper=True)


def _cholesky_inverse(self, upper=False):
    """The inverse of ``A`` from its Cholesky factor ``self``."""
    from .ops.creation import eye
    n = self.shape[-1]
    return _cholesky_solve(eye(n, dtype=self.dtype), self, upper)


def _triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """PyTorch's ``b.triangular_solve(A)``: ``(X, A)`` with ``op(A) X = b``."""
    a = A.transpose(-2, -1) if transpose else A
    return (solve_triangular(a, self, upper=upper != transpose, unitriangular=unitriangular),
            A.clone())


def _lu(self, pivot=True, get_infos=False):
    """``(LU, pivots)`` (and ``infos`` with ``get_infos``): ``lu_factor_ex``."""
    LU, pivots, info = lu_factor_ex(self, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def _qr(self, some=True, mode=None):
    return qr(self, mode if mode is not None else "reduced" if some else "complete")


METHODS = {
    "cholesky": lambda self, upper=False: cholesky(self, upper),
    "cholesky_solve": _cholesky_solve,
    "cholesky_inverse": _cholesky_inverse,
    "triangular_solve": _triangular_solve,
    "qr": _qr,
    "lu": _lu,
    "lu_solve": lambda self, LU_data, LU_pivots: lu_solve(LU_data, LU_pivots, self),
    "eig": lambda self: eig(self),
    "eigvals": lambda self: eigvals(self),
    "eigvalsh": lambda self, UPLO="L": eigvalsh(self, UPLO),
    "cond": lambda self, p=None: cond(self, p),
    "pinv": lambda self, rcond=None, hermitian=False: pinv(self, rtol=rcond,
                                                           hermitian=hermitian),
    "pinverse": lambda self, rcond=1e-15: pinv(self, rtol=rcond),
    "householder_product": lambda self, tau: householder_product(self, tau),
    # Paddle's (PyTorch removed its own in 2.0)
    "solve": lambda self, y, left=True: solve(self, y, left=left),
    "lstsq": lambda self, y, rcond=None, driver=None: lstsq(self, y, rcond, driver=driver),
}


def _install_methods():
    from .tensor import Tensor
    for name, fn in METHODS.items():
        if not hasattr(Tensor, name):
            fn.__name__ = name
            setattr(Tensor, name, fn)


_install_methods()
