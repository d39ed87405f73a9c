"""What both dialects' tensor types share: gradients of the tensor's own type.

A gradient is computed as a main tensor; ``x.grad`` and the gradient a hook of ``x`` receives
are given as ``x``'s type, so a ``torch.Tensor``'s gradient prints and behaves as PyTorch's.
"""
from ..tensor import Tensor, adopt


class DialectTensor(Tensor):
    """The base of ``torch.Tensor`` and ``paddle.Tensor``."""

    __slots__ = ()

    @property
    def grad(self):
        return adopt(Tensor.grad.fget(self), self._result_class)

    @grad.setter
    def grad(self, value):
        Tensor.grad.fset(self, value)

    def register_hook(self, hook):
        """Call ``hook(grad)`` with this tensor's gradient (of this tensor's type) in backward; a
        tensor it returns replaces the gradient."""
        cls = self._result_class

        def typed(g):
            return hook(adopt(g, cls))
        typed.__qualname__ = getattr(hook, "__qualname__", type(hook).__qualname__)
        return Tensor.register_hook(self, typed)
