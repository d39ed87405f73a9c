"""Matrix decompositions with gradients: eigh, svd, qr, cholesky, lu, eigvals, the pseudo-inverse,
the matrix exponential, and triangular solves; then their public functions in ``mutograd.linalg``
(with LDL and the Householder product), and the helpers for ``out=`` and ``info`` results that
ops/linalg.py shares.

Note [Packed decompositions]
    A decomposition has several outputs (``U, S, Vh``) computed together. Each is declared as one
    op whose forward returns them packed along the last axis (the trailing dimensions of each
    output flattened, then concatenated: shape ``batch + (sum of sizes,)``), and whose gradient
    unpacks the incoming gradient the same way; the public function cuts the packed result into
    its outputs with ordinary (differentiable) slicing and reshaping. So the decomposition runs
    once, its backward node sees every output's gradient at once (zeros for unused outputs), and
    one declaration holds the whole formula. The gradients follow PyTorch's (``eigh`` and
    ``svd`` project onto the gauge-invariant part, as PyTorch does), and are checked against
    finite differences and PyTorch in tests/test_linalg.py.
"""
import math
from collections import namedtuple

import numpy as np

from ..autograd.grad_mode import is_grad_enabled, no_grad
from ..errors import LinAlgError, MutogradError, ShapeError
from ..tensor import _wrap
from .registry import OPS, call, defop


def _mH(a):
    a = a.swapaxes(-1, -2)
    return a.conj() if a.dtype.kind == "c" else a


def _eye_like(xp, a, n=None):
    n = a.shape[-1] if n is None else n
    return xp.eye(n, dtype=a.dtype)


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        got = f"{a.shape[-2]} by {a.shape[-1]} matrices" if a.ndim >= 2 else f"{a.ndim}-D"
        raise ShapeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                         f"{got}")


def _matrices(name, a):
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


def conj_transpose(t):
    t = t.transpose(-2, -1)
    return t.conj() if t.dtype.np.kind == "c" else t



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


# ---- eigh ------------------------------------------------------------------------------------
def eigh_shapes(n):
    return [(n,), (n, n)]


def _eigh(xp, x, uplo="L"):
    _square("eigh", x)
    w, v = lapack("eigh", xp.linalg.eigh, x, uplo)
    return pack(xp, [w, v], x.shape[:-2])


def _eigh_grad(g, out, xp):
    n = out.shape[-1] and int(round((-1 + math.sqrt(1 + 4 * out.shape[-1])) / 2))
    gw, gv = unpack(g, eigh_shapes(n))
    w, v = unpack(out, eigh_shapes(n))
    e = w[..., None, :] - w[..., :, None]
    idx = np.arange(n)
    e[..., idx, idx] = 1
    vhgv = _mH(v) @ gv
    inner = (vhgv - _mH(vhgv)) / 2 / e
    inner[..., idx, idx] = gw
    return v @ inner @ _mH(v)


defop("linalg_eigh", _eigh, grad=_eigh_grad, kind="other", inplace=False, method=False)


# ---- svd -------------------------------------------------------------------------------------
def svd_shapes(m, n, full):
    k = min(m, n)
    return [(m, m if full else k), (k,), (n if full else k, n)]


def _svd(xp, x, full_matrices=False):
    _matrices("svd", x)
    u, s, vh = lapack("svd", xp.linalg.svd, x, full_matrices)
    return pack(xp, [u, s, vh], x.shape[:-2])


def _svd_grad(g, x_shape, out, xp, full_matrices=False):
    m, n = x_shape[-2:]
    k = min(m, n)
    gu, gs, gvh = unpack(g, svd_shapes(m, n, full_matrices))
    u, s, vh = unpack(out, svd_shapes(m, n, full_matrices))
    if full_matrices and m != n:
        if xp.any(gu[..., :, k:] != 0) or xp.any(gvh[..., k:, :] != 0):
            raise MutogradError(
                "linalg.svd: the gradient of U or Vh with full_matrices=True is not defined for "
                "a non-square matrix (it depends on an arbitrary basis); use "
                "full_matrices=False")
        u, gu, vh, gvh = u[..., :, :k], gu[..., :, :k], vh[..., :k, :], gvh[..., :k, :]
    v, gv = _mH(vh), _mH(gvh)
    idx = np.arange(k)
    grad = u @ (gs[..., :, None] * vh)      # the singular values' part
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2      # s_j^2 - s_i^2
    s2[..., idx, idx] = 1
    f = 1 / s2
    f[..., idx, idx] = 0
    uhgu = _mH(u) @ gu
    vhgv = _mH(v) @ gv
    j = f * (uhgu - _mH(uhgu))
    kk = f * (vhgv - _mH(vhgv))
    grad = grad + u @ (j * s[..., None, :] + s[..., :, None] * kk) @ vh
    if m > k:   # U's columns beyond the range of A: (I - U U^H) gU S^-1 V^H
        proj = gu - u @ uhgu
        grad = grad + (proj / s[..., None, :]) @ vh
    if n > k:
        proj = gv - v @ vhgv
        grad = grad + u @ _mH(proj / s[..., None, :])
    return grad


