"""``torch.nn``: for now its ``functional`` module (layers and losses come with ``mutograd.nn``)."""
from . import functional  # noqa: F401
