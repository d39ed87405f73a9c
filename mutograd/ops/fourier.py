"""Discrete Fourier transforms: three ops over a tuple of axes, complex to complex
(``fft_c2c``), real to one-sided complex (``fft_r2c``) and one-sided complex to real
(``fft_c2r``), then the public functions of ``mutograd.fft`` built on them. Padding or
cropping to ``n``/``s``, the conjugations of ``hfft``/``ihfft`` and the shifts are tensor ops
around the transforms, so their gradients come from those ops.

    >>> import mutograd as mg
    >>> mg.fft.fft(mg.tensor([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    >>> mg.fft.irfft(mg.fft.rfft(mg.tensor([1.0, 2.0, 3.0, 4.0]))).tolist()
    [1.0, 2.0, 3.0, 4.0]

Note [Fourier gradients]
    Each transform is linear, ``y = scale * F x`` with ``F`` the matrix of ``exp(-2 pi i jk/n)``
    (forward) or ``exp(+2 pi i jk/n)`` (inverse), ``scale`` set by ``norm``. In PyTorch's
    convention (Note [Complex gradients] in elementwise.py) the gradient of a linear map is its
    adjoint applied to ``g``: ``scale * F^H g``, the transform of the other direction with the
    same scale. The same scale in the other direction is the *dual* norm ("backward" and
    "forward" swap, "ortho" stays). So:

    - ``fft_c2c``: the c2c transform of ``g`` in the other direction, dual norm; its real part
      for a real input (a real ``x`` is taken as complex with zero imaginary part).
    - ``fft_r2c`` keeps the first ``n // 2 + 1`` bins of the last axis: the adjoint pads ``g``
      with zeros back to ``n`` there, applies the inverse c2c (dual norm) and keeps the real
      part (the input is real).
    - ``fft_c2r`` reads each interior bin of the last axis twice (as itself and as the conjugate
      of its mirror) and bin 0 (and ``n / 2`` for an even ``n``) once, by its real part: the
      adjoint is the r2c transform of ``g`` (dual norm) with the interior bins doubled.

    Each gradient is itself a transform (``xp.fft`` in graph mode is ``mutograd.fft``,
    autograd/graph_arrays.py), times constants, so it is differentiable to any order.
"""
from .. import dtypes
from ..errors import DTypeError, ShapeError
from .axes import canon_dim, real_dim
from .complex_views import conj
from .linalg_shared import out_into
from .registry import OPS, call, defop
from .shaping import cat

_NORMS = ("backward", "forward", "ortho")
_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ---- the three transforms (Note [Fourier gradients]) ------------------------------------------
def _c2c(xp, x, *, axes, norm, forward):
    if not axes:   # no axis transformed: the input as complex (NumPy's fftn returns it as it is)
        return x.astype(xp.result_type(x.dtype, xp.complex64))
    return (xp.fft.fftn if forward else xp.fft.ifftn)(x, axes=axes, norm=norm)


def _c2c_grad(g, x_dtype, xp, axes, norm, forward):
    gx = (xp.fft.ifftn if forward else xp.fft.fftn)(g, axes=axes, norm=_DUAL[norm])
    return gx if x_dtype.kind == "c" else xp.ascontiguousarray(gx.real)


def _r2c(xp, x, *, axes, norm):
    return xp.fft.rfftn(x, axes=axes, norm=norm)


def _r2c_grad(g, x_shape, xp, axes, norm):
    full = xp.fft.ifftn(g, s=[x_shape[a] for a in axes], axes=axes, norm=_DUAL[norm])
    return xp.ascontiguousarray(full.real)


def _c2r(xp, x, *, axes, norm, last_size):
    s = [x.shape[a] for a in axes[:-1]] + [last_size]
    return xp.fft.irfftn(x, s=s, axes=axes, norm=norm)


def _c2r_grad(g, x_dtype, xp, axes, norm, last_size):
    gx = xp.fft.rfftn(g, axes=axes, norm=_DUAL[norm])
    bins = last_size // 2 + 1
    twice = xp.ones(bins, g.dtype)   # a constant: the bins that stand for a mirrored pair
    twice[1:1 + last_size - bins] = 2
    gx = gx * twice.reshape([bins if a == axes[-1] else 1 for a in range(g.ndim)])
    return gx if x_dtype.kind == "c" else xp.ascontiguousarray(gx.real)


