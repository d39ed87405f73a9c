"""``paddle.vision.transforms``: preprocessing of images given as NumPy arrays (HWC), PIL images
or tensors (CHW), with Paddle's classes and functions.

A PIL image is resized with PIL itself (as Paddle does); an array or tensor with mutograd's
``interpolate`` (half-pixel centres, as OpenCV).

    >>> import numpy as np, mutograd.compat.paddle as paddle
    >>> T = paddle.vision.transforms
    >>> img = np.full((4, 6, 3), 255, dtype=np.uint8)
    >>> t = T.Compose([T.ToTensor(), T.Normalize(mean=[0.5] * 3, std=[0.5] * 3)])(img)
    >>> list(t.shape), float(t.max())
    ([3, 4, 6], 1.0)
"""
import numbers
import random as _pyrandom

import numpy as np

from ....nn import functional as _F
from ....ops.creation import tensor as _tensor
from ....tensor import Tensor

try:
    from PIL import Image as _Image
except ImportError:     # PIL is optional: arrays and tensors work without it
    _Image = None


def _is_pil(img):
    return _Image is not None and isinstance(img, _Image.Image)


def _hw(img):
    if _is_pil(img):
        return img.size[1], img.size[0]
    if isinstance(img, Tensor):
        return img.shape[-2], img.shape[-1]
    return img.shape[0], img.shape[1]


# ---- functions --------------------------------------------------------------------------------

def to_tensor(pic, data_format="CHW"):
    """An HWC image (array or PIL) as a float32 tensor in ``data_format``; uint8 values are
    scaled to [0, 1]."""
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC, got {data_format}")
    if isinstance(pic, Tensor):
        return pic
    arr = np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        return _tensor(np.ascontiguousarray(arr, dtype=np.float32) / np.float32(255))
    return _tensor(np.ascontiguousarray(arr))


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """``(img - mean) / std`` per channel (channels first for ``'CHW'``)."""
    c_axis = 0 if data_format == "CHW" else -1
    if isinstance(img, Tensor):
        shape = [-1, 1, 1] if c_axis == 0 else [1, 1, -1]
        m = _tensor(np.asarray(mean, np.float32)).reshape(shape)
        s = _tensor(np.asarray(std, np.float32)).reshape(shape)
        if to_rgb:
            img = img.flip([c_axis])
        return (img - m) / s
    arr = np.asarray(img, dtype=np.float32)
    if to_rgb:
        arr = np.flip(arr, c_axis)
    shape = (-1, 1, 1) if c_axis == 0 else (1, 1, -1)
    return (arr - np.asarray(mean, np.float32).reshape(shape)) / np.asarray(
        std, np.float32).reshape(shape)


def _target_size(img, size):
    if isinstance(size, int):
        h, w = _hw(img)
        if min(h, w) == size:
            return h, w
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    return tuple(size)


_PIL_MODES = {"nearest": 0, "bilinear": 2, "bicubic": 3, "box": 4, "lanczos": 1, "hamming": 5}


def resize(img, size, interpolation="bilinear"):
    """``img`` resized to ``size``: (h, w), or an int for the shorter side (aspect kept)."""
    oh, ow = _target_size(img, size)
    if _is_pil(img):
        return img.resize((ow, oh), _PIL_MODES[interpolation])
    mode = "nearest" if interpolation == "nearest" else "bilinear"
    align = None if mode == "nearest" else False
    if isinstance(img, Tensor):
        x = img.unsqueeze(0) if img.ndim == 3 else img.unsqueeze(0).unsqueeze(0)
        out = _F.interpolate(x.astype("float32"), size=[oh, ow], mode=mode, align_corners=align)
        return out.squeeze(0) if img.ndim == 3 else out.squeeze(0).squeeze(0)
    arr = np.asarray(img)
    x = arr[None, None] if arr.ndim == 2 else arr.transpose(2, 0, 1)[None]
    out = _F.interpolate(_tensor(x.astype(np.float32)), size=[oh, ow], mode=mode,
                         align_corners=align).numpy()[0]
    out = out[0] if arr.ndim == 2 else out.transpose(1, 2, 0)
    if arr.dtype == np.uint8:
        out = np.clip(np.rint(out), 0, 255)
    return out.astype(arr.dtype)


