"""Lazy modules: the input's feature or channel count is read at the first forward, the
parameters are then created (PyTorch's initialisation) and the module becomes the ordinary
class (``LazyLinear`` -> ``Linear``), as PyTorch's. Until then its parameters are
:class:`UninitializedParameter` (and buffers :class:`UninitializedBuffer`).

    >>> import mutograd as mg
    >>> lin = mg.nn.LazyLinear(3)
    >>> _ = lin(mg.ones([2, 5]))
    >>> type(lin).__name__, lin.weight.shape, lin.in_features
    ('Linear', [3, 5], 5)
"""
import inspect

from ...errors import MutogradError
from ...ops.creation import empty
from ...tensor import Tensor
from ..module import Module, Parameter
from .batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    InstanceNorm1d,
    InstanceNorm2d,
    InstanceNorm3d,
)
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
           "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d", "LazyLinear", "LazyModuleMixin", "UninitializedBuffer",
           "UninitializedParameter"]


def _materialize(t, shape, dtype, becomes):
    fresh = empty(list(shape), dtype=dtype or t.dtype)
    t._data, t._storage = fresh._data, fresh._storage
    t.__class__ = becomes
    return t


class UninitializedParameter(Parameter):
    """A Parameter without a shape yet; :meth:`materialize` gives it one (and makes it a
    Parameter, the same object)."""
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        p = Parameter.__new__(cls, None, requires_grad)
        if dtype is not None:
            p._data = p._data.astype(empty([0], dtype=dtype)._data.dtype)
        return p

    def __init__(self, *args, **kwargs):
        pass    # everything is set in __new__

    def materialize(self, shape, device=None, dtype=None):
        """Allocate ``shape`` (uninitialised memory) and become a Parameter."""
        return _materialize(self, shape, dtype, self.cls_to_become)

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer without a shape yet; :meth:`materialize` gives it one (and makes it a Tensor,
    the same object)."""
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        t = empty([0], dtype=dtype)
        t.__class__ = cls
        t.persistent = persistent
        return t

    def __init__(self, *args, **kwargs):
        pass    # everything is set in __new__

    def materialize(self, shape, device=None, dtype=None):
        return _materialize(self, shape, dtype, self.cls_to_become)

    def __repr__(self):
        return "<UninitializedBuffer>"

    __str__ = __repr__


class LazyModuleMixin:
    """Before a lazy module's first forward: build the ordinary module for the input's
    feature count, move its freshly initialised values into this module's uninitialised
    parameters and buffers (the same objects, so an optimizer made earlier keeps them), take
    its attributes, and become its class."""
    cls_to_become = None
    _feature_attr = None

    def __init__(self, *args, **kwargs):
        kwargs.pop("device", None)      # one device here
        # a stand-in feature count the constructor accepts: the convolutions' groups (their
        # sixth argument after in_channels, in Conv and ConvTranspose alike) must divide it
        groups = kwargs.get("groups", args[5] if len(args) > 5 else 1)
        template = self.cls_to_become(
            groups if self._feature_attr == "in_channels" else 1, *args, **kwargs)
        Module.__init__(self)
        for key, value in template.__dict__.items():
            if key not in ("_parameters", "_buffers", "_modules", "training") and \
                    not key.startswith("_forward"):
                self.__dict__[key] = value
        for name, p in template._parameters.items():
            self._parameters[name] = None if p is None else UninitializedParameter(
                dtype=p.dtype)
        for name, b in template._buffers.items():
            self._buffers[name] = b if b is None or name == "num_batches_tracked" else \
                UninitializedBuffer(dtype=b.dtype)
        self.__dict__[self._feature_attr] = 0
        self.__dict__["_lazy_args"] = (args, kwargs)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer is still uninitialised."""
        return any(isinstance(t, (UninitializedParameter, UninitializedBuffer))
                   for t in (*self._parameters.values(), *self._buffers.values()))

    def _features(self, x):
        return x.shape[1] if x.ndim > self._unbatched_ndim else x.shape[0]

    def initialize_parameters(self, x, *args, **kwargs):
        """Create the parameters for input ``x`` (called by the first forward)."""
        if not isinstance(x, Tensor):
            raise MutogradError(f"{type(self).__name__}: the first input must be a tensor to "
                                f"infer the number of features")
        largs, lkwargs = self._lazy_args
        fresh = self.cls_to_become(self._features(x), *largs, **lkwargs)
        for mine, theirs in ((self._parameters, fresh._parameters),
                             (self._buffers, fresh._buffers)):
            for name, t in theirs.items():
                if isinstance(mine.get(name), (UninitializedParameter, UninitializedBuffer)):
                    mine[name].materialize(t.shape)
                    mine[name]._data[...] = t._data
                    self._adopt(mine[name], mine is self._parameters)   # a dialect's module
        for key, value in fresh.__dict__.items():
            if key not in ("_parameters", "_buffers", "_modules", "training") and \
                    not key.startswith("_forward"):
                self.__dict__[key] = value
        del self.__dict__["_lazy_args"]
        self.__class__ = self.cls_to_become

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        else:   # materialised by load_state_dict: only the feature count is left to read
            self.__dict__[self._feature_attr] = self._features(args[0])
            del self.__dict__["_lazy_args"]
            self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)


