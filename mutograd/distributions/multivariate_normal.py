"""The multivariate normal distributions: MultivariateNormal, held as the lower Cholesky factor
of its covariance whichever of covariance, precision or factor it is given, and
LowRankMultivariateNormal, whose covariance is a low-rank term plus a diagonal.

    >>> import mutograd as mg
    >>> from mutograd.distributions import MultivariateNormal
    >>> d = MultivariateNormal(mg.zeros([2]), covariance_matrix=mg.eye(2))
    >>> round(d.log_prob(mg.zeros([2])).item(), 4)
    -1.8379
"""
import math

import mutograd as mg

from . import constraints
from .distribution import Distribution
from .utils import lazy_property, noise

__all__ = ["LowRankMultivariateNormal", "MultivariateNormal"]


def _half_log_det(scale_tril):
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """A normal distribution of vectors with mean ``loc`` and exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (a lower Cholesky factor)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name = ("covariance_matrix" if covariance_matrix is not None else
                "precision_matrix" if precision_matrix is not None else "scale_tril")
        matrix = given[0]
        if matrix.ndim < 2:
            raise ValueError(f"{name.replace('_matrix', ' matrix')} must be at least "
                             f"two-dimensional, with optional leading batch dimensions")
        batch = tuple(mg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1])))
        d = loc.shape[-1]
        self.__dict__[name] = matrix.expand(list(batch) + [d, d])
        self.loc = loc.expand(list(batch) + [d])
        super().__init__(batch, (d,), validate_args=validate_args)   # checks before factoring
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = mg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = mg.linalg.cholesky(mg.linalg.inv(precision_matrix))

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            list(self._batch_shape) + list(self._event_shape) * 2)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ mg.swapaxes(L, -2, -1)).expand(
            list(self._batch_shape) + list(self._event_shape) * 2)

    @lazy_property
    def precision_matrix(self):
        return mg.linalg.inv(self.covariance_matrix)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            list(self._batch_shape) + list(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = noise("standard_normal", shape, self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        L = self._unbroadcasted_scale_tril
        L = L.expand(list(diff.shape[:-1]) + list(L.shape[-2:]))
        white = mg.linalg.solve_triangular(L, diff.unsqueeze(-1), upper=False).squeeze(-1)
        d = self._event_shape[0]
        return -0.5 * (d * math.log(2 * math.pi) + white.pow(2).sum(-1)) - _half_log_det(L)

    def entropy(self):
        d = self._event_shape[0]
        h = 0.5 * d * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return h.expand(list(self._batch_shape)) if len(self._batch_shape) else h


class LowRankMultivariateNormal(Distribution):
    """A normal distribution of vectors with mean ``loc`` and covariance
    ``cov_factor @ cov_factor.T + diag(cov_diag)`` (``cov_factor`` n x r, r small): densities
    go through the r x r capacitance matrix ``I + W^T D^-1 W`` (Woodbury), never an n x n
    factorisation.

        >>> import mutograd as mg
        >>> from mutograd.distributions import LowRankMultivariateNormal
        >>> d = LowRankMultivariateNormal(mg.zeros([2]), mg.zeros([2, 1]), mg.ones([2]))
        >>> round(d.log_prob(mg.zeros([2])).item(), 4)
        -1.8379
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != (n,):
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {(n,)}")
        batch = tuple(mg.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                          tuple(cov_diag.shape[:-1])))
        r = cov_factor.shape[-1]
        self.loc = loc.expand(list(batch) + [n])
        self.cov_factor = cov_factor.expand(list(batch) + [n, r])
        self.cov_diag = cov_diag.expand(list(batch) + [n])
        super().__init__(batch, (n,), validate_args=validate_args)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k not in ("variance", "covariance_matrix", "scale_tril",
                                          "precision_matrix")})
        batch = list(batch_shape)
        new.loc = self.loc.expand(batch + list(self.loc.shape[-1:]))
        new.cov_factor = self.cov_factor.expand(batch + list(self.cov_factor.shape[-2:]))
        new.cov_diag = self.cov_diag.expand(batch + list(self.cov_diag.shape[-1:]))
        new._batch_shape = self._size_class(batch_shape)
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) +
                self._unbroadcasted_cov_diag).expand(list(self._batch_shape) +
                                                     list(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        cov = W @ mg.swapaxes(W, -2, -1) + mg.diag_embed(self._unbroadcasted_cov_diag)
        return cov.expand(list(self._batch_shape) + list(self._event_shape) * 2)

    @lazy_property
    def scale_tril(self):
        return mg.linalg.cholesky(self.covariance_matrix)

    @lazy_property
    def precision_matrix(self):
        # Woodbury: D^-1 - D^-1 W C^-1 W^T D^-1, with C = L_C L_C^T
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        Wt_Dinv = mg.swapaxes(W / D.unsqueeze(-1), -2, -1)
        A = mg.linalg.solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        prec = mg.diag_embed(D.reciprocal()) - mg.swapaxes(A, -2, -1) @ A
        return prec.expand(list(self._batch_shape) + list(self._event_shape) * 2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        r = self._unbroadcasted_cov_factor.shape[-1]
        eps_w = noise("standard_normal", list(shape[:-1]) + [r], self.loc)
        eps_d = noise("standard_normal", shape, self.loc)
        W = self._unbroadcasted_cov_factor
        return self.loc + (W @ eps_w.unsqueeze(-1)).squeeze(-1) + \
            self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det_covariance(self):
        """log det(W W^T + D) = 2 log det L_C + sum log D."""
        return 2 * _half_log_det(self._capacitance_tril) + \
            self._unbroadcasted_cov_diag.log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        W, D = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        # x^T (W W^T + D)^-1 x = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2
        Wt_Dinv_x = (mg.swapaxes(W, -2, -1) @ (diff / D).unsqueeze(-1))
        Lc = self._capacitance_tril
        Lc = Lc.expand(list(Wt_Dinv_x.shape[:-2]) + list(Lc.shape[-2:]))
        white = mg.linalg.solve_triangular(Lc, Wt_Dinv_x, upper=False).squeeze(-1)
        mahalanobis = (diff.pow(2) / D).sum(-1) - white.pow(2).sum(-1)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + mahalanobis + self._log_det_covariance())

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._log_det_covariance())
        return h.expand(list(self._batch_shape)) if len(self._batch_shape) else h


def _capacitance_tril(W, D):
    """The lower Cholesky factor of ``I + W^T D^-1 W``."""
    r = W.shape[-1]
    Wt_Dinv = mg.swapaxes(W / D.unsqueeze(-1), -2, -1)
    return mg.linalg.cholesky(Wt_Dinv @ W + mg.eye(r, dtype=W.dtype))
