"""Grad mode: whether ops record backward nodes. Thread-local (design.md rule 8).

Note [Grad mode around generators]
    A switch used as a decorator sets the mode for each call of the function. A generator (or
    coroutine) function's body runs only when the caller resumes it, and between two resumptions
    the caller's code runs with the caller's mode: the mode is set for each resumption and
    restored at each ``yield`` (``await``), as PyTorch's ``_DecoratorContextManager`` does for
    generators. PyTorch sets it only while the coroutine object is made, so an ``async def``
    decorated with ``no_grad()`` records there; here its body runs in the decorator's mode.
"""
import functools
import inspect
import threading


class _State(threading.local):
    enabled = True
    inference = False   # inside inference_mode() (Note [Inference tensors])


_state = _State()
_inference_lock = threading.Lock()
_inference_active = 0   # threads inside inference_mode(), process-wide


def thread_state():
    """This thread's grad mode and inference flag, for a worker thread to take on."""
    return _state.enabled, _state.inference


def set_thread_state(state):
    """Take on a ``thread_state()`` (a pool worker runs a caller's job in the caller's modes)."""
    _state.enabled, _state.inference = state


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
        if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
            return _resumable(func, lambda: _switch(mode))

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = _state.enabled
            _state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                _state.enabled = prev
        return wrapper


def _switch(mode):
    """A fresh one-use context manager that sets grad mode to ``mode`` and restores it."""
    switch = object.__new__(_GradMode)
    switch.mode = mode
    return switch


def _resumable(func, make):
    """``func`` (a generator or coroutine function) with each resumption of its body inside a
    fresh ``make()`` context (Note [Grad mode around generators])."""
    if inspect.iscoroutinefunction(func):
        @functools.wraps(func)
        async def coroutine(*args, **kwargs):
            return await _Steps(func(*args, **kwargs), make)
        return coroutine

    @functools.wraps(func)
    def generator(*args, **kwargs):
        return (yield from _Steps(func(*args, **kwargs), make))
    return generator


class _Steps:
    """Drives a generator or coroutine one step at a time, each step inside ``make()``; what
    the caller sends or throws in is passed on."""

    def __init__(self, inner, make):
        self.inner, self.make = inner, make

    def __iter__(self):
        inner, make = self.inner, self.make
        value, error = None, None
        while True:
            try:
                with make():
                    step = inner.send(value) if error is None else inner.throw(error)
            except StopIteration as stop:
                return stop.value
            value = error = None
            try:
                value = yield step
            except GeneratorExit:
                with make():
                    inner.close()
                raise
            except BaseException as e:   # thrown in by the caller: raised inside the body
                error = e

    __await__ = __iter__


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
        Outside inference mode an inference tensor keeps PyTorch's rules: a node cannot save
        it, it cannot be written in place (the write is refused before any data changes), it
        cannot start to require grad, and it has no ``_version``. The counter's ``watched`` and
        ``guards`` flags enforce the first two (``InferenceCounter`` in autograd/node.py).
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
        if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
            return _resumable(func, lambda: inference_mode(not mode))

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
