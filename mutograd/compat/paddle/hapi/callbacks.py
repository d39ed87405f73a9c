"""``paddle.callbacks``: what ``paddle.Model.fit`` / ``evaluate`` / ``predict`` call around each
epoch and batch. ``ProgBarLogger`` prints the log (a bar on a terminal), ``ModelCheckpoint``
saves every ``save_freq`` epochs, ``LRScheduler`` steps the optimizer's schedule,
``EarlyStopping`` and ``ReduceLROnPlateau`` watch the evaluation's loss or metric. Subclass
``Callback`` and override the ``on_*`` methods you need.

    >>> import mutograd.compat.paddle as paddle
    >>> class Count(paddle.callbacks.Callback):
    ...     def on_train_batch_end(self, step, logs=None):
    ...         self.steps = step + 1
    >>> stop = paddle.callbacks.EarlyStopping(monitor="acc", patience=2)
    >>> stop.monitor_op.__name__          # 'acc' is watched for a rise
    'greater'
"""
import numbers
import os
import sys
import time
import warnings

import numpy as np

from ....distributed import comm as _comm
from ....progress import bar as _bar
from ....progress import enabled as _bar_enabled
from ..optimizer.lr import LRScheduler as _Schedule

__all__ = ["Callback", "EarlyStopping", "LRScheduler", "ModelCheckpoint", "ProgBarLogger",
           "ReduceLROnPlateau"]


def _rank0():
    """Whether this process prints and saves: the only one, or rank 0 of an MPI job."""
    return not _comm.is_initialized() or _comm.rank() == 0


def _schedule(optimizer):
    """The optimizer's learning-rate scheduler, or None when its rate is a number."""
    s = getattr(optimizer, "_scheduler", None)
    return s if isinstance(s, _Schedule) else None


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    """The callbacks of one ``fit``/``evaluate``/``predict`` call: the user's, with a
    ``ProgBarLogger`` (when ``verbose``), a ``ModelCheckpoint`` and a step-wise ``LRScheduler``
    added unless given, as Paddle does."""
    cbks = callbacks or []
    cbks = list(cbks if isinstance(cbks, (list, tuple)) else [cbks])
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose), *cbks]
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = [*cbks, ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = [*cbks, LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


class CallbackList:
    """Calls each callback's ``on_<mode>_<event>`` in order."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)
        self.params, self.model = {}, None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode):
        if mode not in ("train", "eval", "predict"):
            raise ValueError(f"mode should be train, eval or predict, got {mode!r}")

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """The base class: every hook does nothing. ``self.model`` is the ``paddle.Model`` and
    ``self.params`` holds ``epochs``, ``steps``, ``verbose`` and ``metrics`` (names)."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_eval_begin(self, logs=None):
        pass

    def on_eval_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, step, logs=None):
        pass

    def on_train_batch_end(self, step, logs=None):
        pass

    def on_eval_batch_begin(self, step, logs=None):
        pass

    def on_eval_batch_end(self, step, logs=None):
        pass

    def on_predict_batch_begin(self, step, logs=None):
        pass

    def on_predict_batch_end(self, step, logs=None):
        pass


def _number(v):
    """A logged value as Paddle prints it: 4 decimals, or scientific below 0.001."""
    if isinstance(v, np.ndarray) and v.size == 1 and v.dtype.kind == "f":
        v = v.item()
    if isinstance(v, (float, np.floating)):
        return f"{v:.4f}" if abs(v) > 0.001 else f"{v:.4e}"
    return f"{v}"


def _values_text(values):
    """`` - loss: 0.5000 - acc: 0.7500``: each (name, value or list of values)."""
    return "".join(f" - {k}:" + "".join(" " + _number(v)
                                        for v in (val if isinstance(val, list) else [val]))
                   for k, val in values)


def _per_step(seconds):
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s"
    return f"{seconds * 1e3:.0f}ms" if seconds >= 0.001 else f"{seconds * 1e6:.0f}us"


class _Progress:
    """One pass's log: a line ``step 2/10 - loss: ... - 12ms/step`` per update, or (verbose 1
    on a terminal) a bar of mutograd.progress that ends in the pass's last line."""

    def __init__(self, num, verbose):
        self.num, self.verbose = num, verbose
        self.start = time.time()
        self._drawn = verbose == 1 and _bar_enabled(sys.stdout)
        self._bar, self._done = None, 0

    def update(self, current, values):
        per_step = (time.time() - self.start) / current if current else 0
        count = (f"step {current:{len(str(self.num))}d}/{self.num}" if self.num
                 else f"step {current:3}")
        text = _values_text(values)
        if self._drawn and (self.num is None or current < self.num):
            if self._bar is None:   # made at the first update: after the pass's title
                self._bar = _bar(total=self.num, desc="step", file=sys.stdout, unit="step")
                self._bar.start_t = self.start     # its rate counts from the pass's start
            self._bar.update(current - self._done)
            self._done = current
            self._bar.set_postfix_str(text[3:])
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        print(f"{count}{text} - {_per_step(per_step)}/step", flush=True)


class ProgBarLogger(Callback):
    """Prints ``Epoch 1/N`` and, every ``log_freq`` steps and at the end of a pass,
    ``step k/n - loss: ... - <metric>: ... - ..ms/step`` (the loss of the current batch, each
    metric averaged over the pass so far). ``verbose``: 0 silent, 1 a progress bar on a
    terminal (plain lines elsewhere), 2 lines, 3 lines with reader and batch timings."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = self.steps = None
        self.verbose, self.log_freq = verbose, log_freq

    def _is_print(self):
        return bool(self.verbose) and _rank0()

    def _timer(self):
        return {"data_time": 0.0, "batch_time": 0.0, "count": 0, "samples": 0,
                "batch_start_time": time.time()}

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        self._train_timer = self._timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch, self.train_step = epoch, 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = _Progress(self.steps, self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def _updates(self, logs, mode):
        logs = logs or {}
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            cnt = timer["count"] or 1.0
            samples = timer["samples"] or 1.0
            spent = timer["data_time"] + timer["batch_time"]
            values += [("avg_reader_cost", f"{timer['data_time'] / cnt:.5f} sec"),
                       ("avg_batch_cost", f"{timer['batch_time'] / cnt:.5f} sec"),
                       ("ips", f"{samples / spent if spent else 0.0:.5f} samples/sec")]
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode):
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, mode, logs, total):
        """Count the step; print it every ``log_freq`` steps except the pass's last (which
        the end of the pass prints)."""
        logs = logs or {}
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        timer = getattr(self, f"_{mode}_timer")
        timer["batch_time"] += time.time() - timer["batch_data_end_time"]
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        setattr(self, f"{mode}_samples", getattr(self, f"{mode}_samples", 0)
                + logs.get("batch_size", 1))
        if self._is_print() and step % self.log_freq == 0 and (total is None or step < total):
            self._updates(logs, mode)
        timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs, "train")

    def _pass_begin(self, mode, logs, title):
        logs = logs or {}
        setattr(self, f"{mode}_steps", logs.get("steps"))
        setattr(self, f"{mode}_metrics", logs.get("metrics", []))
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"{mode}_samples", 0)
        setattr(self, f"_{mode}_timer", self._timer())
        setattr(self, f"{mode}_progbar", _Progress(logs.get("steps"), self.verbose))
        if self._is_print():
            print(title)

    def on_eval_begin(self, logs=None):
        self._pass_begin("eval", logs, "Eval begin...")

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        self._batch_end("eval", logs, self.eval_steps)

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs, "eval")
            print(f"Eval samples: {self.eval_samples}")

    def on_predict_begin(self, logs=None):
        self._pass_begin("test", logs, "Predict begin...")

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("test")

    def on_predict_batch_end(self, step, logs=None):
        self._batch_end("test", logs, self.test_steps)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs, "test")
            print(f"Predict samples: {self.test_samples}")


class ModelCheckpoint(Callback):
    """Saves the model (``model.save``) to ``save_dir/<epoch>`` after every ``save_freq``-th
    epoch (0, save_freq, ...) and to ``save_dir/final`` when training ends; nothing without
    ``save_dir``."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return bool(self.model and self.save_dir and _rank0())

    def _save(self, name):
        path = f"{self.save_dir}/{name}"
        print(f"save checkpoint at {os.path.abspath(path)}")
        self.model.save(path)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            self._save(epoch)

    def on_train_end(self, logs=None):
        if self._is_save():
            self._save("final")


