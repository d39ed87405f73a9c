"""Record Paddle 3.3.1's results for tests/references/paddle_layer_cases.py into
paddle_layer_reference.npz (read by tests/compat/test_paddle_layers_reference.py).

Run from the repository root with a Python where ``paddlepaddle==3.3.1`` is installed (never a
runtime or CI dependency; the project itself need not be installed there)::

    python -m tests.references.paddle_layer_reference

Each case's values are stored as ``<case>/<name>`` arrays (see paddle_layer_cases.py); an
exception as ``<case>/error``: ``"<builtin class>|<class>: <message>"``, where the builtin class
is the first one of Python's own in the exception's MRO (what an ``except`` clause catches).
"""
import os
import sys

import numpy as np

from tests.references.paddle_api_reference import to_array
from tests.references.paddle_layer_cases import CASES

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_layer_reference.npz")


def builtin_class(exc):
    """The first of Python's own exception classes that ``exc`` is an instance of."""
    return next(c for c in type(exc).__mro__ if c.__module__ == "builtins").__name__


def record(value):
    """A recorded value as a NumPy array (the replay converts ours the same way)."""
    if isinstance(value, BaseException):
        return np.array(f"{builtin_class(value)}|{type(value).__name__}: {value}"[:600])
    if isinstance(value, list) and value and isinstance(value[0], str):
        return np.array(value)
    if isinstance(value, list) and not value:
        return np.zeros(0, "int64")
    return to_array(value)


def main():
    import paddle
    if paddle.__version__ != "3.3.1":
        sys.exit(f"paddlepaddle 3.3.1 is needed, found {paddle.__version__}")
    paddle.set_device("cpu")
    data = {"paddle_version": np.array(paddle.__version__),
            "layer_classes": np.array(sorted(
                n for n in dir(paddle.nn) if isinstance(getattr(paddle.nn, n), type)
                and issubclass(getattr(paddle.nn, n), paddle.nn.Layer)))}
    for case in CASES:
        paddle.set_default_dtype("float32")
        paddle.seed(0)
        for name, v in case.run(paddle).items():
            data[f"{case.key}/{name}"] = record(v)
    np.savez_compressed(OUT, **data)
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