def crop(img, top, left, height, width):
    """The ``height`` x ``width`` region at (``top``, ``left``)."""
    if _is_pil(img):
        return img.crop((left, top, left + width, top + height))
    if isinstance(img, Tensor):
        return img[..., top:top + height, left:left + width]
    return img[top:top + height, left:left + width]


def center_crop(img, output_size):
    """The central ``output_size`` (int or (h, w)) region."""
    th, tw = (output_size, output_size) if isinstance(output_size, int) else output_size
    h, w = _hw(img)
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror left to right."""
    if _is_pil(img):
        return img.transpose(_Image.FLIP_LEFT_RIGHT)
    if isinstance(img, Tensor):
        return img.flip([-1])
    return img[:, ::-1]


def vflip(img):
    """Mirror top to bottom."""
    if _is_pil(img):
        return img.transpose(_Image.FLIP_TOP_BOTTOM)
    if isinstance(img, Tensor):
        return img.flip([-2])
    return img[::-1]


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: an int (all sides), (left/right, top/bottom) or (left, top, right,
    bottom)."""
    if isinstance(padding, int):
        padding = (padding,) * 4
    elif len(padding) == 2:
        padding = (padding[0], padding[1], padding[0], padding[1])
    left, top, right, bottom = padding
    if isinstance(img, Tensor):
        return _F.pad(img.unsqueeze(0), [left, right, top, bottom], padding_mode, fill if
                      padding_mode == "constant" else None).squeeze(0)
    if _is_pil(img) and padding_mode == "constant":
        from PIL import ImageOps    # as Paddle: an int fill is the first band's (RGB: (9, 0, 0))
        return ImageOps.expand(img, border=(left, top, right, bottom), fill=fill)
    arr = np.asarray(img)
    widths = [(top, bottom), (left, right)] + [(0, 0)] * (arr.ndim - 2)
    mode = {"constant": "constant", "edge": "edge", "reflect": "reflect",
            "symmetric": "symmetric"}[padding_mode]
    out = np.pad(arr, widths, mode, **({"constant_values": fill} if mode == "constant" else {}))
    return _Image.fromarray(out) if _is_pil(img) else out


def to_grayscale(img, num_output_channels=1):
    """ITU-R 601-2 luma of an RGB image, with 1 or 3 channels."""
    if _is_pil(img):
        g = img.convert("L")
        return g if num_output_channels == 1 else _Image.merge("RGB", [g, g, g])
    arr = np.asarray(img)
    g = arr[..., 0] * 0.299 + arr[..., 1] * 0.587 + arr[..., 2] * 0.114
    g = (np.rint(g) if arr.dtype == np.uint8 else g).astype(arr.dtype)[..., None]
    return np.repeat(g, num_output_channels, axis=-1)


def adjust_brightness(img, brightness_factor):
    """Scale the intensities by ``brightness_factor``."""
    arr = np.asarray(img).astype(np.float32) * brightness_factor
    return _back(img, arr)


def adjust_contrast(img, contrast_factor):
    """Blend with the mean gray level by ``contrast_factor``."""
    arr = np.asarray(img).astype(np.float32)
    gray = np.asarray(to_grayscale(np.asarray(img))).astype(np.float32).mean()
    return _back(img, gray + contrast_factor * (arr - gray))


def _back(img, arr):
    src = np.asarray(img)
    if src.dtype == np.uint8:
        arr = np.clip(np.rint(arr), 0, 255).astype(np.uint8)
    return _Image.fromarray(arr) if _is_pil(img) else arr.astype(src.dtype)


# ---- transform classes ------------------------------------------------------------------------

class BaseTransform:
    """Base class: ``__call__`` applies ``_apply_image`` to the image (the first element when
    ``keys`` names several inputs, the others passed through)."""

    def __init__(self, keys=None):
        self.keys = keys

    def __call__(self, inputs):
        if isinstance(inputs, tuple):
            return (self._apply_image(inputs[0]),) + tuple(inputs[1:])
        return self._apply_image(inputs)

    def _apply_image(self, img):
        raise TypeError(f"{type(self).__name__} must define _apply_image")


class Compose:
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data


