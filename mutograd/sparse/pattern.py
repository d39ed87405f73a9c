"""Where a sparse matrix's values sit, and the backend's sparse matrix built on it.

A :class:`Pattern` is the fixed part of a 2-D sparse matrix: its shape and its index arrays, COO
(``rows``, ``cols``) or CSR (``crow``, ``cols``), backend arrays on the values' place. It never
changes (a sparse tensor's indices are not written in place), so an op can take it as an
attribute and its gradient can use it without saving or version-checking anything. The values
are the op's tensor input: :meth:`Pattern.matrix` pairs the two into SciPy's sparse array on the
CPU and CuPy's (``cupyx.scipy.sparse``) on a GPU, whose product with a dense array is the
library's own kernel.

    >>> import numpy as np
    >>> p = Pattern(np, (2, 3), rows=np.array([0, 1]), cols=np.array([2, 0]))
    >>> (p.matrix(np, np.array([1.0, 2.0])) @ np.ones((3, 1))).ravel().tolist()
    [1.0, 2.0]
"""
import numpy as np


def backend_module(xp):
    """``scipy.sparse`` for NumPy arrays, ``cupyx.scipy.sparse`` for CuPy's."""
    if xp is np:
        import scipy.sparse
        return scipy.sparse
    import cupyx.scipy.sparse
    return cupyx.scipy.sparse


class Pattern:
    """The shape and index arrays of a 2-D sparse matrix (COO when ``crow`` is None, else CSR)."""

    __slots__ = ("xp", "shape", "_rows", "cols", "crow")

    def __init__(self, xp, shape, rows=None, cols=None, crow=None):
        self.xp, self.shape, self._rows, self.cols, self.crow = xp, tuple(shape), rows, cols, crow

    @property
    def rows(self):
        """The row of each stored value (for CSR, expanded from ``crow`` once)."""
        if self._rows is None:
            xp = self.xp
            self._rows = xp.repeat(xp.arange(self.shape[0], dtype=np.int64), xp.diff(self.crow))
        return self._rows

    def matrix(self, xp, values):
        """The backend's sparse matrix of ``values`` (one per stored entry, in this order)."""
        sp = backend_module(xp)
        if xp is np:
            if self.crow is not None:
                return sp.csr_array((values, self.cols, self.crow), shape=self.shape)
            return sp.coo_array((values, (self.rows, self.cols)), shape=self.shape)
        if self.crow is not None:
            return sp.csr_matrix((values, self.cols, self.crow), shape=self.shape)
        return sp.coo_matrix((values, (self.rows, self.cols)), shape=self.shape)

    def t(self):
        """The transposed matrix's pattern, its values in the same order (so COO)."""
        return Pattern(self.xp, self.shape[::-1], rows=self.cols, cols=self.rows)

    def __repr__(self):
        kind = "CSR" if self.crow is not None else "COO"
        return f"Pattern({kind}, shape={self.shape}, nnz={len(self.cols)})"
