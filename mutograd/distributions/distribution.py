"""The base of every distribution: shapes, argument and sample validation, ``sample`` from
``rsample``, ``expand``, and the moments defined from the others.

A distribution's ``batch_shape`` indexes independent distributions of one family, its
``event_shape`` is the shape of one draw; ``sample(sample_shape)`` has shape
``sample_shape + batch_shape + event_shape`` and ``log_prob`` reduces the event dimensions.

    >>> import mutograd as mg
    >>> from mutograd.distributions import Normal
    >>> d = Normal(mg.zeros([3]), 1.0)
    >>> list(d.sample([5]).shape), list(d.batch_shape), list(d.event_shape)
    ([5, 3], [3], [])
"""
import warnings

import mutograd as mg

from ..tensor import Size, Tensor
from . import constraints
from .utils import broadcast_all, lazy_property

__all__ = ["Distribution", "ExponentialFamily"]


class Distribution:
    """The abstract base of probability distributions (``torch.distributions.Distribution``).

    Subclasses define ``arg_constraints``, ``support``, ``log_prob`` and ``rsample`` or
    ``sample``; ``validate_args`` (default True) checks parameters at construction and values
    given to ``log_prob``/``cdf``, raising ValueError outside their constraints."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True
    _tensor_class = Tensor     # a dialect's subclass sets its tensor type (for number params)
    _size_class = Size         # ... and its Size
    arg_constraints = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        """Set whether distributions validate their arguments by default."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = self._size_class(batch_shape)
        self._event_shape = self._size_class(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    def _check_parameters(self):
        for param, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if param not in self.__dict__ and isinstance(getattr(type(self), param, None),
                                                         lazy_property):
                continue   # a derived parameter not asked for (logits given probs)
            value = getattr(self, param)
            if not isinstance(value, Tensor):   # a dialect's method of that name
                continue
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                    f"{constraint!r}, but found invalid values:\n{value}")

    def _params(self, *values):
        """The parameters ``values`` broadcast to one shape, as this dialect's tensors."""
        return broadcast_all(*values, cls=self._tensor_class)

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def expand(self, batch_shape, _instance=None):
        """This distribution with its parameters expanded (not copied) to ``batch_shape``.

            >>> import mutograd as mg
            >>> from mutograd.distributions import Normal
            >>> list(Normal(0.0, 1.0).expand([2, 3]).batch_shape)
            [2, 3]
        """
        batch_shape = self._size_class(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        nb = len(self._batch_shape)
        for key, value in self.__dict__.items():
            if isinstance(value, Tensor) and value.ndim >= nb and \
                    tuple(value.shape[:nb]) == tuple(self._batch_shape):
                value = value.expand(list(batch_shape) + list(value.shape[nb:]))
            elif isinstance(value, Distribution):   # a distribution it is built on
                extra = list(value.batch_shape[nb:])
                value = value.expand(list(batch_shape) + extra)
            new.__dict__[key] = value
        new._batch_shape = batch_shape
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                f"__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    # ---- draws -----------------------------------------------------------------------------

    def _extended_shape(self, sample_shape=()):
        return self._size_class(tuple(sample_shape) + tuple(self._batch_shape) +
                                tuple(self._event_shape))

    def sample(self, sample_shape=()):
        """Draw ``sample_shape`` samples, without gradient."""
        with mg.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """Draw ``sample_shape`` reparameterised samples: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample((n,))

    # ---- densities and moments -------------------------------------------------------------

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def perplexity(self):
        return mg.exp(self.entropy())

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def _validate_sample(self, value):
        """Check that ``value`` is a tensor whose shape broadcasts with this distribution's
        and whose values lie in its support (ValueError otherwise)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        n = len(self._event_shape)
        if n and tuple(value.shape[-n:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{tuple(value.shape)} vs {tuple(self._event_shape)}.")
        actual = tuple(value.shape)[:len(value.shape) - n]
        expected = tuple(self._batch_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{tuple(value.shape)} vs {tuple(self._extended_shape())}.")
        support = self.support
        if support is None or constraints.is_dependent(support):
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        args = []
        for k in self.arg_constraints:
            v = self.__dict__.get(k)
            if isinstance(v, Tensor):   # a value when it is one number, else its shape
                args.append(f"{k}: {v.item() if v.numel() == 1 else tuple(v.shape)}")
        return f"{type(self).__name__}({', '.join(args)})"


class ExponentialFamily(Distribution):
    """Distributions whose density is ``exp(<t(x), theta> - F(theta) + k(x))``: the entropy
    (and the KL divergence between two of one family) follows from the log normaliser ``F``
    by differentiation (Bregman divergence)."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy ``F(theta) - <theta, grad F(theta)> - E[k(x)]``, from autograd."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with mg.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = mg.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(list(self._batch_shape) + [-1]).sum(-1)
        return result
