"""``paddle.hapi``: Paddle's high-level API, ``Model`` (model.py), ``summary``
(model_summary.py) and the callbacks of their loops (callbacks.py); the package exposes them as
``paddle.Model``, ``paddle.summary`` and ``paddle.callbacks``.

    >>> import mutograd.compat.paddle as paddle
    >>> paddle.hapi.Model is paddle.Model
    True
"""
from . import callbacks, model_summary  # noqa: F401
from .model import Model
from .model_summary import summary

__all__ = ["Model", "summary"]