class ToTensor(BaseTransform):
    """HWC image (array or PIL, uint8 scaled to [0, 1]) -> float32 CHW tensor."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else list(mean)
        self.std = [std] * 3 if isinstance(std, numbers.Number) else list(std)
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img):
        c = (img.shape[0] if self.data_format == "CHW" else img.shape[-1]) if hasattr(
            img, "shape") and len(img.shape) == 3 else len(self.mean)
        mean = self.mean if len(self.mean) == c else self.mean[:1] * c
        std = self.std if len(self.std) == c else self.std[:1] * c
        return normalize(img, mean, std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resize to ``size``: (h, w), or an int for the shorter side."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return resize(img, self.size, self.interpolation)


class Transpose(BaseTransform):
    """Permute the axes of an HWC image (``order=(2, 0, 1)``: to CHW)."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        if isinstance(img, Tensor):
            return img.permute(list(self.order))
        arr = np.asarray(img)
        if arr.ndim == 2:
            arr = arr[..., None]
        return arr.transpose(self.order)


class CenterCrop(BaseTransform):
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = size

    def _apply_image(self, img):
        return center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """A random ``size`` region (after optional ``padding``)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant",
                 keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = pad(img, self.padding, self.fill, self.padding_mode)
        h, w = _hw(img)
        th, tw = self.size
        top = _pyrandom.randint(0, h - th)
        left = _pyrandom.randint(0, w - tw)
        return crop(img, top, left, th, tw)


class _RandomFlip(BaseTransform):
    """Apply ``flip`` with probability ``prob``."""

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        self.prob = prob

    def _apply_image(self, img):
        return self.flip(img) if _pyrandom.random() < self.prob else img


class RandomHorizontalFlip(_RandomFlip):
    flip = staticmethod(hflip)


class RandomVerticalFlip(_RandomFlip):
    flip = staticmethod(vflip)


class Pad(BaseTransform):
    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return pad(img, self.padding, self.fill, self.padding_mode)


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return to_grayscale(img, self.num_output_channels)


class _ColorJitterStep(BaseTransform):
    """A colour adjustment by a factor drawn from [max(0, 1 - value), 1 + value]; nothing
    when ``value`` is 0. Subclasses name the ``adjust`` function (and may change the range)."""

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = value

    def _factor_range(self):
        return max(0, 1 - self.value), 1 + self.value

    def _apply_image(self, img):
        if not self.value:
            return img
        return self.adjust(img, _pyrandom.uniform(*self._factor_range()))


class BrightnessTransform(_ColorJitterStep):
    """Brightness scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    adjust = staticmethod(adjust_brightness)


class ContrastTransform(_ColorJitterStep):
    """Contrast scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    adjust = staticmethod(adjust_contrast)


def _random_box(area, scale, ratio):
    """The sides ``(round(sqrt(a * r)), round(sqrt(a / r)))`` of a box of area ``a``, a
    fraction drawn from ``scale`` of ``area``, and aspect ``r`` drawn log-uniformly from
    ``ratio`` (the draw of RandomResizedCrop and RandomErasing)."""
    import math
    target = area * _pyrandom.uniform(*scale)
    aspect = math.exp(_pyrandom.uniform(math.log(ratio[0]), math.log(ratio[1])))
    return int(round(math.sqrt(target * aspect))), int(round(math.sqrt(target / aspect)))


def _pil_or_array(img, fn):
    """Apply a PIL operation ``fn`` to a PIL image, or to an HWC uint8 array through PIL."""
    if _is_pil(img):
        return fn(img)
    if _Image is None:
        raise ImportError("this transform needs Pillow for arrays (pip install pillow)")
    return np.asarray(fn(_Image.fromarray(np.asarray(img))))


def adjust_saturation(img, saturation_factor):
    """Blend with the grayscale image by ``saturation_factor`` (0: gray, 1: unchanged)."""
    if _is_pil(img):
        from PIL import ImageEnhance
        return ImageEnhance.Color(img).enhance(saturation_factor)
    arr = np.asarray(img).astype(np.float32)
    gray = np.asarray(to_grayscale(np.asarray(img), 3)).astype(np.float32)
    return _back(img, gray + saturation_factor * (arr - gray))


def adjust_hue(img, hue_factor):
    """Shift the hue by ``hue_factor`` of a turn (in [-0.5, 0.5]), as PIL's HSV does."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")

    def shift(im):
        if im.mode in ("L", "1", "I", "F"):
            return im
        h, s, v = im.convert("HSV").split()
        hv = np.asarray(h, dtype=np.uint8)
        with np.errstate(over="ignore"):
            hv = (hv + np.uint8(np.int64(hue_factor * 255) % 256)).astype(np.uint8)
        return _Image.merge("HSV", (_Image.fromarray(hv), s, v)).convert(im.mode)
    return _pil_or_array(img, shift)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """``img`` rotated by ``angle`` degrees counter-clockwise (PIL's rotation); a number
    ``fill`` fills every band."""
    def turn(im):
        color = (fill,) * len(im.getbands()) if isinstance(fill, numbers.Number) else \
            tuple(fill)
        return im.rotate(angle, _PIL_MODES[interpolation], expand, center, fillcolor=color)
    return _pil_or_array(img, turn)


