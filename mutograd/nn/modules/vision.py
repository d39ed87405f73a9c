"""Vision layers: pixel (un)shuffle, channel shuffle, fold/unfold and upsampling, each a thin
shell over ``nn.functional``.

    >>> import mutograd as mg
    >>> mg.nn.PixelShuffle(2)(mg.randn([1, 8, 3, 3])).shape
    [1, 2, 6, 6]
"""


from .. import functional as F
from ..module import Module
from .shell import FunctionShell


class Upsample(Module):
    """``F.interpolate`` as a module."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        # a scale factor is kept as floats, as PyTorch's
        if scale_factor:
            scale_factor = (tuple(float(f) for f in scale_factor)
                            if isinstance(scale_factor, tuple) else float(scale_factor))
        self.size, self.scale_factor, self.mode = size, scale_factor or None, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self):
        shown = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                 else f"size={self.size!r}")
        return f"{shown}, mode={self.mode!r}"


class PixelShuffle(FunctionShell):
    """:func:`pixel_shuffle` as a layer."""
    fn, settings = staticmethod(F.pixel_shuffle), ("upscale_factor",)

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor


class PixelUnshuffle(FunctionShell):
    """:func:`pixel_unshuffle` as a layer."""
    fn, settings = staticmethod(F.pixel_unshuffle), ("downscale_factor",)

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor


class ChannelShuffle(FunctionShell):
    """:func:`channel_shuffle` as a layer."""
    fn, settings = staticmethod(F.channel_shuffle), ("groups",)

    def __init__(self, groups):
        super().__init__()
        self.groups = groups


class Unfold(FunctionShell):
    """:func:`unfold` as a layer."""
    fn, settings = staticmethod(F.unfold), ("kernel_size", "dilation", "padding", "stride")

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride


class Fold(Unfold):
    """:func:`fold` as a layer."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, " + super().extra_repr()


class UpsamplingNearest2d(Upsample):
    """2-D nearest-neighbour upsampling to ``size`` or by ``scale_factor``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling (``align_corners=True``)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
