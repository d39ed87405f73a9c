"""Record Paddle 3.3.1's run of tests/references/paddle_hapi_program.py (``paddle.Model``:
fit with callbacks, evaluate, predict, the ``*_batch`` methods, save/load, summary) into
paddle_hapi_reference.npz, replayed by tests/compat/test_paddle_model.py. From the repository
root, in a Python where ``paddlepaddle==3.3.1`` is installed (never a runtime or CI dependency)::

    python -m tests.references.paddle_hapi_reference
"""
import os
import tempfile

import numpy as np

from tests.references.paddle_hapi_program import run, run_variants

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_hapi_reference.npz")


def main():
    import paddle
    with tempfile.TemporaryDirectory() as workdir:
        out = {**run(paddle, workdir), **run_variants(paddle, workdir)}
    out = {k: np.array(v) for k, v in out.items()}
    out["paddle_version"] = np.array(paddle.__version__)
    np.savez(OUT, **out)


if __name__ == "__main__":
    main()