def erase(img, i, j, h, w, v, inplace=False):
    """``img`` with the region at (``i``, ``j``) of size ``h`` x ``w`` set to ``v`` (a CHW
    tensor, or an HWC array)."""
    if isinstance(img, Tensor):
        out = img if inplace else img.clone()
        out[..., i:i + h, j:j + w] = v
        return out
    arr = np.asarray(img)
    out = arr if inplace else arr.copy()
    out[i:i + h, j:j + w, ...] = v
    return _Image.fromarray(out) if _is_pil(img) else out


class SaturationTransform(_ColorJitterStep):
    """Saturation scaled by a factor drawn from [max(0, 1 - value), 1 + value]."""
    adjust = staticmethod(adjust_saturation)


class HueTransform(_ColorJitterStep):
    """Hue shifted by a fraction drawn from [-value, value] (value at most 0.5)."""
    adjust = staticmethod(adjust_hue)

    def _factor_range(self):
        return -self.value, self.value


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.steps = [BrightnessTransform(brightness), ContrastTransform(contrast),
                      SaturationTransform(saturation), HueTransform(hue)]

    def _apply_image(self, img):
        for t in _pyrandom.sample(self.steps, len(self.steps)):
            img = t._apply_image(img)
        return img


class RandomResizedCrop(BaseTransform):
    """A random region of ``scale`` of the area and ``ratio`` aspect, resized to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else tuple(size)
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _region(self, h, w):
        for _ in range(10):
            cw, ch = _random_box(h * w, self.scale, self.ratio)
            if 0 < cw <= w and 0 < ch <= h:
                return _pyrandom.randint(0, h - ch), _pyrandom.randint(0, w - cw), ch, cw
        side = min(h, w)           # the centre crop when no draw fits
        return (h - side) // 2, (w - side) // 2, side, side

    def _apply_image(self, img):
        top, left, ch, cw = self._region(*_hw(img))
        return resize(crop(img, top, left, ch, cw), self.size, self.interpolation)


class RandomRotation(BaseTransform):
    """A rotation by an angle drawn from ``degrees`` (a number d: [-d, d])."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        super().__init__(keys)
        self.degrees = (-degrees, degrees) if isinstance(degrees, numbers.Number) else \
            tuple(degrees)
        self.interpolation, self.expand, self.center, self.fill = (interpolation, expand,
                                                                   center, fill)

    def _apply_image(self, img):
        return rotate(img, _pyrandom.uniform(*self.degrees), self.interpolation, self.expand,
                      self.center, self.fill)


class RandomErasing(BaseTransform):
    """With probability ``prob``, set a random region (``scale`` of the area, ``ratio``
    aspect) to ``value`` (a number, per-channel values, or 'random')."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        self.prob, self.scale, self.ratio = prob, scale, ratio
        self.value, self.inplace = value, inplace

    def _apply_image(self, img):
        if _pyrandom.random() >= self.prob:
            return img
        h, w = _hw(img)
        for _ in range(10):
            eh, ew = _random_box(h * w, self.scale, self.ratio)
            if eh < h and ew < w:
                i, j = _pyrandom.randint(0, h - eh), _pyrandom.randint(0, w - ew)
                v = self.value
                if v == "random":
                    shape = ([img.shape[0], eh, ew] if isinstance(img, Tensor) else
                             [eh, ew] + list(np.asarray(img).shape[2:]))
                    v = np.random.default_rng(_pyrandom.getrandbits(32)).standard_normal(
                        shape).astype(np.float32)
                    v = _tensor(v) if isinstance(img, Tensor) else v
                elif isinstance(img, Tensor) and not isinstance(v, numbers.Number):
                    v = _tensor(np.asarray(v, np.float32).reshape(-1, 1, 1))
                return erase(img, i, j, eh, ew, v, self.inplace)
        return img