defop("linalg_svd", _svd, grad=_svd_grad, kind="other", inplace=False, method=False)


# ---- qr --------------------------------------------------------------------------------------
def qr_shapes(m, n, mode):
    k = min(m, n)
    if mode == "complete":
        return [(m, m), (m, n)]
    if mode == "r":
        return [(0,), (k, n)]
    return [(m, k), (k, n)]


def _qr(xp, x, mode="reduced"):
    _matrices("qr", x)
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
    return low + _mH(low) + xp.tril(xp.triu(m))


def _qr_grad_tall(xp, q, r, gq, gr):
    """``A = Q R`` with ``Q`` m x n (m >= n): ``gA = (gQ + Q copyltu(M)) R^-H``,
    ``M = R gR^H - gQ^H Q``."""
    mm = r @ _mH(gr) - _mH(gq) @ q
    b = gq + q @ _copyltu(xp, mm)
    return _solve_triangular(xp, r, b, upper=True, left=False, adjoint=True)


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
    gx = _qr_grad_tall(xp, q, u, gq + y @ _mH(gv), gu)
    gy = q @ gv
    return xp.concatenate([gx, gy], axis=-1)


defop("linalg_qr", _qr, grad=_qr_grad, kind="other", inplace=False, method=False)


# ---- cholesky --------------------------------------------------------------------------------
def _cholesky(xp, x, upper=False):
    _square("cholesky", x)
    try:
        low = xp.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because "
                          f"the input is not positive-definite (the leading minor of order "
                          f"{_first_bad_minor(xp, x)} is not positive-definite).") from None
    return _mH(low) if upper else low


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
    low, gl = (_mH(out), _mH(g)) if upper else (out, g)
    n = low.shape[-1]
    phi = _mH(low) @ gl
    phi = xp.tril(phi)
    idx = np.arange(n)
    phi[..., idx, idx] *= 0.5
    eye = xp.broadcast_to(_eye_like(xp, low), low.shape)
    linv = _solve_triangular(xp, low, eye, upper=False, left=True, unit=False)
    ga = _mH(linv) @ phi @ linv
    return (ga + _mH(ga)) / 2


defop("linalg_cholesky", _cholesky, grad=_cholesky_grad, kind="other", inplace=False,
      method=False)


# ---- triangular solves -----------------------------------------------------------------------
def _solve_triangular(xp, a, b, upper, left=True, unit=False, adjoint=False):
    """``X`` with ``op(A) X = B`` (``left``) or ``X op(A) = B``; ``op`` is the conjugate
    transpose when ``adjoint``; ``unit``: A's diagonal is taken as ones."""
    if not left:   # X A = B  <=>  A^H X^H = B^H
        return _mH(_solve_triangular(xp, a, _mH(b), upper, True, unit, not adjoint))
    if adjoint:
        a, upper = _mH(a), not upper
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


def _solve_tri(xp, a, b, upper=True, left=True, unitriangular=False):
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError("linalg.solve_triangular: A and B must have at least 2 dimensions")
    _square("solve_triangular", a)
    if (a.shape[-1] != b.shape[-2]) if left else (a.shape[-1] != b.shape[-1]):
        raise ShapeError(f"linalg.solve_triangular: incompatible shapes of A "
                         f"{list(a.shape)} and B {list(b.shape)}")
    return _solve_triangular(xp, a, b, upper, left, unitriangular)


def _tri_grad_b(g, a, xp, upper=True, left=True, unitriangular=False):
    return _solve_triangular(xp, a, g, upper, left, unitriangular, adjoint=True)


def _tri_grad_a(g, a, out, xp, upper=True, left=True, unitriangular=False):
    gb = _solve_triangular(xp, a, g, upper, left, unitriangular, adjoint=True)
    ga = -(gb @ _mH(out)) if left else -(_mH(out) @ gb)
    ga = xp.triu(ga, 1 if unitriangular else 0) if upper else xp.tril(
        ga, -1 if unitriangular else 0)
    return ga


defop("solve_triangular", _solve_tri, grad=(_tri_grad_a, _tri_grad_b), kind="other",
      inplace=False, method=False)


# ---- lu --------------------------------------------------------------------------------------
def lu_shapes(m, n):
    """The pivots (0-based row swaps, as floats: exact), ``L`` (m x k) and ``U`` (k x n)."""
    k = min(m, n)
    return [(k,), (m, k), (k, n)]


