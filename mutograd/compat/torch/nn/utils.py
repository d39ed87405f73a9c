"""``torch.nn.utils``: gradient clipping in place."""
from ....nn.utils import clip_grad_norm_, clip_grad_value_  # noqa: F401