def _example(name, x, attrs, result):
    return (">>> import mutograd as mg\n>>> from mutograd.ops import OPS\n"
            f">>> OPS[{name!r}].function(mg.tensor({x}), {attrs}).tolist()\n{result}\n")


defop("fft_c2c", _c2c, grad=_c2c_grad, kind="other", inplace=False, method=False,
      result="float", node_name="FftC2CBackward",
      doc="The complex-to-complex Fourier transform over ``axes`` (``forward``: its sign).",
      example=_example("fft_c2c", "[1.0, 2.0]", 'axes=(0,), norm="backward", forward=True',
                       "[(3+0j), (-1+0j)]"))
defop("fft_r2c", _r2c, grad=_r2c_grad, kind="other", inplace=False, method=False,
      result="float", node_name="FftR2CBackward",
      doc="The Fourier transform of a real signal over ``axes``, one-sided on the last.",
      example=_example("fft_r2c", "[1.0, 2.0, 3.0, 4.0]", 'axes=(0,), norm="backward"',
                       "[(10+0j), (-2+2j), (-2+0j)]"))
defop("fft_c2r", _c2r, grad=_c2r_grad, kind="other", inplace=False, method=False,
      result="float", node_name="FftC2RBackward",
      doc="The inverse of ``fft_r2c``: a real signal with ``last_size`` along the last axis.",
      example=_example("fft_c2r", "[10, -2 + 2j, -2]",
                       'axes=(0,), norm="backward", last_size=4', "[1.0, 2.0, 3.0, 4.0]"))


# ---- arguments ----------------------------------------------------------------------------
def _norm(norm, dual=False):
    norm = "backward" if norm is None else norm
    if norm not in _NORMS:
        raise ValueError(f'Invalid normalization mode: "{norm}" (expected one of '
                         f'{", ".join(_NORMS)} or None)')
    return _DUAL[norm] if dual else norm


def _checked(input, what, real=False):
    """``input`` if a transform takes its dtype: not float16 (as PyTorch on the CPU), and real
    for a transform of real signals (``real=True``)."""
    dt = input._data.dtype
    if dt.kind == "f" and dt.itemsize < 4:
        raise DTypeError(f"{what}(): Unsupported dtype {input.dtype}")
    if real and dt.kind == "c":
        raise DTypeError(f"{what} expects a real input tensor, but got {input.dtype}")
    return input


def _axes(input, s, dim, what):
    """The transformed axes (in the order given: the last is the halved one of rfftn/irfftn)
    and the requested sizes (None where ``s`` asks for none; ``-1`` in ``s`` is none too)."""
    nd = input.ndim
    if dim is None:
        dims = range(nd) if s is None else range(nd - len(s), nd)
        if s is not None and len(s) > nd:
            raise ShapeError(f"{what}(): got shape with {len(s)} values but input tensor only "
                             f"has {nd} dimensions")
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if s is not None and len(s) != len(dims):
            raise ShapeError(f"{what}(): when given, dim and shape arguments must have the "
                             f"same length (got {len(dims)} and {len(s)})")
    axes = tuple(real_dim(d, nd, what) for d in dims)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"{what}(): dims must be unique (got {tuple(dims)})")
    sizes = [None] * len(axes) if s is None else [None if n == -1 else int(n) for n in s]
    for a, n in zip(axes, sizes):
        if (input.shape[a] if n is None else n) < 1:
            raise ShapeError(f"{what}(): Invalid number of data points "
                             f"({input.shape[a] if n is None else n}) specified")
    return axes, sizes


def _resized(x, axes, sizes):
    """``x`` cropped or zero-padded at the end of each axis to its size (None: as it is)."""
    for a, n in zip(axes, sizes):
        have = x.shape[a]
        if n is not None and n < have:
            x = x.narrow(a, 0, n)
        elif n is not None and n > have:
            shape = list(x.shape)
            shape[a] = n - have
            x = cat([x, x.new_zeros(shape)], a)
    return x


def _one(n, dim, what):
    """``s`` and ``dim`` of a one-dimensional transform (an ``n`` below 1 is an error, as in
    PyTorch; ``s`` takes -1 for "as it is")."""
    if n is not None and n < 1:
        raise ShapeError(f"{what}(): Invalid number of data points ({n}) specified")
    return (None if n is None else (n,)), (dim,)