def _lu(xp, x):
    """The row swaps, ``L`` (unit lower) and ``U`` (upper) of ``P L U = A``, packed: one
    factorisation gives ``P``, the pivots and both factors, and the backward reads ``P`` from
    the packed swaps instead of factorising again."""
    _matrices("lu", x)
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
    piv = piv if xp is np else piv.get()
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
    phi = xp.tril(_mH(low) @ gl, -1) + xp.triu(gu @ _mH(up))
    # P L^-H phi U^-H
    t = _solve_triangular(xp, up, phi, upper=True, left=False, adjoint=True)
    t = _solve_triangular(xp, low, t, upper=False, left=True, unit=True, adjoint=True)
    return p @ t


def _lu_grad_rect(g, x, out, xp):
    """Wide (m < n) and tall (m > n) ``A = P L U``, as PyTorch derives them: the square part
    as above plus the rest of U (wide) or of L (tall)."""
    m, n = x.shape[-2:]
    p, low, up, gl, gu = _lu_factors(x, g, out, xp)
    if m < n:   # L m x m, U = [U1 | U2]
        u1, u2 = up[..., :, :m], up[..., :, m:]
        gu1, gu2 = gu[..., :, :m], gu[..., :, m:]
        phi = xp.tril(_mH(low) @ gl - gu2 @ _mH(u2), -1) + xp.triu(gu1 @ _mH(u1))
        t = _solve_triangular(xp, u1, phi, upper=True, left=False, adjoint=True)
        ga1 = xp.concatenate([t, gu2], axis=-1)
        return p @ _solve_triangular(xp, low, ga1, upper=False, left=True, unit=True,
                                     adjoint=True)
    # m > n: L = [L1; L2] (L1 n x n), U n x n
    l1, l2 = low[..., :n, :], low[..., n:, :]
    gl1, gl2 = gl[..., :n, :], gl[..., n:, :]
    phi = xp.tril(_mH(l1) @ gl1, -1) + xp.triu(gu @ _mH(up) - _mH(l2) @ gl2)
    t = _solve_triangular(xp, l1, phi, upper=False, left=True, unit=True, adjoint=True)
    ga = xp.concatenate([t, gl2], axis=-2)
    return p @ _solve_triangular(xp, up, ga, upper=True, left=False, adjoint=True)


defop("linalg_lu", _lu, grad=_lu_grad, kind="other", inplace=False, method=False)


# ---- eigenvalues of general matrices ---------------------------------------------------------
def _complex_of(dtype):
    return np.complex128 if dtype in (np.float64, np.complex128) else np.complex64


def _eig_values(xp, x):
    _square("eigvals", x)
    w = lapack("eig", xp.linalg.eigvals, x)
    return w.astype(_complex_of(x.dtype))


def _eig(xp, x):
    _square("eig", x)
    w, v = lapack("eig", xp.linalg.eig, x)
    c = _complex_of(x.dtype)
    return pack(xp, [w.astype(c), v.astype(c)], x.shape[:-2])


def _eig_grad(g, x, out, xp):
    """PyTorch's: with ``E_ij = w_j - w_i``, ``gA = V^-H (diag(gw) + (V^H gV - V^H V
    diag(Re(V^H gV))) / conj(E)) V^H``; the real part for a real ``A``."""
    n = x.shape[-1]
    gw, gv = unpack(g, eigh_shapes(n))
    w, v = unpack(out, eigh_shapes(n))
    vh = _mH(v)
    vhgv = vh @ gv
    inner = vhgv - vh @ (v * vhgv.diagonal(0, -2, -1).real[..., None, :])
    e = w[..., None, :] - w[..., :, None]
    idx = np.arange(n)
    e[..., idx, idx] = 1
    inner = inner / e.conj()
    inner[..., idx, idx] = gw
    ga = xp.linalg.solve(vh, inner @ vh)
    return ga.real if x.dtype.kind == "f" else ga


defop("linalg_eig", _eig, grad=_eig_grad, kind="other", inplace=False, method=False)


def _eig_values_grad(g, x, xp):
    """``gA = V^-H diag(gw) V^H``, real for a real ``A``."""
    w, v = xp.linalg.eig(x)
    vh = _mH(v)
    ga = xp.linalg.solve(vh, g[..., :, None] * vh)
    return ga.real if x.dtype.kind == "f" else ga


defop("linalg_eigvals", _eig_values, grad=_eig_values_grad, kind="other", inplace=False,
      method=False)


