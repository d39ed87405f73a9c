"""Grad mode: whether ops record backward nodes. Thread-local (DESIGN.md rule 8)."""
import functools
import threading


class _State(threading.local):
    enabled = True


_state = _State()


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
    """As ``no_grad`` (``torch.inference_mode``); ``inference_mode(False)`` records again."""

    def __new__(cls, mode=True):
        self = object.__new__(cls)
        if callable(mode):           # used as ``@inference_mode`` without parentheses
            self.mode = False
            return self(mode)
        self.mode = not mode
        return self

    def __init__(self, mode=True):
        pass


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
