"""Grad mode: whether ops record backward nodes. Thread-local (DESIGN.md rule 8)."""
import functools
import threading


class _State(threading.local):
    enabled = True
    inference = False   # inside inference_mode() (Note [Inference tensors])


_state = _State()
_inference_lock = threading.Lock()
_inference_active = 0   # threads inside inference_mode(), process-wide


def is_grad_enabled():
    """Whether ops run now record their backward node."""
    return _state.enabled


class _GradMode:
    """Base of the grad-mode switches: a context manager and a decorator (with or without ())."""

    mode = True

    def __new__(cls, func=None):
        self = super().__new__(cls)
        if callable(func):           # used as ``@no_grad`` without parentheses
            return self(func)
        return self

    def __init__(self, func=None):
        pass

    def __enter__(self):
        self._prev = _state.enabled
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = _state.enabled
            _state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                _state.enabled = prev
        return wrapper


class no_grad(_GradMode):
    """Run without recording backward nodes: parameter init, optimizer steps, evaluation.

    Example::

        >>> import mutograd as mg
        >>> w = mg.ones([2], requires_grad=True)
        >>> with mg.no_grad():
        ...     _ = w.mul_(3)          # allowed on a leaf that requires grad
        >>> w.tolist()
        [3.0, 3.0]
    """

    mode = False


class enable_grad(_GradMode):
    """Record backward nodes again inside a ``no_grad`` block."""

    mode = True


class inference_mode(_GradMode):
    """As ``no_grad`` (``torch.inference_mode``), and the tensors made inside are inference
    tensors (``x.is_inference()``); ``inference_mode(False)`` records again.

    Note [Inference tensors]
        A tensor is an inference tensor when its version counter was made inside the block:
        while any thread is in one, new tensors get an ``InferenceCounter`` that asks its own
        thread's state, so outside the blocks creating a tensor costs nothing more. Views and
        ``detach()`` share the counter, so they are inference tensors too, as in PyTorch.
        PyTorch also refuses to save an inference tensor for backward or to write one outside
        the block; mutograd computes both correctly instead.
    """

    def __new__(cls, mode=True):
        self = object.__new__(cls)
        if callable(mode):           # used as ``@inference_mode`` without parentheses
            self.mode = False
            return self(mode)
        self.mode = not mode
        return self

    def __init__(self, mode=True):
        pass

    def __enter__(self):
        super().__enter__()
        self._prev_inference = _state.inference
        _state.inference = not self.mode
        _count_inference(1)

    def __exit__(self, *exc):
        _state.inference = self._prev_inference
        _count_inference(-1)
        return super().__exit__(*exc)

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(not mode):
                return func(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    """Whether this thread is inside ``inference_mode()``."""
    return _state.inference


def _count_inference(n):
    """Swap the counter class new tensors get while any thread is in inference mode."""
    global _inference_active
    import sys
    from .node import InferenceCounter, VersionCounter
    tensor = sys.modules["mutograd.tensor"]   # (``mutograd.tensor`` the name is a function)
    with _inference_lock:
        _inference_active += n
        counter = InferenceCounter if _inference_active else VersionCounter
        tensor.VersionCounter = counter
        # the registry's short paths make tensors without going through mutograd.tensor
        dispatch = sys.modules.get("mutograd.autograd.dispatch")
        if dispatch is not None:
            dispatch._VersionCounter = counter


class set_grad_enabled(_GradMode):
    """Switch grad mode on or off: at once as a call, or for a block as a context manager."""

    def __new__(cls, mode):
        self = object.__new__(cls)
        self.mode = bool(mode)
        self._prev = _state.enabled
        _state.enabled = self.mode
        return self

    def __init__(self, mode):
        pass

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _state.enabled = self._prev
        return False

    def __call__(self, func):
        # used as a decorator: making the object switched the mode; switch it back until called
        _state.enabled = self._prev
        return super().__call__(func)
