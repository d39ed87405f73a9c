"""``torch.nn.modules``: the torch dialect's layers under PyTorch's file names, so that
``torch.nn.modules.<file>.<Name>`` imports as in PyTorch (``torch.nn.modules.conv.Conv2d``,
``torch.nn.modules.batchnorm._BatchNorm``, ``torch.nn.modules.utils._pair``, ...).

Each ``torch.nn.modules.<file>`` is a module made here from :data:`FILES` (PyTorch's file ->
the names it offers); its classes are the torch dialect's own (``torch.nn.modules.conv.Conv2d
is torch.nn.Conv2d``), and its private base classes the dialect's counterparts of
``mutograd.nn``'s.

    >>> from mutograd.compat.torch.nn.modules.conv import Conv2d, _ConvNd
    >>> import mutograd.compat.torch as torch
    >>> Conv2d is torch.nn.Conv2d and issubclass(Conv2d, _ConvNd)
    True
"""
import importlib
import sys
import types

from ..... import nn as _nn
from .. import _torch_class
from . import utils

# PyTorch 2.13's torch/nn/modules/<file>.py -> what it offers (tests/references records
# PyTorch's own list; the test compares them)
FILES = {
    "activation": "Threshold ReLU RReLU Hardtanh ReLU6 Sigmoid Hardsigmoid Tanh SiLU Mish "
                  "Hardswish ELU CELU SELU GLU GELU Hardshrink LeakyReLU LogSigmoid Softplus "
                  "Softshrink MultiheadAttention PReLU Softsign Tanhshrink Softmin Softmax "
                  "Softmax2d LogSoftmax",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d LazyBatchNorm1d BatchNorm2d LazyBatchNorm2d BatchNorm3d "
                 "LazyBatchNorm3d SyncBatchNorm _NormBase _BatchNorm",
    "channelshuffle": "ChannelShuffle",
    "container": "Container Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d "
            "_ConvNd _ConvTransposeNd _ConvTransposeMixin",
    "distance": "PairwiseDistance CosineSimilarity",
    "dropout": "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout "
               "_DropoutNd",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
                    "LazyInstanceNorm2d LazyInstanceNorm3d _InstanceNorm",
    "lazy": "LazyModuleMixin",
    "linear": "Bilinear Identity LazyLinear Linear NonDynamicallyQuantizableLinear",
    "linear_cross_entropy_options": "LinearCrossEntropyOptions",
    "loss": "L1Loss NLLLoss NLLLoss2d PoissonNLLLoss GaussianNLLLoss KLDivLoss MSELoss BCELoss "
            "BCEWithLogitsLoss HingeEmbeddingLoss MultiLabelMarginLoss SmoothL1Loss HuberLoss "
            "SoftMarginLoss CrossEntropyLoss LinearCrossEntropyLoss MultiLabelSoftMarginLoss "
            "CosineEmbeddingLoss MarginRankingLoss MultiMarginLoss TripletMarginLoss "
            "TripletMarginWithDistanceLoss CTCLoss _Loss _WeightedLoss",
    "module": "Module register_module_forward_pre_hook register_module_forward_hook",
    "normalization": "LocalResponseNorm CrossMapLRN2d LayerNorm GroupNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
               "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
               "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d _CircularPadNd "
               "_ConstantPadNd _ReflectionPadNd _ReplicationPadNd",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d AvgPool1d "
               "AvgPool2d AvgPool3d FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d "
               "LPPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d "
               "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d _MaxPoolNd _MaxUnpoolNd "
               "_AvgPoolNd _LPPoolNd _AdaptiveMaxPoolNd _AdaptiveAvgPoolNd",
    "rnn": "RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
                   "TransformerDecoderLayer",
    "upsampling": "Upsample UpsamplingNearest2d UpsamplingBilinear2d",
    "utils": "consume_prefix_in_state_dict_if_present _ntuple _single _pair _triple _quadruple",
}

# names that are not torch.nn's: mutograd.nn's ``<module>.<name>`` (a class becomes the torch
# dialect's); a PyTorch base that mutograd folds into another names that one
_MUTOGRAD = {
    "_NormBase": "modules.batchnorm._BatchNorm", "_BatchNorm": "modules.batchnorm._BatchNorm",
    "_InstanceNorm": "modules.batchnorm._InstanceNorm",
    "_ConvNd": "modules.conv._ConvNd", "_ConvTransposeNd": "modules.conv._ConvTransposeNd",
    "_ConvTransposeMixin": "modules.conv._ConvTransposeNd",
    "_DropoutNd": "modules.dropout._DropoutNd",
    "LazyModuleMixin": "modules.lazy.LazyModuleMixin",
    "NonDynamicallyQuantizableLinear": "modules.linear.NonDynamicallyQuantizableLinear",
    "LinearCrossEntropyOptions": "modules.loss.LinearCrossEntropyOptions",
    "_Loss": "modules.loss._Loss", "_WeightedLoss": "modules.loss._WeightedLoss",
    "_CircularPadNd": "modules.padding._CircularPadNd",
    "_ConstantPadNd": "modules.padding._ConstantPadNd",
    "_ReflectionPadNd": "modules.padding._ReflectionPadNd",
    "_ReplicationPadNd": "modules.padding._ReplicationPadNd",
    "_MaxPoolNd": "modules.pooling._MaxPoolNd", "_MaxUnpoolNd": "modules.pooling._MaxUnpoolNd",
    "_AvgPoolNd": "modules.pooling._AvgPoolNd", "_LPPoolNd": "modules.pooling._LPPoolNd",
    "_AdaptiveMaxPoolNd": "modules.pooling._AdaptiveMaxPoolNd",
    "_AdaptiveAvgPoolNd": "modules.pooling._AdaptiveAvgPoolNd",
    "register_module_forward_pre_hook": "module.register_module_forward_pre_hook",
    "register_module_forward_hook": "module.register_module_forward_hook",
}


def _resolve(file, name):
    if file == "utils":
        return getattr(utils, name)
    if name in _MUTOGRAD:
        module, _, attr = _MUTOGRAD[name].rpartition(".")
        return _torch_class(getattr(importlib.import_module(f"{_nn.__name__}.{module}"), attr))
    return getattr(sys.modules[__name__.rpartition(".")[0]], name)      # torch.nn.<Name>


def _make(file, names):
    mod = sys.modules.get(f"{__name__}.{file}")
    if mod is None:
        mod = types.ModuleType(f"{__name__}.{file}", f"``torch.nn.modules.{file}``.")
        mod.__package__ = __name__
        sys.modules[mod.__name__] = mod
    mod.__dict__.update({n: _resolve(file, n) for n in names.split()})
    mod.__all__ = [n for n in names.split() if not n.startswith("_")]
    return mod


for _file, _names in FILES.items():
    if _file != "utils":
        globals()[_file] = _make(_file, _names)
        globals().update({n: v for n in globals()[_file].__all__      # torch.nn.modules.Conv2d
                          if isinstance(v := getattr(globals()[_file], n), type)})
