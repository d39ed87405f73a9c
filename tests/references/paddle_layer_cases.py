"""``paddle.nn`` layer cases recorded from Paddle 3.3.1 (paddle_layer_reference.py) and replayed
on ``mutograd.compat.paddle.nn`` (tests/compat/test_paddle_layers_reference.py).

Each case is written once for both libraries: ``make(lib)`` builds the layer, ``inputs`` lists
how to make its positional inputs (from a generator seeded by the case's key), and
:meth:`LayerCase.run` records, in this order:

- ``state_names`` and ``state/<name>``: the ``state_dict`` right after construction (Paddle's
  values come from ``paddle.seed(0)``); the replay then loads Paddle's values into ours
  (``run(lib, state)``), so everything after is comparable element-wise;
- ``repr``: ``str(layer)`` (Paddle's ``extra_repr``);
- ``train<i>``: the outputs in train mode; ``grad_in<i>`` and ``grad/<param>``: the gradients of
  ``sum(out * w)`` for fixed ``w``; ``after/<name>``: the state after that step (running
  statistics); ``eval<i>``: the outputs in eval mode;
- ``error`` / ``error_stage``: an exception (``init``, ``forward`` or ``eval``); nothing after it.

For the random layers (``random=True``: dropout-like) the train outputs and gradients are
recorded as shapes only.
"""
import numpy as np


class LayerCase:
    def __init__(self, key, make, inputs, random=False, tol=(1e-5, 1e-5)):
        self.key, self.make, self.inputs = key, make, inputs
        self.random, self.tol = random, tol

    def run(self, lib, state=None):
        values = {}
        stage = "init"
        try:
            layer = self.make(lib)
            sd = layer.state_dict()
            values["state_names"] = list(sd)
            for name, v in sd.items():       # a copy: the forward pass updates buffers
                values[f"state/{name}"] = np.array(v.numpy())
            if state is not None:
                layer.set_state_dict(state)
            values["repr"] = str(layer)
            if self.inputs is None:           # a container: no forward
                return values
            stage = "forward"
            layer.train()
            xs = _make_inputs(lib, self.key, self.inputs)
            outs = _tensors(layer(*xs))
            _record_outputs(values, "train", outs, self.random)
            _record_gradients(lib, values, layer, xs, outs, self.random)
            for name, v in layer.state_dict().items():
                values[f"after/{name}"] = v
            stage = "eval"
            layer.eval()
            with lib.no_grad():
                outs = _tensors(layer(*_make_inputs(lib, self.key, self.inputs)))
            _record_outputs(values, "eval", outs, False)
        except Exception as e:  # noqa: BLE001 - recorded: the replay checks ours raises too
            values["error"] = e
            values["error_stage"] = stage
        return values


def _make_inputs(lib, key, specs):
    rng = np.random.default_rng(sum(map(ord, key)))
    return [_make_input(lib, rng, s) for s in specs]


def _make_input(lib, rng, spec):
    """``("x", shape)`` floats in [-2, 2) and ``("pos", shape)`` in [0.1, 0.9), both needing a
    gradient; ``("label", shape, n)`` int64 in [0, n); ``("sign", shape)`` floats +-1;
    ``("bits", shape)`` floats 0/1; ``("const", array)``; ``("tuple", [specs])``; ``("none",)``
    None (an optional argument left out before a later one)."""
    kind = spec[0]
    if kind == "none":
        return None
    if kind == "tuple":
        return tuple(_make_input(lib, rng, s) for s in spec[1])
    if kind == "const":
        return lib.to_tensor(spec[1])
    if kind == "label":
        return lib.to_tensor(rng.integers(0, spec[2], spec[1]).astype("int64"))
    if kind == "sign":
        return lib.to_tensor(np.where(rng.uniform(size=spec[1]) < 0.5, -1.0, 1.0)
                             .astype("float32"))
    if kind == "bits":
        return lib.to_tensor((rng.uniform(size=spec[1]) < 0.5).astype("float32"))
    lo, hi = {"x": (-2.0, 2.0), "pos": (0.1, 0.9)}[kind]
    return lib.to_tensor(rng.uniform(lo, hi, spec[1]).astype("float32"), stop_gradient=False)


