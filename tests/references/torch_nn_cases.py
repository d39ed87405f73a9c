"""Modules of ``torch.nn`` built with simple arguments, whose ``repr`` (what ``print(model)``
shows) is recorded from PyTorch 2.13 (torch_nn_reference.py) and compared with the torch
dialect's (tests/compat/test_torch_nn_surface.py).

``CASES`` maps a case name to a constructor call written once for both libraries: a Python
expression in ``nn`` (``torch.nn`` or ``mutograd.compat.torch.nn``), or a function of ``nn``
where a statement is needed. A class with only default arguments and no case of its own is
also built as ``nn.<Name>()``.
"""


def _user_net(nn):
    """A user's subclass with its own ``extra_repr`` beside its child modules."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2.0
            self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.25))
            self.head = nn.ModuleDict({"cls": nn.Linear(8, 3), "act": nn.Softmax(dim=1)})

        def extra_repr(self):
            return f"scale={self.scale}"
    return Net()


def _empty_user_net(nn):
    """A subclass with neither children nor ``extra_repr``."""
    class Empty(nn.Module):
        pass
    return Empty()


def _multiline_extra_repr(nn):
    """An ``extra_repr`` of several lines beside a child (each line indented)."""
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)

        def extra_repr(self):
            return "first line\nsecond line"
    return Block()


def _parameter_containers(nn):
    import sys
    lib = sys.modules[nn.__name__.rpartition(".")[0]]     # torch, or the torch dialect
    return nn.ModuleList([
        nn.ParameterList([nn.Parameter(lib.zeros(2, 3)), nn.Parameter(lib.zeros(4))]),
        nn.ParameterDict({"a": nn.Parameter(lib.zeros(2))}),
    ])


CASES = {
    # activations
    "Threshold": "nn.Threshold(0.1, 20.0)",
    "ReLU/inplace": "nn.ReLU(inplace=True)",
    "ReLU6/inplace": "nn.ReLU6(True)",
    "Hardtanh/range": "nn.Hardtanh(-2.0, 3.0)",
    "LeakyReLU/slope": "nn.LeakyReLU(0.2, True)",
    "ELU/alpha": "nn.ELU(alpha=0.5)",
    "CELU/alpha": "nn.CELU(2.0, inplace=True)",
    "Mish/inplace": "nn.Mish(inplace=True)",
    "SiLU/inplace": "nn.SiLU(inplace=True)",
    "Hardswish/inplace": "nn.Hardswish(True)",
    "GELU/tanh": "nn.GELU(approximate='tanh')",
    "Softplus/beta": "nn.Softplus(beta=2.0, threshold=10.0)",
    "Softmax/dim": "nn.Softmax(dim=1)",
    "Softmin/dim": "nn.Softmin(0)",
    "LogSoftmax/dim": "nn.LogSoftmax(dim=-1)",
    "GLU/dim": "nn.GLU(dim=1)",
    "RReLU/range": "nn.RReLU(0.1, 0.3)",
    "PReLU/channels": "nn.PReLU(3, 0.1)",
    "Hardshrink/lambda": "nn.Hardshrink(0.3)",
    "Softshrink/lambda": "nn.Softshrink(lambd=0.2)",
    "MultiheadAttention": "nn.MultiheadAttention(8, 2)",
    "MultiheadAttention/nobias": "nn.MultiheadAttention(8, 2, 0.1, False, batch_first=True)",
    # linear, sparse, dropout
    "Linear": "nn.Linear(4, 3)",
    "Linear/positional": "nn.Linear(4, 3, False, None, None)",
    "Bilinear": "nn.Bilinear(2, 3, 4)",
    "Bilinear/nobias": "nn.Bilinear(2, 3, 4, bias=False)",
    "LazyLinear": "nn.LazyLinear(5)",
    "Embedding": "nn.Embedding(10, 3)",
    "Embedding/padding": "nn.Embedding(10, 3, 0)",
    "Embedding/options": "nn.Embedding(10, 3, max_norm=1.0, norm_type=1.0, "
                         "scale_grad_by_freq=True, sparse=True)",
    "EmbeddingBag": "nn.EmbeddingBag(10, 3)",
    "EmbeddingBag/options": "nn.EmbeddingBag(10, 3, max_norm=2.0, mode='sum', "
                            "padding_idx=1)",
    "Dropout/p": "nn.Dropout(0.2, True)",
    "Dropout2d/p": "nn.Dropout2d(p=0.3)",
    "AlphaDropout/p": "nn.AlphaDropout(0.1)",
    # convolutions
    "Conv1d": "nn.Conv1d(3, 8, 3)",
    "Conv2d": "nn.Conv2d(3, 8, 3)",
    "Conv2d/positional": "nn.Conv2d(3, 8, 3, 1, 1, 1, 1, True, 'zeros')",
    "Conv2d/options": "nn.Conv2d(4, 8, (3, 5), stride=(2, 1), padding=(1, 2), dilation=2, "
                      "groups=2, bias=False, padding_mode='reflect')",
    "Conv2d/same": "nn.Conv2d(3, 8, 3, padding='same')",
    "Conv3d": "nn.Conv3d(2, 4, 3, stride=2)",
    "ConvTranspose1d": "nn.ConvTranspose1d(3, 8, 3)",
    "ConvTranspose2d/nobias": "nn.ConvTranspose2d(3, 8, 3, bias=False)",
    "ConvTranspose2d/options": "nn.ConvTranspose2d(4, 8, 3, 2, 1, 1, 2, True, 2)",
    "ConvTranspose3d": "nn.ConvTranspose3d(2, 4, 3)",
    "LazyConv1d": "nn.LazyConv1d(8, 3)",
    "LazyConv2d": "nn.LazyConv2d(8, 3, padding=1)",
    "LazyConv3d": "nn.LazyConv3d(8, 3)",
    "LazyConvTranspose1d": "nn.LazyConvTranspose1d(8, 3)",
    "LazyConvTranspose2d": "nn.LazyConvTranspose2d(8, 3, stride=2)",
    "LazyConvTranspose3d": "nn.LazyConvTranspose3d(8, 3)",
    "Fold": "nn.Fold(output_size=(4, 5), kernel_size=(2, 2))",
    "Unfold": "nn.Unfold(kernel_size=(2, 3), padding=1)",
    # poolings
    "MaxPool1d": "nn.MaxPool1d(4)",
    "MaxPool1d/options": "nn.MaxPool1d(3, 2, 1, 2, True, True)",
    "MaxPool2d": "nn.MaxPool2d(2)",
    "MaxPool2d/options": "nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True)",
    "MaxPool3d": "nn.MaxPool3d(2, 1)",
    "AvgPool1d": "nn.AvgPool1d(3)",
    "AvgPool2d": "nn.AvgPool2d(2)",
    "AvgPool2d/options": "nn.AvgPool2d(3, 2, 1, True, False, 4)",
    "AvgPool3d": "nn.AvgPool3d(2, padding=1)",
    "LPPool1d": "nn.LPPool1d(2, 3)",
    "LPPool2d": "nn.LPPool2d(2.0, 2, stride=1)",
    "LPPool3d": "nn.LPPool3d(1, 2)",
    "AdaptiveAvgPool1d": "nn.AdaptiveAvgPool1d(3)",
    "AdaptiveAvgPool2d": "nn.AdaptiveAvgPool2d((1, 1))",
    "AdaptiveAvgPool2d/int": "nn.AdaptiveAvgPool2d(7)",
    "AdaptiveAvgPool3d": "nn.AdaptiveAvgPool3d(2)",
    "AdaptiveMaxPool1d": "nn.AdaptiveMaxPool1d(3)",
    "AdaptiveMaxPool2d": "nn.AdaptiveMaxPool2d((2, 3), True)",
    "AdaptiveMaxPool3d": "nn.AdaptiveMaxPool3d(2)",
    "FractionalMaxPool2d": "nn.FractionalMaxPool2d(2, output_size=3)",
    "FractionalMaxPool3d": "nn.FractionalMaxPool3d(2, output_ratio=0.5)",
    "MaxUnpool1d": "nn.MaxUnpool1d(2)",
    "MaxUnpool2d": "nn.MaxUnpool2d(2, 2, 1)",
    "MaxUnpool3d": "nn.MaxUnpool3d(2)",
    # paddings
    "ConstantPad1d": "nn.ConstantPad1d(2, 3.5)",
    "ConstantPad2d": "nn.ConstantPad2d((1, 2, 3, 4), 0.0)",
    "ConstantPad3d": "nn.ConstantPad3d(1, -1.0)",
    "ZeroPad1d": "nn.ZeroPad1d(2)",
    "ZeroPad2d": "nn.ZeroPad2d((1, 1, 2, 0))",
    "ZeroPad3d": "nn.ZeroPad3d(1)",
    "ReflectionPad1d": "nn.ReflectionPad1d(2)",
    "ReflectionPad2d": "nn.ReflectionPad2d((1, 1, 2, 0))",
    "ReflectionPad3d": "nn.ReflectionPad3d(1)",
    "ReplicationPad1d": "nn.ReplicationPad1d((1, 2))",
    "ReplicationPad2d": "nn.ReplicationPad2d(1)",
    "ReplicationPad3d": "nn.ReplicationPad3d(1)",
    "CircularPad1d": "nn.CircularPad1d(1)",
    "CircularPad2d": "nn.CircularPad2d((1, 0, 1, 0))",
    "CircularPad3d": "nn.CircularPad3d(1)",
    # normalizations
    "BatchNorm1d": "nn.BatchNorm1d(8)",
    "BatchNorm2d/positional": "nn.BatchNorm2d(8, 1e-5, 0.1, True, True)",
    "BatchNorm2d/options": "nn.BatchNorm2d(8, eps=1e-3, momentum=None, affine=False, "
                           "track_running_stats=False)",
    "BatchNorm3d": "nn.BatchNorm3d(4)",
    "SyncBatchNorm": "nn.SyncBatchNorm(4)",
    "InstanceNorm1d": "nn.InstanceNorm1d(8)",
    "InstanceNorm2d/affine": "nn.InstanceNorm2d(8, affine=True, track_running_stats=True)",
    "InstanceNorm3d": "nn.InstanceNorm3d(4)",
    "LayerNorm": "nn.LayerNorm(8)",
    "LayerNorm/shape": "nn.LayerNorm([4, 5], eps=1e-6, elementwise_affine=False)",
    "GroupNorm": "nn.GroupNorm(2, 8)",
    "GroupNorm/noaffine": "nn.GroupNorm(4, 8, 1e-3, False)",
    "RMSNorm": "nn.RMSNorm(8)",
    "RMSNorm/shape": "nn.RMSNorm([2, 3], eps=1e-6)",
    "LocalResponseNorm": "nn.LocalResponseNorm(2)",
    "CrossMapLRN2d": "nn.CrossMapLRN2d(3)",
    # losses
    "CrossEntropyLoss/options": "nn.CrossEntropyLoss(ignore_index=1, reduction='sum', "
                                "label_smoothing=0.1)",
    "NLLLoss/sum": "nn.NLLLoss(reduction='sum')",
    "MarginRankingLoss/margin": "nn.MarginRankingLoss(margin=0.5)",
    "TripletMarginLoss/options": "nn.TripletMarginLoss(margin=2.0, p=1.0)",
    "HuberLoss/delta": "nn.HuberLoss(delta=0.5)",
    "CTCLoss/blank": "nn.CTCLoss(blank=1, zero_infinity=True)",
    "AdaptiveLogSoftmaxWithLoss": "nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 8])",
    # shapes and vision
    "Flatten/dims": "nn.Flatten(0, 2)",
    "Unflatten": "nn.Unflatten(1, (2, 5))",
    "PixelShuffle": "nn.PixelShuffle(2)",
    "PixelUnshuffle": "nn.PixelUnshuffle(3)",
    "ChannelShuffle": "nn.ChannelShuffle(2)",
    "Upsample/scale": "nn.Upsample(scale_factor=2, mode='nearest')",
    "Upsample/size": "nn.Upsample(size=(4, 5), mode='bilinear', align_corners=True)",
    "UpsamplingNearest2d/scale": "nn.UpsamplingNearest2d(scale_factor=2)",
    "UpsamplingBilinear2d/size": "nn.UpsamplingBilinear2d(size=4)",
    "CosineSimilarity/dim": "nn.CosineSimilarity(dim=0, eps=1e-6)",
    "PairwiseDistance/p": "nn.PairwiseDistance(p=1.0, keepdim=True)",
    # recurrent
    "RNN": "nn.RNN(4, 8)",
    "RNN/options": "nn.RNN(4, 8, 2, 'relu', False, True, 0.5, True)",
    "LSTM": "nn.LSTM(4, 8)",
    "LSTM/options": "nn.LSTM(4, 8, num_layers=2, batch_first=True, bidirectional=True)",
    "GRU": "nn.GRU(4, 8, 2, dropout=0.1)",
    "RNNCell": "nn.RNNCell(4, 8)",
    "RNNCell/relu": "nn.RNNCell(4, 8, False, 'relu')",
    "LSTMCell": "nn.LSTMCell(4, 8)",
    "GRUCell": "nn.GRUCell(4, 8, bias=False)",
    # transformer
    "TransformerEncoderLayer": "nn.TransformerEncoderLayer(8, 2, 16, 0.0)",
    "TransformerDecoderLayer": "nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)",
    "TransformerEncoder": "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, "
                          "enable_nested_tensor=False)",
    "TransformerDecoder": "nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1, "
                          "norm=nn.LayerNorm(8))",
    "Transformer": "nn.Transformer(8, 2, 1, 1, 16)",
    # containers
    "Sequential": "nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), "
                  "nn.Linear(4, 2))",
    "Sequential/nested": "nn.Sequential(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), "
                         "nn.Sequential())",
    "Sequential/repeated": "nn.Sequential(*[nn.Linear(3, 3) for _ in range(4)], nn.ReLU())",
    "ModuleList": "nn.ModuleList([nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)])",
    "ModuleList/repeated": "nn.ModuleList([nn.ReLU() for _ in range(3)])",
    "ModuleDict": "nn.ModuleDict({'conv': nn.Conv1d(1, 2, 3), 'act': nn.GELU()})",
    "ParameterList": "nn.ParameterList()",
    "ParameterDict": "nn.ParameterDict()",
    "containers/parameters": _parameter_containers,
    "Identity": "nn.Identity(3, unused='x')",
    # a user's own module
    "user/extra_repr": _user_net,
    "user/empty": _empty_user_net,
    "user/multiline": _multiline_extra_repr,
}

# classes never built here: abstract bases, or needing a device or a process group
NOT_BUILT = {"Container", "DataParallel", "RNNBase", "RNNCellBase", "LinearCrossEntropyLoss"}


def build(nn, case):
    """The module of ``case`` (an expression in ``nn`` or a function of ``nn``)."""
    return case(nn) if callable(case) else eval(case, {"nn": nn})


def all_cases(nn, names):
    """``CASES`` plus ``'<Name>()'`` for each class of ``names`` without required arguments
    and without a case of its own."""
    import inspect
    cases = dict(CASES)
    for name in names:
        if name in NOT_BUILT or name in cases:
            continue
        params = list(inspect.signature(getattr(nn, name).__init__).parameters.values())[1:]
        if all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params):
            cases[name] = f"nn.{name}()"
    return cases
