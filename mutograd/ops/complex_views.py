"""Complex numbers as pairs of reals: ``real``/``imag``/``view_as_real``/``view_as_complex``
(views of the same storage), ``complex``/``polar`` (new tensors), and the functions of a complex
tensor composed from them: ``angle``, ``conj``, ``adjoint`` (also ``x.H``, ``x.mH``), the
conversions ``x.cfloat()``/``x.cdouble()``, and PyTorch's lazy-conjugation queries (never lazy
here: ``x.is_conj()`` is False, ``x.resolve_conj()`` is ``x``).

    >>> import mutograd as mg
    >>> z = mg.complex(mg.tensor([1.0]), mg.tensor([-1.0]))
    >>> mg.conj(z).tolist(), mg.angle(mg.tensor([-2.0, 3.0])).tolist()
    ([(1+1j)], [3.141592653589793, 0.0])

Gradients follow PyTorch's convention for a real loss: the gradient of a complex tensor is
``dL/d(re) + 1j * dL/d(im)``, so ``x.real`` passes ``g`` back as ``g + 0j`` and ``x.imag`` as
``1j * g``.
"""
import math

from ..errors import DTypeError, ShapeError
from .registry import OPS, call, defop

_REAL_OF = {"complex64": "float32", "complex128": "float64"}
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _need_complex(x, what):
    if x.dtype.kind != "c":
        raise DTypeError(f"{what} is not implemented for tensors with non-complex dtypes "
                         f"(got {x.dtype})")


def _real(xp, x):
    return x.real


def _imag(xp, x):
    _need_complex(x, "imag")
    return x.imag


def _view_as_real(xp, x):
    _need_complex(x, "view_as_real")
    r = x.real                          # a view of the real parts, with x's strides
    return xp.lib.stride_tricks.as_strided(r, r.shape + (2,), r.strides + (r.itemsize,))


def _view_as_complex(xp, x):
    if x.dtype.name not in _COMPLEX_OF:
        raise DTypeError(f"view_as_complex is only supported for float32 and float64 tensors, "
                         f"but got a tensor of scalar type {x.dtype}")
    if x.ndim == 0 or x.shape[-1] != 2:
        raise ShapeError(f"Tensor must have a last dimension of size 2 (got shape "
                         f"{list(x.shape)})")
    if x.strides[-1] != x.itemsize or any(s % (2 * x.itemsize) for s in x.strides[:-1]):
        raise ShapeError("Tensor must have a last dimension with stride 1 and every other "
                         "stride divisible by 2")
    return x.view(_COMPLEX_OF[x.dtype.name])[..., 0]


def _complex(xp, x, y):
    if x.dtype != y.dtype or x.dtype.name not in _COMPLEX_OF:
        raise DTypeError(f"complex(): expected both inputs to be float32 or float64 of the same "
                         f"dtype, got {x.dtype} and {y.dtype}")
    out = xp.empty(xp.broadcast_shapes(x.shape, y.shape), _COMPLEX_OF[x.dtype.name])
    out.real, out.imag = x, y
    return out


# ``x.real`` and ``x.imag`` are properties (below), as in PyTorch and NumPy
defop("real", _real, kind="view", inplace=False, method=False,
      grad=lambda g, x_dtype: g.astype(x_dtype))
defop("imag", _imag, kind="view", inplace=False, method=False, grad=lambda g: g * 1j)
defop("view_as_real", _view_as_real, kind="view", inplace=False,
      grad=lambda g: g[..., 0] + 1j * g[..., 1])
defop("view_as_complex", _view_as_complex, kind="view", inplace=False,
      grad=lambda g, xp: xp.stack([g.real, g.imag], axis=-1))
defop("complex", _complex, kind="other", inplace=False,
      grad=(lambda g, xp: xp.ascontiguousarray(g.real), lambda g, xp: xp.ascontiguousarray(g.imag)))


def polar(abs, angle):
    """``abs * (cos(angle) + 1j * sin(angle))``, differentiable in both.

    Example::

        >>> import mutograd as mg
        >>> mg.polar(mg.tensor([2.]), mg.tensor([0.])).tolist()
        [(2+0j)]
    """
    return call(OPS["complex"], [abs * angle.cos(), abs * angle.sin()], {})


def angle(input):
    """The argument: ``atan2(imag, real)`` of a complex tensor; pi for negative reals, else 0."""
    if input.is_complex():
        return OPS["atan2"].function(input.imag, input.real)
    return OPS["where"].function(input < 0, math.pi, 0.0) * (input * 0 + 1)


def real(input):
    """The real parts of a complex tensor (a view); a real tensor itself.

        >>> import mutograd as mg
        >>> mg.real(mg.tensor([1 + 2j])).tolist()
        [1.0]
    """
    return input.real


def imag(input):
    """The imaginary parts of a complex tensor (a view)."""
    return input.imag


def conj(input):
    """The complex conjugate; ``input`` itself for a real tensor (as PyTorch)."""
    return OPS["conj_physical"].function(input) if input.is_complex() else input


TENSOR_METHODS = {
    "real": property(lambda self: OPS["real"].function(self) if self.is_complex() else self,
                     doc="The real parts (a view); ``self`` itself for a real dtype."),
    "imag": property(OPS["imag"].function, doc="The imaginary parts (a view) of a complex "
                                              "tensor."),
    "adjoint": lambda self: conj(self.swapaxes(-2, -1)),
    "H": property(lambda self: conj(self.t()), doc="The conjugate transpose of a matrix."),
    "is_conj": lambda self: False,     # conjugation is never lazy here
    "is_neg": lambda self: False,
    **dict.fromkeys(("resolve_conj", "resolve_neg"), lambda self: self),
    "cfloat": lambda self: self.type("complex64"),
    "cdouble": lambda self: self.type("complex128"),
}
TENSOR_METHODS["mH"] = property(TENSOR_METHODS["adjoint"],
                                doc="The conjugate transpose of the last two dimensions.")
FUNCTIONS = {"polar": polar, "angle": angle, "conj": conj, "adjoint": TENSOR_METHODS["adjoint"],
             "real": real, "imag": imag}