def _tensors(out):
    """The tensors of a (nested) output, in order."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return [] if out is None else [out]


def _is_float(t):
    return "float" in str(t.dtype)


def _record_outputs(values, mode, outs, shapes_only):
    for i, o in enumerate(outs):
        if shapes_only and _is_float(o):
            values[f"{mode}{i}_shape"] = list(o.shape)
        else:
            values[f"{mode}{i}"] = o


def _record_gradients(lib, values, layer, xs, outs, shapes_only):
    outs = [o for o in outs if _is_float(o) and not o.stop_gradient]
    if not outs:
        return
    rng = np.random.default_rng(1)
    loss = sum((o * lib.to_tensor(rng.standard_normal(o.shape).astype("float32"))).sum()
               for o in outs)
    loss.backward()
    leaves = [x for x in xs for x in (x if isinstance(x, tuple) else [x]) if x is not None]
    named = [(f"grad_in{i}", x.grad) for i, x in enumerate(leaves) if not x.stop_gradient]
    named += [(f"grad/{n}", p.grad) for n, p in layer.named_parameters()]
    for name, g in named:
        if g is None:
            values[name] = "None"
        elif shapes_only:
            values[name + "_shape"] = list(g.shape)
        else:
            values[name] = g


# ---- the cases -------------------------------------------------------------------------------
CASES = []


def add(key, make, inputs, **kw):
    CASES.append(LayerCase(key, make, inputs, **kw))


X = [("x", [2, 3, 4])]
IMG = [("x", [2, 3, 4, 4])]
IMG_NHWC = [("x", [2, 4, 4, 3])]
SEQ = [("x", [2, 3, 7])]
VOL = [("x", [1, 2, 3, 3, 3])]


def _w(*shape):
    """Fixed positive class weights."""
    return np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape).astype("float32")


# activations
for key, make in [
        ("CELU", lambda L: L.nn.CELU()), ("CELU_alpha", lambda L: L.nn.CELU(alpha=0.5)),
        ("ELU", lambda L: L.nn.ELU()), ("ELU_alpha", lambda L: L.nn.ELU(alpha=0.3)),
        ("GELU", lambda L: L.nn.GELU()), ("GELU_tanh", lambda L: L.nn.GELU(approximate=True)),
        ("GLU", lambda L: L.nn.GLU()), ("Hardshrink", lambda L: L.nn.Hardshrink()),
        ("Hardshrink_1", lambda L: L.nn.Hardshrink(threshold=1.0)),
        ("Hardsigmoid", lambda L: L.nn.Hardsigmoid()), ("Hardswish", lambda L: L.nn.Hardswish()),
        ("Hardtanh", lambda L: L.nn.Hardtanh()),
        ("Hardtanh_range", lambda L: L.nn.Hardtanh(min=-0.5, max=1.5)),
        ("LeakyReLU", lambda L: L.nn.LeakyReLU()),
        ("LeakyReLU_slope", lambda L: L.nn.LeakyReLU(negative_slope=0.2)),
        ("LogSigmoid", lambda L: L.nn.LogSigmoid()), ("LogSoftmax", lambda L: L.nn.LogSoftmax()),
        ("LogSoftmax_axis1", lambda L: L.nn.LogSoftmax(axis=1)), ("Mish", lambda L: L.nn.Mish()),
        ("ReLU", lambda L: L.nn.ReLU()), ("ReLU6", lambda L: L.nn.ReLU6()),
        ("SELU", lambda L: L.nn.SELU()),
        ("SELU_args", lambda L: L.nn.SELU(scale=1.5, alpha=2.0)),
        ("Sigmoid", lambda L: L.nn.Sigmoid()), ("Silu", lambda L: L.nn.Silu()),
        ("Softmax", lambda L: L.nn.Softmax()), ("Softmax_axis0", lambda L: L.nn.Softmax(axis=0)),
        ("Softplus", lambda L: L.nn.Softplus()),
        ("Softplus_args", lambda L: L.nn.Softplus(beta=2, threshold=1)),
        ("Softshrink", lambda L: L.nn.Softshrink()),
        ("Softshrink_1", lambda L: L.nn.Softshrink(threshold=1.0)),
        ("Softsign", lambda L: L.nn.Softsign()), ("Swish", lambda L: L.nn.Swish()),
        ("Tanh", lambda L: L.nn.Tanh()), ("Tanhshrink", lambda L: L.nn.Tanhshrink()),
        ("ThresholdedReLU", lambda L: L.nn.ThresholdedReLU()),
        ("ThresholdedReLU_args", lambda L: L.nn.ThresholdedReLU(threshold=0.5, value=0.1)),
        ("Identity", lambda L: L.nn.Identity()), ("Flatten", lambda L: L.nn.Flatten()),
        ("Flatten_0_1", lambda L: L.nn.Flatten(0, 1)),
        ("Unflatten", lambda L: L.nn.Unflatten(2, [2, 2]))]:
    add(key, make, X)
add("GLU_axis1", lambda L: L.nn.GLU(axis=1), [("x", [2, 4, 3])])
add("Maxout", lambda L: L.nn.Maxout(groups=2), [("x", [2, 4, 3, 3])])
add("Maxout_last", lambda L: L.nn.Maxout(groups=2, axis=-1), [("x", [2, 3, 3, 4])])
add("PReLU", lambda L: L.nn.PReLU(), IMG)
add("PReLU_channels", lambda L: L.nn.PReLU(3, init=0.1), IMG)
add("PReLU_NHWC", lambda L: L.nn.PReLU(3, data_format="NHWC"), IMG_NHWC)
add("Softmax2D", lambda L: L.nn.Softmax2D(), IMG)
add("RReLU", lambda L: L.nn.RReLU(), X, random=True)
add("RReLU_args", lambda L: L.nn.RReLU(0.1, 0.3), X, random=True)

# dropout
add("Dropout", lambda L: L.nn.Dropout(0.5), X, random=True)
add("Dropout_downscale", lambda L: L.nn.Dropout(0.3, mode="downscale_in_infer"), X, random=True)
add("Dropout_axis", lambda L: L.nn.Dropout(0.5, axis=1), X, random=True)
add("Dropout2D", lambda L: L.nn.Dropout2D(0.5), IMG, random=True)
add("Dropout2D_NHWC", lambda L: L.nn.Dropout2D(0.5, data_format="NHWC"), IMG_NHWC, random=True)
add("Dropout3D", lambda L: L.nn.Dropout3D(0.5), VOL, random=True)
add("AlphaDropout", lambda L: L.nn.AlphaDropout(0.3), X, random=True)
add("FeatureAlphaDropout", lambda L: L.nn.FeatureAlphaDropout(0.3), IMG, random=True)

# linear and embedding
add("Linear", lambda L: L.nn.Linear(4, 3), [("x", [2, 4])])
add("Linear_no_bias", lambda L: L.nn.Linear(4, 3, bias_attr=False), [("x", [2, 5, 4])])
add("Linear_no_weight", lambda L: L.nn.Linear(4, 3, weight_attr=False), [("x", [2, 4])])
add("Bilinear", lambda L: L.nn.Bilinear(3, 4, 2), [("x", [5, 3]), ("x", [5, 4])])
add("Bilinear_no_bias", lambda L: L.nn.Bilinear(3, 4, 2, bias_attr=False),
    [("x", [5, 3]), ("x", [5, 4])])
add("Embedding", lambda L: L.nn.Embedding(10, 4), [("label", [2, 3], 10)])
add("Embedding_padding", lambda L: L.nn.Embedding(6, 3, padding_idx=2),
    [("const", np.array([[0, 2, 5], [2, 1, 1]], "int64"))])
add("Embedding_max_norm", lambda L: L.nn.Embedding(6, 3, max_norm=0.5),
    [("const", np.array([[0, 2, 5], [2, 1, 1]], "int64"))])

# convolutions
add("Conv1D", lambda L: L.nn.Conv1D(3, 4, 3), SEQ)
add("Conv1D_stride_same", lambda L: L.nn.Conv1D(3, 4, 3, stride=2, padding="same"), SEQ)
add("Conv1D_groups_NLC", lambda L: L.nn.Conv1D(4, 4, 3, padding=1, groups=2, bias_attr=False,
                                               data_format="NLC"), [("x", [2, 7, 4])])
add("Conv1D_reflect", lambda L: L.nn.Conv1D(3, 2, 3, padding=1, padding_mode="reflect"), SEQ)
add("Conv2D", lambda L: L.nn.Conv2D(3, 4, 3), [("x", [2, 3, 6, 6])])
add("Conv2D_stride_pad", lambda L: L.nn.Conv2D(3, 4, (3, 2), stride=2, padding=[1, 0],
                                               bias_attr=False), [("x", [2, 3, 6, 6])])
add("Conv2D_groups_NHWC", lambda L: L.nn.Conv2D(4, 4, 3, padding="SAME", groups=2,
                                                data_format="NHWC"), [("x", [2, 5, 5, 4])])
add("Conv2D_pad4", lambda L: L.nn.Conv2D(3, 2, 3, padding=[1, 0, 2, 1]), [("x", [1, 3, 5, 5])])
add("Conv2D_valid_dilation", lambda L: L.nn.Conv2D(3, 2, 3, padding="VALID", dilation=2),
    [("x", [1, 3, 7, 7])])
add("Conv2D_circular", lambda L: L.nn.Conv2D(3, 2, 3, padding=1, padding_mode="circular"),
    [("x", [1, 3, 5, 5])])
add("Conv1DTranspose", lambda L: L.nn.Conv1DTranspose(3, 2, 3), [("x", [2, 3, 5])])
add("Conv1DTranspose_stride", lambda L: L.nn.Conv1DTranspose(
    4, 2, 3, stride=2, padding=1, output_padding=1, groups=2), [("x", [2, 4, 5])])
add("Conv1DTranspose_NLC", lambda L: L.nn.Conv1DTranspose(3, 2, 3, bias_attr=False,
                                                          data_format="NLC"), [("x", [2, 5, 3])])
add("Conv2DTranspose", lambda L: L.nn.Conv2DTranspose(3, 2, 3), [("x", [2, 3, 4, 4])])
add("Conv2DTranspose_stride", lambda L: L.nn.Conv2DTranspose(
    3, 2, 3, stride=2, padding=1, output_padding=1, bias_attr=False), [("x", [2, 3, 4, 4])])
add("Conv2DTranspose_NHWC", lambda L: L.nn.Conv2DTranspose(3, 4, 2, stride=2, groups=1,
                                                           data_format="NHWC"),
    [("x", [2, 3, 3, 3])])

# normalisation
add("BatchNorm1D", lambda L: L.nn.BatchNorm1D(3), [("x", [4, 3, 5])])
add("BatchNorm1D_2d_input", lambda L: L.nn.BatchNorm1D(3, momentum=0.5, weight_attr=False,
                                                       bias_attr=False), [("x", [4, 3])])
add("BatchNorm1D_NLC", lambda L: L.nn.BatchNorm1D(3, data_format="NLC"), [("x", [4, 5, 3])])
add("BatchNorm2D", lambda L: L.nn.BatchNorm2D(3), IMG)
add("BatchNorm2D_NHWC", lambda L: L.nn.BatchNorm2D(3, momentum=0.8, epsilon=1e-3,
                                                   data_format="NHWC"), IMG_NHWC)
add("BatchNorm2D_global_stats", lambda L: L.nn.BatchNorm2D(3, use_global_stats=True), IMG)
add("BatchNorm", lambda L: L.nn.BatchNorm(3), IMG)
add("BatchNorm_act", lambda L: L.nn.BatchNorm(3, act="relu"), IMG)
add("BatchNorm_2d_input", lambda L: L.nn.BatchNorm(3, momentum=0.5), [("x", [4, 3])])
add("BatchNorm_3d_input_global_stats", lambda L: L.nn.BatchNorm(3, use_global_stats=True),
    [("x", [4, 3, 5])])
add("LayerNorm", lambda L: L.nn.LayerNorm(4), X)
add("LayerNorm_2d", lambda L: L.nn.LayerNorm([3, 4], epsilon=1e-3), X)
add("LayerNorm_no_affine", lambda L: L.nn.LayerNorm(4, weight_attr=False, bias_attr=False), X)
add("GroupNorm", lambda L: L.nn.GroupNorm(2, 4), [("x", [2, 4, 3, 3])])
add("GroupNorm_NHWC", lambda L: L.nn.GroupNorm(2, 4, data_format="NHWC"), [("x", [2, 3, 3, 4])])
add("GroupNorm_no_affine", lambda L: L.nn.GroupNorm(2, 4, weight_attr=False, bias_attr=False),
    [("x", [2, 4, 5])])
add("InstanceNorm1D", lambda L: L.nn.InstanceNorm1D(3), SEQ)
add("InstanceNorm2D", lambda L: L.nn.InstanceNorm2D(3, weight_attr=False, bias_attr=False), IMG)
add("InstanceNorm3D", lambda L: L.nn.InstanceNorm3D(2, epsilon=1e-3), VOL)
add("LocalResponseNorm", lambda L: L.nn.LocalResponseNorm(3), [("x", [2, 5, 3, 3])])
add("LocalResponseNorm_NHWC", lambda L: L.nn.LocalResponseNorm(3, alpha=0.1, k=2.0,
                                                               data_format="NHWC"),
    [("x", [2, 3, 3, 5])])

# pooling
add("AvgPool1D", lambda L: L.nn.AvgPool1D(2), SEQ)
add("AvgPool1D_pad", lambda L: L.nn.AvgPool1D(3, stride=2, padding=1, exclusive=False,
                                              ceil_mode=True), SEQ)
add("AvgPool2D", lambda L: L.nn.AvgPool2D(2), [("x", [2, 3, 5, 5])])
add("AvgPool2D_pad", lambda L: L.nn.AvgPool2D(3, stride=2, padding=1, ceil_mode=True,
                                              exclusive=False), [("x", [2, 3, 6, 6])])
add("AvgPool2D_divisor", lambda L: L.nn.AvgPool2D(2, padding=1, divisor_override=3),
    [("x", [1, 2, 4, 4])])
add("AvgPool2D_NHWC", lambda L: L.nn.AvgPool2D(2, data_format="NHWC"), IMG_NHWC)
add("MaxPool1D", lambda L: L.nn.MaxPool1D(2), SEQ)
add("MaxPool1D_mask", lambda L: L.nn.MaxPool1D(3, 2, 1, return_mask=True, ceil_mode=True), SEQ)
add("MaxPool2D", lambda L: L.nn.MaxPool2D(2), [("x", [2, 3, 5, 5])])
add("MaxPool2D_ceil", lambda L: L.nn.MaxPool2D(3, 2, 1, ceil_mode=True), [("x", [2, 3, 6, 6])])
add("MaxPool2D_mask", lambda L: L.nn.MaxPool2D(2, return_mask=True), IMG)
add("MaxPool2D_same", lambda L: L.nn.MaxPool2D(3, 2, padding="SAME"), [("x", [1, 2, 5, 5])])
add("AvgPool2D_valid", lambda L: L.nn.AvgPool2D(3, 2, padding="VALID"), [("x", [1, 2, 6, 6])])
add("MaxPool2D_NHWC", lambda L: L.nn.MaxPool2D(2, data_format="NHWC"), IMG_NHWC)
add("AdaptiveAvgPool1D", lambda L: L.nn.AdaptiveAvgPool1D(3), SEQ)
add("AdaptiveAvgPool2D", lambda L: L.nn.AdaptiveAvgPool2D(3), [("x", [2, 3, 7, 7])])
add("AdaptiveAvgPool2D_NHWC", lambda L: L.nn.AdaptiveAvgPool2D([2, 3], data_format="NHWC"),
    [("x", [2, 5, 7, 3])])
add("AdaptiveMaxPool1D", lambda L: L.nn.AdaptiveMaxPool1D(3), SEQ)
add("AdaptiveMaxPool1D_mask", lambda L: L.nn.AdaptiveMaxPool1D(3, return_mask=True), SEQ)
add("AdaptiveMaxPool2D", lambda L: L.nn.AdaptiveMaxPool2D([3, 2]), [("x", [2, 3, 7, 7])])
add("AdaptiveMaxPool2D_mask", lambda L: L.nn.AdaptiveMaxPool2D(2, return_mask=True), IMG)
add("LPPool1D", lambda L: L.nn.LPPool1D(2, 3), [("pos", [2, 3, 7])])
add("LPPool1D_stride", lambda L: L.nn.LPPool1D(1, 2, stride=1), [("pos", [2, 3, 7])])
add("LPPool2D", lambda L: L.nn.LPPool2D(2, 2), [("pos", [2, 3, 5, 5])])
add("LPPool2D_ceil_NHWC", lambda L: L.nn.LPPool2D(3, 2, ceil_mode=True, data_format="NHWC"),
    [("pos", [2, 5, 5, 3])])

# shapes and resampling
add("Fold", lambda L: L.nn.Fold(output_sizes=[4, 5], kernel_sizes=2), [("x", [2, 12, 12])])
add("Fold_stride", lambda L: L.nn.Fold([5, 5], 3, strides=2, paddings=1), [("x", [1, 18, 9])])
add("Unfold", lambda L: L.nn.Unfold(2), IMG)
add("Unfold_args", lambda L: L.nn.Unfold([2, 3], strides=2, paddings=1, dilations=1), IMG)
add("PixelShuffle", lambda L: L.nn.PixelShuffle(2), [("x", [2, 8, 3, 3])])
add("PixelShuffle_NHWC", lambda L: L.nn.PixelShuffle(2, data_format="NHWC"),
    [("x", [2, 3, 3, 8])])
add("PixelUnshuffle", lambda L: L.nn.PixelUnshuffle(2), [("x", [2, 2, 4, 4])])
add("ChannelShuffle", lambda L: L.nn.ChannelShuffle(2), [("x", [2, 4, 3, 3])])
add("ChannelShuffle_NHWC", lambda L: L.nn.ChannelShuffle(2, data_format="NHWC"),
    [("x", [2, 3, 3, 4])])
add("Upsample", lambda L: L.nn.Upsample(scale_factor=2), [("x", [2, 3, 3, 3])])
add("Upsample_bilinear", lambda L: L.nn.Upsample(size=[5, 4], mode="bilinear",
                                                 align_corners=True), [("x", [2, 3, 3, 3])])
add("Upsample_bilinear_mode1", lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear",
                                                       align_mode=1), [("x", [1, 2, 3, 3])])
add("Upsample_linear_NWC", lambda L: L.nn.Upsample(scale_factor=2, mode="linear",
                                                   data_format="NWC"), [("x", [2, 4, 3])])
add("UpsamplingNearest2D", lambda L: L.nn.UpsamplingNearest2D(scale_factor=2),
    [("x", [2, 3, 3, 3])])
add("UpsamplingBilinear2D", lambda L: L.nn.UpsamplingBilinear2D(size=[5, 5]),
    [("x", [2, 3, 3, 3])])

# padding
for name, n, extra in [("ZeroPad", 0, {}), ("ConstantPad", 0, {"value": 1.5}),
                       ("ReflectionPad", 0, {}), ("ReplicationPad", 0, {}),
                       ("CircularPad", 0, {})]:
    for d, shape in [(1, [2, 3, 5]), (2, [1, 2, 4, 4]), (3, [1, 2, 3, 3, 3])]:
        cls = f"{name}{d}D"
        add(cls, lambda L, cls=cls, extra=extra: getattr(L.nn, cls)(1, **extra),
            [("x", shape)])
        pads = [2, 1, 0, 1, 1, 0][:2 * d]
        add(f"{cls}_list", lambda L, cls=cls, extra=extra, pads=pads:
            getattr(L.nn, cls)(pads, **extra), [("x", shape)])
add("ZeroPad2D_NHWC", lambda L: L.nn.ZeroPad2D([1, 0, 2, 1], data_format="NHWC"), IMG_NHWC)
add("Pad1D", lambda L: L.nn.Pad1D([1, 2], mode="reflect"), SEQ)
add("Pad1D_constant", lambda L: L.nn.Pad1D(1, value=2.0), SEQ)
add("Pad2D", lambda L: L.nn.Pad2D([1, 0, 1, 2], mode="replicate"), IMG)
add("Pad2D_circular_NHWC", lambda L: L.nn.Pad2D(1, mode="circular", data_format="NHWC"),
    IMG_NHWC)
add("Pad3D", lambda L: L.nn.Pad3D(1, mode="replicate"), VOL)
add("Pad3D_constant", lambda L: L.nn.Pad3D([1, 0, 0, 1, 1, 1], value=-1.0), VOL)

# distances
add("CosineSimilarity", lambda L: L.nn.CosineSimilarity(), [("x", [3, 4]), ("x", [3, 4])])
add("CosineSimilarity_axis0", lambda L: L.nn.CosineSimilarity(axis=0, eps=1e-4),
    [("x", [3, 4]), ("x", [3, 4])])
add("PairwiseDistance", lambda L: L.nn.PairwiseDistance(), [("x", [3, 4]), ("x", [3, 4])])
add("PairwiseDistance_p1_keepdim", lambda L: L.nn.PairwiseDistance(p=1.0, keepdim=True),
    [("x", [3, 4]), ("x", [3, 4])])

# losses
PAIR = [("x", [3, 4]), ("x", [3, 4])]
for red in ["mean", "sum", "none"]:
    add(f"L1Loss_{red}", lambda L, red=red: L.nn.L1Loss(reduction=red), PAIR)
    add(f"MSELoss_{red}", lambda L, red=red: L.nn.MSELoss(reduction=red), PAIR)
add("SmoothL1Loss", lambda L: L.nn.SmoothL1Loss(), PAIR)
add("SmoothL1Loss_delta", lambda L: L.nn.SmoothL1Loss(reduction="sum", delta=0.5), PAIR)
add("HuberLoss", lambda L: L.nn.HuberLoss(delta=0.5), PAIR)
add("BCELoss", lambda L: L.nn.BCELoss(), [("pos", [3, 4]), ("bits", [3, 4])])
add("BCELoss_weight_sum", lambda L: L.nn.BCELoss(weight=L.to_tensor(_w(4)), reduction="sum"),
    [("pos", [3, 4]), ("bits", [3, 4])])
add("BCEWithLogitsLoss", lambda L: L.nn.BCEWithLogitsLoss(), [("x", [3, 4]), ("bits", [3, 4])])
add("BCEWithLogitsLoss_pos_weight", lambda L: L.nn.BCEWithLogitsLoss(
    pos_weight=L.to_tensor(_w(4)), reduction="none"), [("x", [3, 4]), ("bits", [3, 4])])
LOGITS = [("x", [4, 5]), ("const", np.array([0, 1, 4, 1], "int64"))]
add("CrossEntropyLoss", lambda L: L.nn.CrossEntropyLoss(), LOGITS)
add("CrossEntropyLoss_weight_ignore", lambda L: L.nn.CrossEntropyLoss(
    weight=L.to_tensor(_w(5)), ignore_index=1), LOGITS)
add("CrossEntropyLoss_none", lambda L: L.nn.CrossEntropyLoss(reduction="none"), LOGITS)
add("CrossEntropyLoss_none_smoothing", lambda L: L.nn.CrossEntropyLoss(
    reduction="none", label_smoothing=0.1), LOGITS)
add("CrossEntropyLoss_soft_none", lambda L: L.nn.CrossEntropyLoss(soft_label=True,
                                                                  reduction="none"),
    [("x", [4, 5]), ("const", np.full([4, 5], 0.2, "float32"))])
add("CrossEntropyLoss_soft", lambda L: L.nn.CrossEntropyLoss(soft_label=True),
    [("x", [4, 5]), ("const", np.full([4, 5], 0.2, "float32"))])
add("CrossEntropyLoss_axis1", lambda L: L.nn.CrossEntropyLoss(axis=1, reduction="sum"),
    [("x", [2, 5, 3]), ("label", [2, 1, 3], 5)])
add("NLLLoss", lambda L: L.nn.NLLLoss(), LOGITS)
add("NLLLoss_weight_ignore", lambda L: L.nn.NLLLoss(weight=L.to_tensor(_w(5)), ignore_index=4),
    LOGITS)
add("NLLLoss_none", lambda L: L.nn.NLLLoss(reduction="none"), LOGITS)
add("KLDivLoss", lambda L: L.nn.KLDivLoss(), [("x", [3, 4]), ("pos", [3, 4])])
add("KLDivLoss_batchmean_log", lambda L: L.nn.KLDivLoss("batchmean", log_target=True), PAIR)
add("MarginRankingLoss", lambda L: L.nn.MarginRankingLoss(),
    [("x", [5]), ("x", [5]), ("sign", [5])])
add("MarginRankingLoss_margin", lambda L: L.nn.MarginRankingLoss(0.5, reduction="sum"),
    [("x", [5]), ("x", [5]), ("sign", [5])])
add("HingeEmbeddingLoss", lambda L: L.nn.HingeEmbeddingLoss(), [("x", [3, 4]), ("sign", [3, 4])])
add("HingeEmbeddingLoss_margin", lambda L: L.nn.HingeEmbeddingLoss(0.5, reduction="none"),
    [("x", [3, 4]), ("sign", [3, 4])])
add("SoftMarginLoss", lambda L: L.nn.SoftMarginLoss(), [("x", [3, 4]), ("sign", [3, 4])])
add("CosineEmbeddingLoss", lambda L: L.nn.CosineEmbeddingLoss(),
    [("x", [3, 5]), ("x", [3, 5]), ("sign", [3])])
add("CosineEmbeddingLoss_margin", lambda L: L.nn.CosineEmbeddingLoss(0.2, reduction="none"),
    [("x", [3, 5]), ("x", [3, 5]), ("sign", [3])])
TRIPLE = [("x", [3, 4]), ("x", [3, 4]), ("x", [3, 4])]
add("TripletMarginLoss", lambda L: L.nn.TripletMarginLoss(), TRIPLE)
add("TripletMarginLoss_p1_swap", lambda L: L.nn.TripletMarginLoss(p=1.0, swap=True,
                                                                  reduction="none"), TRIPLE)
add("TripletMarginWithDistanceLoss", lambda L: L.nn.TripletMarginWithDistanceLoss(), TRIPLE)
add("TripletMarginWithDistanceLoss_swap", lambda L: L.nn.TripletMarginWithDistanceLoss(
    margin=0.5, swap=True, reduction="sum"), TRIPLE)
add("PoissonNLLLoss", lambda L: L.nn.PoissonNLLLoss(), [("x", [3, 4]), ("pos", [3, 4])])
add("PoissonNLLLoss_full", lambda L: L.nn.PoissonNLLLoss(log_input=False, full=True),
    [("pos", [3, 4]), ("pos", [3, 4])])
add("GaussianNLLLoss", lambda L: L.nn.GaussianNLLLoss(),
    [("x", [3, 4]), ("x", [3, 4]), ("pos", [3, 4])])
add("GaussianNLLLoss_full_var", lambda L: L.nn.GaussianNLLLoss(full=True, reduction="none"),
    [("x", [3, 4]), ("x", [3, 4]), ("pos", [3, 1])])
add("MultiLabelSoftMarginLoss", lambda L: L.nn.MultiLabelSoftMarginLoss(),
    [("x", [3, 4]), ("bits", [3, 4])])
add("MultiLabelSoftMarginLoss_weight", lambda L: L.nn.MultiLabelSoftMarginLoss(
    weight=L.to_tensor(_w(4)), reduction="none"), [("x", [3, 4]), ("bits", [3, 4])])
add("MultiMarginLoss", lambda L: L.nn.MultiMarginLoss(), [("x", [3, 4]), ("label", [3], 4)])
add("MultiMarginLoss_args", lambda L: L.nn.MultiMarginLoss(p=2, margin=0.5,
                                                           weight=L.to_tensor(_w(4))),
    [("x", [3, 4]), ("label", [3], 4)])
add("MultiLabelMarginLoss", lambda L: L.nn.MultiLabelMarginLoss(),
    [("x", [2, 4]), ("const", np.array([[3, 0, -1, 1], [1, 2, 3, -1]], "int64"))])

# recurrent
RNN_IN = [("x", [2, 3, 4])]
for cls in ["SimpleRNN", "LSTM", "GRU"]:
    add(cls, lambda L, cls=cls: getattr(L.nn, cls)(4, 5), RNN_IN, tol=(1e-4, 1e-5))
    add(f"{cls}_bidirect_2", lambda L, cls=cls: getattr(L.nn, cls)(4, 5, 2, "bidirect"),
        RNN_IN, tol=(1e-4, 1e-5))
    # (bias_ih_attr=False crashes Paddle 3.3.1's fused RNN kernel: a segmentation fault)
    add(f"{cls}_time_major", lambda L, cls=cls: getattr(L.nn, cls)(4, 3, time_major=True),
        [("x", [3, 2, 4])], tol=(1e-4, 1e-5))
add("SimpleRNN_relu", lambda L: L.nn.SimpleRNN(4, 5, activation="relu"), RNN_IN)
add("LSTM_initial_states", lambda L: L.nn.LSTM(4, 5),
    RNN_IN + [("tuple", [("x", [1, 2, 5]), ("x", [1, 2, 5])])], tol=(1e-4, 1e-5))
add("LSTM_proj", lambda L: L.nn.LSTM(4, 5, proj_size=3), RNN_IN, tol=(1e-4, 1e-5))
add("LSTM_proj_bidirect_2", lambda L: L.nn.LSTM(4, 5, 2, "bidirect", proj_size=3), RNN_IN,
    tol=(1e-4, 1e-5))
# padded batches: inputs [N=3, T=4, 4] with lengths 2, 4 and 1 (or 0: a sequence of no steps)
LENGTHS = ("const", np.array([2, 4, 1], "int64"))
PADDED = [("x", [3, 4, 4]), ("none",), LENGTHS]
PADDED_T = [("x", [4, 3, 4]), ("none",), LENGTHS]
for cls in ["SimpleRNN", "LSTM", "GRU"]:
    add(f"{cls}_sequence_length", lambda L, cls=cls: getattr(L.nn, cls)(4, 5), PADDED,
        tol=(1e-4, 1e-5))
    add(f"{cls}_sequence_length_bidirect_2",
        lambda L, cls=cls: getattr(L.nn, cls)(4, 5, 2, "bidirect"), PADDED, tol=(1e-4, 1e-5))
    add(f"{cls}_sequence_length_time_major",
        lambda L, cls=cls: getattr(L.nn, cls)(4, 3, time_major=True), PADDED_T,
        tol=(1e-4, 1e-5))
    add(f"{cls}_sequence_length_bidirect_time_major",
        lambda L, cls=cls: getattr(L.nn, cls)(4, 3, direction="bidirect", time_major=True),
        PADDED_T, tol=(1e-4, 1e-5))
add("LSTM_sequence_length_states_proj",
    lambda L: L.nn.LSTM(4, 5, direction="bidirect", proj_size=3),
    [("x", [3, 4, 4]), ("tuple", [("x", [2, 3, 3]), ("x", [2, 3, 5])]), LENGTHS],
    tol=(1e-4, 1e-5))
add("GRU_sequence_length_empty", lambda L: L.nn.GRU(4, 5, direction="bidirect"),
    [("x", [3, 4, 4]), ("x", [2, 3, 5]), ("const", np.array([0, 4, 2], "int32"))],
    tol=(1e-4, 1e-5))
add("RNN_sequence_length", lambda L: L.nn.RNN(L.nn.LSTMCell(4, 5)), PADDED)
add("RNN_sequence_length_reverse_time_major",
    lambda L: L.nn.RNN(L.nn.SimpleRNNCell(4, 5), is_reverse=True, time_major=True), PADDED_T)
add("BiRNN_sequence_length", lambda L: L.nn.BiRNN(L.nn.GRUCell(4, 3), L.nn.GRUCell(4, 3)),
    PADDED)
add("SimpleRNNCell", lambda L: L.nn.SimpleRNNCell(4, 5), [("x", [2, 4])])
add("SimpleRNNCell_relu_state", lambda L: L.nn.SimpleRNNCell(4, 5, activation="relu"),
    [("x", [2, 4]), ("x", [2, 5])])
add("LSTMCell", lambda L: L.nn.LSTMCell(4, 5), [("x", [2, 4])])
add("LSTMCell_states", lambda L: L.nn.LSTMCell(4, 5, bias_hh_attr=False),
    [("x", [2, 4]), ("tuple", [("x", [2, 5]), ("x", [2, 5])])])
add("GRUCell", lambda L: L.nn.GRUCell(4, 5), [("x", [2, 4])])
add("GRUCell_state", lambda L: L.nn.GRUCell(4, 5), [("x", [2, 4]), ("x", [2, 5])])
add("RNN", lambda L: L.nn.RNN(L.nn.SimpleRNNCell(4, 5)), RNN_IN)
add("RNN_reverse_time_major", lambda L: L.nn.RNN(L.nn.LSTMCell(4, 5), is_reverse=True,
                                                 time_major=True), RNN_IN)
add("BiRNN", lambda L: L.nn.BiRNN(L.nn.GRUCell(4, 3), L.nn.GRUCell(4, 3)), RNN_IN)

# attention
Q = ("x", [2, 3, 8])
KV = ("x", [2, 4, 8])
add("MultiHeadAttention", lambda L: L.nn.MultiHeadAttention(8, 2), [Q])
add("MultiHeadAttention_weights", lambda L: L.nn.MultiHeadAttention(8, 2, need_weights=True),
    [Q, KV, KV])
add("MultiHeadAttention_kdim_mask", lambda L: L.nn.MultiHeadAttention(
    8, 2, kdim=6, vdim=5, bias_attr=False),
    [Q, ("x", [2, 4, 6]), ("x", [2, 4, 5]),
     ("const", np.tril(np.ones([3, 4], bool), 1)[None, None])])
add("MultiHeadAttention_float_mask", lambda L: L.nn.MultiHeadAttention(4, 1),
    [("x", [2, 3, 4]), ("x", [2, 3, 4]), ("x", [2, 3, 4]),
     ("const", np.triu(np.full([3, 3], -1e4, "float32"), 1))])
ENC = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
add("TransformerEncoderLayer", lambda L: L.nn.TransformerEncoderLayer(**ENC), [Q],
    tol=(1e-4, 1e-5))
add("TransformerEncoderLayer_pre_gelu_mask", lambda L: L.nn.TransformerEncoderLayer(
    **ENC, activation="gelu", normalize_before=True),
    [Q, ("const", np.tril(np.ones([3, 3], bool)))], tol=(1e-4, 1e-5))
add("TransformerEncoder", lambda L: L.nn.TransformerEncoder(
    L.nn.TransformerEncoderLayer(**ENC), 2), [Q], tol=(1e-4, 1e-5))
add("TransformerEncoder_norm", lambda L: L.nn.TransformerEncoder(
    L.nn.TransformerEncoderLayer(**ENC, normalize_before=True), 2, norm=L.nn.LayerNorm(8)),
    [Q], tol=(1e-4, 1e-5))
add("TransformerDecoderLayer", lambda L: L.nn.TransformerDecoderLayer(**ENC), [Q, KV],
    tol=(1e-4, 1e-5))
add("TransformerDecoderLayer_pre_mask", lambda L: L.nn.TransformerDecoderLayer(
    **ENC, normalize_before=True), [Q, KV, ("const", np.tril(np.ones([3, 3], bool)))],
    tol=(1e-4, 1e-5))
add("TransformerDecoder", lambda L: L.nn.TransformerDecoder(
    L.nn.TransformerDecoderLayer(**ENC), 2, norm=L.nn.LayerNorm(8)), [Q, KV], tol=(1e-4, 1e-5))
add("Transformer", lambda L: L.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0), [KV, Q],
    tol=(1e-4, 1e-5))
add("Transformer_pre", lambda L: L.nn.Transformer(8, 2, 1, 2, 16, dropout=0.0,
                                                  normalize_before=True), [KV, Q],
    tol=(1e-4, 1e-5))

# containers
add("Sequential", lambda L: L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU(), L.nn.Linear(3, 2)),
    [("x", [2, 4])])
add("Sequential_named", lambda L: L.nn.Sequential(("fc", L.nn.Linear(4, 3)),
                                                  ("act", L.nn.Tanh())), [("x", [2, 4])])
add("LayerList", lambda L: L.nn.LayerList([L.nn.Linear(2, 2), L.nn.ReLU()]), None)
add("LayerDict", lambda L: L.nn.LayerDict({"a": L.nn.Linear(2, 2), "b": L.nn.ReLU()}), None)
add("ParameterList", lambda L: L.nn.ParameterList(
    [L.create_parameter([2, 3], "float32"), L.create_parameter([3], "float32")]), None)
add("ParameterDict", lambda L: L.nn.ParameterDict(
    {"b": L.create_parameter([2], "float32"), "a": L.create_parameter([3], "float32")}), None)
add("Layer", lambda L: L.nn.Layer(), None)

# errors
add("error_MultiHeadAttention_heads", lambda L: L.nn.MultiHeadAttention(8, 3), [Q])
add("error_RNN_direction", lambda L: L.nn.LSTM(4, 5, direction="backward"), RNN_IN)
add("error_Linear_input_size", lambda L: L.nn.Linear(4, 3), [("x", [2, 5])])
add("error_Conv2D_channels", lambda L: L.nn.Conv2D(3, 4, 3), [("x", [2, 2, 6, 6])])
add("error_Conv2D_groups", lambda L: L.nn.Conv2D(3, 4, 3, groups=2), [("x", [2, 3, 6, 6])])
add("error_BatchNorm2D_channels", lambda L: L.nn.BatchNorm2D(4), IMG)
add("error_LayerNorm_shape", lambda L: L.nn.LayerNorm(5), X)
add("error_Embedding_index", lambda L: L.nn.Embedding(4, 3),
    [("const", np.array([[0, 5]], "int64"))])
add("error_Dropout_mode", lambda L: L.nn.Dropout(0.5, mode="scale"), X)
add("error_Dropout_p", lambda L: L.nn.Dropout(1.5), X)
add("error_PixelShuffle_channels", lambda L: L.nn.PixelShuffle(2), [("x", [2, 6, 3, 3])])
add("error_Pad2D_mode", lambda L: L.nn.Pad2D(1, mode="wrap"), IMG)
add("error_Upsample_mode", lambda L: L.nn.Upsample(scale_factor=2, mode="cubic"), IMG)
add("error_CrossEntropyLoss_label", lambda L: L.nn.CrossEntropyLoss(),
    [("x", [4, 5]), ("const", np.array([0, 1, 7, 1], "int64"))])
add("error_GroupNorm_groups", lambda L: L.nn.GroupNorm(3, 4), [("x", [2, 4, 3, 3])])
add("error_MSELoss_shapes", lambda L: L.nn.MSELoss(), [("x", [3, 4]), ("x", [3, 5])])


# ---- unpooling, fractional pooling, adaptive softmax, spectral normalisation ---------------

def _unpool_indices(shape, size, k):
    """Valid max-pool masks (int32) for ``shape`` outputs of ``k`` windows over ``size``: one
    position per window, in a fixed pattern."""
    rng = np.random.default_rng(len(shape))
    out = np.zeros(shape, "int64")
    for pos in np.ndindex(*shape):
        spatial, flat = pos[2:], 0
        for i, n in zip(spatial, size):
            flat = flat * n + i * k + int(rng.integers(0, k))
        out[pos] = flat
    return out.astype("int32")


def _adaptive_softmax(L, **kw):
    layer = L.nn.AdaptiveLogSoftmaxWithLoss(6, 9, [3, 5], div_value=2.0, **kw)
    # the tail weights are a plain list (not in state_dict): set here so both sides agree
    for i, pair in enumerate(layer.tail_weights):
        for j, w in enumerate(pair):
            n = int(np.prod(w.shape))
            w.set_value((np.cos(np.arange(n) * 0.41 + 2 * i + j) * 0.4).reshape(w.shape)
                        .astype("float32"))
    return layer


add("MaxUnPool2D", lambda L: L.nn.MaxUnPool2D(2),
    [("x", [2, 3, 2, 3]), ("const", _unpool_indices([2, 3, 2, 3], [4, 6], 2))])
add("MaxUnPool2D_size", lambda L: L.nn.MaxUnpool2d(2, output_size=[5, 7]),
    [("x", [1, 2, 2, 3]), ("const", _unpool_indices([1, 2, 2, 3], [5, 7], 2))])
add("MaxUnPool2D_nhwc", lambda L: L.nn.MaxUnPool2D(2, data_format="NHWC"),
    [("x", [1, 2, 3, 2]), ("const", np.zeros([1, 2, 3, 2], "int32"))])
add("MaxUnPool1D", lambda L: L.nn.MaxUnPool1D(3, 2, 1),
    [("x", [2, 3, 4]), ("const", _unpool_indices([2, 3, 4], [8], 2))])
add("MaxUnPool1D_alias", lambda L: L.nn.MaxUnpool1d(2),
    [("x", [2, 3, 4]), ("const", _unpool_indices([2, 3, 4], [8], 2))])
add("FractionalMaxPool2D", lambda L: L.nn.FractionalMaxPool2D([3, 4], random_u=0.35),
    [("x", [2, 3, 7, 9])])
add("FractionalMaxPool2D_kernel_mask", lambda L: L.nn.FractionalMaxPool2D(
    3, kernel_size=2, random_u=0.6, return_mask=True), [("x", [2, 3, 6, 5])])
add("FractionalMaxPool2D_bad_u", lambda L: L.nn.FractionalMaxPool2D(3, random_u=1.5), IMG)
add("AdaptiveLogSoftmaxWithLoss", lambda L: _adaptive_softmax(L, head_bias=True),
    [("x", [5, 6]), ("label", [5], 9)])
add("AdaptiveLogSoftmaxWithLoss_no_bias", lambda L: _adaptive_softmax(L),
    [("x", [4, 6]), ("label", [4], 9)])
add("AdaptiveLogSoftmaxWithLoss_bad_cutoffs", lambda L: L.nn.AdaptiveLogSoftmaxWithLoss(
    6, 9, [5, 3]), [("x", [4, 6]), ("label", [4], 9)])
add("SpectralNorm", lambda L: L.nn.SpectralNorm([3, 4], power_iters=2), [("x", [3, 4])])
add("SpectralNorm_dim", lambda L: L.nn.SpectralNorm([2, 3, 4], dim=1), [("x", [2, 3, 4])])
add("SpectralNorm_dim2", lambda L: L.nn.SpectralNorm([2, 3, 4], dim=2), [("x", [2, 3, 4])])

# 3-D convolution, normalisation and pooling
VOL5 = [("x", [2, 2, 5, 4, 5])]
VOL_NDHWC = [("x", [2, 4, 3, 4, 2])]
add("Conv3D", lambda L: L.nn.Conv3D(2, 3, 3), VOL5)
add("Conv3D_stride_same_NDHWC", lambda L: L.nn.Conv3D(2, 4, 3, stride=2, padding="SAME",
                                                      data_format="NDHWC"), VOL_NDHWC)
add("Conv3D_pad6_groups", lambda L: L.nn.Conv3D(2, 4, (2, 3, 2), padding=[1, 0, 0, 1, 1, 1],
                                                groups=2, bias_attr=False), VOL5)
add("Conv3D_no_bias_dilation", lambda L: L.nn.Conv3D(2, 2, 2, dilation=2, bias=False), VOL5)
add("Conv3D_alias", lambda L: L.nn.Conv3d(2, 2, 1, padding="VALID"), VOL)
add("Conv3DTranspose", lambda L: L.nn.Conv3DTranspose(2, 3, 2), VOL)
add("Conv3DTranspose_stride_NDHWC", lambda L: L.nn.Conv3DTranspose(
    2, 4, 3, stride=2, padding=1, output_padding=1, groups=2, data_format="NDHWC"), VOL_NDHWC)
add("BatchNorm3D", lambda L: L.nn.BatchNorm3D(2), VOL5)
add("BatchNorm3D_NDHWC", lambda L: L.nn.BatchNorm3D(2, momentum=0.7, data_format="NDHWC"),
    VOL_NDHWC)
add("BatchNorm3D_global_stats", lambda L: L.nn.BatchNorm3D(2, use_global_stats=True), VOL)
add("MaxPool3D", lambda L: L.nn.MaxPool3D(2), VOL5)
add("MaxPool3D_mask_ceil", lambda L: L.nn.MaxPool3D(3, 2, 1, return_mask=True, ceil_mode=True),
    VOL5)
add("MaxPool3D_same_NDHWC", lambda L: L.nn.MaxPool3D(3, 2, padding="SAME", data_format="NDHWC"),
    VOL_NDHWC)
add("AvgPool3D", lambda L: L.nn.AvgPool3D(2, stride=1), VOL5)
add("AvgPool3D_pad_inclusive", lambda L: L.nn.AvgPool3D(3, 2, padding=1, exclusive=False,
                                                        ceil_mode=True), VOL5)
add("AvgPool3D_pad6_exclusive", lambda L: L.nn.AvgPool3D(2, padding=[0, 1, 1, 0, 1, 1]), VOL5)
add("AvgPool3D_divisor_NDHWC", lambda L: L.nn.AvgPool3D(2, divisor_override=5,
                                                        data_format="NDHWC"), VOL_NDHWC)
add("AdaptiveAvgPool3D", lambda L: L.nn.AdaptiveAvgPool3D([2, 3, 2]), VOL5)
add("AdaptiveAvgPool3D_NDHWC_alias", lambda L: L.nn.AdaptiveAvgPool3d(2, data_format="NDHWC"),
    VOL_NDHWC)
add("AdaptiveMaxPool3D", lambda L: L.nn.AdaptiveMaxPool3D([2, 3, 2]), VOL5)
add("AdaptiveMaxPool3D_mask", lambda L: L.nn.AdaptiveMaxPool3d(2, return_mask=True), VOL5)
add("MaxUnPool3D", lambda L: L.nn.MaxUnPool3D(2),
    [("x", [1, 2, 2, 2, 3]), ("const", _unpool_indices([1, 2, 2, 2, 3], [4, 4, 6], 2))])
add("MaxUnPool3D_size_alias", lambda L: L.nn.MaxUnpool3d(2, output_size=[5, 4, 7]),
    [("x", [1, 2, 2, 2, 3]), ("const", _unpool_indices([1, 2, 2, 2, 3], [5, 4, 7], 2))])
add("FractionalMaxPool3D", lambda L: L.nn.FractionalMaxPool3D([2, 3, 2], random_u=0.35), VOL5)
add("FractionalMaxPool3D_kernel_mask", lambda L: L.nn.FractionalMaxPool3D(
    2, kernel_size=2, random_u=0.6, return_mask=True), VOL5)
