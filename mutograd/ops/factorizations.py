"""Matrix factorisations with gradients: Cholesky, QR (and the Householder product that builds
``Q``), LU with partial pivoting (and the permutation of its pivots), and LDL (no gradient);
each differentiable one a packed op (Note [Packed decompositions] in linalg_shared.py), then
its public functions in ``mutograd.linalg``. The solves from these factors (``lu_solve``,
``cholesky_solve``, ``ldl_solve``) are in linalg.py.

    >>> import mutograd as mg
    >>> mg.linalg.cholesky(mg.tensor([[4.0, 2.0], [2.0, 5.0]])).tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    >>> P, L, U = mg.linalg.lu(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> (P @ L @ U).tolist()
    [[1.0, 2.0], [3.0, 4.0]]
"""
from collections import namedtuple

import numpy as np

from ..autograd.grad_mode import is_grad_enabled
from ..errors import LinAlgError, MutogradError, ShapeError
from ..tensor import _wrap
from .linalg_shared import (check_matrices, check_square, info_of, mH, out_into, pack, run_packed,
                            solve_triangular_arrays, unpack)
from .registry import OPS, call, defop


def _eye_like(xp, a, n=None):
    n = a.shape[-1] if n is None else n
    return xp.eye(n, dtype=a.dtype)


# ---- cholesky --------------------------------------------------------------------------------
def _cholesky(xp, x, upper=False):
    check_square("cholesky", x)
    try:
        low = xp.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because "
                          f"the input is not positive-definite (the leading minor of order "
                          f"{_first_bad_minor(xp, x)} is not positive-definite).") from None
    return mH(low) if upper else low


def _first_bad_minor(xp, x):
    """The order of the first leading minor (of the first failing matrix) that is not positive
    definite, as LAPACK reports it."""
    flat = x.reshape((-1,) + x.shape[-2:])
    for a in flat:
        for k in range(1, a.shape[-1] + 1):
            try:
                xp.linalg.cholesky(a[:k, :k])
            except np.linalg.LinAlgError:
                return k
    return 0


def _cholesky_grad(g, out, xp, upper=False):
    """PyTorch's: ``L^-H M L^-1`` with ``M`` the lower triangle of ``L^H gL`` reflected onto the
    upper one (conjugated), halved; the diagonal keeps its imaginary part."""
    low, gl = (mH(out), mH(g)) if upper else (out, g)
    phi = xp.tril(mH(low) @ gl)
    phi = (phi + mH(xp.tril(phi, -1))) / 2
    eye = xp.broadcast_to(_eye_like(xp, low), low.shape)
    linv = solve_triangular_arrays(xp, low, eye, upper=False, left=True, unit=False)
    return mH(linv) @ phi @ linv


defop("linalg_cholesky", _cholesky, grad=_cholesky_grad, kind="other", inplace=False,
      method=False)


# ---- qr --------------------------------------------------------------------------------------
def qr_shapes(m, n, mode):
    k = min(m, n)
    if mode == "complete":
        return [(m, m), (m, n)]
    if mode == "r":
        return [(0,), (k, n)]
    return [(m, k), (k, n)]


def _qr(xp, x, mode="reduced"):
    check_matrices("qr", x)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' "
                         f"(default), 'r', or 'complete'")
    if mode == "r":
        r = xp.linalg.qr(x, mode="r")
        return pack(xp, [xp.zeros(x.shape[:-2] + (0,), x.dtype), r], x.shape[:-2])
    q, r = xp.linalg.qr(x, mode=mode)
    return pack(xp, [q, r], x.shape[:-2])


def _copyltu(xp, m):
    """The lower triangle of ``m`` reflected onto the upper one (diagonal kept)."""
    low = xp.tril(m, -1)
    return low + mH(low) + xp.tril(xp.triu(m))


def _qr_grad_tall(xp, q, r, gq, gr):
    """``A = Q R`` with ``Q`` m x n (m >= n): ``gA = (gQ + Q copyltu(M)) R^-H``,
    ``M = R gR^H - gQ^H Q``."""
    mm = r @ mH(gr) - mH(gq) @ q
    b = gq + q @ _copyltu(xp, mm)
    return solve_triangular_arrays(xp, r, b, upper=True, left=False, adjoint=True)


