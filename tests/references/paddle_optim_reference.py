"""Record Paddle 3.3.1's steps of the optimizers Paddle computes its own way (Lamb, ASGD) into
tests/references/paddle_optim_reference.npz, read by tests/optim/test_optim.py (which never
imports Paddle). From the repository root, in a venv with paddlepaddle==3.3.1::

    python -m tests.references.paddle_optim_reference

Each case: two float64 parameters (3x4 and 5), 15 steps; at step ``s`` the gradient is
``sin(3 p) + 0.1 s`` of the current value, given as ``(p * G).sum().backward()``.
"""
import os

import numpy as np

CASES = {
    "Lamb-0": {"learning_rate": 0.05},
    "Lamb-1": {"learning_rate": 0.05, "lamb_weight_decay": 0.0},
    "Lamb-2": {"learning_rate": 0.05, "lamb_weight_decay": 0.0, "always_adapt": True},
    "Lamb-3": {"learning_rate": 0.05, "lamb_weight_decay": 0.1, "beta1": 0.8, "beta2": 0.9,
               "epsilon": 1e-4},
    "ASGD-0": {"learning_rate": 0.1, "batch_num": 3},
    "ASGD-1": {"learning_rate": 0.05, "batch_num": 1, "weight_decay": 0.01},
    "ASGD-2": {"learning_rate": 0.02, "batch_num": 5, "weight_decay": 0.1},
}
SHAPES = ((3, 4), (5,))
STEPS = 15


def initial():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s) for s in SHAPES]


def main():
    import paddle
    out = {"paddle_version": np.array(paddle.__version__)}
    for name, kw in CASES.items():
        ps = [paddle.create_parameter(list(w.shape), "float64",
                                      default_initializer=paddle.nn.initializer.Assign(w))
              for w in initial()]
        opt = getattr(paddle.optimizer, name.split("-")[0])(parameters=ps, **kw)
        for s in range(STEPS):
            loss = sum((p * paddle.to_tensor(np.sin(3 * p.numpy()) + 0.1 * s)).sum() for p in ps)
            loss.backward()
            opt.step()
            opt.clear_grad()
            for i, p in enumerate(ps):
                out[f"{name}/{s}/{i}"] = p.numpy()
    np.savez(os.path.join(os.path.dirname(__file__), "paddle_optim_reference.npz"), **out)


if __name__ == "__main__":
    main()
