"""Distributions of matrices: LKJCholesky (Cholesky factors of correlation matrices) and
Wishart (positive definite matrices, the covariance of normal samples).

    >>> import mutograd as mg
    >>> from mutograd.distributions import LKJCholesky
    >>> _ = mg.seed(0)
    >>> L = LKJCholesky(3, 2.0).sample()
    >>> [round(v, 6) for v in (L * L).sum(-1).tolist()]
    [1.0, 1.0, 1.0]
"""
import math
import numbers

import mutograd as mg

from . import constraints
from .distribution import Distribution
from .gamma import Beta, standard_gamma
from .utils import lazy_property, noise, tiny

__all__ = ["LKJCholesky", "Wishart"]


class LKJCholesky(Distribution):
    """The LKJ distribution of ``dim`` x ``dim`` correlation matrices of ``concentration``
    (eta), given as their lower Cholesky factors: density proportional to
    ``det(L L^T)^(eta - 1)``; eta = 1 is uniform over correlation matrices. ``sample`` uses the
    onion method (``sample_method='onion'``); there is no ``rsample``."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, sample_method="onion", validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        if sample_method not in ("onion", "cvine"):
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        self.dim = dim
        (self.concentration,) = self._params(concentration)
        self.sample_method = sample_method
        batch = () if isinstance(concentration, numbers.Number) else self.concentration.shape
        super().__init__(batch, (dim, dim), validate_args=validate_args)
        # the onion method: row i's squared off-diagonal length is Beta(i / 2, eta + (D - 2 -
        # (i - 1)) / 2) (row 0 has none)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = mg.cat([mg.zeros([1], dtype=self.concentration.dtype),
                         mg.arange(dim - 1, dtype=self.concentration.dtype)])
        c1 = offset + 0.5
        c0 = marginal.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(c1.expand(list(c0.shape)), c0, validate_args=False)

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.concentration = self.concentration.expand(list(batch_shape))
        new._beta = self._beta.expand(list(batch_shape) + [self.dim])
        new._batch_shape = self._size_class(batch_shape)
        return new

    def sample(self, sample_shape=()):
        with mg.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)   # ... x D x 1
            shape = list(self._extended_shape(sample_shape))
            u = noise("standard_normal", shape, self.concentration).tril(-1)
            # a random direction in each row's first i coordinates (row 0 stays empty)
            norm = mg.linalg.norm(u, dim=-1, keepdim=True)
            direction = u / mg.where(norm == 0, mg.ones_like(norm), norm)
            w = y.sqrt() * direction
            diag = (1 - w.pow(2).sum(-1)).clamp(min=tiny(w)).sqrt()
            return w + mg.diag_embed(diag)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        d = self.dim
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        # row i (1-based, i >= 2) contributes (D - i + 2 (eta - 1)) log L_ii
        order = 2 * (self.concentration - 1).unsqueeze(-1) + d - \
            mg.arange(2, d + 1, dtype=value.dtype)
        unnormalized = (order * diag.log()).sum(-1)
        alpha = self.concentration + 0.5 * (d - 1)
        log_normalizer = 0.5 * (d - 1) * math.log(math.pi) + \
            mg.mvlgamma(alpha - 0.5, d - 1) - (d - 1) * mg.lgamma(alpha)
        return unnormalized - log_normalizer


def _multivariate_digamma(x, p):
    """sum_{i=1..p} digamma(x - (i - 1) / 2)."""
    steps = mg.arange(p, dtype=x.dtype) * 0.5
    return mg.digamma(x.unsqueeze(-1) - steps).sum(-1)


class Wishart(Distribution):
    """The Wishart distribution of positive definite p x p matrices with ``df`` degrees of
    freedom (> p - 1) and scale matrix given as one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril``: the distribution of ``sum x x^T`` over ``df``
    normal vectors of that covariance. ``rsample`` uses the Bartlett decomposition; its
    gradient to ``df`` goes through the Gamma draws."""
    arg_constraints = {"covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky,
                       "df": constraints.greater_than(0)}
    support = constraints.positive_definite
    has_rsample = True

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name = ("covariance_matrix" if covariance_matrix is not None else
                "precision_matrix" if precision_matrix is not None else "scale_tril")
        matrix = given[0]
        if matrix.ndim < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        p = matrix.shape[-1]
        (df,) = self._params(df)
        df = df.astype(matrix.dtype)
        batch = tuple(mg.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape)))
        self.__dict__[name] = matrix.expand(list(batch) + [p, p])
        self.df = df.expand(list(batch))
        self.arg_constraints = dict(self.arg_constraints, df=constraints.greater_than(p - 1))
        super().__init__(batch, (p, p), validate_args=validate_args)
        if self._validate_args and not bool((self.df > p - 1).all()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = mg.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = mg.linalg.cholesky(mg.linalg.inv(precision_matrix))

    def expand(self, batch_shape, _instance=None):
        new = type(self).__new__(type(self))
        new.__dict__.update({k: v for k, v in self.__dict__.items()
                             if k not in ("covariance_matrix", "precision_matrix",
                                          "scale_tril")})
        new.df = self.df.expand(list(batch_shape))
        new._batch_shape = self._size_class(batch_shape)
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(list(self._batch_shape) +
                                                     list(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ mg.swapaxes(L, -2, -1)).expand(list(self._batch_shape) +
                                                   list(self._event_shape))

    @lazy_property
    def precision_matrix(self):
        return mg.linalg.inv(self.covariance_matrix)

    def _df_matrix(self):
        return self.df.reshape(list(self.df.shape) + [1, 1])

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        p = self._event_shape[-1]
        factor = self._df_matrix() - p - 1
        factor = mg.where(factor <= 0, mg.full_like(factor, math.nan), factor)
        return factor * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def rsample(self, sample_shape=()):
        p = self._event_shape[-1]
        shape = list(sample_shape) + list(self._batch_shape)
        # Bartlett: A lower triangular, A_ii^2 ~ chi2(df - i) (i from 0), A_ij ~ N(0, 1)
        dof = self.df.expand(shape).unsqueeze(-1) - mg.arange(p, dtype=self.df.dtype)
        chi2 = 2 * standard_gamma(0.5 * dof)
        normal = noise("standard_normal", shape + [p, p], self.df).tril(-1)
        A = normal + mg.diag_embed(chi2.sqrt())
        LA = self._unbroadcasted_scale_tril @ A
        return LA @ mg.swapaxes(LA, -2, -1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        half_log_det_scale = L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        log_det_value = 2 * mg.linalg.cholesky(value).diagonal(dim1=-2, dim2=-1).log().sum(-1)
        # tr(Sigma^-1 X) = |L^-1 chol(X)|_F^2
        chol_x = mg.linalg.cholesky(value)
        Lb = L.expand(list(chol_x.shape[:-2]) + [p, p])
        trace = mg.linalg.solve_triangular(Lb, chol_x, upper=False).pow(2).sum([-2, -1])
        return 0.5 * (nu - p - 1) * log_det_value - 0.5 * trace - \
            0.5 * nu * p * math.log(2) - nu * half_log_det_scale - mg.mvlgamma(0.5 * nu, p)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        half_log_det_scale = self._unbroadcasted_scale_tril.diagonal(
            dim1=-2, dim2=-1).log().sum(-1)
        return (p + 1) * half_log_det_scale + 0.5 * p * (p + 1) * math.log(2) + \
            mg.mvlgamma(0.5 * nu, p) - 0.5 * (nu - p - 1) * _multivariate_digamma(0.5 * nu, p) \
            + 0.5 * nu * p
