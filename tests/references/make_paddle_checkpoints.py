"""Record Paddle's checkpoint files, and what real Paddle makes of the files mutograd writes.

Run it from the repository root with Paddle 3.3.1 (never a runtime or CI dependency; the tests
only read what it writes)::

    PYTHONPATH=. /path/to/paddle-venv/bin/python -m tests.references.make_paddle_checkpoints

For each optimizer case (Adam with a ``StepDecay`` scheduler, AdamW, SGD, Momentum) it trains a
Conv2D + ReLU + BatchNorm2D + Linear model for 3 steps in Paddle and writes into
``tests/references/paddle_checkpoints/``:

- ``<case>.pdparams`` and ``<case>.pdopt``: ``paddle.save`` of the model's and the optimizer's
  state dicts;
- ``mutograd_<case>.pdparams`` and ``.pdopt``: what mutograd's ``paddle.save`` writes after
  loading those two into its own model and optimizer (the tests check that mutograd still
  writes these bytes);
- ``expected.json``: the input, Paddle's parameter names and state-dict keys, the learning rate,
  the parameters after one more step in Paddle, and what real Paddle read from mutograd's files
  (their keys, and the learning rate and parameters after restoring them into a new model and
  optimizer and taking that step).
"""
import json
import os
import pickle
import sys

import numpy as np

DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle_checkpoints")
STEPS = 3
CASES = {   # name -> (optimizer class, its arguments besides the parameters, uses a scheduler)
    "adam": ("Adam", {}, True),
    "adamw": ("AdamW", {"weight_decay": 0.05}, False),
    "sgd": ("SGD", {}, False),
    "momentum": ("Momentum", {"momentum": 0.9}, False),
}


def build(paddle):
    """The model, in Paddle or in mutograd's Paddle dialect (same code, same names)."""
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(1, 2, 3)
            self.bn = paddle.nn.BatchNorm2D(2)
            self.fc = paddle.nn.Linear(8, 3)

        def forward(self, x):
            # the ReLU keeps the convolution's bias from being cancelled by the batch norm
            # (its gradient would be rounding noise, which Adam amplifies)
            return self.fc(self.bn(paddle.nn.functional.relu(self.conv(x))).flatten(1))
    return Net()


def optimizer(paddle, case, params):
    """The case's optimizer and its scheduler (or None)."""
    cls, kwargs, scheduled = CASES[case]
    sched = paddle.optimizer.lr.StepDecay(0.1, step_size=1, gamma=0.5) if scheduled else None
    return getattr(paddle.optimizer, cls)(learning_rate=sched or 0.1, parameters=params,
                                          **kwargs), sched


def train_step(paddle, model, opt, sched, x):
    loss = (model(paddle.to_tensor(x)) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    if sched is not None:
        sched.step()


def state_numpy(model):
    return {k: np.asarray(v.numpy()).tolist() for k, v in model.state_dict().items()}


def main():
    import paddle
    if paddle.__version__ != "3.3.1":
        sys.exit(f"paddle 3.3.1 is needed, found {paddle.__version__}")
    import mutograd.compat.paddle as mpaddle
    os.makedirs(DIR, exist_ok=True)
    rng = np.random.RandomState(0)
    x = rng.randn(2, 1, 4, 4).astype(np.float32)
    paddle.seed(0)
    expected = {"input": x.tolist(), "steps": STEPS, "cases": {}}
    for case in CASES:
        path = os.path.join(DIR, case)
        # each phase in a fresh name generator, as a new process: linear_0.w_0, and the
        # optimizer's accumulators (made at its first step) linear_0.w_0_moment1_0
        with paddle.base.unique_name.guard():
            model = build(paddle)
            opt, sched = optimizer(paddle, case, model.parameters())
            for _ in range(STEPS):
                train_step(paddle, model, opt, sched, x)
            paddle.save(model.state_dict(), path + ".pdparams")
            paddle.save(opt.state_dict(), path + ".pdopt")
            rec = {"names": {k: v.name for k, v in model.state_dict().items()},
                   "model_keys": list(model.state_dict()),
                   "optimizer_keys": list(opt.state_dict()),
                   "lr": opt.get_lr()}
            train_step(paddle, model, opt, sched, x)
            rec["after_next_step"] = state_numpy(model)

        # mutograd: restore Paddle's files, write its own
        with mpaddle.base.unique_name.guard():
            mmodel = build(mpaddle)
            mopt, _ = optimizer(mpaddle, case, mmodel.parameters())
            mmodel.set_state_dict(mpaddle.load(path + ".pdparams"))
            mopt.set_state_dict(mpaddle.load(path + ".pdopt"))
            mine = os.path.join(DIR, "mutograd_" + case)
            mpaddle.save(mmodel.state_dict(), mine + ".pdparams")
            mpaddle.save(mopt.state_dict(), mine + ".pdopt")

        # real Paddle reads mutograd's files, and goes on training from them
        read = {}
        for ext in (".pdparams", ".pdopt"):
            with open(mine + ext, "rb") as f:
                raw = pickle.load(f)
            loaded = paddle.load(mine + ext)
            read[ext] = {"keys": list(loaded),
                         "name_table": raw.get("StructuredToParameterName@@"),
                         "types": sorted({type(v).__name__ for v in loaded.values()})}
        with paddle.base.unique_name.guard():
            model2 = build(paddle)
            opt2, sched2 = optimizer(paddle, case, model2.parameters())
            model2.set_state_dict(paddle.load(mine + ".pdparams"))
            opt2.set_state_dict(paddle.load(mine + ".pdopt"))
            read["lr"] = opt2.get_lr()
            train_step(paddle, model2, opt2, sched2, x)
            after = state_numpy(model2)
        read["max_diff_after_next_step"] = max(
            float(np.max(np.abs(np.array(after[k]) - np.array(v))))
            for k, v in rec["after_next_step"].items())
        rec["paddle_reads_mutograd"] = read
        expected["cases"][case] = rec
        print(case, rec["lr"], read["lr"], read["max_diff_after_next_step"])
    with open(os.path.join(DIR, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
