"""Paddle layers that only hold arguments for a functional (activations, losses, padding,
shuffles, pools, normalisation without running statistics): each is made by :func:`layer` from
the function and Paddle's argument list, so its signature and the function's stay in step.

    >>> import mutograd.compat.paddle as paddle
    >>> paddle.nn.Hardshrink(threshold=1.0)(paddle.to_tensor([-2., 0.5, 3.])).tolist()
    [-2.0, 0.0, 3.0]
"""
import inspect

from .... import nn as _nn
from ....ops.creation import full
from . import functional as F
from . import initializer as I
from .layers import Layer


def layer(name, fn, params, doc=None, shown=None):
    """A Layer class ``name`` whose ``__init__`` takes ``params`` (``[(name, default)]``, a
    default of ``inspect.Parameter.empty`` for a required one) and ``name=None``, and whose
    ``forward`` calls ``fn(*inputs, **params)`` (with ``training=`` where ``fn`` takes it).
    Its repr shows, as Paddle's: ``shown(args)`` for a function, else ``k=v`` for each
    argument named in ``shown`` (all of them by default)."""
    takes_training = "training" in inspect.signature(fn).parameters
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
           for p, d in params]
        + [inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)])

    def __init__(self, *args, **kw):
        Layer.__init__(self)
        bound = sig.bind(self, *args, **kw)
        bound.apply_defaults()
        self._args = {k: v for k, v in bound.arguments.items() if k not in ("self", "name")}

    def forward(self, *xs):
        if takes_training:
            return fn(*xs, **self._args, training=self.training)
        return fn(*xs, **self._args)

    def extra_repr(self):
        if callable(shown):
            return shown(self._args)
        names = self._args if shown is None else shown
        return ", ".join(f"{k}={self._args[k]}" for k in names)

    __init__.__signature__ = sig
    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr,
                                 "__doc__": doc or f"``paddle.nn.{name}``: "
                                                   f"``{fn.__name__}`` as a layer."})


_REQ = inspect.Parameter.empty
_RED = [("reduction", "mean")]


def _loss(name, fn, params):
    """A loss layer: Paddle's repr shows none of its settings."""
    return layer(name, fn, params, shown=())


def _with_format(*names):
    """Show ``names``, then ``data_format`` unless it is the default 'NCHW' (Paddle)."""
    def show(args):
        items = [f"{k}={args[k]}" for k in names]
        if args.get("data_format", "NCHW") != "NCHW":
            items.append(f"data_format={args['data_format']}")
        return ", ".join(items)
    return show

CELU = layer("CELU", F.celu, [("alpha", 1.0)])
Hardshrink = layer("Hardshrink", F.hardshrink, [("threshold", 0.5)])
Softshrink = layer("Softshrink", F.softshrink, [("threshold", 0.5)])
Hardsigmoid = layer("Hardsigmoid", F.hardsigmoid, [])
Hardswish = layer("Hardswish", F.hardswish, [])
Hardtanh = layer("Hardtanh", F.hardtanh, [("min", -1.0), ("max", 1.0)])
LogSigmoid = layer("LogSigmoid", F.log_sigmoid, [])
LogSoftmax = layer("LogSoftmax", F.log_softmax, [("axis", -1)])
Mish = layer("Mish", F.mish, [])
SELU = layer("SELU", lambda x, scale, alpha: scale * F.elu(x, alpha),
             [("scale", 1.0507009873554805), ("alpha", 1.6732632423543772)],
             shown=lambda a: f"scale={a['scale']:.16f}, alpha={a['alpha']:.16f}")
Softplus = layer("Softplus", F.softplus, [("beta", 1), ("threshold", 20)])
Softsign = layer("Softsign", F.softsign, [])
Tanhshrink = layer("Tanhshrink", F.tanhshrink, [])
Swish = layer("Swish", F.swish, [])
ThresholdedReLU = layer("ThresholdedReLU", F.thresholded_relu, [("threshold", 1.0),
                                                                ("value", 0.0)])
