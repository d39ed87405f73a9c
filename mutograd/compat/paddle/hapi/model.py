"""``paddle.Model``: Paddle's high-level training API over a ``paddle.nn.Layer``: ``prepare``
(optimizer, loss, metrics), then ``fit`` / ``evaluate`` / ``predict`` over a ``paddle.io``
Dataset or DataLoader, the one-batch ``train_batch`` / ``eval_batch`` / ``predict_batch``,
``save`` / ``load`` (``path.pdparams`` and ``path.pdopt``) and ``summary``. It is the loop one
would write by hand (forward, loss, ``backward()``, ``step()``, ``clear_gradients()``), with
``paddle.callbacks`` around each epoch and batch, in Paddle's order.

    >>> import numpy as np
    >>> import mutograd.compat.paddle as paddle
    >>> x = np.random.default_rng(0).standard_normal((32, 4)).astype("float32")
    >>> y = (x.sum(1, keepdims=True) > 0).astype("int64")
    >>> data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    >>> model = paddle.Model(paddle.nn.Linear(4, 2))
    >>> model.prepare(paddle.optimizer.Adam(0.1, parameters=model.parameters()),
    ...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    >>> model.fit(data, batch_size=8, epochs=3, verbose=0)
    >>> sorted(model.evaluate(data, batch_size=8, verbose=0))
    ['acc', 'loss']
"""
import inspect
import os
import warnings

import numpy as np

from ....autograd.grad_mode import no_grad
from ....optim.optimizer import OptimizerStateError
from ..static import InputSpec
from .callbacks import EarlyStopping, _rank0, config_callbacks
from .model_summary import summary

__all__ = ["Model"]

_AMP = ("automatic mixed precision is not part of the paddle namespace; train in float32 "
        "(amp_configs=None or 'O0'), or use mutograd.compat.torch.amp")


def _to_list(value):
    if value is None:
        return None
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_numpy(t):
    return np.array(t.numpy() if hasattr(t, "numpy") else t)


def _flatten(data):
    """A batch (nested lists, tuples, dicts) as a flat list of its leaves."""
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in _flatten(item)]
    if isinstance(data, dict):
        return [leaf for k in sorted(data) for leaf in _flatten(data[k])]
    return [data]


def _input_info(inputs):
    """([shape, ...], [dtype, ...]) of the inputs (tensors, arrays or InputSpecs)."""
    if isinstance(inputs, dict):
        inputs = list(inputs.values())
    elif not isinstance(inputs, (list, tuple)):
        if not hasattr(inputs, "shape"):
            return None
        inputs = [inputs]
    return [list(i.shape) for i in inputs], [i.dtype for i in inputs]


