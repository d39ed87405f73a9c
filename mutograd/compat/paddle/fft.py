"""``paddle.fft``: ``mutograd.fft``'s transforms with Paddle's signatures (``axis``/``axes``,
``norm='backward'``, ``name``).

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0, 4.0])
    >>> paddle.fft.rfft(x).tolist()
    [(10+0j), (-2+2j), (-2+0j)]
    >>> paddle.fft.fftshift(paddle.fft.fftfreq(4), axes=[0]).tolist()
    [-0.5, -0.25, 0.0, 0.25]
"""
from ... import fft as _fft

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2",
           "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]


def fft(x, n=None, axis=-1, norm="backward", name=None):
    """The one-dimensional discrete Fourier transform along ``axis``."""
    return _fft.fft(x, n, axis, norm)


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    """The inverse of :func:`fft`."""
    return _fft.ifft(x, n, axis, norm)


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    """The Fourier transform of a real signal (the non-negative frequencies)."""
    return _fft.rfft(x, n, axis, norm)


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    """The inverse of :func:`rfft`: a real signal of length ``n``."""
    return _fft.irfft(x, n, axis, norm)


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    """The (real) Fourier transform of a Hermitian signal given by its first half."""
    return _fft.hfft(x, n, axis, norm)


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    """The inverse of :func:`hfft`."""
    return _fft.ihfft(x, n, axis, norm)


def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`fftn` over two axes (the last two by default)."""
    return _fft.fft2(x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`ifftn` over two axes (the last two by default)."""
    return _fft.ifft2(x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`rfftn` over two axes (the last two by default)."""
    return _fft.rfft2(x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`irfftn` over two axes (the last two by default)."""
    return _fft.irfft2(x, s, axes, norm)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`hfftn` over two axes (the last two by default)."""
    return _fft.hfft2(x, s, axes, norm)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """:func:`ihfftn` over two axes (the last two by default)."""
    return _fft.ihfft2(x, s, axes, norm)


def fftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-dimensional discrete Fourier transform over ``axes`` (all by default)."""
    return _fft.fftn(x, s, axes, norm)


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    """The inverse of :func:`fftn`."""
    return _fft.ifftn(x, s, axes, norm)


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    """:func:`fftn` of a real signal, one-sided along the last of ``axes``."""
    return _fft.rfftn(x, s, axes, norm)


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    """The inverse of :func:`rfftn`: a real signal."""
    return _fft.irfftn(x, s, axes, norm)


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    """The N-dimensional :func:`hfft`."""
    return _fft.hfftn(x, s, axes, norm)


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    """The inverse of :func:`hfftn`."""
    return _fft.ihfftn(x, s, axes, norm)


def fftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of :func:`fft` of length ``n`` and sample spacing ``d``."""
    return _fft.fftfreq(n, d, dtype=dtype)


def rfftfreq(n, d=1.0, dtype=None, name=None):
    """The sample frequencies of :func:`rfft` of length ``n`` and sample spacing ``d``."""
    return _fft.rfftfreq(n, d, dtype=dtype)


def fftshift(x, axes=None, name=None):
    """The zero frequency moved to the centre, along ``axes`` (all by default)."""
    return _fft.fftshift(x, axes)


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`."""
    return _fft.ifftshift(x, axes)
