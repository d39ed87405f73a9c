"""A tutorial-style ``paddle.Model`` program, run unchanged on Paddle 3.3.1 (recorded by
paddle_hapi_reference.py into paddle_hapi_reference.npz) and on ``mutograd.compat.paddle``
(replayed by tests/compat/test_paddle_model.py).

``run(paddle, workdir)`` trains a small MLP on synthetic data with ``Model.fit`` (Adam over a
StepDecay schedule, CrossEntropyLoss, top-1/top-2 Accuracy, EarlyStopping, ModelCheckpoint, an
epoch-wise LRScheduler and a recorder callback), then evaluates, predicts, runs the ``*_batch``
methods, saves and loads; it returns ``{name: numpy array or list of str}``: each step's logs,
the learning rates, the printed log (timings removed) and the results. The initial weights come
from NumPy and are set with ``set_state_dict``; ``shuffle=False``, so both runs see the same
batches.
"""
import contextlib
import io
import os
import re

import numpy as np

FEATURES, HIDDEN, CLASSES = 8, 16, 3


def data():
    """(x float32 [96, 8], y int64 [96, 1]): three classes from a noisy linear rule."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((96, FEATURES)).astype("float32")
    w = rng.standard_normal((FEATURES, CLASSES))
    y = np.argmax(x @ w + 0.8 * rng.standard_normal((96, CLASSES)), axis=1)
    return x, y.reshape(-1, 1).astype("int64")


def initial_weights():
    rng = np.random.default_rng(1)
    return {"0.weight": (0.4 * rng.standard_normal((FEATURES, HIDDEN))).astype("float32"),
            "0.bias": np.zeros(HIDDEN, "float32"),
            "2.weight": (0.4 * rng.standard_normal((HIDDEN, CLASSES))).astype("float32"),
            "2.bias": np.zeros(CLASSES, "float32")}


def _clean(text, workdir):
    """The printed log without what changes from run to run: timings, the work folder."""
    text = text.replace(os.path.abspath(workdir), "<dir>")
    text = re.sub(r" - ETA: [0-9:]+s?", "", text)
    return re.sub(r" - [0-9]+(s|ms|us)/(step|it)", "", text).splitlines()


def run(paddle, workdir):
    InputSpec = paddle.static.InputSpec

    x, y = data()

    class Pairs(paddle.io.Dataset):
        def __init__(self, x, y=None):
            super().__init__()
            self.x, self.y = x, y

        def __getitem__(self, i):
            return (self.x[i], self.y[i]) if self.y is not None else (self.x[i],)

        def __len__(self):
            return len(self.x)

    train, evaluation, test = Pairs(x[:64], y[:64]), Pairs(x[64:], y[64:]), Pairs(x[64:])

    class Recorder(paddle.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.steps, self.lrs, self.evals, self.epochs = [], [], [], []

        def on_train_batch_end(self, step, logs=None):
            self.steps.append([logs["loss"][0], logs["acc_top1"], logs["acc_top2"],
                               logs["step"], logs["batch_size"]])
            self.lrs.append(self.model._optimizer.get_lr())

        def on_epoch_end(self, epoch, logs=None):
            self.epochs.append(epoch)

        def on_eval_end(self, logs=None):
            self.evals.append([logs["loss"][0], logs["acc_top1"], logs["acc_top2"]])

    def build():
        net = paddle.nn.Sequential(paddle.nn.Linear(FEATURES, HIDDEN), paddle.nn.ReLU(),
                                   paddle.nn.Linear(HIDDEN, CLASSES))
        net.set_state_dict({k: paddle.to_tensor(v) for k, v in initial_weights().items()})
        model = paddle.Model(net, inputs=[InputSpec([None, FEATURES], "float32", "x")],
                             labels=[InputSpec([None, 1], "int64", "label")])
        schedule = paddle.optimizer.lr.StepDecay(learning_rate=0.05, step_size=2, gamma=0.5)
        opt = paddle.optimizer.Adam(learning_rate=schedule, parameters=model.parameters())
        model.prepare(opt, paddle.nn.CrossEntropyLoss(),
                      paddle.metric.Accuracy(topk=(1, 2)))
        return model

    out = {}
    log = io.StringIO()
    with contextlib.redirect_stdout(log):
        model = build()
        info = model.summary()
        out["summary"] = [info["total_params"], info["trainable_params"]]
        recorder = Recorder()
        stop = paddle.callbacks.EarlyStopping(monitor="acc_top1", mode="max", patience=1,
                                              save_best_model=True)
        checkpoints = os.path.join(workdir, "checkpoints")
        model.fit(train, evaluation, batch_size=16, epochs=8, eval_freq=1, log_freq=2,
                  save_dir=checkpoints, save_freq=3, verbose=2, shuffle=False,
                  callbacks=[recorder, stop, paddle.callbacks.LRScheduler(by_step=False,
                                                                           by_epoch=True)])
        out["steps"] = np.array(recorder.steps, "float64")
        out["lrs"] = np.array(recorder.lrs, "float64")
        out["fit_evals"] = np.array(recorder.evals, "float64")
        out["epochs"] = np.array(recorder.epochs)
        out["checkpoints"] = sorted(os.listdir(checkpoints))

        result = model.evaluate(evaluation, batch_size=10, log_freq=1, verbose=2)
        out["evaluate_keys"] = sorted(result)
        out["evaluate"] = np.array([result["loss"][0], result["acc_top1"], result["acc_top2"]])
        out["predict"] = model.predict(test, batch_size=10, stack_outputs=True, verbose=2)[0]
        unstacked = model.predict(test, batch_size=10, verbose=0)
        out["predict_unstacked"] = [str(len(unstacked)), str(len(unstacked[0])),
                                    str(unstacked[0][0].shape)]

        loss, metrics = model.train_batch([x[:8]], [y[:8]])
        out["train_batch"] = np.array([float(loss[0]), *metrics[0]])
        loss, metrics = model.eval_batch([x[8:16]], [y[8:16]])
        out["eval_batch"] = np.array([float(loss[0]), *metrics[0]])
        out["predict_batch"] = model.predict_batch([x[:4]])[0]

        path = os.path.join(workdir, "final")
        model.save(path)
        out["saved"] = sorted(f for f in os.listdir(workdir) if f.startswith("final"))
        again = build()
        again.load(path)
        out["loaded_predict"] = again.predict_batch([x[:4]])[0]
        loaded = again.evaluate(evaluation, batch_size=16, verbose=0)
        out["loaded_evaluate"] = np.array([loaded["loss"][0], loaded["acc_top1"]])
        out["parameters"] = [str(list(p.shape)) for p in model.parameters()]

        net = paddle.nn.Sequential(paddle.nn.Linear(FEATURES, HIDDEN), paddle.nn.ReLU(),
                                   paddle.nn.Linear(HIDDEN, CLASSES))
        info = paddle.summary(net, (1, FEATURES))
        out["paddle_summary"] = [info["total_params"], info["trainable_params"]]
    out["log"] = _clean(log.getvalue(), workdir)
    return out


def run_variants(paddle, workdir):
    """The other paths of ``fit``: no InputSpecs (taken from forward and the first batch),
    gradient accumulation, a (train, eval) batch-size pair, ``eval_freq``, ``num_iters``, the
    default step-wise LRScheduler, ReduceLROnPlateau on a plain learning rate, a loss without
    metrics, ``paddle.summary`` of a network with a batch norm (given ``input``); and the metrics
    Precision, Recall, Auc and Accuracy (one-hot labels) on arrays."""
    x, y = data()
    out = {}
    log = io.StringIO()

    def network():
        net = paddle.nn.Sequential(paddle.nn.Linear(FEATURES, HIDDEN), paddle.nn.ReLU(),
                                   paddle.nn.Linear(HIDDEN, CLASSES))
        net.set_state_dict({k: paddle.to_tensor(v) for k, v in initial_weights().items()})
        return net

    train = paddle.io.TensorDataset([paddle.to_tensor(x[:64]), paddle.to_tensor(y[:64])])
    evaluation = paddle.io.TensorDataset([paddle.to_tensor(x[64:]), paddle.to_tensor(y[64:])])

    class Rates(paddle.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.lrs, self.losses = [], []

        def on_train_batch_end(self, step, logs=None):
            self.lrs.append(self.model._optimizer.get_lr())
            self.losses.append(logs["loss"][0])

    with contextlib.redirect_stdout(log):
        model = paddle.Model(network())
        opt = paddle.optimizer.SGD(learning_rate=0.2, parameters=model.parameters())
        model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
        rates = Rates()
        plateau = paddle.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                                     min_delta=10.0, verbose=1)
        model.fit(train, evaluation, batch_size=[16, 32], epochs=4, eval_freq=2, log_freq=3,
                  accumulate_grad_batches=3, shuffle=False, verbose=2,
                  callbacks=[rates, plateau])
        out["accumulate_losses"] = np.array(rates.losses)
        out["plateau_lrs"] = np.array(rates.lrs)
        out["inferred_inputs"] = [f"{s.name} {s.shape}" for s in model._inputs]

        model = paddle.Model(network())
        schedule = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=3, gamma=0.5)
        model.prepare(paddle.optimizer.Momentum(learning_rate=schedule,
                                                parameters=model.parameters()),
                      paddle.nn.CrossEntropyLoss())
        rates = Rates()
        model.fit(train, batch_size=8, num_iters=11, verbose=2, log_freq=4, shuffle=False,
                  callbacks=[rates])
        out["num_iters_losses"] = np.array(rates.losses)
        out["by_step_lrs"] = np.array(rates.lrs)
        out["no_metric_evaluate"] = np.array(model.evaluate(evaluation, batch_size=32,
                                                            verbose=0)["loss"])
        out["no_metric_eval_batch"] = np.array(model.eval_batch([x[:8]], [y[:8]]))

        conv = paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3), paddle.nn.BatchNorm2D(2),
                                    paddle.nn.Flatten(), paddle.nn.Linear(8, 2))
        info = paddle.summary(conv, input=paddle.rand([1, 1, 4, 4]))
        out["conv_summary"] = [int(info["total_params"]), int(info["trainable_params"])]

    rng = np.random.default_rng(2)
    probs = rng.uniform(size=(40, 1)).astype("float32")
    probs[:4] = [[0.5], [0.25], [0.75], [0.5]]        # the rounding of ties
    binary = rng.integers(0, 2, size=(40, 1)).astype("int64")
    for name in ("Precision", "Recall"):
        m = getattr(paddle.metric, name)()
        m.update(probs[:20], binary[:20])
        m.update(paddle.to_tensor(probs[20:]), paddle.to_tensor(binary[20:]))
        out[name] = np.array([m.accumulate()])
    auc = paddle.metric.Auc(num_thresholds=50)
    two = np.concatenate([1 - probs, probs], axis=1)
    auc.update(two, binary)
    out["Auc"] = np.array([auc.accumulate()])
    acc = paddle.metric.Accuracy(topk=(1, 2))
    scores = paddle.to_tensor(rng.standard_normal((12, 3)).astype("float32"))
    one_hot = paddle.to_tensor(np.eye(3, dtype="float32")[rng.integers(0, 3, 12)])
    out["accuracy_one_hot"] = np.array(acc.update(acc.compute(scores, one_hot)))
    out["accuracy_names"] = acc.name()
    out["variants_log"] = _clean(log.getvalue(), workdir)
    return out
