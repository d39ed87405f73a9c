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
from .... import optim as _optim
from ....optim import LBFGS, SGD, Adadelta, Adagrad, Optimizer, RMSprop  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401


def _implementation(name, foreach, capturable, differentiable, fused):
    """PyTorch's implementation switches: ``foreach``/``fused`` choose how the same update is
    computed (ours is one in-place update per parameter either way); the other two change what
    the step is, and are refused."""
    if capturable:
        raise ValueError(f"{name}: capturable=True (CUDA graph capture) is not supported")
    if differentiable:
        raise ValueError(f"{name}: differentiable=True (autograd through step()) is not "
                         f"supported")


class Adam(_optim.Adam):
    """Adam with PyTorch's signature (``inspect.signature`` shows ``foreach``, ``fused``...)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _implementation("Adam", foreach, capturable, differentiable, fused)
        if decoupled_weight_decay:
            self.decoupled = True
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)


class AdamW(_optim.AdamW):
    """AdamW with PyTorch's signature; param-group dicts may set their own ``weight_decay``.

        >>> import inspect
        >>> import mutograd.compat.torch as torch
        >>> "fused" in inspect.signature(torch.optim.AdamW).parameters
        True
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        _implementation("AdamW", foreach, capturable, differentiable, fused)
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize)


def _with_switches(base):
    """``base`` with PyTorch's implementation switches (``foreach``, ``capturable``,
    ``differentiable``, and ``fused`` where PyTorch has it) as keyword-only arguments, checked by
    :func:`_implementation`; ``inspect.signature`` shows them."""
    import inspect
    switches = ("foreach", "capturable", "differentiable", "fused")

    def __init__(self, *args, **kw):
        given = {k: kw.pop(k, None) for k in switches}
        _implementation(base.__name__, given["foreach"], given["capturable"],
                        given["differentiable"], given["fused"])
        base.__init__(self, *args, **kw)

    sig = inspect.signature(base.__init__)
    params = [p for p in sig.parameters.values() if p.name != "inplace"]
    params += [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY,
                                 default=k in ("capturable", "differentiable") and False or None)
               for k in switches]
    __init__.__signature__ = sig.replace(parameters=params)
    return type(base.__name__, (base,), {"__init__": __init__, "__doc__": base.__doc__,
                                         "__module__": __name__})


Adamax, NAdam, RAdam, ASGD, Rprop, Adafactor = (
    _with_switches(c) for c in (_optim.Adamax, _optim.NAdam, _optim.RAdam, _optim.ASGD,
                                _optim.Rprop, _optim.Adafactor))
Muon = _optim.Muon