def _forward_arg_names(network):
    """The names of the network's positional ``forward`` parameters (one spec each)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = inspect.signature(network.forward).parameters.values()
    names = [p.name for p in params if p.kind in kinds]
    return names or [p.name for p in params if p.kind is inspect.Parameter.VAR_POSITIONAL][:1]


class Model:
    """Trains, evaluates and runs ``network``. ``inputs`` and ``labels`` are
    ``paddle.static.InputSpec``s (or lists of them): their count tells ``fit`` how many leading
    fields of a batch go to the network (the rest are the labels); without ``inputs`` there is
    one per positional parameter of ``network.forward``."""

    def __init__(self, network, inputs=None, labels=None):
        self.mode = "train"
        self.network = network
        self._loss = self._optimizer = None
        self._metrics = []
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self.stop_training = False
        if inputs:
            self._input_info = _input_info(inputs)
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)

    # ---- one batch ---------------------------------------------------------------------------
    def _forward(self, inputs):
        from .. import to_tensor
        inputs = _to_list(inputs)
        if self._input_info is None:
            self._input_info = _input_info(inputs)
            self._update_inputs()
        return _to_list(self.network(*[to_tensor(x) for x in inputs]))

    @staticmethod
    def _labels_of(labels):
        from .. import to_tensor
        return [to_tensor(lab) for lab in (_to_list(labels) or [])]

    def _losses(self, outputs, labels):
        return _to_list(self._loss(*(outputs + labels)))

    def _update_metrics(self, outputs, labels):
        results = []
        for metric in self._metrics:
            outs = _to_list(metric.compute(*(outputs + labels)))
            results.append(metric.update(*[_to_numpy(o) for o in outs]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """One training step on a batch: forward, loss, ``backward()`` and (with ``update``)
        the optimizer's step and ``clear_gradients()``; ``update=False`` accumulates the
        gradients. Returns the losses (NumPy arrays), with the metrics' batch values as
        ``(losses, metrics)`` when there are metrics."""
        from .. import add_n
        if not self._optimizer:
            raise RuntimeError("model not ready, please call `model.prepare()` first")
        self.network.train()
        self.mode = "train"
        labels = self._labels_of(labels)
        outputs = self._forward(inputs)
        losses = self._losses(outputs, labels)
        add_n(losses).backward()
        if update:
            self._optimizer.step()
            self.network.clear_gradients(set_to_zero=True)
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        return (losses, metrics) if metrics else losses

    @no_grad()
    def eval_batch(self, inputs, labels=None):
        """The losses (and metrics' batch values) of a batch, without training: ``(losses,
        metrics)``, the losses alone without metrics, the metrics alone without a loss."""
        self.network.eval()
        self.mode = "eval"
        labels = self._labels_of(labels)
        outputs = self._forward(inputs)
        losses = self._losses(outputs, labels) if self._loss else None
        metrics = self._update_metrics(outputs, labels)
        if self._loss:
            losses = [_to_numpy(loss) for loss in losses]
            return (losses, metrics) if metrics else losses
        return metrics

    @no_grad()
    def predict_batch(self, inputs):
        """The network's outputs on a batch, as a list of NumPy arrays."""
        self.network.eval()
        self.mode = "test"
        return [_to_numpy(o) for o in self._forward(inputs)]

    # ---- saving ------------------------------------------------------------------------------
    def save(self, path, training=True):
        """Write the parameters to ``path.pdparams`` and the optimizer's state to
        ``path.pdopt`` (with ``paddle.save``). ``training=False`` (an inference program) is
        refused: mutograd has no programs."""
        from .. import save
        if not _rank0():
            return
        if not training:
            raise NotImplementedError(
                "Model.save(path, training=False) writes a static inference program, which "
                "mutograd does not have (it runs eagerly); save(path) keeps the parameters")
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                save(state, path + ".pdopt")

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Read ``path.pdparams`` into the network (each parameter must be there with its
        shape; ``skip_mismatch`` skips those that are not, with a warning, and then leaves the
        optimizer alone) and ``path.pdopt``, when it exists, into the optimizer (unless
        ``reset_optimizer``; a state keyed by other parameters' names is skipped with a
        warning)."""
        from .. import load
        base, ext = os.path.splitext(path)
        if ext not in ("", ".pdparams", ".pdopt", ".pdmodel"):
            raise ValueError(f"Unknown postfix {ext} from weights")
        path = base if ext else path
        if not os.path.exists(path + ".pdparams"):
            raise FileNotFoundError(f"Failed to load parameters, please check path: "
                                    f"{path}.pdparams does not exist")
        state = load(path + ".pdparams")
        matched = []
        for key, param in self.network.state_dict().items():
            value = state.get(key)
            if value is None:
                problem = f"{key} is not found in the providing file."
            elif list(value.shape) != list(param.shape):
                problem = (f"{key} receives a shape {list(value.shape)}, but the expected "
                           f"shape is {list(param.shape)}.")
            else:
                matched.append((param, value))
                continue
            if not skip_mismatch:
                raise ValueError(problem)
            warnings.warn(f"Skip loading for {key}. {problem}")
            reset_optimizer = True
        for param, value in matched:
            param.set_value(value)
        if self._optimizer is not None and not reset_optimizer and os.path.exists(
                path + ".pdopt"):
            try:
                self._optimizer.set_state_dict(load(path + ".pdopt"))
            except OptimizerStateError as e:
                # Paddle skips the accumulators of parameters it does not find; say so
                warnings.warn(f"Model.load: the optimizer's state in {path}.pdopt was not "
                              f"loaded: {e}")

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters()

    # ---- configuration -----------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or any callable of ``(*outputs, *labels)``)
        and the metrics (``paddle.metric.Metric``s) the loops use. ``amp_configs`` may only
        be None or 'O0' (float32)."""
        from ..metric import Metric
        self._optimizer = optimizer
        if loss is not None and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        self._loss = loss
        metrics = _to_list(metrics) or []
        for metric in metrics:
            if not isinstance(metric, Metric):
                raise TypeError(f"{type(metric).__name__} is not sub class of Metric")
        self._metrics = metrics
        self._prepare_amp(amp_configs)

    @staticmethod
    def _prepare_amp(amp_configs):
        level = amp_configs if isinstance(amp_configs, str) else (
            (amp_configs or {}).get("level", "O1") if amp_configs else "O0")
        if level not in ("O0", "O1", "O2"):
            raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
        if level != "O0":
            raise NotImplementedError(f"paddle.Model.prepare(amp_configs={amp_configs!r}): "
                                      f"{_AMP}")

    # ---- the loops ---------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        """``data`` itself when it is a DataLoader (or any iterable of batches), else a
        DataLoader over the Dataset."""
        from ..io import BatchSampler, DataLoader, Dataset, IterableDataset
        if isinstance(data, IterableDataset):
            return DataLoader(data, batch_size=batch_size, drop_last=drop_last,
                              num_workers=num_workers, return_list=True)
        if isinstance(data, Dataset):
            sampler = BatchSampler(data, shuffle=shuffle, batch_size=batch_size,
                                   drop_last=drop_last)
            return DataLoader(data, batch_sampler=sampler, num_workers=num_workers,
                              return_list=True)
        return data

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs (or ``num_iters`` steps), evaluating on ``eval_data``
        after every ``eval_freq``-th epoch (0, eval_freq, ...), logging every ``log_freq``
        steps and saving to ``save_dir`` every ``save_freq`` epochs; ``batch_size`` may be a
        pair (train, eval). The optimizer steps every ``accumulate_grad_batches`` batches and
        at each epoch's end. A scheduler given as the learning rate steps after every batch
        unless a ``paddle.callbacks.LRScheduler`` says otherwise. Returns None."""
        if train_data is None:
            raise ValueError("train_data must be given!")
        if isinstance(batch_size, (tuple, list)):
            if len(batch_size) != 2:
                raise ValueError("batch_size length error, expected train_batch_size and "
                                 "eval_batch_size.")
            train_batch_size, eval_batch_size = batch_size
        else:
            train_batch_size = eval_batch_size = batch_size
        train_loader = self._loader(train_data, train_batch_size, shuffle, drop_last,
                                    num_workers)
        eval_loader = (None if eval_data is None
                       else self._loader(eval_data, eval_batch_size, num_workers=num_workers))
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(steps, int):
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir,
                                verbose=verbose, metrics=self._metrics_name())
        if eval_loader is None and any(isinstance(k, EarlyStopping) for k in cbks):
            warnings.warn("EarlyStopping needs validation data.")
        self.stop_training = False
        logs = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len_data_loader(eval_loader),
                                       "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """One pass over ``eval_data``: ``{'loss': [last batch's loss], <metric name>: value
        over the whole pass, ...}``."""
        eval_loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = eval_loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(eval_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(eval_steps, int):
            if num_iters <= 0:
                raise ValueError("num_iters must be greater than 0!")
            eval_steps = self.num_iters = min(num_iters, eval_steps)
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(eval_loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data``: one entry per output, each a list of
        per-batch NumPy arrays, or (``stack_outputs``) one array of all the rows."""
        test_loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = test_loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len_data_loader(test_loader)})
        logs, outputs = self._run_one_epoch(test_loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode):
        logs, outputs = {}, []
        n_inputs = len(self._inputs) if self._inputs is not None else None
        steps = self._len_data_loader(data_loader)
        for step, data in enumerate(data_loader):
            data = _flatten(data)
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                args = [data[:n_inputs], data[n_inputs:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == steps)
                outs = getattr(self, mode + "_batch")(*args)
                values = []
                if self._loss:
                    losses = outs[0] if self._metrics else outs
                    values.append([float(loss) for loss in losses])
                for metric in self._metrics:
                    values.extend(_to_list(metric.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            else:
                outputs.append(self.predict_batch(data[:n_inputs] if n_inputs is not None
                                                  else data))
            logs["step"] = step
            logs["batch_size"] = int(data[0].shape[0])
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        return (logs, outputs) if mode == "predict" else logs

    # ---- helpers -----------------------------------------------------------------------------
    def summary(self, input_size=None, dtype=None):
        """``paddle.summary`` of the network for ``input_size`` (default: the Model's
        ``inputs`` specs)."""
        if input_size is None and not self._inputs:
            raise ValueError("'input_size' or 'self._input' must be set")
        return summary(self.network, input_size if input_size is not None else self._inputs,
                       dtypes=dtype)

    def _verify_spec(self, specs, shapes=None, dtypes=None, is_input=False):
        if specs is None:
            if not is_input:
                return None
            names = _forward_arg_names(self.network)
            if shapes is not None and dtypes is not None:
                out = [InputSpec(shapes[i], dtypes[i], n) for i, n in enumerate(names)
                       if i < len(shapes)]
            else:
                out = [InputSpec([None], name=n) for n in names]
        elif isinstance(specs, dict):
            if is_input:
                raise TypeError("inputs given as a dict are not supported; pass a list of "
                                "InputSpec in forward's order")
            out = [specs[n] for n in _forward_arg_names(self.network)]
        else:
            out = _to_list(specs)
        for i, spec in enumerate(out):
            if not isinstance(spec, InputSpec):
                raise TypeError(f"Model's inputs and labels are paddle.static.InputSpec, got "
                                f"{type(spec).__name__}")
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with "
                                 f"{spec}.")
        return out

    def _reset_metrics(self):
        for metric in self._metrics:
            metric.reset()

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    @staticmethod
    def _len_data_loader(data_loader):
        try:
            return len(data_loader)
        except Exception:
            return None

    def _update_inputs(self):
        """Without ``inputs`` specs, take them from the first batch's shapes."""
        if self._is_shape_inferred or self._input_info is None:
            return
        self._inputs = self._verify_spec(None, *self._input_info, is_input=True)
        self._is_shape_inferred = True
