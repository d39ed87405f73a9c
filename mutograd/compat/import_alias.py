"""Running unmodified scripts: ``import torch`` / ``import paddle`` resolve to a compat namespace
(also the ``python -m mutograd run --as torch script.py [args]`` command, :func:`main`).

:func:`importing_as` puts the compat package and every one of its submodules into
``sys.modules`` under the framework's own names (``torch``, ``torch.nn``,
``torch.nn.functional``, ...) and on exit puts back whatever was there before (a real PyTorch
already imported in the same process included). What the script's tensors mean follows from
the namespace that made them (``torch.Tensor``, ``paddle.Tensor``), not from how it ran.

    >>> import mutograd.compat as compat
    >>> with compat.importing_as("paddle"):
    ...     import paddle
    ...     import paddle.nn.functional as F
    ...     print(paddle.__name__, F.__name__)
    mutograd.compat.paddle mutograd.compat.paddle.nn.functional
"""
import argparse
import contextlib
import importlib
import os
import pkgutil
import runpy
import sys

DIALECTS = ("torch", "paddle")


def _modules(name):
    """``{'torch': module, 'torch.nn': module, ...}`` for compat namespace ``name``."""
    root = importlib.import_module(f"{__package__}.{name}")
    mods = {name: root}
    for info in pkgutil.walk_packages(root.__path__, prefix=root.__name__ + "."):
        mods[name + info.name[len(root.__name__):]] = importlib.import_module(info.name)
    # and the submodules a package makes at import (torch.nn.modules.<file>)
    mods.update({name + k[len(root.__name__):]: m for k, m in list(sys.modules.items())
                 if m is not None and k.startswith(root.__name__ + ".")})
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


class _Alias:
    """``import <name>`` resolving to the compat namespace, from :meth:`enter` until
    :meth:`undo`.

    A plain object, not a generator: dropping the last reference to it (the function
    :func:`install` returns) or the interpreter's shutdown runs no code, so an installed alias
    stays for the whole process unless undone. A generator-based context manager would run its
    ``finally`` when collected, undoing the alias early or failing half-way through shutdown.
    """

    def __init__(self, name):
        if name not in DIALECTS:
            raise ValueError(f"unknown dialect {name!r}; expected one of {DIALECTS}")
        self.name = name
        self.active = False

    def enter(self):
        """Put the namespace and its submodules into ``sys.modules``; returns the namespace."""
        name = self.name
        mods = _modules(name)
        self.saved = {k: v for k, v in sys.modules.items() if _under(k, name)}
        for k in self.saved:
            del sys.modules[k]
        sys.modules.update(mods)
        self.refuser = _Refuser(name)
        sys.meta_path.insert(0, self.refuser)
        self.active = True
        return mods[name]

    def undo(self):
        """Put back whatever ``sys.modules`` held before; a second call does nothing."""
        if not self.active:
            return
        self.active = False
        if self.refuser in sys.meta_path:
            sys.meta_path.remove(self.refuser)
        for k in [k for k in sys.modules if _under(k, self.name)]:
            del sys.modules[k]
        sys.modules.update(self.saved)


def _under(module, name):
    return module == name or module.startswith(name + ".")


def install(name):
    """Make ``import <name>`` (``'torch'`` or ``'paddle'``) give the compat namespace from now on,
    for the whole process (whether or not the result is kept); returns a function that undoes
    it.

        >>> import mutograd.compat as compat
        >>> undo = compat.install("torch")
        >>> import torch.nn.functional as F
        >>> F.__name__
        'mutograd.compat.torch.nn.functional'
        >>> undo()
    """
    alias = _Alias(name)
    alias.enter()
    return alias.undo


def hint_on_missing_import(name):
    """Once the namespace ``name`` is imported, an uncaught ``No module named 'torch'`` (or
    ``'paddle'``) gets a note saying how to make such imports give it: ``import
    mutograd.compat.torch as torch`` names the namespace in one file only, so a later ``from
    torch.utils.data import DataLoader`` looks for the real package. Only the printing of an
    uncaught error changes; imports themselves, and probes such as ``find_spec``, are left
    alone."""
    previous = sys.excepthook
    if getattr(previous, "_mutograd_hint", None) == name:
        return

    def excepthook(kind, error, tb):
        if (isinstance(error, ModuleNotFoundError) and error.name
                and error.name.split(".")[0] == name and hasattr(error, "add_note")):
            error.add_note(
                f"mutograd: `import mutograd.compat.{name} as {name}` names mutograd's {name} "
                f"namespace in that file only. To make `import {name}` and `from {name}.x import "
                f"y` give it everywhere, call `mutograd.compat.install({name!r})` first, or run "
                f"the script with `python -m mutograd run --as {name} script.py`.")
        previous(kind, error, tb)
    excepthook._mutograd_hint = name
    sys.excepthook = excepthook


@contextlib.contextmanager
def importing_as(name):
    """Inside the block, ``import <name>`` (``'torch'`` or ``'paddle'``) gives the compat
    namespace."""
    alias = _Alias(name)
    try:
        yield alias.enter()
    finally:
        alias.undo()


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


def main(argv=None):
    """Parse ``--as FRAMEWORK script [args]`` and run the script as ``__main__``; returns 0."""
    parser = argparse.ArgumentParser(
        prog="python -m mutograd run",
        description="Run an unmodified PyTorch or Paddle script on mutograd.")
    parser.add_argument("--as", dest="framework", required=True,
                        choices=DIALECTS,
                        help="the framework the script imports")
    parser.add_argument("script", help="path of the script")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    ns = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if not os.path.isfile(ns.script):
        parser.error(f"no such script: {ns.script}")
    # the script's folder first on sys.path, as `python script.py` does (local imports work)
    sys.path.insert(0, os.path.dirname(os.path.abspath(ns.script)))
    try:
        run_script(ns.script, ns.framework, ns.args)
    finally:
        sys.path.pop(0)
    return 0