# ---- the generic transforms ------------------------------------------------------------------
def _fftn(input, s, dim, norm, forward, what):
    axes, sizes = _axes(_checked(input, what), s, dim, what)
    x = _resized(input, axes, sizes)
    return call(OPS["fft_c2c"], [x], {"axes": axes, "norm": _norm(norm), "forward": forward})


def _rfftn(input, s, dim, norm, what, dual=False):
    axes, sizes = _axes(_checked(input, what, real=True), s, dim, what)
    if not axes:
        raise ShapeError(f"{what}(): must transform at least one axis")
    x = _resized(input, axes, sizes)
    return call(OPS["fft_r2c"], [x], {"axes": axes, "norm": _norm(norm, dual)})


def _irfftn(input, s, dim, norm, what, dual=False):
    axes, sizes = _axes(_checked(input, what), s, dim, what)
    if not axes:
        raise ShapeError(f"{what}(): must transform at least one axis")
    last = sizes[-1] if sizes[-1] is not None else 2 * (input.shape[axes[-1]] - 1)
    if last < 1:
        raise ShapeError(f"{what}(): Invalid number of data points ({last}) specified")
    x = _resized(input, axes, sizes[:-1] + [last // 2 + 1])
    return call(OPS["fft_c2r"], [x], {"axes": axes, "norm": _norm(norm, dual),
                                      "last_size": last})


# ---- mutograd.fft (PyTorch's signatures) -------------------------------------------------
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dimensional discrete Fourier transform along ``dim`` (``n``: crop or zero-pad to
    that length first; ``norm``: "backward" (default, unscaled), "forward" (1/n) or "ortho").

        >>> import mutograd as mg
        >>> mg.fft.fft(mg.tensor([1.0, 2.0])).tolist()
        [(3+0j), (-1+0j)]
    """
    return out_into(_fftn(input, *_one(n, dim, "fft"), norm, True, "fft"), out)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`fft` (scaled by 1/n with the default norm).

        >>> import mutograd as mg
        >>> mg.fft.ifft(mg.tensor([3.0, -1.0])).tolist()
        [(1+0j), (2+0j)]
    """
    return out_into(_fftn(input, *_one(n, dim, "ifft"), norm, False, "ifft"), out)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a real signal: the ``n // 2 + 1`` non-negative frequencies.

        >>> import mutograd as mg
        >>> mg.fft.rfft(mg.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
        [(10+0j), (-2+2j), (-2+0j)]
    """
    return out_into(_rfftn(input, *_one(n, dim, "rfft"), norm, "rfft"), out)


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default
    ``2 * (input.shape[dim] - 1)``) from its non-negative frequencies.

        >>> import mutograd as mg
        >>> mg.fft.irfft(mg.tensor([10, -2 + 2j, -2])).tolist()
        [1.0, 2.0, 3.0, 4.0]
    """
    return out_into(_irfftn(input, *_one(n, dim, "irfft"), norm, "irfft"), out)


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real
    spectrum of length ``n`` (default ``2 * (input.shape[dim] - 1)``).

        >>> import mutograd as mg
        >>> mg.fft.hfft(mg.tensor([1.0, 0.0])).tolist()
        [1.0, 1.0]
    """
    return out_into(_irfftn(conj(input), *_one(n, dim, "hfft"), norm, "hfft", dual=True), out)


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`hfft`: the first half of the inverse transform of a real signal.

        >>> import mutograd as mg
        >>> mg.fft.ihfft(mg.tensor([1.0, 2.0, 3.0, 4.0])).tolist()
        [(2.5-0j), (-0.5-0.5j), (-0.5-0j)]
    """
    return out_into(conj(_rfftn(input, *_one(n, dim, "ihfft"), norm, "ihfft", dual=True)), out)


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`fftn` over two dimensions (the last two by default).

        >>> import mutograd as mg
        >>> mg.fft.fft2(mg.ones(2, 2)).tolist()
        [[(4+0j), 0j], [0j, 0j]]
    """
    return out_into(_fftn(input, s, dim, norm, True, "fft2"), out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`ifftn` over two dimensions (the last two by default)."""
    return out_into(_fftn(input, s, dim, norm, False, "ifft2"), out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`rfftn` over two dimensions (the last two by default)."""
    return out_into(_rfftn(input, s, dim, norm, "rfft2"), out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`irfftn` over two dimensions (the last two by default)."""
    return out_into(_irfftn(input, s, dim, norm, "irfft2"), out)


def hfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`hfftn` over two dimensions (the last two by default)."""
    return out_into(_irfftn(conj(input), s, dim, norm, "hfft2", dual=True), out)


def ihfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """:func:`ihfftn` over two dimensions (the last two by default)."""
    return out_into(conj(_rfftn(input, s, dim, norm, "ihfft2", dual=True)), out)


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-dimensional discrete Fourier transform over ``dim`` (all dimensions, or the last
    ``len(s)`` when only ``s`` is given); ``s``: crop or zero-pad each to that size first.

        >>> import mutograd as mg
        >>> mg.fft.fftn(mg.ones(1, 2)).tolist()
        [[(2+0j), 0j]]
    """
    return out_into(_fftn(input, s, dim, norm, True, "fftn"), out)


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`fftn`."""
    return out_into(_fftn(input, s, dim, norm, False, "ifftn"), out)


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """:func:`fftn` of a real signal: the last transformed dimension keeps its ``n // 2 + 1``
    non-negative frequencies."""
    return out_into(_rfftn(input, s, dim, norm, "rfftn"), out)


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`rfftn`: a real signal (the last transformed dimension of length
    ``s[-1]``, by default ``2 * (input.shape[dim[-1]] - 1)``)."""
    return out_into(_irfftn(input, s, dim, norm, "irfftn"), out)


def hfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The N-dimensional :func:`hfft`: the real spectrum of a Hermitian-symmetric signal given
    by the first half of its last transformed dimension."""
    return out_into(_irfftn(conj(input), s, dim, norm, "hfftn", dual=True), out)


def ihfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`hfftn` (of a real signal)."""
    return out_into(conj(_rfftn(input, s, dim, norm, "ihfftn", dual=True)), out)


# ---- frequencies and shifts -------------------------------------------------------------
def _frequencies(n, d, onesided, dtype, device, requires_grad, out):
    from .creation import arange
    k = arange(n // 2 + 1 if onesided else n, dtype=dtype or dtypes.default_float,
               device=device)
    if not onesided:   # the negative frequencies after the positive ones
        k = OPS["where"].function(k >= (n + 1) // 2, k - n, k)
    r = k * (1.0 / (n * d)) if n else k
    return out_into(r, out) if out is not None else r.requires_grad_(requires_grad)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of :func:`fft` of length ``n`` and sample spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

        >>> import mutograd as mg
        >>> mg.fft.fftfreq(4).tolist()
        [0.0, 0.25, -0.5, -0.25]
    """
    return _frequencies(n, d, False, dtype, device, requires_grad, out)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of :func:`rfft` of length ``n``: ``[0, 1, ..., n // 2] / (d * n)``.

        >>> import mutograd as mg
        >>> mg.fft.rfftfreq(4).tolist()
        [0.0, 0.25, 0.5]
    """
    return _frequencies(n, d, True, dtype, device, requires_grad, out)


def _shift(input, dim, inverse):
    dims = range(input.ndim) if dim is None else (dim,) if isinstance(dim, int) else dim
    axes = [canon_dim(a, input.ndim, "fftshift") for a in dims]
    if not axes or input.ndim == 0:
        return input.clone()
    shifts = [(input.shape[a] + inverse) // 2 for a in axes]   # the inverse rolls the rest
    return OPS["roll"].function(input, shifts, axes)


def fftshift(input, dim=None):
    """The zero frequency moved to the centre: ``input`` rolled by ``size // 2`` along each of
    ``dim`` (all dimensions by default).

        >>> import mutograd as mg
        >>> mg.fft.fftshift(mg.fft.fftfreq(4)).tolist()
        [-0.5, -0.25, 0.0, 0.25]
    """
    return _shift(input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift` (they differ for odd sizes).

        >>> import mutograd as mg
        >>> mg.fft.ifftshift(mg.tensor([-0.5, -0.25, 0.0, 0.25])).tolist()
        [0.0, 0.25, -0.5, -0.25]
    """
    return _shift(input, dim, True)


__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft",
           "ifft2", "ifftn", "ifftshift", "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2",
           "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]
