"""``paddle.signal``: the short-time Fourier transform and its inverse with Paddle's signatures
(always complex spectra, ``name``), computed by the torch dialect's one implementation
(:mod:`mutograd.compat.torch._stft`).

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.arange(16, dtype="float32")
    >>> spec = paddle.signal.stft(x, 8, 2)
    >>> list(spec.shape)
    [5, 9]
    >>> paddle.allclose(paddle.signal.istft(spec, 8, 2, length=16), x, atol=1e-4).item()
    True
"""
from ..torch import _stft

__all__ = ["stft", "istft"]


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """The complex Fourier transform of each ``win_length`` frame of ``x`` ([T] or [N, T])
    every ``hop_length`` (``n_fft // 4``) samples: [N, freq, frames]; ``onesided`` (the
    default for real ``x``) keeps the frequencies ``0 .. n_fft // 2``."""
    return _stft.stft(x, n_fft, hop_length, win_length, window, center, pad_mode, normalized,
                      onesided, return_complex=True)


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """The signal whose :func:`stft` (with the same arguments) is the complex ``x``
    ([freq, frames] or [N, freq, frames]); ``length`` trims or pads it."""
    return _stft.istft(x, n_fft, hop_length, win_length, window, center, normalized, onesided,
                       length, return_complex)


METHODS = {"stft": stft, "istft": istft}
