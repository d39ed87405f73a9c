"""``paddle.callbacks``: the hooks of ``paddle.Model``'s loops (mutograd/compat/paddle/hapi/
callbacks.py). ``VisualDL`` and ``WandbCallback`` are refused (see ``_refusals.py``).

    >>> import mutograd.compat.paddle as paddle
    >>> paddle.callbacks.ModelCheckpoint(save_freq=2, save_dir="ckpt").save_freq
    2
"""
from .hapi.callbacks import (  # noqa: F401
    Callback, EarlyStopping, LRScheduler, ModelCheckpoint, ProgBarLogger, ReduceLROnPlateau)

__all__ = ["Callback", "EarlyStopping", "LRScheduler", "ModelCheckpoint", "ProgBarLogger",
           "ReduceLROnPlateau"]
