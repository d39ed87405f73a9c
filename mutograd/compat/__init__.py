"""Compatibility namespaces: ``mutograd.compat.torch`` and ``mutograd.compat.paddle``.

Each namespace offers one framework's names and signatures where the two frameworks clash
(``transpose(x, perm)`` vs ``transpose(x, dim0, dim1)``, ``split`` by sections vs by size,
``max`` with an axis returning values vs ``(values, indices)``, ...), and its own tensor type:
``torch.Tensor`` and ``paddle.Tensor`` are subclasses of :class:`mutograd.Tensor` whose methods
follow their framework where it clashes with the other. A namespace's functions make its
tensors, and an op's result keeps the type of its tensor inputs, so a tensor means the same
wherever it is used: in a function-local import, a helper module, a library or a thread.

    >>> import mutograd.compat.torch as torch
    >>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    >>> x
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    >>> x.max(1).indices.tolist()
    [1, 1]

:func:`importing_as` runs unmodified code: inside it ``import torch`` (or ``import paddle``)
resolves to the compat namespace; :func:`run_script` runs a script file that way.

The package's modules, by concern:

- ``import_alias.py``: ``import torch`` / ``import paddle`` resolving to a namespace, running
  scripts that way, and the ``python -m mutograd run`` command;
- ``namespace.py``: what a namespace starts from (the main namespace's names), how its
  functions give its own tensor type, and how it refuses a name it lacks;
- ``dialect_tensor.py``: what both tensor types share (gradients of the tensor's own type);
- ``sampling.py``, ``distributed_world.py``: what both dialects' random draws and
  ``distributed`` modules share;
- ``torch/``, ``paddle/``: the two namespaces, each with its tensor type in ``tensor.py``.
"""
from .import_alias import DIALECTS, importing_as, install, run_script

__all__ = ["DIALECTS", "importing_as", "install", "run_script"]