GLU = layer("GLU", F.glu, [("axis", -1)])
Maxout = layer("Maxout", F.maxout, [("groups", _REQ), ("axis", 1)])
RReLU = layer("RReLU", lambda x, lower, upper, training=True: F.rrelu(x, lower, upper, training),
              [("lower", 1.0 / 8.0), ("upper", 1.0 / 3.0)],
              shown=lambda a: f"lower={a['lower']}, upper={a['upper']}, training=True, "
                              f"dtype=float32")
Softmax2D = layer("Softmax2D", lambda x: F.softmax(x, axis=-3), [])


def _pairwise_shown(a):
    s = f"p={a['p']}"
    if a["epsilon"] != 1e-6:
        s += f", epsilon={a['epsilon']}"
    if a["keepdim"]:
        s += f", keepdim={a['keepdim']}"
    return s

CosineSimilarity = layer("CosineSimilarity", F.cosine_similarity, [("axis", 1), ("eps", 1e-8)])
PairwiseDistance = layer("PairwiseDistance", F.pairwise_distance,
                         [("p", 2.0), ("epsilon", 1e-6), ("keepdim", False)],
                         shown=_pairwise_shown)
PixelShuffle = layer("PixelShuffle", F.pixel_shuffle, [("upscale_factor", _REQ),
                                                       ("data_format", "NCHW")],
                     shown=_with_format("upscale_factor"))
PixelUnshuffle = layer("PixelUnshuffle", F.pixel_unshuffle, [("downscale_factor", _REQ),
                                                             ("data_format", "NCHW")],
                       shown=_with_format("downscale_factor"))
ChannelShuffle = layer("ChannelShuffle", F.channel_shuffle, [("groups", _REQ),
                                                             ("data_format", "NCHW")],
                       shown=_with_format("groups"))
Dropout2D = layer("Dropout2D", lambda x, p, data_format, training=True: F.dropout2d(
    x, p, training, data_format), [("p", 0.5), ("data_format", "NCHW")])
Dropout3D = layer("Dropout3D", lambda x, p, data_format, training=True: F.dropout3d(
    x, p, training, data_format), [("p", 0.5), ("data_format", "NCDHW")])


def _size_or_scale(a):
    return f"scale_factor={a['scale_factor']}" if a["scale_factor"] is not None \
        else f"size={a['size']}"


Upsample = layer("Upsample", F.interpolate, [("size", None), ("scale_factor", None),
                                             ("mode", "nearest"), ("align_corners", False),
                                             ("align_mode", 0), ("data_format", None)],
                 shown=lambda a: f"{_size_or_scale(a)}, mode={a['mode']}, "
                                 f"align_corners={a['align_corners']}, "
                                 f"align_mode={a['align_mode']}, data_format={a['data_format']}")
UpsamplingNearest2D = layer("UpsamplingNearest2D", lambda x, size, scale_factor, data_format:
                            F.interpolate(x, size, scale_factor, "nearest",
                                          data_format=data_format),
                            [("size", None), ("scale_factor", None), ("data_format", "NCHW")],
                            shown=lambda a: f"{_size_or_scale(a)}, "
                                            f"data_format={a['data_format']}")
UpsamplingBilinear2D = layer("UpsamplingBilinear2D", lambda x, size, scale_factor, data_format:
                             F.interpolate(x, size, scale_factor, "bilinear",
                                           align_corners=True, data_format=data_format),
                             [("size", None), ("scale_factor", None), ("data_format", "NCHW")],
                             shown=lambda a: f"{_size_or_scale(a)}, "
                                             f"data_format={a['data_format']}")
_WINDOW = ("kernel_size", "stride", "padding")
AvgPool1D = layer("AvgPool1D", F.avg_pool1d, [("kernel_size", _REQ), ("stride", None),
                                              ("padding", 0), ("exclusive", True),
                                              ("ceil_mode", False)], shown=_WINDOW)
MaxPool1D = layer("MaxPool1D", F.max_pool1d, [("kernel_size", _REQ), ("stride", None),
                                              ("padding", 0), ("return_mask", False),
                                              ("ceil_mode", False)], shown=_WINDOW)
AdaptiveAvgPool1D = layer("AdaptiveAvgPool1D", F.adaptive_avg_pool1d, [("output_size", _REQ)])


