"""``paddle.base.wrapped_decorator``: decorators that keep the decorated function's
signature."""
import contextlib
import functools

__all__ = ["signature_safe_contextmanager", "wrap_decorator"]


def wrap_decorator(decorator_func):
    """A decorator that applies ``decorator_func`` at each call and keeps the function's name,
    docstring and signature (Paddle uses the ``decorator`` package for it)."""
    def decorate(func):
        @functools.wraps(func)
        def call(*args, **kwargs):
            return decorator_func(func)(*args, **kwargs)
        return call
    return decorate


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
