"""Running unmodified scripts: ``import torch`` / ``import paddle`` resolve to a compat namespace.

:func:`importing_as` puts the compat package and every one of its submodules into
``sys.modules`` under the framework's own names (``torch``, ``torch.nn``,
``torch.nn.functional``, ...), sets the dialect, and on exit puts back whatever was there before
(a real PyTorch already imported in the same process included).

    >>> import mutograd.compat as compat
    >>> with compat.importing_as("paddle"):
    ...     import paddle
    ...     import paddle.nn.functional as F
    ...     print(paddle.__name__, F.__name__)
    mutograd.compat.paddle mutograd.compat.paddle.nn.functional
"""
import contextlib
import importlib
import pkgutil
import runpy
import sys


def _modules(name):
    """``{'torch': module, 'torch.nn': module, ...}`` for compat namespace ``name``."""
    root = importlib.import_module(f"{__package__}.{name}")
    mods = {name: root}
    for info in pkgutil.walk_packages(root.__path__, prefix=root.__name__ + "."):
        mods[name + info.name[len(root.__name__):]] = importlib.import_module(info.name)
    return mods


class _Refuser:
    """A meta-path finder: ``import torch.xyz`` for a submodule the namespace lacks fails with a
    message naming it (instead of finding nothing, or a real package's file)."""

    def __init__(self, name):
        self.name = name

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(self.name + "."):
            raise ModuleNotFoundError(
                f"mutograd.compat.{fullname} does not exist ({fullname} is not supported yet)",
                name=fullname)
        return None


def install(name):
    """Make ``import <name>`` (``'torch'`` or ``'paddle'``) give the compat namespace from now on,
    for the whole process; returns a function that undoes it.

        >>> import mutograd.compat as compat
        >>> undo = compat.install("torch")
        >>> import torch.nn.functional as F
        >>> F.__name__
        'mutograd.compat.torch.nn.functional'
        >>> undo()
    """
    ctx = importing_as(name)
    ctx.__enter__()

    def undo():
        ctx.__exit__(None, None, None)
    return undo


@contextlib.contextmanager
def importing_as(name):
    """Inside the block, ``import <name>`` (``'torch'`` or ``'paddle'``) gives the compat namespace
    and the dialect is ``name``."""
    from .dialect import DIALECTS, get_dialect, set_dialect
    if name not in DIALECTS:
        raise ValueError(f"unknown dialect {name!r}; expected one of {DIALECTS}")
    prev = get_dialect()        # before the first import of the namespace sets it
    mods = _modules(name)
    saved = {k: v for k, v in sys.modules.items() if k == name or k.startswith(name + ".")}
    for k in saved:
        del sys.modules[k]
    sys.modules.update(mods)
    refuser = _Refuser(name)
    sys.meta_path.insert(0, refuser)
    set_dialect(name)
    try:
        yield mods[name]
    finally:
        sys.meta_path.remove(refuser)
        set_dialect(prev)
        for k in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[k]
        sys.modules.update(saved)


def run_script(path, framework, argv=()):
    """Run the script at ``path`` as ``__main__`` with ``import <framework>`` resolving to the
    compat namespace (what ``python -m mutograd run --as torch script.py`` does); returns the
    script's globals.

    Example::

        >>> import mutograd.compat as compat
        >>> g = compat.run_script("train.py", "torch")       # doctest: +SKIP
    """
    old_argv = sys.argv
    sys.argv = [str(path), *argv]
    try:
        with importing_as(framework):
            return runpy.run_path(str(path), run_name="__main__")
    finally:
        sys.argv = old_argv
