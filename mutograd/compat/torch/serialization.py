"""``torch.save`` / ``torch.load`` over mutograd's checkpoints
(mutograd.serialization.checkpoint), with PyTorch's signatures: ``f`` is a path or a file object
(anything with ``write`` / ``read``, such as ``io.BytesIO`` or ``open(path, 'wb')``).

A whole object (an ``nn.Module``, an optimizer) is pickled, and loads only with
``torch.load(f, weights_only=False)``, as in PyTorch 2.6 and later; the default
``weights_only=True`` refuses it with an ``UnpicklingError`` ("Weights only load failed").

    >>> import io
    >>> import mutograd.compat.torch as torch
    >>> buf = io.BytesIO()
    >>> torch.save({"w": torch.ones(2)}, buf)
    >>> _ = buf.seek(0)
    >>> torch.load(buf)["w"]
    tensor([1., 1.])
"""
from ...serialization import checkpoint as _ckpt


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` to ``f``: a checkpoint of tensors in nests of dicts/lists/tuples, or
    else the whole object pickled (:func:`mutograd.save`). ``pickle_module`` and
    ``pickle_protocol`` are accepted and ignored."""
    _ckpt.save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         max_bytes=None, **pickle_load_args):
    """Read what :func:`save` wrote to ``f`` (a path or a readable file object), or PyTorch's
    own files; ``max_bytes`` and ``weights_only`` as in :func:`mutograd.load` (None is True,
    PyTorch's default since 2.6)."""
    return _ckpt.load(f, map_location=map_location, weights_only=weights_only is not False,
                      max_bytes=max_bytes)
