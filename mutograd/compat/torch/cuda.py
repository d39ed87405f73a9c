"""``torch.cuda``: what scripts ask before choosing a device. This build runs on the CPU.

    >>> import mutograd.compat.torch as torch
    >>> "cuda" if torch.cuda.is_available() else "cpu"
    'cpu'
"""


def is_available():
    """Whether a CUDA device can be used: never, in this build."""
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Seeding the (absent) GPU generators does nothing; ``torch.manual_seed`` seeds all."""


manual_seed_all = manual_seed


def synchronize(device=None):
    """Nothing to wait for on the CPU."""
