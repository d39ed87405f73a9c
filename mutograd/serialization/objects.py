"""Whole-object checkpoints: ``mutograd.save(model, path)`` pickles what is not a tree of
tensors and values (a Module, an optimizer, any picklable object), and
``mutograd.load(path, weights_only=False)`` unpickles it (PyTorch's contract since 2.6).

A whole-object file is a plain pickle (protocol 4) whose tensors pickle as
Note [Pickled tensors] in mutograd/pickling.py says. The default ``weights_only=True`` reads it
with the weights reader (mutograd/serialization/unpickler.py), which meets the first class of
the object and refuses with a :class:`~mutograd.errors.WeightsOnlyError` that says how to load it
when trusted; only ``weights_only=False`` runs ``pickle``, since unpickling a file can run any
code the file names. As in PyTorch 2.13, loading with ``weights_only=False`` warns nothing.

    >>> import mutograd as mg, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "net.pt")
    >>> mg.save(mg.nn.Linear(3, 2), path)
    >>> mg.load(path, weights_only=False)
    Linear(in_features=3, out_features=2, bias=True)
"""
import io
import pickle

from .. import places
from ..pickling import rebuild_tensor

PROTOCOL = 4
# added to the refusal of a whole-object pickle loaded with weights_only=True (PyTorch's words)
TRUST_HINT = ("Weights only load failed. This file can still be loaded, do it only if you "
              "trust the source of the checkpoint: re-running `load` with `weights_only` set "
              "to `False` will likely succeed, but it can result in arbitrary code execution. "
              "Do it only if you got the file from a trusted source.")


def dumps(obj):
    """The bytes of a whole-object file holding ``obj``; a TypeError when it cannot be
    pickled (a lambda, an open file)."""
    try:
        return pickle.dumps(obj, protocol=PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise TypeError(f"mutograd.save could not pickle the {type(obj).__name__} as a whole "
                        f"object: {e}") from e


def loads(data, map_location=None):
    """The object in the whole-object file ``data``, its tensors placed as ``map_location``
    says (as :func:`mutograd.load`). Runs what the file names: trusted files only."""
    return _Unpickler(io.BytesIO(data), map_location).load()


class _Unpickler(pickle.Unpickler):
    """pickle's own unpickler, with the tensors it rebuilds moved where ``map_location`` says."""

    def __init__(self, file, map_location):
        super().__init__(file)
        self.map_location = map_location

    def find_class(self, module, name):
        if (module, name) == ("mutograd.pickling", "rebuild_tensor") and \
                self.map_location is not None:
            return self._rebuild_placed
        return super().find_class(module, name)

    def _rebuild_placed(self, cls, storage, dtype, shape, strides, offset, requires_grad,
                        place, attrs=None):
        from .checkpoint import _location_name, _target
        where = _location_name(_target(place, self.map_location))
        if where != "cpu":
            places.get(where)   # a PlaceError now when the machine lacks it
        return rebuild_tensor(cls, storage, dtype, shape, strides, offset, requires_grad,
                              where, attrs)
