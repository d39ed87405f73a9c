"""``torch.save`` / ``torch.load`` over mutograd's pickle-free checkpoints
(mutograd.serialization.checkpoint), with PyTorch's signatures: ``f`` is a path or a file object
(anything with ``write`` / ``read``, such as ``io.BytesIO`` or ``open(path, 'wb')``).

A whole ``nn.Module`` is refused, as every object that would need pickle: save its
``state_dict()`` and rebuild the model before ``load_state_dict``.

    >>> import io
    >>> import mutograd.compat.torch as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buf)
    >>> _ = buf.seek(0)
    >>> torch.load(buf)["w"]
    tensor([1., 1.])
"""
from ...serialization import checkpoint as _ckpt
from ...nn.module import Module as _Module


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` (tensors in nests of dicts/lists/tuples, numbers, strings) to ``f``."""
    if isinstance(obj, _Module):
        raise _ckpt.CheckpointError(
            f"torch.save() of a whole {type(obj).__name__} module is not supported: it would "
            f"pickle the model's code, and mutograd checkpoints never pickle. Save "
            f"model.state_dict() instead, and load it with model.load_state_dict(torch.load(f)) "
            f"into a model built by your code")
    _ckpt.save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         max_bytes=None, **pickle_load_args):
    """Read what :func:`save` wrote to ``f`` (a path or a readable file object), or PyTorch's
    own files; ``max_bytes`` as in :func:`mutograd.load`."""
    return _ckpt.load(f, map_location=map_location, max_bytes=max_bytes)