def _qr_grad(g, x, out, xp, mode="reduced"):
    m, n = x.shape[-2:]
    if mode == "r":
        raise MutogradError("linalg.qr: the derivative of mode='r' is not defined (Q is not "
                            "returned); use mode='reduced'")
    gq, gr = unpack(g, qr_shapes(m, n, mode))
    q, r = unpack(out, qr_shapes(m, n, mode))
    if m >= n:
        if mode == "complete" and m > n:
            if xp.any(gq[..., :, n:] != 0):
                raise MutogradError("linalg.qr: the gradient of Q's last columns with "
                                    "mode='complete' is not defined for a tall matrix; use "
                                    "mode='reduced'")
            q, gq, r, gr = q[..., :, :n], gq[..., :, :n], r[..., :n, :], gr[..., :n, :]
        return _qr_grad_tall(xp, q, r, gq, gr)
    # wide: A = [X | Y], X = Q U (square), Y = Q V
    u = r[..., :, :m]
    gu, gv = gr[..., :, :m], gr[..., :, m:]
    y = x[..., :, m:]
    gx = _qr_grad_tall(xp, q, u, gq + y @ mH(gv), gu)
    gy = q @ gv
    return xp.concatenate([gx, gy], axis=-1)


defop("linalg_qr", _qr, grad=_qr_grad, kind="other", inplace=False, method=False)


# ---- lu --------------------------------------------------------------------------------------
def lu_shapes(m, n):
    """The pivots (0-based row swaps, as floats: exact), ``L`` (m x k) and ``U`` (k x n)."""
    k = min(m, n)
    return [(k,), (m, k), (k, n)]


def _lu(xp, x):
    """The row swaps, ``L`` (unit lower) and ``U`` (upper) of ``P L U = A``, packed: one
    factorisation gives ``P``, the pivots and both factors, and the backward reads ``P`` from
    the packed swaps instead of factorising again."""
    check_matrices("lu", x)
    lu, piv = lu_factor_arrays(xp, x)
    k = min(x.shape[-2:])
    low = xp.tril(lu[..., :, :k], -1)
    idx = np.arange(k)
    low[..., idx, idx] = 1
    return pack(xp, [piv.astype(x.dtype), low, xp.triu(lu[..., :k, :])], x.shape[:-2])


def lu_factor_arrays(xp, x):
    """LAPACK's ``getrf``: the packed factors (``L`` below the diagonal, ``U`` on and above)
    and the 0-based row swaps, for each matrix of ``x``."""
    import scipy.linalg
    a = x if xp is np else x.get()
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    lu = np.empty(a.shape, a.dtype)
    piv = np.empty(batch + (min(m, n),), np.int64)
    for i in np.ndindex(*batch):
        lu[i], piv[i] = scipy.linalg.lu_factor(a[i], check_finite=False)
    return (lu, piv) if xp is np else (xp.asarray(lu), xp.asarray(piv))


def permutation_of(xp, piv, m, dtype):
    """The matrix ``P`` of ``A = P L U`` for the row swaps ``piv`` (0-based)."""
    piv = piv if xp is np else np.asarray(piv.tolist())   # on the host (a device array, or a
    # gradient formula's tensor in graph mode: P is piecewise constant)
    batch = piv.shape[:-1]
    p = np.zeros(batch + (m, m), dtype)
    for i in np.ndindex(*batch):
        order = np.arange(m)
        for j, r in enumerate(piv[i].astype(np.int64)):
            order[[j, r]] = order[[r, j]]
        p[i][order, np.arange(m)] = 1      # row j of P^T A is row order[j] of A
    return p if xp is np else xp.asarray(p)


def _lu_factors(x, g, out, xp):
    """``P`` and the gradients and values of ``L`` and ``U`` from the packed result."""
    m, n = x.shape[-2:]
    piv, low, up = unpack(out, lu_shapes(m, n))
    _, gl, gu = unpack(g, lu_shapes(m, n))
    return permutation_of(xp, piv, m, x.dtype), low, up, gl, gu


def _lu_grad(g, x, out, xp):
    m, n = x.shape[-2:]
    if m != n:
        return _lu_grad_rect(g, x, out, xp)
    p, low, up, gl, gu = _lu_factors(x, g, out, xp)
    phi = xp.tril(mH(low) @ gl, -1) + xp.triu(gu @ mH(up))
    # P L^-H phi U^-H
    t = solve_triangular_arrays(xp, up, phi, upper=True, left=False, adjoint=True)
    t = solve_triangular_arrays(xp, low, t, upper=False, left=True, unit=True, adjoint=True)
    return p @ t


def _lu_grad_rect(g, x, out, xp):
    """Wide (m < n) and tall (m > n) ``A = P L U``, as PyTorch derives them: the square part
    as above plus the rest of U (wide) or of L (tall)."""
    m, n = x.shape[-2:]
    p, low, up, gl, gu = _lu_factors(x, g, out, xp)
    if m < n:   # L m x m, U = [U1 | U2]
        u1, u2 = up[..., :, :m], up[..., :, m:]
        gu1, gu2 = gu[..., :, :m], gu[..., :, m:]
        phi = xp.tril(mH(low) @ gl - gu2 @ mH(u2), -1) + xp.triu(gu1 @ mH(u1))
        t = solve_triangular_arrays(xp, u1, phi, upper=True, left=False, adjoint=True)
        ga1 = xp.concatenate([t, gu2], axis=-1)
        return p @ solve_triangular_arrays(xp, low, ga1, upper=False, left=True, unit=True,
                                     adjoint=True)
    # m > n: L = [L1; L2] (L1 n x n), U n x n
    l1, l2 = low[..., :n, :], low[..., n:, :]
    gl1, gl2 = gl[..., :n, :], gl[..., n:, :]
    phi = xp.tril(mH(l1) @ gl1, -1) + xp.triu(gu @ mH(up) - mH(l2) @ gl2)
    t = solve_triangular_arrays(xp, l1, phi, upper=False, left=True, unit=True, adjoint=True)
    ga = xp.concatenate([t, gl2], axis=-2)
    return p @ solve_triangular_arrays(xp, up, ga, upper=True, left=False, adjoint=True)


