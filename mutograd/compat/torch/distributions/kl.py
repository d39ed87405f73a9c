"""``torch.distributions.kl`` (``mutograd.distributions.kl``)."""
from ....distributions.kl import kl_divergence, register_kl  # noqa: F401

__all__ = ["kl_divergence", "register_kl"]
