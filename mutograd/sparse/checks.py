"""Checking sparse tensors: ``check_sparse_tensor_invariants`` (PyTorch's switch for validating
the indices given to a constructor, which here are always validated) and
``as_sparse_gradcheck`` (a gradient check of functions of sparse tensors, run on their values).

    >>> import mutograd.sparse as sparse
    >>> sparse.check_sparse_tensor_invariants.is_enabled()
    True
"""
import functools

from .tensor import SparseTensor


class check_sparse_tensor_invariants:
    """PyTorch's switch for checking the invariants of the indices a sparse constructor is
    given (within the size, CSR row pointers starting at 0, not decreasing, ending at nnz). In
    mutograd they are always checked: a check is one pass over the indices, and an unchecked
    out-of-range index would make every later product wrong. So :meth:`is_enabled` is always
    True, and the switch's forms (a context manager, a decorator, :meth:`enable` and
    :meth:`disable`) are accepted for PyTorch code that uses them; disabling leaves the checks
    on.

        >>> import mutograd.sparse as sparse
        >>> with sparse.check_sparse_tensor_invariants(enable=False):
        ...     sparse.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,))
        Traceback (most recent call last):
        ...
        mutograd.errors.SparseIndexError: size is inconsistent with indices: ...
    """

    def __init__(self, enable=True):
        self.requested = bool(enable)   # what the caller asked for; the checks stay on

    @staticmethod
    def is_enabled():
        """Whether constructors check the invariants: always True here."""
        return True

    @staticmethod
    def enable():
        """Check the invariants from now on (they always are)."""

    @staticmethod
    def disable():
        """Accepted for PyTorch code: the invariants are still checked (class docstring)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        """Use as a decorator: ``func`` run inside this context."""
        @functools.wraps(func)
        def checked(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return checked


def as_sparse_gradcheck(gradcheck):
    """``gradcheck`` (``torch.autograd.gradcheck`` or a ``functools.partial`` of it) extended to
    functions that take or return sparse tensors. Each sparse input is checked through its
    values (the only gradient a sparse tensor has here: at its stored entries, as with
    ``masked=True``), rebuilt in its pattern before ``func`` sees it; each sparse output is
    compared in its dense form. ``gradcheck`` itself sees dense tensors only.

        >>> import mutograd.compat.torch as torch
        >>> check = torch.sparse.as_sparse_gradcheck(torch.autograd.gradcheck)
        >>> s = torch.tensor([[0.0, 1.0], [2.0, 3.0]], dtype=torch.float64).to_sparse()
        >>> check(lambda s: torch.sparse.mm(s, s.to_dense()), s.requires_grad_())
        True
    """
    @functools.wraps(gradcheck)
    def gradcheck_with_sparse_support(func, inputs, **kwargs):
        single = not isinstance(inputs, (tuple, list))
        inputs = (inputs,) if single else tuple(inputs)
        patterns = {}
        flat = []
        for i, x in enumerate(inputs):
            if isinstance(x, SparseTensor):
                patterns[i] = x
                flat.append(x._vals.detach().requires_grad_(x.requires_grad))
            else:
                flat.append(x)

        def dense_func(*args):
            args = [patterns[i]._with_values(a) if i in patterns else a
                    for i, a in enumerate(args)]
            out = func(*args)
            if isinstance(out, SparseTensor):
                return out.to_dense()
            if isinstance(out, (tuple, list)):
                return type(out)(o.to_dense() if isinstance(o, SparseTensor) else o for o in out)
            return out
        return gradcheck(dense_func, tuple(flat), **kwargs)
    return gradcheck_with_sparse_support