def _lazy(name, target, feature_attr, unbatched_ndim, doc, **defaults):
    """The lazy form of ``target``: its constructor's parameters without the first (the
    feature count), with ``defaults`` changed where PyTorch's lazy class differs."""
    params = list(inspect.signature(target.__init__).parameters.values())
    signature = inspect.Signature([params[0]] + [
        p.replace(default=defaults[p.name]) if p.name in defaults else p for p in params[2:]])

    def __init__(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        for key in defaults:
            bound.arguments.setdefault(key, defaults[key])
        LazyModuleMixin.__init__(self, *bound.args[1:], **bound.kwargs)
    __init__.__signature__ = signature
    cls = type(name, (LazyModuleMixin, target), {
        "cls_to_become": target, "_feature_attr": feature_attr,
        "_unbatched_ndim": unbatched_ndim, "__doc__": doc, "__init__": __init__})
    cls.__module__ = __name__
    return cls


LazyLinear = _lazy("LazyLinear", Linear, "in_features", 0,
                   "Linear with ``in_features`` read from the first input's last axis: "
                   "``LazyLinear(out_features, bias=True)``.")
# Linear's features are the last axis, whatever the rank
LazyLinear._features = lambda self, x: x.shape[-1]


def _conv_doc(base):
    return (f"{base.__name__} with ``in_channels`` read from the first input: "
            f"``Lazy{base.__name__}(out_channels, kernel_size, ...)``.")


LazyConv1d = _lazy("LazyConv1d", Conv1d, "in_channels", 2, _conv_doc(Conv1d))
LazyConv2d = _lazy("LazyConv2d", Conv2d, "in_channels", 3, _conv_doc(Conv2d))
LazyConv3d = _lazy("LazyConv3d", Conv3d, "in_channels", 4, _conv_doc(Conv3d))
LazyConvTranspose1d = _lazy("LazyConvTranspose1d", ConvTranspose1d, "in_channels", 2,
                            _conv_doc(ConvTranspose1d))
LazyConvTranspose2d = _lazy("LazyConvTranspose2d", ConvTranspose2d, "in_channels", 3,
                            _conv_doc(ConvTranspose2d))
LazyConvTranspose3d = _lazy("LazyConvTranspose3d", ConvTranspose3d, "in_channels", 4,
                            _conv_doc(ConvTranspose3d))


def _norm_doc(base):
    return f"{base.__name__} with ``num_features`` read from the first input's channels."


LazyBatchNorm1d = _lazy("LazyBatchNorm1d", BatchNorm1d, "num_features", 1,
                        _norm_doc(BatchNorm1d))
LazyBatchNorm2d = _lazy("LazyBatchNorm2d", BatchNorm2d, "num_features", 3,
                        _norm_doc(BatchNorm2d))
LazyBatchNorm3d = _lazy("LazyBatchNorm3d", BatchNorm3d, "num_features", 4,
                        _norm_doc(BatchNorm3d))
# PyTorch's lazy instance norms default to affine=True, track_running_stats=True
_LAZY_INSTANCE_NORM = {"affine": True, "track_running_stats": True}
LazyInstanceNorm1d = _lazy("LazyInstanceNorm1d", InstanceNorm1d, "num_features", 2,
                           _norm_doc(InstanceNorm1d), **_LAZY_INSTANCE_NORM)
LazyInstanceNorm2d = _lazy("LazyInstanceNorm2d", InstanceNorm2d, "num_features", 3,
                           _norm_doc(InstanceNorm2d), **_LAZY_INSTANCE_NORM)
LazyInstanceNorm3d = _lazy("LazyInstanceNorm3d", InstanceNorm3d, "num_features", 4,
                           _norm_doc(InstanceNorm3d), **_LAZY_INSTANCE_NORM)


def lazy_conv(name, base, unbatched_ndim):
    """The lazy form of convolution class ``base`` (for the ones defined elsewhere)."""
    return _lazy(name, base, "in_channels", unbatched_ndim, _conv_doc(base))
