"""Compatibility namespaces: ``mutograd.compat.torch`` and ``mutograd.compat.paddle``.

Each namespace offers one framework's names and signatures where the two frameworks clash
(``transpose(x, perm)`` vs ``transpose(x, dim0, dim1)``, ``split`` by sections vs by size,
``max`` with an axis returning values vs ``(values, indices)``, ...). Tensor is one class shared by
every namespace, so the few *methods* that clash consult the **dialect** (see ``dialect_scope.py``)
of the code calling them: a module that imports a compat namespace follows it (other modules are
not affected); :func:`set_dialect` and :func:`dialect` set it explicitly for one thread;
:func:`install`, :func:`importing_as` and :func:`run_script` for the program they run.

    >>> import mutograd.compat.torch as torch          # this module now follows PyTorch
    >>> x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    >>> x
    tensor([[1., 2.],
            [3., 4.]], requires_grad=True)
    >>> x.max(1).indices.tolist()
    [1, 1]

:func:`importing_as` runs unmodified code: inside it ``import torch`` (or ``import paddle``)
resolves to the compat namespace; :func:`run_script` runs a script file that way.

The package's modules, by concern:

- ``dialect_scope.py``: which dialect applies to the code calling now (:func:`get_dialect`);
- ``tensor_methods.py``: the Tensor methods that follow the dialect, and Paddle's own methods;
- ``import_alias.py``: ``import torch`` / ``import paddle`` resolving to a namespace, running
  scripts that way, and the ``python -m mutograd run`` command;
- ``namespace.py``: what a namespace starts from (the main namespace's names) and how it
  refuses a name it lacks;
- ``sampling.py``, ``distributed_world.py``: what both dialects' random draws and
  ``distributed`` modules share;
- ``torch/``, ``paddle/``: the two namespaces.
"""
from .dialect_scope import DIALECTS, dialect, get_dialect, set_dialect
from . import tensor_methods  # noqa: F401  (the clashing methods; Tensor.set_value, ...)
from .import_alias import importing_as, install, run_script

__all__ = ["DIALECTS", "dialect", "get_dialect", "importing_as", "install", "run_script",
           "set_dialect"]
