"""``torch.nn``: for now its ``functional`` module (layers and losses come with ``mutograd.nn``)."""
from . import functional, parallel  # noqa: F401