def _pad(n, mode, value=None):
    def fn(x, padding, data_format, **kw):
        p = [padding] * (2 * n) if isinstance(padding, int) else padding
        return F.pad(x, p, mode, kw.get("value", 0.0), data_format)
    params = [("padding", _REQ)]
    if value is not None:
        params.append(("value", value))
    params.append(("data_format", {1: "NCL", 2: "NCHW", 3: "NCDHW"}[n]))
    return fn, params


def _padding_shown(n, mode):
    """Paddle's repr of a padding layer: the padding as a list of ``2 * n`` sizes."""
    def show(a):
        p = a["padding"]
        p = [p] * (2 * n) if isinstance(p, int) else list(p)
        return (f"padding={p}, mode={a.get('mode', mode)}, value={a.get('value', 0.0)}, "
                f"data_format={a['data_format']}")
    return show


def _pad_class(name, n, mode, value=None):
    fn, params = _pad(n, mode, value)
    return layer(name, fn, params, doc=f"``paddle.nn.{name}``: {mode} padding of {n} "
                                       f"spatial axes.", shown=_padding_shown(n, mode))


ZeroPad1D = _pad_class("ZeroPad1D", 1, "constant")
ZeroPad2D = _pad_class("ZeroPad2D", 2, "constant")
ZeroPad3D = _pad_class("ZeroPad3D", 3, "constant")
ConstantPad1D = _pad_class("ConstantPad1D", 1, "constant", 0.0)
ConstantPad2D = _pad_class("ConstantPad2D", 2, "constant", 0.0)
ConstantPad3D = _pad_class("ConstantPad3D", 3, "constant", 0.0)
ReflectionPad1D = _pad_class("ReflectionPad1D", 1, "reflect")
ReflectionPad2D = _pad_class("ReflectionPad2D", 2, "reflect")
ReflectionPad3D = _pad_class("ReflectionPad3D", 3, "reflect")
ReplicationPad1D = _pad_class("ReplicationPad1D", 1, "replicate")
ReplicationPad2D = _pad_class("ReplicationPad2D", 2, "replicate")
ReplicationPad3D = _pad_class("ReplicationPad3D", 3, "replicate")
CircularPad1D = _pad_class("CircularPad1D", 1, "circular")
CircularPad2D = _pad_class("CircularPad2D", 2, "circular")
CircularPad3D = _pad_class("CircularPad3D", 3, "circular")


def _pad_any(x, padding, mode, value, data_format):
    n = x.ndim - 2
    p = [padding] * (2 * n) if isinstance(padding, int) else padding
    return F.pad(x, p, mode, value, data_format)


Pad1D = layer("Pad1D", _pad_any, [("padding", _REQ), ("mode", "constant"), ("value", 0.0),
                                  ("data_format", "NCL")], shown=_padding_shown(1, None))
Pad2D = layer("Pad2D", _pad_any, [("padding", _REQ), ("mode", "constant"), ("value", 0.0),
                                  ("data_format", "NCHW")], shown=_padding_shown(2, None))
Pad3D = layer("Pad3D", _pad_any, [("padding", _REQ), ("mode", "constant"), ("value", 0.0),
                                  ("data_format", "NCDHW")], shown=_padding_shown(3, None))


def _unflatten(x, axis, shape):
    axis %= x.ndim
    return x.reshape(list(x.shape[:axis]) + list(shape) + list(x.shape[axis + 1:]))


Unflatten = layer("Unflatten", _unflatten, [("axis", _REQ), ("shape", _REQ)])

# ---- losses --------------------------------------------------------------------------------
KLDivLoss = _loss("KLDivLoss", F.kl_div, _RED + [("log_target", False)])
MarginRankingLoss = _loss("MarginRankingLoss", F.margin_ranking_loss,
                          [("margin", 0.0)] + _RED)
HingeEmbeddingLoss = _loss("HingeEmbeddingLoss", F.hinge_embedding_loss,
                           [("margin", 1.0)] + _RED)
SoftMarginLoss = _loss("SoftMarginLoss", F.soft_margin_loss, _RED)
CosineEmbeddingLoss = _loss("CosineEmbeddingLoss", F.cosine_embedding_loss,
                            [("margin", 0)] + _RED)
