"""``torch.linalg`` (``mutograd.linalg``), and the functions composed from its ops with
PyTorch's signatures: ``matmul``, ``multi_dot``, ``diagonal``, ``vander``, ``solve_triangular``,
``tensorinv``, ``tensorsolve``, ``inv_ex``, ``solve_ex``, ``matrix_rank``.

    >>> import mutograd.compat.torch as torch
    >>> a = torch.tensor([[2., 0.], [1., 4.]])
    >>> torch.linalg.solve_triangular(a, torch.tensor([[2.], [9.]]), upper=False)
    tensor([[1.],
            [2.]])
"""
import collections
import functools
import math

import numpy as np

import mutograd as _mg

from ...linalg import (  # noqa: F401
                       cross,
                       det,
                       inv,
                       matrix_norm,
                       matrix_power,
                       norm,
                       slogdet,
                       solve,
                       vecdot,
                       vector_norm,
)
from ...ops.torch_functions import vander as _vander

matmul = _mg.matmul


class LinAlgError(RuntimeError):
    """A linear-algebra input the computation cannot handle (a singular matrix, ...)."""


_Ex = collections.namedtuple("result_info", ["result", "info"])
_InvEx = collections.namedtuple("inverse_info", ["inverse", "info"])


def multi_dot(tensors):
    """The product of the matrices in order (the first may be a row vector, the last a
    column vector, as with ``matmul``)."""
    if len(tensors) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got "
                           f"{len(tensors)}")
    return functools.reduce(_mg.matmul, tensors)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices (a view)."""
    return A.diagonal(offset, dim1, dim2)


def vander(x, *, N=None):
    """The Vandermonde matrices of ``x`` with increasing powers ``x^0 .. x^(N-1)``."""
    if x.ndim == 1:
        return _vander(x, N, increasing=True)
    n = x.shape[-1] if N is None else N
    return _mg.stack([x ** p if p else x * 0 + 1 for p in range(n)], -1)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``X`` with ``A @ X = B`` (``X @ A = B`` with ``left=False``), ``A`` read as upper or
    lower triangular (its other half ignored; its diagonal taken as ones if
    ``unitriangular``)."""
    T = A.triu() if upper else A.tril()
    if unitriangular:
        eye = _mg.eye(A.shape[-1], dtype=A.dtype)
        T = T * (1 - eye) + eye
    if left:
        return solve(T, B)
    return solve(T.transpose(-2, -1), B.transpose(-2, -1)).transpose(-2, -1)


def tensorinv(A, ind=2):
    """The inverse of ``A`` seen as a matrix from its first ``ind`` dimensions to the rest."""
    rows, cols = A.shape[:ind], A.shape[ind:]
    return inv(A.reshape(math.prod(rows), math.prod(cols))).reshape(*cols, *rows)


def tensorsolve(A, B, dims=None):
    """``X`` with ``tensordot(A, X, X.ndim) = B``."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in dims], *dims)
    xshape = A.shape[B.ndim:]
    return solve(A.reshape(B.numel(), math.prod(xshape)), B.reshape(-1)).reshape(*xshape)


def _info(A):
    return _mg.zeros(*A.shape[:-2], dtype="int32")


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``; info is 0 (a singular matrix raises)."""
    return _InvEx(inv(A), _info(A))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)``; info is 0 (a singular matrix raises)."""
    X = solve(A, B) if left else solve(A.transpose(-2, -1), B.transpose(-2, -1)).transpose(
        -2, -1)
    return _Ex(X, _info(A))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (default ``rtol``:
    eps * max(m, n)), as an int64 tensor (no gradient)."""
    a = A.detach().numpy()
    s = np.linalg.svd(a, compute_uv=False)
    top = s.max(axis=-1, initial=0.0) if s.size else np.zeros(a.shape[:-2])
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else np.finfo(a.dtype).eps * max(a.shape[-2:])
    tol = np.maximum(0.0 if atol is None else atol, rtol * top)
    return _mg.tensor((s > np.expand_dims(tol, -1)).sum(-1).astype(np.int64))
