"""``paddle.device``: choosing the device. This build runs on the CPU."""
import mutograd as _mg


def set_device(device):
    """``'cpu'``; a GPU raises PlaceError (not available in this build)."""
    return _mg.set_device(device)


def get_device():
    return "cpu"


def is_compiled_with_cuda():
    return False
