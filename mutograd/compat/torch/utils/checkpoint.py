"""``torch.utils.checkpoint``: activation checkpointing (``mutograd.autograd.recompute``)."""
from ....autograd.recompute import checkpoint, checkpoint_sequential  # noqa: F401