TripletMarginLoss = _loss("TripletMarginLoss", F.triplet_margin_loss,
                          [("margin", 1.0), ("p", 2.0), ("epsilon", 1e-6), ("swap", False)]
                          + _RED)
PoissonNLLLoss = _loss("PoissonNLLLoss", F.poisson_nll_loss,
                       [("log_input", True), ("full", False), ("epsilon", 1e-8)] + _RED)
GaussianNLLLoss = _loss("GaussianNLLLoss", F.gaussian_nll_loss,
                        [("full", False), ("epsilon", 1e-6)] + _RED)
MultiLabelSoftMarginLoss = _loss("MultiLabelSoftMarginLoss", F.multi_label_soft_margin_loss,
                                 [("weight", None)] + _RED)


# ---- layers with parameters ----------------------------------------------------------------
class PReLU(Layer):
    """``max(0, x) + w * min(0, x)``; ``num_parameters`` slopes (1, or one per channel)
    starting at ``init``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        self.num_parameters, self.init, self.data_format = num_parameters, init, data_format
        # Paddle's name for the slopes (its state_dict key)
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=I.Constant(init))
        if self._weight is None:
            self._weight = full([num_parameters], init)

    weight = property(lambda self: self._weight)

    def forward(self, x):
        return F.prelu(x, self._weight, self.data_format)

    def extra_repr(self):
        return (f"num_parameters={self.num_parameters}, data_format={self.data_format}, "
                f"init={self.init}, dtype={self._weight.dtype.name}")


class _InstanceNorm(Layer):
    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format=None, name=None):
        super().__init__()
        self.num_features, self.epsilon, self.data_format = num_features, epsilon, data_format
        self.scale = self.create_parameter([num_features], weight_attr,
                                           default_initializer=I.Constant(1.0))
        self.bias = self.create_parameter([num_features], bias_attr, is_bias=True)

    def forward(self, x):
        return F._channels_first(F.instance_norm, x, self.data_format, weight=self.scale,
                                bias=self.bias, eps=self.epsilon)

    def extra_repr(self):
        return f"num_features={self.num_features}, epsilon={self.epsilon}"


class InstanceNorm1D(_InstanceNorm):
    """Normalise each channel of each sample over its length (N, C, L)."""


class InstanceNorm2D(_InstanceNorm):
    """Normalise each channel of each sample over its height and width (N, C, H, W)."""


class InstanceNorm3D(_InstanceNorm):
    """Normalise each channel of each sample over its three spatial axes."""


LPPool1D = layer("LPPool1D", F.lp_pool1d, [("norm_type", _REQ), ("kernel_size", _REQ),
                                           ("stride", None), ("padding", 0),
                                           ("ceil_mode", False), ("data_format", "NCL")],
                 shown=lambda a: f"norm_type={float(a['norm_type'])}, "
                                 f"kernel_size={a['kernel_size']}, stride={a['stride']}, "
                                 f"padding={a['padding']}")
# (Paddle shows the 2-D pool's missing stride as the kernel size, the 1-D one's as None)
LPPool2D = layer("LPPool2D", F.lp_pool2d, [("norm_type", _REQ), ("kernel_size", _REQ),
                                           ("stride", None), ("padding", 0),
                                           ("ceil_mode", False), ("data_format", "NCHW")],
                 shown=lambda a: f"norm_type={float(a['norm_type'])}, "
                                 f"kernel_size={a['kernel_size']}, "
                                 f"stride={a['stride'] or a['kernel_size']}, "
                                 f"padding={a['padding']}")
AdaptiveMaxPool1D = layer("AdaptiveMaxPool1D", F.adaptive_max_pool1d,
                          [("output_size", _REQ), ("return_mask", False)])
AdaptiveMaxPool2D = layer("AdaptiveMaxPool2D", F.adaptive_max_pool2d,
                          [("output_size", _REQ), ("return_mask", False)])
AdaptiveMaxPool3D = layer("AdaptiveMaxPool3D", F.adaptive_max_pool3d,
                          [("output_size", _REQ), ("return_mask", False)])
AlphaDropout = layer("AlphaDropout", F.alpha_dropout, [("p", 0.5)])
FeatureAlphaDropout = layer("FeatureAlphaDropout", F.feature_alpha_dropout, [("p", 0.5)])
LocalResponseNorm = layer("LocalResponseNorm", F.local_response_norm,
                          [("size", _REQ), ("alpha", 1e-4), ("beta", 0.75), ("k", 1.0),
                           ("data_format", "NCHW")],
                          shown=_with_format("size", "alpha", "beta", "k"))
MultiMarginLoss = _loss("MultiMarginLoss", F.multi_margin_loss,
                        [("p", 1), ("margin", 1.0), ("weight", None)] + _RED)
MultiLabelMarginLoss = _loss("MultiLabelMarginLoss", F.multi_label_margin_loss, _RED)
TripletMarginWithDistanceLoss = _loss(
    "TripletMarginWithDistanceLoss", F.triplet_margin_with_distance_loss,
    [("distance_function", None), ("margin", 1.0), ("swap", False)] + _RED)


class Bilinear(Layer):
    """``out = x1 @ weight[o] @ x2 + bias`` with ``weight`` [out, in1, in2] and ``bias``
    [1, out] (Paddle's layout); Xavier-uniform weight and zero bias by default."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._sizes = (in1_features, in2_features, out_features)
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr)
        self._create_bias([1, out_features], bias_attr)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        in1, in2, out = self._sizes
        return (f"in1_features={in1}, in2_features={in2}, out_features={out}, "
                f"dtype={self.weight.dtype.name}")


