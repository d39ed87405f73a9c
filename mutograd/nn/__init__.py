"""``mutograd.nn``: modules, layers, losses, ``functional`` and ``init``.

    >>> import mutograd as mg
    >>> from mutograd import nn
    >>> net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(inplace=True),
    ...                     nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8 * 4 * 4, 10))
    >>> net(mg.randn([2, 1, 8, 8])).shape
    [2, 10]

The layers live in ``mutograd.nn.modules`` (one module per concern: ``containers``, ``linear``,
``conv``, ``pooling``, ``padding``, ``batchnorm``, ``normalization``, ``activation``,
``dropout``, ``loss``, ``distance``, ``flatten``, ``sparse``, ``vision``, ``recurrent``,
``transformer``, ``adaptive``, ``lazy``), the base class in ``mutograd.nn.module``, the
functions in ``mutograd.nn.functional``; this file gathers their public names.
"""
from . import functional, init
from .module import Buffer, Module, Parameter, StateDictError
from .utils import clip_grad_norm_, clip_grad_value_, factory_kwargs
from .modules.activation import (
    CELU, ELU, GELU, GLU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid,
    LogSoftmax, Mish, PReLU, RReLU, ReLU, ReLU6, SELU, SiLU, Sigmoid, Softmax, Softmax2d, Softmin,
    Softplus, Softshrink, Softsign, Tanh, Tanhshrink, Threshold)
from .modules.adaptive import AdaptiveLogSoftmaxWithLoss
from .modules.batchnorm import (
    BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
    SyncBatchNorm)
from .modules.containers import (
    Container, DataParallel, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential)
from .modules.conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .modules.distance import CosineSimilarity, PairwiseDistance
from .modules.dropout import (
    AlphaDropout, Dropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout)
from .modules.flatten import Flatten, Unflatten
from .modules.lazy import (
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d,
    LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d,
    LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear, LazyModuleMixin, UninitializedBuffer,
    UninitializedParameter)
from .modules.linear import Bilinear, Identity, Linear
from .modules.loss import (
    BCELoss, BCEWithLogitsLoss, CTCLoss, CosineEmbeddingLoss, CrossEntropyLoss, GaussianNLLLoss,
    HingeEmbeddingLoss, HuberLoss, KLDivLoss, L1Loss, LinearCrossEntropyLoss,
    LinearCrossEntropyOptions, MSELoss, MarginRankingLoss, MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss, MultiMarginLoss, NLLLoss, NLLLoss2d, PoissonNLLLoss, SmoothL1Loss,
    SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
from .modules.normalization import CrossMapLRN2d, GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .modules.padding import (
    CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
    ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d)
from .modules.pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d,
    AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d,
    LPPool1d, LPPool2d, LPPool3d, MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d,
    MaxUnpool3d)
from .modules.recurrent import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase
from .modules.sparse import Embedding, EmbeddingBag
from .modules.transformer import (
    MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
    TransformerEncoder, TransformerEncoderLayer)
from .modules.vision import (
    ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold, Upsample, UpsamplingBilinear2d,
    UpsamplingNearest2d)

__all__ = [
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions", "AdaptiveLogSoftmaxWithLoss",
    "AlphaDropout", "BatchNorm3d", "Bilinear", "Buffer", "ChannelShuffle", "CircularPad1d",
    "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "Container", "CrossMapLRN2d", "DataParallel", "Dropout1d", "Dropout3d", "EmbeddingBag",
    "FeatureAlphaDropout", "Fold", "GLU", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
    "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
    "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
    "LazyLinear", "LazyModuleMixin", "LocalResponseNorm", "NLLLoss2d", "ParameterDict",
    "PixelShuffle", "PixelUnshuffle", "RNNBase", "RNNCellBase", "RReLU", "ReflectionPad1d",
    "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "Softmax2d", "Softmin", "SyncBatchNorm", "Threshold", "Unflatten", "Unfold",
    "UninitializedBuffer", "UninitializedParameter", "UpsamplingBilinear2d", "UpsamplingNearest2d",
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "factory_kwargs", "CosineEmbeddingLoss", "CTCLoss",
    "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PairwiseDistance", "PoissonNLLLoss",
    "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss", "Upsample", "CELU",
    "CosineSimilarity", "Dropout2d", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
    "HuberLoss", "KLDivLoss", "LogSigmoid", "Mish", "PReLU", "SELU", "Softplus", "Softshrink",
    "Softsign", "Tanhshrink", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell", "ELU", "GELU",
    "AdaptiveAvgPool2d", "AvgPool2d", "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "Conv1d", "Conv2d", "ConvTranspose2d", "CrossEntropyLoss", "Dropout", "Embedding", "Flatten",
    "GroupNorm", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "MaxPool2d", "Module", "ModuleDict", "ModuleList", "MultiheadAttention", "NLLLoss", "Parameter",
    "ParameterList", "RMSNorm", "ReLU", "ReLU6", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss",
    "Softmax", "StateDictError", "Tanh", "Transformer", "TransformerDecoder",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerEncoderLayer", "clip_grad_norm_",
    "clip_grad_value_", "functional", "init", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool3d",
    "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "LPPool1d", "LPPool2d", "LPPool3d", "MaxPool1d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
    "MaxUnpool3d",
]
