"""``paddle.summary``: run a network once on random inputs of ``input_size`` and print Paddle's
table of its layers (input and output shapes, parameter counts) with the totals and size
estimates; returns ``{'total_params', 'trainable_params'}``.

    >>> import mutograd.compat.paddle as paddle
    >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    >>> info = paddle.summary(net, (1, 4))  # doctest: +ELLIPSIS
    ---...
     Layer (type)       Input Shape          Output Shape         Param #...
    ===...
       Linear-1           [[1, 4]]              [1, 3]              15...
        ReLU-1            [[1, 3]]              [1, 3]               0...
    ...
    Total params: 15
    ...
    >>> info
    {'total_params': 15, 'trainable_params': 15}
"""
import numbers

import numpy as np

from ....autograd.grad_mode import no_grad

__all__ = ["summary"]


def _spec_shape(item):
    """A shape from an InputSpec (its ``shape``) or a tuple/list/int."""
    if hasattr(item, "shape") and not isinstance(item, (list, tuple)):
        return tuple(item.shape)
    return (item,) if isinstance(item, int) else item


def _normalise(input_size):
    """Paddle's accepted forms of ``input_size`` -> a shape tuple, or a list of them."""
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            item = _spec_shape(item)
            if not isinstance(item, (tuple, list)):
                raise TypeError(f"When input_size is list, expect item in input_size is a "
                                f"tuple or InputSpec, but got {type(item)}")
            out.append(tuple(item) if isinstance(item, tuple) else item)
        return out
    return _spec_shape(input_size)


def _is_shape(shape):
    return not any(isinstance(d, (list, tuple)) for d in shape)


def _check_shape(shape):
    """The shape with its one unknown (None or -1) batch dimension set to 1."""
    unknown, out = 0, []
    for d in shape:
        if d is None or d == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None "
                                 "or -1.")
            d = 1
        elif isinstance(d, numbers.Number) and d <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {d}")
        out.append(d)
    return tuple(out)


def _check_input(input_size):
    if isinstance(input_size, (list, tuple)) and _is_shape(input_size):
        return _check_shape(input_size)
    return [_check_input(i) for i in input_size]


def summary(net, input_size=None, dtypes=None, input=None):
    """Print ``net``'s layer table for inputs of ``input_size`` (a shape tuple, an
    ``InputSpec`` or a list of them; or give the tensors as ``input``); returns
    ``{'total_params': n, 'trainable_params': m}``."""
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        if isinstance(input, dict):
            input_size = [tuple(v.shape) for v in input.values()]
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif hasattr(input, "shape"):
            input_size = tuple(input.shape)
        else:
            raise ValueError("Input is not tensor, list, tuple and dict, unable to determine "
                             "input_size, please input input_size.")
    input_size = _check_input(_normalise(input_size))
    was_training = net.training
    if was_training:
        net.eval()
    try:
        text, info = summary_string(net, input_size, dtypes, input)
    finally:
        if was_training:
            net.train()
    print(text)
    return info


def _build_dtypes(input_size, dtype):
    if all(isinstance(d, numbers.Number) for d in input_size):
        return [dtype or "float32"]
    return [_build_dtypes(i, dtype) for i in input_size]


def _shapes(x):
    if isinstance(x, (list, tuple)):
        return [_shapes(v) for v in x]
    return list(x.shape) if hasattr(x, "shape") else []


def _layer_numbers(model):
    """Each layer's number among the network's layers of its class, from 1 (Paddle numbers them
    by a process-wide counter of each class; here they count within the network)."""
    counts, numbers_ = {}, {}
    for layer in [model] + list(model.sublayers()):
        name = type(layer).__name__
        counts[name] = counts.get(name, 0) + 1
        numbers_[id(layer)] = counts[name]
    return numbers_


@no_grad()
def summary_string(model, input_size=None, dtypes=None, input=None):
    """The table text and the counts, as :func:`summary` prints and returns them."""
    from .. import cast, rand
    from ..nn import LayerList, Sequential
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, dtypes)
    depth = len(list(model.sublayers()))
    numbers_ = _layer_numbers(model)
    rows, hooks = {}, []

    def hook(layer, inputs, output):
        key = f"{type(layer).__name__}-{numbers_.get(id(layer), len(rows) + 1)}"
        row = rows[key] = {"input_shape": _shapes(inputs), "output_shape": _shapes(output),
                           "trainable_params": 0}
        params = 0
        # the batch norms' running statistics are among them, counted as non-trainable
        for p in layer.parameters(include_sublayers=False):
            n = int(np.prod(p.shape))
            params += n
            if not p.stop_gradient:
                row["trainable_params"] += n
                row["trainable"] = True
            elif "trainable" not in row:
                row["trainable"] = False
        row["nb_params"] = params

    for layer in [model] + list(model.sublayers()):
        if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1):
            hooks.append(layer.register_forward_hook(hook))

    def build_input(size, dtype):
        if all(isinstance(d, numbers.Number) for d in size):
            return cast(rand(list(size)), dtype[0] if isinstance(dtype, (list, tuple))
                        else dtype)
        return [build_input(i, d) for i, d in zip(size, dtype)]

    try:
        if input is not None:
            model(input)
        else:
            sizes = [input_size] if isinstance(input_size, tuple) else input_size
            model(*build_input(sizes, dtypes))
    finally:
        for h in hooks:
            h.remove()
    return _table(rows, input_size)


def _table(rows, input_size):
    widths = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for key, row in rows.items():
        widths["layer"] = max(widths["layer"], len(key))
        widths["input"] = max(widths["input"], len(str(row["input_shape"])))
        widths["output"] = max(widths["output"], len(str(row["output_shape"])))
        widths["params"] = max(widths["params"], len(str(row["nb_params"])))
    table = max(75, sum(widths.values()) + 5)

    def line(a, b, c, d):
        return (f"{a:^{widths['layer']}} {b:^{widths['input']}} {c:^{widths['output']}} "
                f"{d:^{widths['params']}}")

    out = ["-" * table, line("Layer (type)", "Input Shape", "Output Shape", "Param #"),
           "=" * table]
    total = trainable = total_output = 0
    for key, row in rows.items():
        out.append(line(key, str(row["input_shape"]), str(row["output_shape"]),
                        f"{row['nb_params']:,}"))
        total += row["nb_params"]
        shapes = row["output_shape"]
        for shape in (shapes if shapes and isinstance(shapes[0], list) else [shapes]):
            total_output += int(np.prod(shape))
        if row.get("trainable"):
            trainable += row["trainable_params"]

    def size_of(size):
        if all(isinstance(d, numbers.Number) for d in size):
            return abs(np.prod(size) * 4.0 / 1024 ** 2.0)
        return sum(size_of(i) for i in size)

    input_mb = size_of(input_size)
    output_mb = abs(2.0 * total_output * 4.0 / 1024 ** 2.0)
    params_mb = abs(total * 4.0 / 1024 ** 2.0)
    out += ["=" * table, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
            f"Non-trainable params: {total - trainable:,}", "-" * table,
            f"Input size (MB): {input_mb:0.2f}",
            f"Forward/backward pass size (MB): {output_mb:0.2f}",
            f"Params size (MB): {params_mb:0.2f}",
            f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}", "-" * table]
    return "\n".join(out) + "\n", {"total_params": total, "trainable_params": trainable}
