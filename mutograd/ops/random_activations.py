"""Activations with a random factor: ``rrelu_with_noise``, the op behind ``rrelu(training=True)``
(mutograd/nn/functional/dropouts.py draws the noise on the input's place)."""
from .registry import defop


def _rrelu(xp, x, noise, out=None):
    return xp.multiply(x, xp.where(x >= 0, 1.0, noise).astype(x.dtype, copy=False), out=out)


# the slope is positive, so out >= 0 exactly where x >= 0: the output and the noise suffice
defop("rrelu_with_noise", _rrelu, method=False,
      grad=(lambda g, out, noise, xp: g * xp.where(out >= 0, 1.0, noise), None))
