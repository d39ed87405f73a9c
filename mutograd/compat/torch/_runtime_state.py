"""PyTorch's process-wide switches that have no effect on how mutograd computes, kept so scripts
that set and read them run: inter-op threads (ops run one after another here), anomaly
detection's flags (``torch.autograd.detect_anomaly`` does the checking), autocast's dtypes and
cache (``torch.autocast`` never changes a dtype here), and ``is_distributed``.

    >>> import mutograd.compat.torch as torch
    >>> torch.set_autocast_dtype("cpu", torch.float16)
    >>> torch.get_autocast_dtype("cpu")
    torch.float16
    >>> torch.set_autocast_dtype("cpu", torch.float32)
"""
import mutograd as _mg

from ...autograd import sites as _sites
from ...autograd.anomaly import set_detect_anomaly

_state = {"interop_threads": 1, "autocast_cache": True}
_DEVICES = ("cpu", "cuda", "ipu", "xla", "xpu", "hpu", "mps", "mtia", "maia")
_autocast_dtype = {"cpu": _mg.float16, "cuda": _mg.float16, "ipu": _mg.float16,
                   "xla": _mg.float16}
_autocast_enabled = dict.fromkeys(_DEVICES, False)


def get_num_interop_threads():
    """The number of threads for running independent ops at once (1: they run in order)."""
    return _state["interop_threads"]


def set_num_interop_threads(num):
    """Record the inter-op thread count (ops still run one after another)."""
    if num < 1:
        raise RuntimeError("Expected positive number of threads")
    _state["interop_threads"] = int(num)


def init_num_threads():
    """Nothing to initialise: NumPy's threads start with the process."""


def is_distributed(input):
    """False: a tensor here lives on one place, not spread over processes."""
    return False


def thread_safe_generator():
    """None, meaning "use the default generator" (PyTorch gives a thread's own generator only
    inside its thread-based DataLoader workers, which mutograd does not have)."""
    return None


def set_anomaly_enabled(enabled, check_nan=True):
    """Switch anomaly detection on or off (``torch.autograd.set_detect_anomaly``)."""
    set_detect_anomaly(enabled, check_nan)


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection, when on, also checks gradients for NaN (True by default)."""
    return _sites.Flags.check_nan


def _device(device_type):
    kind = str(device_type).split(":")[0]
    if kind not in _DEVICES:
        raise RuntimeError(f"unsupported autocast device_type '{device_type}'")
    return kind


def get_autocast_dtype(device_type):
    """The dtype autocast would compute in on ``device_type`` (float16 unless set)."""
    return _autocast_dtype.get(_device(device_type), _mg.float16)


def set_autocast_dtype(device_type, dtype):
    """Record autocast's dtype for ``device_type`` (autocast changes no dtype here)."""
    _autocast_dtype[_device(device_type)] = dtype


def is_autocast_enabled(device_type=None):
    """Whether autocast was switched on for ``device_type`` (cuda by default); it changes no
    dtype here either way."""
    return _autocast_enabled[_device(device_type or "cuda")]


def set_autocast_enabled(device_type, enabled=None):
    """Record whether autocast is on for ``device_type`` (``set_autocast_enabled(flag)``: cuda);
    autocast changes no dtype here."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _autocast_enabled[_device(device_type)] = bool(enabled)


def is_autocast_cache_enabled():
    """Whether autocast keeps its casted copies of weights."""
    return _state["autocast_cache"]


def set_autocast_cache_enabled(enabled):
    _state["autocast_cache"] = bool(enabled)


def clear_autocast_cache():
    """Nothing to clear: autocast keeps no casted copies here."""


def _per_device(kind):
    def get_dtype():
        return get_autocast_dtype(kind)

    def set_dtype(dtype):
        set_autocast_dtype(kind, dtype)

    def is_enabled():
        return _autocast_enabled[kind]

    def set_enabled(enabled):
        set_autocast_enabled(kind, enabled)
    prefix = "gpu" if kind == "cuda" else kind
    for f, name in ((get_dtype, f"get_autocast_{prefix}_dtype"),
                    (set_dtype, f"set_autocast_{prefix}_dtype"),
                    (is_enabled, f"is_autocast_{prefix}_enabled"),
                    (set_enabled, f"set_autocast_{prefix}_enabled")):
        f.__name__ = name
        f.__doc__ = f"``{name[:-len(name.split('_')[-1]) - 1]}`` for '{kind}' (recorded only)."
        globals()[name] = f


for _kind in ("cpu", "cuda", "ipu", "xla"):
    _per_device(_kind)

NAMES = [n for n in list(globals())
         if not n.startswith("_") and n not in ("NAMES", "set_detect_anomaly")]
