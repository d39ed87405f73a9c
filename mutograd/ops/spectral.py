"""Eigenvalue and singular value decompositions with gradients: ``eigh``/``eigvalsh``
(symmetric or Hermitian matrices), ``eig``/``eigvals`` (general square matrices), ``svd``/
``svdvals``; each decomposition one packed op (Note [Packed decompositions] in
linalg_shared.py), then its public functions in ``mutograd.linalg``.

    >>> import mutograd as mg
    >>> mg.linalg.eigvalsh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).tolist()
    [1.0, 3.0]
    >>> mg.linalg.svdvals(mg.tensor([[3.0, 0.0], [0.0, -4.0]])).tolist()
    [4.0, 3.0]
"""
import math
from collections import namedtuple

import numpy as np

from ..errors import MutogradError
from .linalg_shared import check_matrices, check_square, lapack, mH, pack, run_packed, unpack
from .registry import OPS, call, defop


# ---- eigh ------------------------------------------------------------------------------------
def eigh_shapes(n):
    return [(n,), (n, n)]


def _eigh(xp, x, uplo="L"):
    check_square("eigh", x)
    w, v = lapack("eigh", xp.linalg.eigh, x, uplo)
    return pack(xp, [w, v], x.shape[:-2])


def _eigh_grad(g, out, xp):
    n = out.shape[-1] and int(round((-1 + math.sqrt(1 + 4 * out.shape[-1])) / 2))
    gw, gv = unpack(g, eigh_shapes(n))
    w, v = unpack(out, eigh_shapes(n))
    w, gw = w.real, gw.real   # real eigenvalues, packed with complex vectors as complex numbers
    eye = xp.eye(n, dtype=bool)   # masks, not writes: the gradient is differentiated again
    e = xp.where(eye, 1, w[..., None, :] - w[..., :, None])
    vhgv = mH(v) @ gv
    inner = xp.where(eye, gw[..., :, None], (vhgv - mH(vhgv)) / 2 / e)
    return v @ inner @ mH(v)


defop("linalg_eigh", _eigh, grad=_eigh_grad, kind="other", inplace=False, method=False)


# ---- svd -------------------------------------------------------------------------------------
def svd_shapes(m, n, full):
    k = min(m, n)
    return [(m, m if full else k), (k,), (n if full else k, n)]


def _svd(xp, x, full_matrices=False):
    check_matrices("svd", x)
    u, s, vh = lapack("svd", xp.linalg.svd, x, full_matrices)
    return pack(xp, [u, s, vh], x.shape[:-2])


def _svd_grad(g, x_shape, out, xp, full_matrices=False):
    m, n = x_shape[-2:]
    k = min(m, n)
    gu, gs, gvh = unpack(g, svd_shapes(m, n, full_matrices))
    u, s, vh = unpack(out, svd_shapes(m, n, full_matrices))
    s, gs = s.real, gs.real   # real singular values, packed with complex vectors
    if full_matrices and m != n:
        if xp.any(gu[..., :, k:] != 0) or xp.any(gvh[..., k:, :] != 0):
            raise MutogradError(
                "linalg.svd: the gradient of U or Vh with full_matrices=True is not defined for "
                "a non-square matrix (it depends on an arbitrary basis); use "
                "full_matrices=False")
        u, gu, vh, gvh = u[..., :, :k], gu[..., :, :k], vh[..., :k, :], gvh[..., :k, :]
    v, gv = mH(vh), mH(gvh)
    grad = u @ (gs[..., :, None] * vh)      # the singular values' part
    eye = xp.eye(k, dtype=bool)
    s2 = xp.where(eye, 1, s[..., None, :] ** 2 - s[..., :, None] ** 2)      # s_j^2 - s_i^2
    f = xp.where(eye, 0, 1 / s2)
    uhgu = mH(u) @ gu
    vhgv = mH(v) @ gv
    j = f * (uhgu - mH(uhgu))
    kk = f * (vhgv - mH(vhgv))
    grad = grad + u @ (j * s[..., None, :] + s[..., :, None] * kk) @ vh
    if u.dtype.kind == "c":   # the common phase of each pair of singular vectors (Townsend)
        grad = grad + u @ ((1j * uhgu.diagonal(0, -2, -1).imag / s)[..., :, None] * vh)
    if m > k:   # U's columns beyond the range of A: (I - U U^H) gU S^-1 V^H
        proj = gu - u @ uhgu
        grad = grad + (proj / s[..., None, :]) @ vh
    if n > k:
        proj = gv - v @ vhgv
        grad = grad + u @ mH(proj / s[..., None, :])
    return grad


defop("linalg_svd", _svd, grad=_svd_grad, kind="other", inplace=False, method=False)


# ---- eigenvalues of general matrices ---------------------------------------------------------
def _complex_of(dtype):
    return np.complex128 if dtype in (np.float64, np.complex128) else np.complex64


def _eig_values(xp, x):
    check_square("eigvals", x)
    w = lapack("eig", xp.linalg.eigvals, x)
    return w.astype(_complex_of(x.dtype))


def _eig(xp, x):
    check_square("eig", x)
    w, v = lapack("eig", xp.linalg.eig, x)
    c = _complex_of(x.dtype)
    return pack(xp, [w.astype(c), v.astype(c)], x.shape[:-2])


def _eig_grad(g, x, out, xp):
    """PyTorch's: with ``E_ij = w_j - w_i``, ``gA = V^-H (diag(gw) + (V^H gV - V^H V
    diag(Re(V^H gV))) / conj(E)) V^H``; the real part for a real ``A``."""
    n = x.shape[-1]
    gw, gv = unpack(g, eigh_shapes(n))
    w, v = unpack(out, eigh_shapes(n))
    vh = mH(v)
    vhgv = vh @ gv
    inner = vhgv - vh @ (v * vhgv.diagonal(0, -2, -1).real[..., None, :])
    eye = xp.eye(n, dtype=bool)
    e = xp.where(eye, 1, w[..., None, :] - w[..., :, None])
    inner = xp.where(eye, gw[..., :, None], inner / e.conj())
    ga = xp.linalg.solve(vh, inner @ vh)
    return ga.real if x.dtype.kind == "f" else ga


defop("linalg_eig", _eig, grad=_eig_grad, kind="other", inplace=False, method=False)


def _eig_values_grad(g, x, xp):
    """``gA = V^-H diag(gw) V^H``, real for a real ``A``."""
    w, v = xp.linalg.eig(x)
    vh = mH(v)
    ga = xp.linalg.solve(vh, g[..., :, None] * vh)
    return ga.real if x.dtype.kind == "f" else ga


defop("linalg_eigvals", _eig_values, grad=_eig_values_grad, kind="other", inplace=False,
      method=False)

# ---- the public functions (mutograd.linalg) ----------------------------------------------
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])

def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric (Hermitian) matrices,
    reading the ``UPLO`` triangle.

        >>> import mutograd as mg
        >>> mg.linalg.eigh(mg.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
        [1.0, 3.0]
    """
    n = A.shape[-1]
    w, v = run_packed("linalg_eigh", A, {"uplo": UPLO}, eigh_shapes(n))
    return EighResult(w.real, v)   # real (packed as complex with complex eigenvectors)


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
    u, s, vh = run_packed("linalg_svd", A, {"full_matrices": full_matrices},
                          svd_shapes(m, n, full_matrices))
    return SVDResult(u, s.real, vh)   # real (packed as complex with complex vectors)


def svdvals(A, driver=None):
    """The singular values, descending."""
    m, n = A.shape[-2:]
    return run_packed("linalg_svd", A, {"full_matrices": False}, svd_shapes(m, n, False))[1].real
