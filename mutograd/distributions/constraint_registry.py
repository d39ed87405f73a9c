"""Transforms onto a constraint's set, looked up by constraint: ``biject_to(c)`` gives a
bijection from unconstrained space onto ``c`` (its log Jacobian is exact, for densities), and
``transform_to(c)`` a possibly non-bijective map onto it (for optimising a constrained parameter
through an unconstrained one). ``register(constraint, factory)`` adds a kind of constraint.

    >>> import mutograd as mg
    >>> from mutograd.distributions import biject_to, constraints
    >>> t = biject_to(constraints.interval(-1.0, 1.0))
    >>> t(mg.tensor(0.0)).item()
    0.0
    >>> round(t.inv(mg.tensor(0.5)).item(), 4)
    1.0986
"""
import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


def _kind(constraint):
    """What a registry entry is keyed by: a constraint class, or for the constraints made by
    one shared class (``positive``, ``interval(a, b)``, ``simplex`` ...) that class with the
    name it prints as."""
    if isinstance(constraint, type):
        return constraint
    name = getattr(constraint, "_name", None)
    return (type(constraint), name) if name is not None else type(constraint)


class ConstraintRegistry:
    """A table from kinds of constraints to functions ``factory(constraint) -> Transform``."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Add ``factory`` for constraints of ``constraint``'s kind (a Constraint subclass, or
        a constraint object standing for its kind); without ``factory``, a decorator.

            >>> from mutograd.distributions import constraints, transforms
            >>> from mutograd.distributions.constraint_registry import ConstraintRegistry
            >>> registry = ConstraintRegistry()
            >>> @registry.register(constraints.positive)
            ... def _to_positive(constraint):
            ...     return transforms.ExpTransform()
            >>> registry(constraints.greater_than(0.0))
            ExpTransform()
        """
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, type) and not issubclass(constraint, constraints.Constraint) \
                or not isinstance(constraint, (type, constraints.Constraint)):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[_kind(constraint)] = factory
        return factory

    def __call__(self, constraint):
        """The transform for ``constraint`` (NotImplementedError for an unregistered kind)."""
        factory = self._registry.get(_kind(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} "
                                      f"constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(*kinds):
    """Register the decorated factory for ``kinds`` in both registries."""
    def decorator(factory):
        for kind in kinds:
            biject_to.register(kind, factory)
            transform_to.register(kind, factory)
        return factory
    return decorator


@_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint):
    return transforms.IndependentTransform(biject_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint):
    return transforms.IndependentTransform(transform_to(constraint.base_constraint),
                                           constraint.reinterpreted_batch_ndims)


@_both(constraints.positive, constraints.nonnegative, constraints.greater_than(0.0),
       constraints.greater_than_eq(0.0))
def _to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_both(constraints.less_than(0.0))
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_both(constraints.interval(0.0, 1.0), constraints.half_open_interval(0.0, 1.0))
def _to_interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) and \
            low == 0 and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint):
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint):
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim,
                                   constraint.lengths)


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint):
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint):
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)
