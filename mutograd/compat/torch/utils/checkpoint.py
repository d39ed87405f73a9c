"""``torch.utils.checkpoint``: activation checkpointing (``mutograd.autograd.recompute``), with
PyTorch 2.13's arguments and warnings."""
import warnings

from ....autograd import recompute as _recompute
from ....autograd.recompute import NO_INPUT_WARNING, CheckpointError  # noqa: F401

__all__ = ["CheckpointError", "checkpoint", "checkpoint_sequential"]

_NO_FLAG = ("the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
            "calling checkpoint without use_reentrant will raise an exception. "
            "use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details "
            "on the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` with its activations recomputed in backward. Without
    ``use_reentrant`` it warns and uses the reentrant form, as PyTorch 2.13 does."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _NO_FLAG, stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant and (context_fn is not None or debug):
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    return _recompute.checkpoint(function, *args, use_reentrant=use_reentrant,
                                 preserve_rng_state=preserve, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """``functions`` run in ``segments`` checkpointed chunks (PyTorch's signature and
    warning)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _NO_FLAG,
                      stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return _recompute.checkpoint_sequential(functions, segments, input,
                                            use_reentrant=use_reentrant,
                                            preserve_rng_state=preserve)
