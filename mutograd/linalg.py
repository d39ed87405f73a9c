"""``mutograd.linalg``: norms, inverse, determinants, solving, decompositions and powers of
matrices, with gradients (``torch.linalg``'s names). This module only names them: the ops and
functions are in ``mutograd/ops/``: ``linalg.py`` (inverses, determinants, solves, norms),
``matmul.py`` (products), ``factorizations.py`` (Cholesky, QR, LU, LDL) and ``spectral.py``
(eigenvalues, singular values).

    >>> import mutograd as mg
    >>> a = mg.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> mg.linalg.det(a).item(), mg.linalg.solve(a, mg.tensor([2.0, 2.0])).tolist()
    (8.0, [1.0, 0.5])
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0])).item()
    5.0
"""
from .errors import LinAlgError
from .ops import FUNCTIONS as _F
from .ops.factorizations import (CholeskyExResult, LDLFactorExResult,  # noqa: F401
                                 LDLFactorResult, LUFactorExResult, LUFactorResult, LUResult,
                                 QRResult, cholesky, cholesky_ex, householder_product,
                                 ldl_factor, ldl_factor_ex, lu, lu_factor, lu_factor_ex, qr)
from .ops.linalg import (InvExResult, LstsqResult, SolveExResult, cholesky_inverse,  # noqa: F401
                         cholesky_solve, cond, det, inv, inv_ex, ldl_solve, lstsq, lu_solve,
                         matrix_exp, matrix_norm, matrix_power, matrix_rank, norm, pinv, slogdet,
                         solve, solve_ex, solve_triangular, tensorinv, tensorsolve,
                         triangular_solve, vander, vector_norm)
from .ops.matmul import matmul, multi_dot, vecdot  # noqa: F401
from .ops.spectral import (EighResult, EigResult, SVDResult, eig, eigh, eigvals,  # noqa: F401
                           eigvalsh, svd, svdvals)

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eig",
           "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd",
           "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot", "vector_norm"]


def cross(a, b, dim=-1):
    """The cross product of 3-vectors along ``dim``."""
    return _F["cross"](a, b, dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``A.diagonal(offset, dim1, dim2)`` (a view), with the last two dimensions as default."""
    return A.diagonal(offset, dim1, dim2)


# ---- Tensor methods of the decompositions (PyTorch's and Paddle's names), each where no other
# declaration has that name (attached by the op generator, mutograd/ops/__init__.py) ---------
def _lu(self, pivot=True, get_infos=False):
    """``(LU, pivots)`` (and ``infos`` with ``get_infos``): ``lu_factor_ex``."""
    LU, pivots, info = lu_factor_ex(self, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def _qr(self, some=True, mode=None):
    return qr(self, mode if mode is not None else "reduced" if some else "complete")


METHODS = {
    "cholesky": lambda self, upper=False: cholesky(self, upper),
    "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse,
    "triangular_solve": triangular_solve,
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


for _name, _fn in METHODS.items():
    _fn.__name__ = _name
