"""``paddle.incubate``: its ``autograd`` (functional derivatives)."""
from . import autograd  # noqa: F401