class LRScheduler(Callback):
    """Steps the optimizer's ``paddle.optimizer.lr`` scheduler after every training batch
    (``by_step``, what ``fit`` adds by default) or after every epoch (``by_epoch=True``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _step(self):
        schedule = _schedule(self.model._optimizer) if self.model is not None else None
        if schedule is not None:
            schedule.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


def _current(logs, monitor, who):
    """The watched value of an evaluation's logs (the first of a list), or None (with a
    warning when it is missing)."""
    if logs is None or monitor not in logs:
        warnings.warn(f"Monitor of {who} should be loss or metric name.")
        return None
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        return current[0]
    return current if isinstance(current, numbers.Number) else None


class EarlyStopping(Callback):
    """Stops ``fit`` when the evaluation's ``monitor`` (``'loss'`` or a metric name) has not
    improved by ``min_delta`` for ``patience`` evaluations; the best model so far is saved to
    ``save_dir/best_model`` when ``fit`` has a ``save_dir``. ``mode`` 'auto' watches names
    containing 'acc' for a rise and the others for a fall."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.min_delta = baseline, abs(min_delta)
        self.wait_epoch = self.stopped_epoch = 0
        self.best_weights = None
        self.save_best_model = save_best_model
        self.save_dir = None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        rises = mode == "max" or (mode == "auto" and "acc" in self.monitor)
        self.monitor_op = np.greater if rises else np.less
        if not rises:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        current = _current(logs, self.monitor, "EarlyStopping")
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value, self.wait_epoch = current, 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    best = os.path.abspath(os.path.join(self.save_dir, "best_model"))
                    print(f"Best checkpoint has been saved at {best}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` (not below ``min_lr``) when the evaluation's
    ``monitor`` has not improved by ``min_delta`` for ``patience`` evaluations, then waits
    ``cooldown`` evaluations. The optimizer's rate must be a number (not a scheduler)."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.min_lr, self.min_delta = monitor, factor, min_lr, \
            min_delta
        self.patience, self.verbose, self.cooldown = patience, verbose, cooldown
        self.cooldown_counter = self.wait = self.best = self.epoch = 0
        self.mode, self.monitor_op = mode, None
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to "
                          f"auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        optimizer = self.model._optimizer
        if _schedule(optimizer) is not None:
            warnings.warn(f"Expected learning_rate be float, bug got "
                          f"{type(_schedule(optimizer))}.")
            return
        current = _current(logs, self.monitor, "ReduceLROnPlateau")
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best, self.wait = current, 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    optimizer.set_lr(new_lr)
                    if self.verbose > 0 and _rank0():
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0
        self.epoch += 1
