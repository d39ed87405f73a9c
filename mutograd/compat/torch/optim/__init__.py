"""``torch.optim``: in-place optimizers and ``lr_scheduler`` (``mutograd.optim``).

    >>> import mutograd.compat.torch as torch
    >>> w = torch.nn.Parameter(torch.ones(2))
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0., 0.], requires_grad=True)
"""
from ....optim import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop  # noqa: F401
from . import lr_scheduler  # noqa: F401
