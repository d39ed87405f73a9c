"""``mutograd.fft``: discrete Fourier transforms with gradients (``torch.fft``'s names and
signatures). This module only names them: the ops and functions are in
``mutograd/ops/fourier.py``.

    >>> import mutograd as mg
    >>> x = mg.tensor([1.0, 2.0, 3.0, 4.0])
    >>> mg.fft.rfft(x).tolist()
    [(10+0j), (-2+2j), (-2+0j)]
    >>> mg.fft.irfft(mg.fft.rfft(x), n=4).tolist()
    [1.0, 2.0, 3.0, 4.0]
"""
from .ops.fourier import (__all__, fft, fft2, fftfreq, fftn, fftshift, hfft,  # noqa: F401
                          hfft2, hfftn, ifft, ifft2, ifftn, ifftshift, ihfft, ihfft2, ihfftn,
                          irfft, irfft2, irfftn, rfft, rfft2, rfftfreq, rfftn)
