"""``paddle.save`` and ``paddle.load``: Paddle's own file format, both ways.

``save`` writes what Paddle 3.3.1 writes (a pickle of NumPy arrays, protocol 4; a state dict
with its ``'StructuredToParameterName@@'`` table of tensor names: see
:func:`mutograd.serialization.interop.paddle_file`), so ``paddle.load`` in Paddle reads a
``.pdparams``/``.pdopt`` written here. ``load`` reads those files, mutograd's own checkpoints
and the other formats ``mutograd.load`` reads, without running anything from the file.

    >>> import mutograd.compat.paddle as paddle, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.pdparams")
    >>> paddle.save(paddle.nn.Linear(3, 2).state_dict(), path)
    >>> {k: v.shape for k, v in paddle.load(path).items()}
    {'weight': [3, 2], 'bias': [2]}
"""
import os

from ...serialization import atomic, objects
from ...serialization.checkpoint import load as _load
from ...serialization.interop import paddle_file
from ...tensor import Tensor

__all__ = ["load", "save"]


def save(obj, path, protocol=4, **configs):
    """Write ``obj`` (a state dict of a layer or an optimizer, or tensors, arrays, numbers,
    strings and containers of them) to ``path`` as Paddle does: a pickle of ``protocol`` 2, 3
    or 4. The folder is created when missing. ``path`` may also be a binary file object. Any
    other object (a whole Layer) is pickled whole, as :func:`mutograd.save` does.

        >>> import io, mutograd.compat.paddle as paddle
        >>> buf = io.BytesIO()
        >>> paddle.save({"w": paddle.ones([2])}, buf)
        >>> buf.getvalue()[:2]
        b'\\x80\\x04'
    """
    if configs.get("use_binary_format"):
        raise NotImplementedError("paddle.save(use_binary_format=True) writes Paddle's "
                                  "DenseTensor format, which mutograd does not write; save "
                                  "a state dict instead")
    try:
        data = paddle_file(obj, protocol)
    except TypeError as e:
        try:   # a whole Layer or optimizer: pickled, read by load(path, weights_only=False)
            data = objects.dumps(obj)
        except TypeError as e2:
            raise TypeError(f"{e}; {e2}") from e2
    if hasattr(path, "write"):
        path.write(data)
        return
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    atomic.write(os.fspath(path), [data])   # a crash cannot leave half a file


def load(path, **configs):
    """What ``path`` holds: tensors as ``paddle.Tensor`` (NumPy arrays with
    ``return_numpy=True``); the name table of a state dict is dropped, as Paddle does. A whole
    pickled object (``save(layer)``) loads only with ``weights_only=False``, for trusted files:
    see :func:`mutograd.load`."""
    if configs.get("keep_name_table"):
        raise NotImplementedError("paddle.load(keep_name_table=True) is not supported: the "
                                  "tensor names of a state dict are dropped when it is read")
    out = _load(path, weights_only=configs.get("weights_only", True))
    if configs.get("return_numpy"):
        return _numpy(out)
    return out


def _numpy(x):
    if isinstance(x, Tensor):
        return x.numpy()
    if isinstance(x, dict):
        return type(x)((k, _numpy(v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        return type(x)(_numpy(v) for v in x)
    return x
