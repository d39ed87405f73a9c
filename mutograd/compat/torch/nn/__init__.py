"""``torch.nn``: mutograd's modules, layers and losses under PyTorch's names.

    >>> import mutograd.compat.torch as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(inplace=True))
    >>> [n for n, _ in net.named_parameters()]
    ['0.weight', '0.bias']
"""
from .... import nn as _nn
from ..tensor import Parameter
from . import functional, init, parallel, utils  # noqa: F401


_CLASSES = {}


def _torch_class(cls):
    """mutograd.nn's module class ``cls`` as torch.nn offers it: a subclass of ``cls``, of
    :class:`Module` and of the torch.nn classes of ``cls``'s bases (``issubclass(LazyLinear,
    Linear)`` holds here as in PyTorch); other classes as they are."""
    if not isinstance(cls, type) or not issubclass(cls, _nn.Module):
        return cls
    if cls is _nn.Module:
        return Module
    made = _CLASSES.get(cls)
    if made is None:
        parents = [_torch_class(b) for b in cls.__bases__ if issubclass(b, _nn.Module)]
        attrs = {"__module__": __name__, "__qualname__": cls.__qualname__,
                 "__doc__": f"``torch.nn.{cls.__name__}``: :class:`mutograd.nn."
                            f"{cls.__name__}` with ``torch.Tensor`` parameters and buffers."}
        if isinstance(getattr(cls, "cls_to_become", None), type):   # a lazy module's target
            attrs["cls_to_become"] = _torch_class(cls.cls_to_become)
        made = _CLASSES[cls] = type(cls.__name__, (cls, *parents), attrs)
    return made


class Module(_nn.Module):
    """``torch.nn.Module``: a mutograd Module whose parameters and buffers are ``torch.Tensor``
    objects (a main-namespace Parameter, tensor or sub-module assigned to it becomes the torch
    namespace's)."""

    _parameter_class = Parameter
    _module_class = staticmethod(_torch_class)


# every module, layer and loss class of mutograd.nn (its functions are in torch.nn.utils and
# its submodules have PyTorch-dialect counterparts here)
globals().update({name: _torch_class(getattr(_nn, name)) for name in _nn.__all__
                  if isinstance(getattr(_nn, name), type)
                  and name not in ("StateDictError", "Module", "Parameter")})
factory_kwargs = _nn.factory_kwargs

# torch.nn.modules.<file>, made from the classes above
from . import modules  # noqa: E402, F401
