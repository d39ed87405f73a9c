"""``torch.hub``: importable; loading a model from a repository or URL downloads and runs code,
which mutograd does not do, and raises an error that says what to do instead. The cache
directory functions work.

    >>> import mutograd.compat.torch as torch
    >>> torch.hub.set_dir("/tmp/hub"); torch.hub.get_dir()
    '/tmp/hub'
"""
import os

from ...errors import MutogradError
from ..namespace import refused_functions

_WHY = ("torch.hub downloads a repository's code and runs it; mutograd neither downloads nor "
        "runs such code. Build the model from torch.nn here and load its weights from a local "
        "file with torch.load() / model.load_state_dict()")
_dir = None


class HubError(MutogradError, RuntimeError):
    """Raised by the loading functions of ``torch.hub``."""


load, list, help, load_state_dict_from_url, download_url_to_file = refused_functions(
    "torch.hub", _WHY, HubError,
    ("load", "list", "help", "load_state_dict_from_url", "download_url_to_file"))


def get_dir():
    """The hub cache directory (``$TORCH_HOME/hub``, as PyTorch), or the one set by set_dir."""
    if _dir is not None:
        return _dir
    home = os.environ.get("TORCH_HOME", os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "torch"))
    return os.path.join(home, "hub")


def set_dir(d):
    """Set the hub cache directory."""
    global _dir
    _dir = os.path.expanduser(d)
