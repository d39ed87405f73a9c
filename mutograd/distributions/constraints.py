"""Constraints: the set a parameter or a sample must lie in, and ``check(value)``, a bool tensor
over the value's batch (its last ``event_dim`` dimensions are reduced).

    >>> import mutograd as mg
    >>> from mutograd.distributions import constraints
    >>> constraints.positive.check(mg.tensor([1.0, -1.0])).tolist()
    [True, False]
    >>> constraints.simplex.check(mg.tensor([0.25, 0.75])).item()
    True
"""
import numpy as np

import mutograd as mg

__all__ = ["Constraint", "MixtureSameFamilyConstraint", "boolean", "cat",
           "corr_cholesky", "dependent", "dependent_property", "greater_than",
           "greater_than_eq", "half_open_interval", "independent", "integer_interval",
           "interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "multinomial", "nonnegative", "nonnegative_integer",
           "one_hot", "open_interval", "positive", "positive_definite",
           "positive_integer", "positive_semidefinite", "real", "real_vector",
           "simplex", "square", "stack", "symmetric", "unit_interval"]


class Constraint:
    """A set of values. ``is_discrete``: its values are integers; ``event_dim``: how many
    trailing dimensions make one value."""
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A placeholder for a set that depends on other parameters (``Uniform``'s support): it
    cannot be checked."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a placeholder that cannot be checked."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property of a distribution whose value is a constraint built from its parameters."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _Independent(Constraint):
    """``base`` with ``reinterpreted_batch_ndims`` more dimensions taken as one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        r = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if r.ndim < n:
            raise ValueError(f"Expected value.dim() >= {n + self.base_constraint.event_dim} but "
                             f"got {value.ndim}")
        return r.reshape(list(r.shape[:r.ndim - n]) + [-1]).all(-1) if n else r

    def __repr__(self):
        return f"Independent({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Elementwise(Constraint):
    """A set given by an element-wise test."""

    def __init__(self, test, name, is_discrete=False, **bounds):
        self._test, self._name, self.is_discrete = test, name, is_discrete
        self.__dict__.update(bounds)
        self._bounds = bounds

    def check(self, value):
        return self._test(value)

    def __repr__(self):
        args = ", ".join(f"{k}={v}" for k, v in self._bounds.items())
        return f"{self._name}({args})"


def _is_integer(v):
    return v == v.floor() if v.is_floating_point() else mg.ones_like(v, dtype=mg.bool)


def greater_than(lower_bound):
    return _Elementwise(lambda v: v > lower_bound, "GreaterThan", lower_bound=lower_bound)


def greater_than_eq(lower_bound):
    return _Elementwise(lambda v: v >= lower_bound, "GreaterThanEq", lower_bound=lower_bound)


def less_than(upper_bound):
    return _Elementwise(lambda v: v < upper_bound, "LessThan", upper_bound=upper_bound)


def interval(lower_bound, upper_bound):
    return _Elementwise(lambda v: (v >= lower_bound) & (v <= upper_bound), "Interval",
                        lower_bound=lower_bound, upper_bound=upper_bound)


def open_interval(lower_bound, upper_bound):
    return _Elementwise(lambda v: (v > lower_bound) & (v < upper_bound), "OpenInterval",
                        lower_bound=lower_bound, upper_bound=upper_bound)


def half_open_interval(lower_bound, upper_bound):
    return _Elementwise(lambda v: (v >= lower_bound) & (v < upper_bound), "HalfOpenInterval",
                        lower_bound=lower_bound, upper_bound=upper_bound)


def integer_interval(lower_bound, upper_bound):
    return _Elementwise(lambda v: _is_integer(v) & (v >= lower_bound) & (v <= upper_bound),
                        "IntegerInterval", is_discrete=True, lower_bound=lower_bound,
                        upper_bound=upper_bound)


def _integer_greater_than_eq(bound, name):
    return _Elementwise(lambda v: _is_integer(v) & (v >= bound), name, is_discrete=True)


class _EventConstraint(Constraint):
    """A set of vectors or matrices, tested on the last ``event_dim`` dimensions at once."""

    def __init__(self, test, name, event_dim, is_discrete=False):
        self._test, self._name = test, name
        self.event_dim, self.is_discrete = event_dim, is_discrete

    def check(self, value):
        return self._test(value)

    def __repr__(self):
        return f"{self._name}()"


def _simplex(v):
    return (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6)


def _one_hot(v):
    return ((v == 0) | (v == 1)).all(-1) & (v.sum(-1) == 1)


def _lower_triangular(v):
    return (v.tril() == v).reshape(list(v.shape[:-2]) + [-1]).all(-1)


def _lower_cholesky(v):
    diag = v.diagonal(dim1=-2, dim2=-1)
    return _lower_triangular(v) & (diag > 0).all(-1)


def _symmetric(v):
    square = v.shape[-1] == v.shape[-2]
    return mg.isclose(v, mg.swapaxes(v, -2, -1), atol=1e-6).reshape(
        list(v.shape[:-2]) + [-1]).all(-1) if square else mg.zeros(v.shape[:-2], dtype=mg.bool)


def _positive_definite(v):
    sym = _symmetric(v)
    if not bool(sym.all()):
        return sym
    return mg.amin(mg.linalg.eigvalsh(v), -1) > 0


def _positive_semidefinite(v):
    sym = _symmetric(v)
    if not bool(sym.all()):
        return sym
    return mg.amin(mg.linalg.eigvalsh(v), -1) >= 0


def _corr_cholesky(v):
    tol = float(np.finfo(v.dtype.np).eps) * v.shape[-1] * 10
    rows = mg.linalg.norm(v.detach(), dim=-1)
    return _lower_cholesky(v) & ((rows - 1).abs() <= tol).all(-1)


class _Cat(Constraint):
    """Pieces of ``dim`` (of sizes ``lengths``), each in its own constraint."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq, self.dim = list(cseq), dim
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        parts, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            parts.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return mg.cat(parts, self.dim)


class _Stack(Constraint):
    """Slices of ``dim``, each in its own constraint."""

    def __init__(self, cseq, dim=0):
        self.cseq, self.dim = list(cseq), dim

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        return mg.stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)],
                        self.dim)