class ParameterDict(_nn.ParameterDict, Layer):
    """``mutograd.nn.ParameterDict`` with Paddle's differences: values must be Parameters
    already, a plain dict is added in its own order (PyTorch sorts it by key), and the repr
    lists no entries.

        >>> import mutograd.compat.paddle as paddle
        >>> d = paddle.nn.ParameterDict({"b": paddle.create_parameter([2], "float32"),
        ...                              "a": paddle.create_parameter([3], "float32")})
        >>> list(d.keys()), len(d.parameters())
        (['b', 'a'], 2)
    """

    def __setitem__(self, key, param):
        self.register_parameter(key, param)

    def update(self, parameters):
        if hasattr(parameters, "items") and not isinstance(parameters, _nn.ParameterDict):
            parameters = list(parameters.items())
        super().update(parameters)

    def extra_repr(self):
        return ""




def _fold_shown(a):
    return (f"kernel_size={a['kernel_sizes']}, dilation={a['dilations']}, "
            f"padding={a['paddings']}, stride={a['strides']}")


# (the layers take dilations, paddings, strides in this order; the functions the reverse)
Unfold = layer("Unfold", F.unfold, [("kernel_sizes", _REQ), ("dilations", 1), ("paddings", 0),
                                    ("strides", 1)], shown=_fold_shown)
Fold = layer("Fold", F.fold, [("output_sizes", _REQ), ("kernel_sizes", _REQ), ("dilations", 1),
                              ("paddings", 0), ("strides", 1)], shown=_fold_shown)
MaxUnPool1D = layer("MaxUnPool1D", F.max_unpool1d,
                    [("kernel_size", _REQ), ("stride", None), ("padding", 0),
                     ("data_format", "NCL"), ("output_size", None)], shown=("output_size",))
MaxUnPool2D = layer("MaxUnPool2D", F.max_unpool2d,
                    [("kernel_size", _REQ), ("stride", None), ("padding", 0),
                     ("data_format", "NCHW"), ("output_size", None)], shown=("output_size",))
FractionalMaxPool2D = layer("FractionalMaxPool2D", F.fractional_max_pool2d,
                            [("output_size", _REQ), ("kernel_size", None), ("random_u", None),
                             ("return_mask", False)], shown=("output_size", "return_mask"))
MaxUnPool3D = layer("MaxUnPool3D", F.max_unpool3d,
                    [("kernel_size", _REQ), ("stride", None), ("padding", 0),
                     ("data_format", "NCDHW"), ("output_size", None)], shown=("output_size",))
FractionalMaxPool3D = layer("FractionalMaxPool3D", F.fractional_max_pool3d,
                            [("output_size", _REQ), ("kernel_size", None), ("random_u", None),
                             ("return_mask", False)], shown=("output_size", "return_mask"))