# ---- pseudo-inverse, matrix exponential ------------------------------------------------------
def _pinv(xp, x, rtol=None, hermitian=False):
    _matrices("pinv", x)
    if rtol is None:
        rtol = max(x.shape[-2:]) * np.finfo(x.dtype).eps if x.dtype.kind in "fc" else 1e-15
    return xp.linalg.pinv(x, rcond=rtol, hermitian=hermitian)


def _pinv_grad(g, x, out, xp, rtol=None, hermitian=False):
    """For constant rank: ``-P^H G P^H + (I - A P)^... `` (Golub and Pereyra), with ``P`` the
    pseudo-inverse and ``G`` its gradient."""
    p, ph, gh = out, _mH(out), _mH(g)
    m, n = x.shape[-2:]
    left = xp.eye(m, dtype=x.dtype) - x @ p       # I - A P (m x m)
    right = xp.eye(n, dtype=x.dtype) - p @ x      # I - P A (n x n)
    return -(ph @ g @ ph) + left @ gh @ p @ ph + ph @ p @ gh @ right


defop("linalg_pinv", _pinv, grad=_pinv_grad, kind="other", inplace=False, method=False)


def _expm(xp, x):
    _square("matrix_exp", x)
    if xp is np:
        import scipy.linalg
        return scipy.linalg.expm(x)
    import cupyx.scipy.linalg
    return cupyx.scipy.linalg.expm(x)


def _expm_grad(g, x, xp):
    """The upper-right block of ``exp([[A^H, G], [0, A^H]])`` (the Fréchet derivative)."""
    n = x.shape[-1]
    big = xp.zeros(np.broadcast_shapes(x.shape, g.shape)[:-2] + (2 * n, 2 * n),
                   xp.result_type(x, g))
    big[..., :n, :n] = _mH(x)
    big[..., n:, n:] = _mH(x)
    big[..., :n, n:] = g
    return _expm(xp, big)[..., :n, n:]


defop("matrix_exp", _expm, grad=_expm_grad, kind="other", inplace=False)


# ---- the public functions (mutograd.linalg) ----------------------------------------------
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

QRResult = namedtuple("QRResult", ["Q", "R"])

LUResult = namedtuple("LUResult", ["P", "L", "U"])

LUFactorResult = namedtuple("LUFactorResult", ["LU", "pivots"])

LUFactorExResult = namedtuple("LUFactorExResult", ["LU", "pivots", "info"])

LDLFactorResult = namedtuple("LDLFactorResult", ["LD", "pivots"])

LDLFactorExResult = namedtuple("LDLFactorExResult", ["LD", "pivots", "info"])

CholeskyExResult = namedtuple("CholeskyExResult", ["L", "info"])



def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric (Hermitian) matrices,
    reading the ``UPLO`` triangle.

        >>> import mutograd as mg
        >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
        [1.0, 3.0]
    """
    n = A.shape[-1]
    return EighResult(*run_packed("linalg_eigh", A, {"uplo": UPLO}, eigh_shapes(n)))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of ``eigh``."""
    return eigh(A, UPLO).eigenvalues


def eig(A):
    """Complex eigenvalues and eigenvectors (unit columns) of square matrices."""
    n = A.shape[-1]
    return EigResult(*run_packed("linalg_eig", A, {}, eigh_shapes(n)))


def eigvals(A):
    """The complex eigenvalues of square matrices."""
    return call(OPS["linalg_eigvals"], [A], {})


def svd(A, full_matrices=True, driver=None):
    """``U, S, Vh`` with ``A = U diag(S) Vh``, ``S`` descending (PyTorch's default
    ``full_matrices=True``; gradients need ``False`` unless ``A`` is square)."""
    m, n = A.shape[-2:]
    return SVDResult(*run_packed("linalg_svd", A, {"full_matrices": full_matrices},
                                      svd_shapes(m, n, full_matrices)))


def svdvals(A, driver=None):
    """The singular values, descending."""
    m, n = A.shape[-2:]
    return run_packed("linalg_svd", A, {"full_matrices": False},
                           svd_shapes(m, n, False))[1]


def qr(A, mode="reduced"):
    """``Q`` with orthonormal columns and upper-triangular ``R``, ``A = Q R``; ``mode``
    ``'reduced'``, ``'complete'`` or ``'r'`` (``Q`` empty)."""
    m, n = A.shape[-2:]
    return QRResult(*run_packed("linalg_qr", A, {"mode": mode},
                                     qr_shapes(m, n, mode)))


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
    _square("ldl_factor", a)
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
        vh = conj_transpose(v)
        q = q - tau[..., i, None, None] * (v @ (vh @ q))
    return q


def matrix_exp(A):
    """The matrix exponential ``sum A^k / k!``."""
    return call(OPS["matrix_exp"], [A], {})