class MixtureSameFamilyConstraint(Constraint):
    """The support of a mixture: the support of its components (``base_constraint``)."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        return self.base_constraint.check(value)

    def __repr__(self):
        return f"MixtureSameFamilyConstraint({self.base_constraint!r})"


def multinomial(upper_bound):
    """Vectors of non-negative integer counts adding up to at most ``upper_bound``."""
    return _EventConstraint(lambda v: _is_integer(v).all(-1) & (v >= 0).all(-1) &
                            (v.sum(-1) <= upper_bound), "Multinomial", 1, is_discrete=True)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _Independent
cat = _Cat
stack = _Stack
boolean = _Elementwise(lambda v: (v == 0) | (v == 1), "Boolean", is_discrete=True)
real = _Elementwise(lambda v: v == v, "Real")   # only NaN is outside
real_vector = _Independent(real, 1)
positive = _Elementwise(lambda v: v > 0, "GreaterThan", lower_bound=0.0)
nonnegative = _Elementwise(lambda v: v >= 0, "GreaterThanEq", lower_bound=0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer = _integer_greater_than_eq(0, "IntegerGreaterThan")
positive_integer = _integer_greater_than_eq(1, "IntegerGreaterThan")
simplex = _EventConstraint(_simplex, "Simplex", 1)
one_hot = _EventConstraint(_one_hot, "OneHot", 1, is_discrete=True)
lower_triangular = _EventConstraint(_lower_triangular, "LowerTriangular", 2)
lower_cholesky = _EventConstraint(_lower_cholesky, "LowerCholesky", 2)
corr_cholesky = _EventConstraint(_corr_cholesky, "CorrCholesky", 2)
square = _EventConstraint(lambda v: mg.full(v.shape[:-2], v.shape[-1] == v.shape[-2],
                                            dtype=mg.bool), "Square", 2)
symmetric = _EventConstraint(_symmetric, "Symmetric", 2)
positive_semidefinite = _EventConstraint(_positive_semidefinite, "PositiveSemidefinite", 2)
positive_definite = _EventConstraint(_positive_definite, "PositiveDefinite", 2)