defop("linalg_lu", _lu, grad=_lu_grad, kind="other", inplace=False, method=False)

# ---- the public functions (mutograd.linalg) ----------------------------------------------
QRResult = namedtuple("QRResult", ["Q", "R"])

LUResult = namedtuple("LUResult", ["P", "L", "U"])

LUFactorResult = namedtuple("LUFactorResult", ["LU", "pivots"])

LUFactorExResult = namedtuple("LUFactorExResult", ["LU", "pivots", "info"])

LDLFactorResult = namedtuple("LDLFactorResult", ["LD", "pivots"])

LDLFactorExResult = namedtuple("LDLFactorExResult", ["LD", "pivots", "info"])

CholeskyExResult = namedtuple("CholeskyExResult", ["L", "info"])


def cholesky(A, upper=False, out=None):
    """The lower (``upper=True``: upper) triangular ``L`` with ``A = L L^H``."""
    return out_into(call(OPS["linalg_cholesky"], [A], {"upper": upper}), out)


def cholesky_ex(A, upper=False, check_errors=False):
    """``cholesky`` and ``info``: 0, or the order of the first leading minor that is not
    positive definite (``L`` is then NaN); ``check_errors=True`` raises instead."""
    try:
        return CholeskyExResult(cholesky(A, upper), info_of(A, 0))
    except LinAlgError:
        if check_errors:
            raise
    xp = A._place.xp
    return CholeskyExResult(_wrap(xp.full(A.shape, np.nan, A._data.dtype), A),
                            info_of(A, _first_bad_minor(xp, A._data)))


def qr(A, mode="reduced"):
    """``Q`` with orthonormal columns and upper-triangular ``R``, ``A = Q R``; ``mode``
    ``'reduced'``, ``'complete'`` or ``'r'`` (``Q`` empty)."""
    m, n = A.shape[-2:]
    return QRResult(*run_packed("linalg_qr", A, {"mode": mode}, qr_shapes(m, n, mode)))


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
    below = _wrap(xp.tril(xp.ones((m, n), dtype=A._data.dtype), -1), A)
    unit = _wrap(xp.eye(m, n, dtype=A._data.dtype), A)
    vs = A * below + unit
    for i in reversed(range(k)):
        v = vs[..., :, i:i + 1]
        vh = v.mH
        q = q - tau[..., i, None, None] * (v @ (vh @ q))
    return q


def lu(A, pivot=True):
    """``P, L, U`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower triangular,
    ``U`` upper triangular."""
    _pivoting(pivot)
    m, n = A.shape[-2:]
    piv, low, up = run_packed("linalg_lu", A, {}, lu_shapes(m, n))
    p = permutation_of(A._place.xp, piv.detach()._data, m, A._data.dtype)
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
    piv, low, up = run_packed("linalg_lu", A, {}, lu_shapes(m, n))
    eye = _wrap(A._place.xp.eye(m, k, dtype=A._data.dtype), A)
    packed = _compact(low - eye, up, m, n)
    return LUFactorResult(packed, _wrap((piv.detach()._data + 1).astype(np.int32), A))


def _compact(strict_low, up, m, n):
    """``L - I`` (m x k) and ``U`` (k x n) in one m x n matrix."""
    from ..nn.functional import pad
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

def ldl_factor_ex(A, *, hermitian=False, check_errors=False):
    """LAPACK's Bunch-Kaufman ``LDL^T`` factorisation (``sytrf``): the compact ``LD``, the
    ``pivots`` (1-based; negative for a 2x2 block) and ``info``. No gradient (as in
    PyTorch)."""
    import scipy.linalg.lapack as scipy_lapack
    if A.requires_grad and is_grad_enabled():
        raise LinAlgError("linalg.ldl_factor: the derivative is not implemented (as in "
                          "PyTorch); call it on A.detach()")
    a = A.detach()._data
    check_square("ldl_factor", a)
    if A._place.xp is not np:
        a = a.get()
    fn = scipy_lapack.get_lapack_funcs(
        "hetrf" if hermitian and a.dtype.kind == "c" else "sytrf", (a,))
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
