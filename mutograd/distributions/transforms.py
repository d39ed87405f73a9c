"""Invertible maps between spaces, with the log of the absolute Jacobian determinant: what a
:class:`TransformedDistribution` needs to move a density. Each transform names its ``domain``
and ``codomain`` (constraints) and ``event_dim`` (how many trailing dimensions one point has).

    >>> import mutograd as mg
    >>> from mutograd.distributions.transforms import AffineTransform, ExpTransform
    >>> t = ExpTransform()
    >>> round(t.inv(t(mg.tensor(0.5))).item(), 6)
    0.5
    >>> AffineTransform(1.0, 2.0)(mg.tensor(3.0)).item()
    7.0
"""
import math
import numbers

import numpy as np

import mutograd as mg

from . import constraints
from .utils import eps, tiny

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


def _sum_rightmost(value, dim):
    """``value`` summed over its last ``dim`` dimensions."""
    if dim == 0:
        return value
    return value.reshape(list(value.shape[:value.ndim - dim]) + [-1]).sum(-1)


def _same(a, b):
    """Whether two parameters (numbers or tensors) are equal everywhere."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((mg.as_tensor(a) == mg.as_tensor(b)).all())


class Transform:
    """An invertible (or, with ``bijective = False``, pseudo-invertible) map ``y = t(x)``.

    Subclasses define ``_call``, ``_inverse`` and ``log_abs_det_jacobian(x, y)``;
    ``cache_size=1`` keeps the last pair so ``t.inv(t(x))`` returns ``x`` itself."""
    bijective = False
    domain = constraints.real
    codomain = constraints.real
    sign = 1

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        self._cached = (None, None)

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform: ``t.inv(t(x)) == x``."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        raise NotImplementedError(f"{type(self).__name__}.with_cache is not implemented")

    def __call__(self, x):
        if self._cache_size and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        if self._cache_size:
            self._cached = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        if self._cache_size:
            self._cached = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform, sharing its cache."""

    def __init__(self, transform):
        super().__init__(transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__


class ComposeTransform(Transform):
    """The transforms ``parts`` applied in order (an empty list is the identity)."""

    def __init__(self, parts, cache_size=0):
        super().__init__(cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        domain = self.parts[0].domain
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        codomain = self.parts[-1].codomain
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part.inv(y)
        return y

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return mg.zeros_like(x)
        total, event_dim = 0.0, self.domain.event_dim
        for part in self.parts:
            y_part = part(x)
            total = total + _sum_rightmost(part.log_abs_det_jacobian(x, y_part),
                                           event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
            x = y_part
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """``y = exp(x)``."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive numbers."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size)
        self.exponent = exponent

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    __hash__ = object.__hash__

    @property
    def sign(self):
        return self.exponent.sign() if not isinstance(self.exponent, numbers.Number) else \
            (1 if self.exponent > 0 else -1)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, kept inside (0, 1)."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = 1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        y = mg.sigmoid(x)
        return y.clamp(min=tiny(y), max=1.0 - eps(y))

    def _inverse(self, y):
        y = y.clamp(min=tiny(y), max=1.0 - eps(y))
        return y.log() - mg.log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        return -mg.softplus(-x) - mg.softplus(x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return mg.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - mg.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not invertible: the inverse gives the non-negative root)."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, over ``event_dim`` trailing dimensions as one point."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    def __eq__(self, other):
        return isinstance(other, AffineTransform) and self.event_dim == other.event_dim and \
            _same(self.loc, other.loc) and _same(self.scale, other.scale)

    __hash__ = object.__hash__

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else \
            constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, numbers.Real):
            result = mg.full_like(x, math.log(abs(self.scale)))
        else:
            result = self.scale.abs().log().expand(list(mg.broadcast_shapes(
                tuple(self.scale.shape), tuple(x.shape))))
        return _sum_rightmost(result, self._event_dim)


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dimension (not invertible: the inverse gives the
    logs, one of the many preimages)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return mg.softmax(x, -1)

    def _inverse(self, y):
        return y.log()


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = 1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return mg.softplus(x)

    def _inverse(self, y):
        return y + mg.log(-mg.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -mg.softplus(-x)


class StickBreakingTransform(Transform):
    """A vector of length K to the K+1 simplex by breaking a stick: each coordinate takes the
    sigmoid share (offset so that zeros map to the centre) of what is left."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _offset_log(x):
        k = x.shape[-1]
        return mg.log(mg.arange(k, 0, -1, dtype=x.dtype))

    def _call(self, x):
        z = mg.sigmoid(x - self._offset_log(x))
        left = (1 - z).cumprod(-1)
        ones = mg.ones_like(z[..., :1])
        return mg.cat([z, ones], -1) * mg.cat([ones, left], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        rest = (1 - y_crop.cumsum(-1)).clamp(min=tiny(y))
        return y_crop.log() - rest.log() + self._offset_log(y_crop)

    def log_abs_det_jacobian(self, x, y):
        x = x - self._offset_log(x)
        return (-x - mg.softplus(-x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more trailing dimensions taken as
    one point: its log Jacobian is summed over them.

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> t.log_abs_det_jacobian(mg.zeros([2, 3]), mg.ones([2, 3])).shape
        [2]
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size)
        self.base_transform = base_transform
        self.reinterpreted_batch_ndims = int(reinterpreted_batch_ndims)

    def __eq__(self, other):
        return isinstance(other, IndependentTransform) and \
            self.base_transform == other.base_transform and \
            self.reinterpreted_batch_ndims == other.reinterpreted_batch_ndims

    __hash__ = object.__hash__

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ReshapeTransform(Transform):
    """The trailing ``in_shape`` of a tensor reshaped to ``out_shape`` (same number of
    elements); the Jacobian is a permutation, so its log determinant is 0.

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((4,), (2, 2))(mg.zeros([3, 4])).shape
        [3, 2, 2]
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        in_shape, out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(in_shape) != math.prod(out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size)
        self.in_shape, self.out_shape = in_shape, out_shape

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x):
        return x.reshape(list(x.shape[:x.ndim - len(self.in_shape)]) + list(self.out_shape))

    def _inverse(self, y):
        return y.reshape(list(y.shape[:y.ndim - len(self.out_shape)]) + list(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return mg.zeros(list(x.shape[:x.ndim - len(self.in_shape)]), dtype=x.dtype)

    @staticmethod
    def _swap_tail(shape, old, new):
        shape = tuple(shape)
        if len(shape) < len(old) or shape[len(shape) - len(old):] != old:
            raise ValueError(f"Shape mismatch: expected {shape[len(shape) - len(old):]} but "
                             f"got {old}")
        return shape[:len(shape) - len(old)] + new

    def forward_shape(self, shape):
        return self._swap_tail(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap_tail(shape, self.out_shape, self.in_shape)


def _positive_dim(dim, ndim):
    return dim + ndim if dim < 0 else dim


class CatTransform(Transform):
    """Each transform of ``tseq`` applied to its piece (of size ``lengths[i]``, default 1) of
    dimension ``dim``, the results concatenated back.

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import CatTransform, ExpTransform
        >>> t = CatTransform([ExpTransform(), identity_transform], 0, [1, 1])
        >>> t(mg.zeros([2])).tolist()
        [1.0, 0.0]
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("lengths and tseq must have the same number of entries")
        self.dim = dim

    def __eq__(self, other):
        return isinstance(other, CatTransform) and self.transforms == other.transforms and \
            self.dim == other.dim and self.lengths == other.lengths

    __hash__ = object.__hash__

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _pieces(self, x):
        if x.shape[self.dim] != self.length:
            raise ValueError(f"expected size {self.length} along dim {self.dim}, got "
                             f"{x.shape[self.dim]}")
        start = 0
        for t, n in zip(self.transforms, self.lengths):
            yield t, x.narrow(self.dim, start, n)
            start += n

    def _call(self, x):
        return mg.cat([t(piece) for t, piece in self._pieces(x)], self.dim)

    def _inverse(self, y):
        return mg.cat([t.inv(piece) for t, piece in self._pieces(y)], self.dim)

    def log_abs_det_jacobian(self, x, y):
        event_dim = self.event_dim
        parts = []
        for (t, xp), (_, yp) in zip(self._pieces(x), self._pieces(y)):
            parts.append(_sum_rightmost(t.log_abs_det_jacobian(xp, yp), event_dim - t.event_dim))
        # the pieces lie along a batch dimension: their Jacobians sit side by side there;
        # along an event dimension they add up
        dim = _positive_dim(self.dim, x.ndim) - x.ndim + event_dim
        return mg.cat(parts, dim) if dim < 0 else sum(parts)


class StackTransform(Transform):
    """Each transform of ``tseq`` applied to its slice ``i`` of dimension ``dim``, the results
    stacked back.

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import ExpTransform, StackTransform
        >>> StackTransform([ExpTransform(), identity_transform], 1)(mg.zeros([3, 2])).shape
        [3, 2]
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def __eq__(self, other):
        return isinstance(other, StackTransform) and self.transforms == other.transforms and \
            self.dim == other.dim

    __hash__ = object.__hash__

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _slices(self, x):
        if x.shape[self.dim] != len(self.transforms):
            raise ValueError(f"expected size {len(self.transforms)} along dim {self.dim}, got "
                             f"{x.shape[self.dim]}")
        return [x.select(self.dim, i) for i in range(len(self.transforms))]

    def _call(self, x):
        return mg.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], self.dim)

    def _inverse(self, y):
        return mg.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return mg.stack([t.log_abs_det_jacobian(a, b) for t, a, b in
                         zip(self.transforms, self._slices(x), self._slices(y))], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``, onto the unit interval; the inverse is its ``icdf`` and the
    log Jacobian its ``log_prob``.

        >>> import mutograd as mg
        >>> from mutograd.distributions import Normal
        >>> from mutograd.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Normal(0.0, 1.0))(mg.tensor(0.0)).item()
        0.5
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)


def _diag_part(x):
    return x.diagonal(dim1=-2, dim2=-1)


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower Cholesky factor: its strict lower triangle kept and its
    diagonal exponentiated (the upper triangle is dropped, so it is not a bijection).

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import LowerCholeskyTransform
        >>> LowerCholeskyTransform()(mg.zeros([2, 2])).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + mg.diag_embed(_diag_part(x).exp())

    def _inverse(self, y):
        return y.tril(-1) + mg.diag_embed(_diag_part(y).log())


class PositiveDefiniteTransform(Transform):
    """A square matrix to a positive definite one ``L L^T``, ``L`` its
    :class:`LowerCholeskyTransform` (the upper triangle is dropped: not a bijection).

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import PositiveDefiniteTransform
        >>> PositiveDefiniteTransform()(mg.zeros([2, 2])).tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ mg.swapaxes(L, -2, -1)

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(mg.linalg.cholesky(y))


def _tril_positions(n, offset):
    """The (rows, cols) of the lower triangle of an n x n matrix below diagonal ``offset``, row
    by row."""
    rows, cols = mg.tril_indices(n, n, offset).numpy()
    return rows, cols


def _vector_to_tril(vec, n, offset):
    """The entries of ``vec`` (last dimension) laid row by row into the lower triangle below
    ``offset`` of an n x n matrix, zeros elsewhere."""
    rows, cols = _tril_positions(n, offset)
    index = np.full((n, n), len(rows))
    index[rows, cols] = np.arange(len(rows))
    padded = mg.cat([vec, mg.zeros_like(vec[..., :1])], -1)
    return padded[..., mg.tensor(index.reshape(-1))].reshape(list(vec.shape[:-1]) + [n, n])


def _tril_to_vector(mat, offset):
    n = mat.shape[-1]
    rows, cols = _tril_positions(n, offset)
    return mat.reshape(list(mat.shape[:-2]) + [n * n])[..., mg.tensor(rows * n + cols)]


class CorrCholeskyTransform(Transform):
    """A vector of length D(D-1)/2 to the lower Cholesky factor of a D x D correlation matrix:
    each entry goes through tanh to a partial correlation in (-1, 1), laid row by row below the
    diagonal; each row then takes, in turn, that share of the squared length still left to it,
    so every row has unit length.

        >>> import mutograd as mg
        >>> from mutograd.distributions.transforms import CorrCholeskyTransform
        >>> L = CorrCholeskyTransform()(mg.tensor([0.3, -0.2, 0.5]))
        >>> [round(v, 6) for v in (L * L).sum(-1).tolist()]
        [1.0, 1.0, 1.0]
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        e = eps(x)
        z = x.tanh().clamp(min=-1 + e, max=1 - e)
        n = self.forward_shape(tuple(x.shape))[-1]
        r = _vector_to_tril(z, n, -1)
        # row i, column j keeps r_ij of what the earlier columns left: prod_{k<j} sqrt(1 - r_ik^2)
        left = (1 - r.pow(2)).sqrt().cumprod(-1)
        left = mg.cat([mg.ones_like(left[..., :1]), left[..., :-1]], -1)
        return (r + mg.eye(n, dtype=x.dtype)) * left

    def _inverse(self, y):
        # what the earlier columns of each row left over: 1 - sum_{k<j} y_ik^2
        used = (y * y).cumsum(-1)
        left = 1 - mg.cat([mg.zeros_like(used[..., :1]), used[..., :-1]], -1)
        r = _tril_to_vector(y, -1) / _tril_to_vector(left, -1).sqrt()
        return mg.atanh(r.clamp(min=-1 + eps(y), max=1 - eps(y)))

    def log_abs_det_jacobian(self, x, y):
        # tanh: log(1 - tanh^2), stable; the row scaling: 0.5 sum log(1 - sum_{k<j} y_ik^2)
        tanh_part = 2.0 * (math.log(2.0) - x - mg.softplus(-2.0 * x))
        left = 1 - (y * y).cumsum(-1)
        return tanh_part.sum(-1) + 0.5 * _tril_to_vector(left, -2).log().sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        m = shape[-1]
        n = round((0.25 + 2 * m) ** 0.5 + 0.5)
        if n * (n - 1) // 2 != m:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return tuple(shape[:-1]) + (n, n)

    def inverse_shape(self, shape):
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise ValueError("Input is not square")
        n = shape[-1]
        return tuple(shape[:-2]) + (n * (n - 1) // 2,)
