"""``torch.stft`` and ``torch.istft``: the short-time Fourier transform and its inverse, as
products with the discrete Fourier basis (cosines and sines), so gradients of any order come
from the matrix product; the inverse adds the windowed frames back with ``fold`` and divides by
the summed squared window.

    >>> import mutograd.compat.torch as torch
    >>> x = torch.arange(16.)
    >>> w = torch.hann_window(8)
    >>> spec = torch.stft(x, 8, 2, window=w, return_complex=True)
    >>> spec.shape
    torch.Size([5, 9])
    >>> torch.allclose(torch.istft(spec, 8, 2, window=w, length=16), x, atol=1e-4)
    True
"""
import math

import numpy as np

import mutograd as _mg

from ...nn import functional as _F
from ...tensor import _wrap


def _basis(n_fft, n_freq, like):
    """cos and sin of ``2 pi k n / n_fft`` (n along rows, frequency k along columns)."""
    angle = 2 * np.pi * np.outer(np.arange(n_fft), np.arange(n_freq)) / n_fft
    dt = like.real.dtype.np if like.is_complex() else like.dtype.np
    return _wrap(np.cos(angle).astype(dt), like), _wrap(np.sin(angle).astype(dt), like)


def _window(window, win_length, n_fft, like):
    if window is None:
        window = _mg.ones(win_length, dtype=like.real.dtype if like.is_complex() else like.dtype)
    if window.shape[0] != win_length:
        raise RuntimeError(f"stft: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    left = (n_fft - win_length) // 2
    return _F.pad(window, (left, n_fft - win_length - left))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The Fourier transform of each ``win_length`` frame of ``input`` (1-D, or batched 2-D)
    taken every ``hop_length`` samples: ``(batch, freq, frames)``, complex
    (``return_complex=True``, which must be given, as in PyTorch) or with real and imaginary
    parts last. ``center`` pads ``n_fft // 2`` samples each side (``pad_mode``); ``normalized``
    scales by ``n_fft ** -0.5``; ``onesided`` (default for real input) keeps the frequencies
    ``0 .. n_fft // 2``."""
    if return_complex is None:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, "
                           "and will further require that return_complex=True in a future "
                           "PyTorch release.")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, got {input.ndim}D")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not 0 < win_length <= n_fft or hop <= 0:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft and hop_length > 0, got "
                           f"n_fft={n_fft}, win_length={win_length}, hop_length={hop}")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    if center:
        x = _F.pad(x.unsqueeze(1), (n_fft // 2, n_fft // 2), mode=pad_mode).squeeze(1)
    if x.shape[-1] < n_fft:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {x.shape[-1]}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _window(window, win_length, n_fft, input)
    onesided = not input.is_complex() if onesided is None else onesided
    cos, sin = _basis(n_fft, n_fft // 2 + 1 if onesided else n_fft, input)
    if input.is_complex():     # (a + ib)(cos - i sin)
        a, b = frames.real, frames.imag
        re, im = a @ cos + b @ sin, b @ cos - a @ sin
    else:
        re, im = frames @ cos, -(frames @ sin)
    if normalized:
        re, im = re / math.sqrt(n_fft), im / math.sqrt(n_fft)
    re, im = re.swapaxes(-1, -2), im.swapaxes(-1, -2)
    out = _mg.complex(re, im) if return_complex else _mg.stack([re, im], -1)
    return out.squeeze(0) if input.ndim == 1 else out


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The signal whose :func:`stft` (with the same arguments) is ``input`` (complex,
    ``(batch, freq, frames)``): each frame's inverse transform, windowed, added back in place and
    divided by the summed squared window; ``length`` trims or pads the result."""
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor")
    hop = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    spec = input.unsqueeze(0) if input.ndim == 2 else input
    n_freq, n_frames = spec.shape[-2:]
    onesided = n_freq != n_fft if onesided is None else onesided
    if onesided and return_complex:
        raise RuntimeError("istft: cannot have onesided output if window or input is complex")
    expected = n_fft // 2 + 1 if onesided else n_fft
    if n_freq != expected:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{n_freq}" if onesided else
                           f"istft: expected the frequency dimension to match n_fft={n_fft}, "
                           f"but got {n_freq}")
    re, im = spec.real.swapaxes(-1, -2), spec.imag.swapaxes(-1, -2)     # (batch, frames, freq)
    if normalized:
        re, im = re * math.sqrt(n_fft), im * math.sqrt(n_fft)
    cos, sin = _basis(n_fft, n_freq, re)
    cos, sin = cos.T / n_fft, sin.T / n_fft
    if onesided:   # the missing conjugate half counts every bin but DC and Nyquist twice
        twice = np.full((n_freq, 1), 2.0)
        twice[0] = 1
        if n_fft % 2 == 0:
            twice[-1] = 1
        twice = _wrap(twice.astype(re.dtype.np), re)
        cos, sin = cos * twice, sin * twice
    w = _window(window, win_length, n_fft, re)
    parts = [re @ cos - im @ sin] + ([re @ sin + im @ cos] if return_complex else [])
    total = n_fft + hop * (n_frames - 1)

    def overlap_add(frames):      # (batch, frames, n_fft) -> (batch, total)
        cols = frames.swapaxes(-1, -2).unsqueeze(1)       # (batch, 1*n_fft, frames) in fold's
        return _F.fold(cols.reshape(cols.shape[0], n_fft, n_frames), (1, total), (1, n_fft),
                       stride=(1, hop)).reshape(cols.shape[0], total)

    envelope = overlap_add((w * w).expand(1, n_frames, n_fft))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    stop = min(end, total)
    used = envelope[:, start:stop]
    if float(used.abs().min()) < 1e-11:
        raise RuntimeError("istft: window overlap add min: the window's squares add up to zero "
                           "somewhere, so the signal cannot be recovered")
    outs = [overlap_add(p * w)[:, start:stop] / used for p in parts]
    if end > total:
        outs = [_F.pad(o, (0, end - total)) for o in outs]
    out = _mg.complex(*outs) if return_complex else outs[0]
    return out.squeeze(0) if input.ndim == 2 else out


NAMES = ["stft", "istft"]
