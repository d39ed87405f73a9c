"""Record Paddle 3.3.1's results for tests/references/paddle_cases.py into paddle_reference.npz.

Run from the repository root where ``paddlepaddle==3.3.1`` is installed (never a runtime or CI
dependency)::

    python -m tests.references.paddle_reference

For each case it stores the inputs, the in-place result on a non-leaf (value, dtype, which input
came back), the gradients of ``sum(w * result)`` with respect to the float
inputs, any error Paddle raised, and whether Paddle changed a leaf's data before refusing it.
"""
import os
import sys

import numpy as np

from tests.references.paddle_cases import CASES

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_reference.npz")


def record(paddle, case, data):
    k = case.key
    arrays = case.inputs()
    for i, a in enumerate(arrays):
        data[f"{k}/in{i}"] = a
    floats = [case.grad and a.dtype.kind == "f" for a in arrays]
    leaves = [paddle.to_tensor(a, stop_gradient=not f) for a, f in zip(arrays, floats)]
    hs = [t * 1 if f else t for t, f in zip(leaves, floats)]
    try:
        out = case.call(paddle, *hs)
        data[f"{k}/out"] = out.numpy()
        # which input came back (-1: a new object); where_ writes its second argument
        data[f"{k}/returned"] = np.array(next((i for i, h in enumerate(hs) if out is h), -1))
        if any(floats):
            w = np.random.default_rng(1).standard_normal(out.shape)
            (out * paddle.to_tensor(w.astype(out.numpy().dtype))).sum().backward()
            for i, (t, f) in enumerate(zip(leaves, floats)):
                if f and t.grad is not None:
                    data[f"{k}/grad{i}"] = t.grad.numpy()
            data[f"{k}/w"] = w
    except Exception as e:  # noqa: BLE001 - recorded, so the test knows Paddle has no answer here
        data[f"{k}/error"] = np.array(f"{type(e).__name__}: {e}"[:300])
    if arrays[0].dtype.kind == "f":
        leaf = paddle.to_tensor(arrays[0], stop_gradient=False)
        rest = [paddle.to_tensor(a) for a in arrays[1:]]
        try:
            case.call(paddle, leaf, *rest)
            data[f"{k}/leaf_raised"] = np.array(False)
        except Exception:  # noqa: BLE001 - any refusal counts
            data[f"{k}/leaf_raised"] = np.array(True)
        data[f"{k}/leaf_changed"] = np.array(not np.array_equal(leaf.numpy(), arrays[0],
                                                                equal_nan=True))


def main():
    import paddle
    if paddle.__version__ != "3.3.1":
        sys.exit(f"paddlepaddle 3.3.1 is needed, found {paddle.__version__}")
    paddle.set_default_dtype("float64")
    data = {"paddle_version": np.array(paddle.__version__)}
    for case in CASES:
        record(paddle, case, data)
    np.savez_compressed(OUT, **data)
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
