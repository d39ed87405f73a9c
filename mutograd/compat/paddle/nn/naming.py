"""Paddle's automatic names: every layer gets a unique name from its class (``linear_0``,
``batch_norm2d_1``) and every parameter one from its layer (``linear_0.w_0``, ``linear_0.b_0``),
from per-process counters (``paddle.base.unique_name``), as Paddle 3.3.1 names them. Optimizer
state files key their accumulators by these names (``linear_0.w_0_moment1_0``), so a model
built in the same order in Paddle and here has the same names.

    >>> import mutograd.compat.paddle as paddle
    >>> with paddle.base.unique_name.guard():
    ...     bn = paddle.nn.BatchNorm2D(2)
    ...     {k: v.name for k, v in bn.state_dict().items()}
    ... # doctest: +NORMALIZE_WHITESPACE
    {'weight': 'batch_norm2d_0.w_0', 'bias': 'batch_norm2d_0.b_0',
     '_mean': 'batch_norm2d_0.w_1', '_variance': 'batch_norm2d_0.w_2'}

The layer's name is drawn before its ``__init__`` runs (so a layer's name comes before its
sublayers'), a parameter's when ``create_parameter`` makes it, or, for those the shared
``mutograd.nn`` layer made, when the layer's ``__init__`` returns: the parameters in the order
registered (``b`` for a bias, ``w`` otherwise), then the persistent buffers of Paddle's own
layers (BatchNorm's ``_mean`` and ``_variance`` are parameters in Paddle, named ``w``). A
parameter named already (``ParamAttr(name=...)``, or shared with another layer) keeps its name.
"""
import re

from ..base import unique_name


def snake_case(class_name):
    """Paddle's layer name prefix of a class name: ``BatchNorm2D`` -> ``batch_norm2d``."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def parameter_name(layer, is_bias):
    """A new name for a parameter of ``layer``: ``<layer name>.b_N`` or ``.w_N``."""
    return unique_name.generate(f"{layer.full_name()}.{'b' if is_bias else 'w'}")


class NamedLayers(type):
    """The metaclass of ``paddle.nn.Layer``: names the layer before ``__init__`` and its
    still unnamed state after it."""

    def __call__(cls, *args, **kwargs):
        layer = cls.__new__(cls, *args, **kwargs)
        if isinstance(layer, cls):
            layer.__dict__["_full_name"] = unique_name.generate(snake_case(cls.__name__))
            layer.__init__(*args, **kwargs)
            _name_state(layer)
        return layer


def _name_state(layer):
    own = type(layer).__module__.startswith("mutograd.")
    tables = [(layer.__dict__.get("_parameters", {}), True)]
    if own:
        persistent = layer.__dict__.get("_non_persistent", set())
        tables.append(({k: v for k, v in layer.__dict__.get("_buffers", {}).items()
                        if k not in persistent}, False))
    for table, parameters in tables:
        for key, t in table.items():
            if t is not None and t.__dict__.get("name") is None:
                t.name = parameter_name(layer, parameters and "bias" in key)
