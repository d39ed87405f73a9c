"""``paddle.nn``: layers and losses with Paddle's names and arguments, ``functional``.

    >>> import mutograd.compat.paddle as paddle
    >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
    >>> [list(p.shape) for p in net.parameters()]
    [[4, 3], [3]]
"""
from ..tensor import Parameter  # noqa: F401
from ....nn.utils import clip_grad_norm_  # noqa: F401
from . import functional, initializer  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .rnn import (GRU, LSTM, RNN, BiRNN, GRUCell, LSTMCell, RNNCellBase,  # noqa: F401
                  SimpleRNN, SimpleRNNCell)
from .layers import (  # noqa: F401
                     ELU,
                     GELU,
                     GroupNorm,
                     AdaptiveAvgPool2D,
                     AvgPool2D,
                     BatchNorm,
                     BatchNorm1D,
                     BatchNorm2D,
                     BCELoss,
                     BCEWithLogitsLoss,
                     Conv1D,
                     Conv2D,
                     Conv1DTranspose,
                     Conv2DTranspose,
                     CrossEntropyLoss,
                     Dropout,
                     Embedding,
                     Flatten,
                     Identity,
                     L1Loss,
                     Layer,
                     LayerDict,
                     LayerList,
                     ParameterList,
                     LayerNorm,
                     LeakyReLU,
                     Linear,
                     MaxPool2D,
                     MSELoss,
                     NLLLoss,
                     ReLU,
                     ReLU6,
                     Sequential,
                     Sigmoid,
                     Silu,
                     SmoothL1Loss,
                     Softmax,
                     Tanh,
)
from .generic import (  # noqa: E402, F401
    AdaptiveMaxPool1D, AdaptiveMaxPool2D, AlphaDropout, Bilinear, FeatureAlphaDropout,
    LocalResponseNorm, LPPool1D, LPPool2D, MultiLabelMarginLoss, MultiMarginLoss, ParameterDict,
    TripletMarginWithDistanceLoss, Fold, Unfold, CELU, GLU, SELU, AdaptiveAvgPool1D, AvgPool1D,
    ChannelShuffle, CircularPad1D, CircularPad2D,
    CircularPad3D, ConstantPad1D, ConstantPad2D, ConstantPad3D, CosineEmbeddingLoss,
    CosineSimilarity, Dropout2D, Dropout3D, GaussianNLLLoss, Hardshrink, Hardsigmoid, Hardswish,
    Hardtanh, HingeEmbeddingLoss, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, KLDivLoss,
    LogSigmoid, LogSoftmax, MarginRankingLoss, Maxout, MaxPool1D, Mish,
    MultiLabelSoftMarginLoss, Pad1D, Pad2D, Pad3D, PairwiseDistance, PixelShuffle,
    PixelUnshuffle, PoissonNLLLoss, PReLU, ReflectionPad1D, ReflectionPad2D, ReflectionPad3D,
    ReplicationPad1D, ReplicationPad2D, ReplicationPad3D, RReLU, Softmax2D, SoftMarginLoss,
    Softplus, Softshrink, Softsign, Swish, Tanhshrink, ThresholdedReLU, TripletMarginLoss,
    Unflatten, Upsample, UpsamplingBilinear2D, UpsamplingNearest2D, ZeroPad1D, ZeroPad2D,
    ZeroPad3D)
from .generic import FractionalMaxPool2D, MaxUnPool1D, MaxUnPool2D  # noqa: E402, F401
from .layers import AdaptiveLogSoftmaxWithLoss  # noqa: E402, F401
from .layers import (AdaptiveAvgPool3D, AvgPool3D, BatchNorm3D, Conv3D,  # noqa: E402, F401
                     Conv3DTranspose, MaxPool3D)
from .generic import AdaptiveMaxPool3D, FractionalMaxPool3D, MaxUnPool3D  # noqa: E402, F401
from .spectral_norm import SpectralNorm, spectral_norm  # noqa: E402, F401
from .transformer import (  # noqa: E402, F401
    MultiHeadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
    TransformerEncoder, TransformerEncoderLayer)

# Paddle 3's PyTorch-style spellings name the same classes
Module, ModuleList, ModuleDict = Layer, LayerList, LayerDict
SiLU = Silu
Conv1d, Conv2d = Conv1D, Conv2D
(AdaptiveAvgPool1d, AvgPool1d, MaxPool1d, ConstantPad1d, ConstantPad2d, ConstantPad3d,
 ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
 ReplicationPad3d, CircularPad1d, CircularPad2d, CircularPad3d) = (
    AdaptiveAvgPool1D, AvgPool1D, MaxPool1D, ConstantPad1D, ConstantPad2D, ConstantPad3D,
    ReflectionPad1D, ReflectionPad2D, ReflectionPad3D, ReplicationPad1D, ReplicationPad2D,
    ReplicationPad3D, CircularPad1D, CircularPad2D, CircularPad3D)
AdaptiveMaxPool1d, AdaptiveMaxPool2d, LPPool1d, LPPool2d = (AdaptiveMaxPool1D, AdaptiveMaxPool2D,
                                                          LPPool1D, LPPool2D)
(AdaptiveAvgPool2d, UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad1d, ZeroPad2d,
 ZeroPad3d) = (AdaptiveAvgPool2D, UpsamplingBilinear2D, UpsamplingNearest2D, ZeroPad1D, ZeroPad2D,
               ZeroPad3D)
from .layers import HuberLoss  # noqa: E402, F401
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D
Conv3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d = Conv3D, AdaptiveAvgPool3D, AdaptiveMaxPool3D
