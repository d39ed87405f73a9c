"""Record Paddle 3.3.1's results for tests/references/paddle_api_cases.py into
paddle_api_reference.npz (read by tests/compat/test_compat_paddle_reference.py).

Run from the repository root where ``paddlepaddle==3.3.1`` is installed (never a runtime or CI
dependency)::

    python -m tests.references.paddle_api_reference

Each case's values are stored as ``<case>/<name>`` arrays (strings as unicode arrays, booleans
and numbers as 0-d arrays, lists as arrays); an exception as ``<case>/error``.
"""
import os
import sys

import numpy as np

from tests.references.paddle_api_cases import CASES

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_api_reference.npz")


def to_array(v):
    """A recorded value as a NumPy array (the same conversion the test applies to ours)."""
    if hasattr(v, "numpy"):
        return np.asarray(v.numpy())
    if isinstance(v, (list, tuple)):
        if v and (hasattr(v[0], "numpy") or isinstance(v[0], (list, tuple))):
            return np.asarray([to_array(i) for i in v])
        return np.asarray(v)
    if isinstance(v, str) or v is None:
        return np.asarray(str(v))
    return np.asarray(v)


def main():
    import paddle
    if paddle.__version__ != "3.3.1":
        sys.exit(f"paddlepaddle 3.3.1 is needed, found {paddle.__version__}")
    data = {"paddle_version": np.array(paddle.__version__)}
    for case in CASES:
        paddle.set_default_dtype("float32")
        try:
            values = case.run(paddle)
        except Exception as e:  # noqa: BLE001 - recorded: the test checks we refuse it too
            data[f"{case.key}/error"] = np.array(f"{type(e).__name__}: {e}"[:600])
            continue
        for name, v in values.items():
            data[f"{case.key}/{name}"] = to_array(v)
    np.savez_compressed(OUT, **data)
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
