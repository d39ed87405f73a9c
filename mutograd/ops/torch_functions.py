"""PyTorch functions that are compositions of declared ops (their gradients are the ops'):
stacking, splitting, scatters into a copy, predicates, index helpers, ``*_copy`` forms of the
views, and a few reductions. Each is a function here and, where PyTorch has one, a Tensor method.

    >>> import mutograd as mg
    >>> mg.hstack([mg.ones([2]), mg.zeros([1])]).tolist()
    [1.0, 1.0, 0.0]
    >>> [t.shape for t in mg.tensor_split(mg.arange(5), 3)]
    [[2], [2], [1]]
"""
import collections
import itertools
import math

import numpy as np

from .. import dtypes
from ..errors import ShapeError
from ..tensor import Size, Tensor
from . import creation, shaping, views
from .registry import OPS


def _op(name, *inputs, **attrs):
    return OPS[name].function(*inputs, **attrs)


# ---- stacking and splitting ----------------------------------------------------------------
def hstack(tensors):
    """Join along dimension 1 (0 for 1-D tensors)."""
    ts = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return shaping.cat(ts, 0 if all(t.ndim == 1 for t in ts) else 1)


def vstack(tensors):
    """Join along dimension 0, 1-D tensors as rows."""
    return shaping.cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


def dstack(tensors):
    """Join along dimension 2 (tensors made at least 3-D as (1, N, 1) / (M, N, 1))."""
    def three(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, -1, 1)
        return t.unsqueeze(-1) if t.ndim == 2 else t
    return shaping.cat([three(t) for t in tensors], 2)


def column_stack(tensors):
    """Join as columns: 0-D and 1-D tensors become (N, 1)."""
    return shaping.cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)


def tensor_split(input, indices_or_sections, dim=0):
    """Views: ``n`` pieces as equal as possible (the first ``size % n`` one longer), or pieces
    cut at the listed indices."""
    size = input.shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"number of sections must be larger than 0, got {n}")
        cuts = list(itertools.accumulate([size // n + (i < size % n) for i in range(n)]))[:-1]
    else:
        cuts = list(indices_or_sections)
    out, start = [], 0
    for c in cuts + [size]:
        c = max(min(c, size), start)
        out.append(input.narrow(dim, start, c - start))
        start = c
    return tuple(out)


def _split_along(dim_of, name):
    def split(input, indices_or_sections):
        d = dim_of(input)
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise ShapeError(f"torch.{name} attempted to split along dimension {d}, but the "
                             f"size of the dimension {input.shape[d]} is not divisible by the "
                             f"split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    split.__name__ = name
    split.__doc__ = f"``tensor_split`` along dimension {name[0]} (PyTorch's ``{name}``)."
    return split


hsplit = _split_along(lambda x: 0 if x.ndim == 1 else 1, "hsplit")
vsplit = _split_along(lambda x: 0, "vsplit")
dsplit = _split_along(lambda x: 2, "dsplit")


# ---- writes into a copy --------------------------------------------------------------------
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` written at ``index`` of ``dim``."""
    out = input.clone()
    out.select(dim, index).copy_(src)
    return out


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` written into ``[start:end:step]`` of ``dim``."""
    out = input.clone()
    idx = (slice(None),) * (dim % input.ndim) + (slice(start, end, step),)
    out[idx] = src
    return out


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` written onto a diagonal."""
    out = input.clone()
    out.diagonal(offset, dim1, dim2).copy_(src)
    return out


# ---- element-wise compositions -------------------------------------------------------------
def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow."""
    m = _op("maximum", input, other)
    return m + (-(input - other).abs()).exp().log1p()


def logaddexp2(input, other):
    """``log2(2^input + 2^other)``."""
    ln2 = math.log(2)
    return logaddexp(input * ln2, other * ln2) / ln2


def fmax(input, other):
    """Element-wise maximum ignoring NaN (NaN only where both are)."""
    return _op("where", other.isnan(), input, _op("where", input.isnan(), other,
                                                   _op("maximum", input, other)))


def fmin(input, other):
    """Element-wise minimum ignoring NaN (NaN only where both are)."""
    return _op("where", other.isnan(), input, _op("where", input.isnan(), other,
                                                   _op("minimum", input, other)))


def isposinf(input):
    return input.isinf() & (input > 0)


def isneginf(input):
    return input.isinf() & (input < 0)


def isreal(input):
    """True where the imaginary part is 0 (everywhere for a real tensor)."""
    if input.is_complex():
        return input.imag == 0
    return creation.ones(*input.shape, dtype="bool", device=input.place)


def angle(input):
    """The argument: ``atan2(imag, real)`` of a complex tensor; pi for negative reals, else 0."""
    if input.is_complex():
        return _op("atan2", input.imag, input.real)
    return _op("where", input < 0, math.pi, 0.0) * (input * 0 + 1)


def conj(input):
    """The complex conjugate; ``input`` itself for a real tensor (as PyTorch)."""
    return _op("conj_physical", input) if input.is_complex() else input


def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably."""
    m = input.detach().amax(dim, keepdim=True)
    m = _op("where", m.isinf(), 0.0, m)
    return (input - m).exp().cumsum(dim).log() + m


def msort(input):
    """``input`` sorted along dimension 0."""
    return input.sort(0)[0]


_MinMax = collections.namedtuple("aminmax", ["min", "max"])


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` over ``dim`` (every element when None)."""
    if dim is None:
        return _MinMax(input.amin(), input.amax())
    return _MinMax(input.amin(dim, keepdim=keepdim), input.amax(dim, keepdim=keepdim))


def ravel(input):
    """``input`` flattened (a view when possible)."""
    return input.reshape(-1)


def diagflat(input, offset=0):
    """A matrix with ``input`` flattened on its ``offset`` diagonal."""
    return input.reshape(-1).diag(offset)


def vdot(input, other):
    """``sum(conj(input) * other)`` of two 1-D tensors."""
    return (conj(input) * other).sum()


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the variables in the rows of ``input`` (observations in columns)."""
    if fweights is not None or aweights is not None:
        raise ValueError("cov: fweights and aweights are not supported; weight the "
                         "observations yourself")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    xm = x - x.mean(1, keepdim=True)
    c = (xm @ conj(xm).t()) / max(x.shape[1] - correction, 0)
    return c if input.ndim == 2 else c.reshape(())


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim`` (spacing ``dx``, default 1, or sample points ``x``)."""
    n = y.shape[dim]
    mid = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if x is not None:
        d = x.narrow(-1 if x.ndim == 1 else dim, 1, n - 1) - x.narrow(
            -1 if x.ndim == 1 else dim, 0, n - 1)
        return (mid * d).sum(dim) / 2
    return mid.sum(dim) * ((1.0 if dx is None else dx) / 2)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral along ``dim``."""
    n = y.shape[dim]
    mid = y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)
    if x is not None:
        mid = mid * (x.narrow(-1 if x.ndim == 1 else dim, 1, n - 1)
                     - x.narrow(-1 if x.ndim == 1 else dim, 0, n - 1))
    else:
        mid = mid * (1.0 if dx is None else dx)
    return mid.cumsum(dim) / 2


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of ``x``: columns ``x^(N-1) .. x^0`` (reversed if
    ``increasing``)."""
    n = x.shape[0] if N is None else N
    powers = range(n) if increasing else range(n - 1, -1, -1)
    return shaping.stack([x ** p if p else x * 0 + 1 for p in powers], 1)


def cartesian_prod(*tensors):
    """All combinations of one element of each 1-D tensor, as rows."""
    if len(tensors) == 1:
        return tensors[0]
    from .composite import meshgrid
    grids = meshgrid(*tensors, indexing="ij")
    return shaping.stack([g.reshape(-1) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of a 1-D tensor, as rows."""
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if not idx.size:
        return input.new_empty(0, r) if r else input.new_empty(0)
    return input[creation.tensor(idx)]


def block_diag(*tensors):
    """A block-diagonal matrix of the (at most 2-D) tensors."""
    ts = [t.reshape(1, -1) if t.ndim == 1 else t.reshape(1, 1) if t.ndim == 0 else t
          for t in tensors]
    cols = sum(t.shape[1] for t in ts)
    rows, left = [], 0
    from ..nn import functional as F
    for t in ts:
        rows.append(F.pad(t, [left, cols - left - t.shape[1]]))
        left += t.shape[1]
    return shaping.cat(rows, 0)


# ---- index helpers and predicates ----------------------------------------------------------
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the lower triangle."""
    return creation.tensor(np.stack(np.tril_indices(row, offset, col)), dtype=dtype or "int64",
                           device=device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (2, N) row and column indices of the upper triangle."""
    return creation.tensor(np.stack(np.triu_indices(row, offset, col)), dtype=dtype or "int64",
                           device=device)


def unravel_index(indices, shape):
    """The coordinates in ``shape`` of flat ``indices``, one tensor per dimension."""
    idx = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    return tuple(creation.tensor(a) for a in np.unravel_index(idx, tuple(shape)))


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to."""
    return Size(np.broadcast_shapes(*[(s,) if isinstance(s, int) else tuple(s)
                                      for s in shapes]))


def result_type(tensor1, tensor2):
    """The dtype an op on the two would give (tensors: :func:`promote_types` of their dtypes;
    a Python number takes the tensor's dtype unless it is of a higher kind)."""
    if isinstance(tensor1, Tensor) and isinstance(tensor2, Tensor):
        return promote_types(tensor1.dtype, tensor2.dtype)
    t, s = (tensor1, tensor2) if isinstance(tensor1, Tensor) else (tensor2, tensor1)
    kind = "c" if isinstance(s, complex) else "f" if isinstance(s, float) else "b" if \
        isinstance(s, bool) else "i"
    order = "biufc"
    if order.index(kind) <= order.index(t.dtype.np.kind):
        return t.dtype
    return {"f": dtypes.default_float, "c": dtypes.get("complex64"),
            "i": dtypes.get("int64")}[kind]


def promote_types(type1, type2):
    """The smallest dtype both cast to; an integer and a floating dtype give the floating one,
    as PyTorch (NumPy would widen it)."""
    a, b = dtypes.to_numpy(type1), dtypes.to_numpy(type2)
    if a.kind in "biu" and b.kind in "fc":
        return dtypes.from_numpy(b)
    if b.kind in "biu" and a.kind in "fc":
        return dtypes.from_numpy(a)
    return dtypes.from_numpy(np.promote_types(a, b))


def can_cast(from_, to):
    """Whether a value of dtype ``from_`` may be cast to ``to`` (PyTorch's same-kind rule)."""
    return bool(np.can_cast(dtypes.to_numpy(from_), dtypes.to_numpy(to), "same_kind"))


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None,
                  pin_memory=False):
    """A 0-d tensor of ``s`` (of the default float dtype unless told otherwise)."""
    return creation.tensor(float(s) if dtype is None else s,
                           dtype=dtype or dtypes.default_float, device=device,
                           requires_grad=requires_grad)


def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           layout=None, out=None):
    """PyTorch's deprecated ``range``: ``start .. end`` *inclusive*, floats by default."""
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    return creation.tensor(start + step * np.arange(n), dtype=dtype or dtypes.default_float,
                           device=device, requires_grad=requires_grad)


def is_nonzero(input):
    """Whether the single element of ``input`` is nonzero."""
    if input.numel() != 1:
        what = "no" if not input.numel() else "more than one"
        raise RuntimeError(f"Boolean value of Tensor with {what} values is ambiguous")
    return bool(input.item())


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_floating_point(input):
    return input.dtype.is_floating_point


def is_signed(input):
    return input.dtype.is_signed


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2^exponent`` (no gradient)."""
    m, e = np.frexp(input.detach().numpy())
    return collections.namedtuple("frexp", ["mantissa", "exponent"])(
        creation.tensor(m), creation.tensor(e.astype(np.int32)))


# ---- copies of views -----------------------------------------------------------------------
def _copy_of(name, view):
    def fn(*args, **kw):
        r = view(*args, **kw)
        return tuple(t.clone() for t in r) if isinstance(r, (tuple, list)) else r.clone()
    fn.__name__ = name
    fn.__doc__ = f"A copy (new storage) of the view ``{name[:-5]}`` gives."
    return fn


_COPIES = {
    "alias_copy": lambda x: x, "detach_copy": lambda x: x.detach(),
    "expand_copy": lambda x, size, *, implicit=False: x.expand(*size),
    "permute_copy": lambda x, dims: x.permute(*dims), "t_copy": lambda x: x.t(),
    "transpose_copy": lambda x, dim0, dim1: x.transpose(dim0, dim1),
    "unsqueeze_copy": lambda x, dim: x.unsqueeze(dim),
    "squeeze_copy": lambda x, dim=None: x.squeeze() if dim is None else x.squeeze(dim),
    "view_copy": lambda x, *shape: x.view(*shape),
    "select_copy": lambda x, dim, index: x.select(dim, index),
    "slice_copy": lambda x, dim=0, start=None, end=None, step=1: x[
        (slice(None),) * (dim % x.ndim) + (slice(start, end, step),)],
    "split_copy": lambda x, split_size, dim=0: views.split(x, split_size, dim),
    "split_with_sizes_copy": lambda x, split_sizes, dim=0: views.split(x, list(split_sizes), dim),
    "unbind_copy": lambda x, dim=0: views.unbind(x, dim),
    "narrow_copy": lambda x, dim, start, length: x.narrow(dim, start, length),
    "diagonal_copy": lambda x, offset=0, dim1=0, dim2=1: x.diagonal(offset, dim1, dim2),
    "unfold_copy": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "view_as_real_copy": lambda x: _op("view_as_real", x),
    "view_as_complex_copy": lambda x: _op("view_as_complex", x),
    "as_strided_copy": lambda x, size, stride, storage_offset=0: x.as_strided(
        size, stride, storage_offset),
}
COPIES = {name: _copy_of(name, view) for name, view in _COPIES.items()}

FUNCTIONS = {
    "hstack": hstack, "vstack": vstack, "row_stack": vstack, "dstack": dstack,
    "column_stack": column_stack, "tensor_split": tensor_split, "hsplit": hsplit,
    "vsplit": vsplit, "dsplit": dsplit, "select_scatter": select_scatter,
    "slice_scatter": slice_scatter, "diagonal_scatter": diagonal_scatter,
    "logaddexp": logaddexp, "logaddexp2": logaddexp2, "fmax": fmax, "fmin": fmin,
    "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal, "angle": angle, "conj": conj,
    "logcumsumexp": logcumsumexp, "msort": msort, "aminmax": aminmax, "ravel": ravel,
    "diagflat": diagflat, "vdot": vdot, "cov": cov, "corrcoef": corrcoef,
    "trapezoid": trapezoid, "trapz": trapezoid, "cumulative_trapezoid": cumulative_trapezoid,
    "vander": vander, "cartesian_prod": cartesian_prod, "combinations": combinations,
    "block_diag": block_diag, "tril_indices": tril_indices, "triu_indices": triu_indices,
    "unravel_index": unravel_index, "broadcast_shapes": broadcast_shapes,
    "result_type": result_type, "promote_types": promote_types, "can_cast": can_cast,
    "scalar_tensor": scalar_tensor, "is_nonzero": is_nonzero, "is_same_size": is_same_size,
    "is_floating_point": is_floating_point, "is_signed": is_signed, "frexp": frexp,
    "concatenate": shaping.cat, "ger": lambda input, vec2: _op("outer", input, vec2),
    "mv": lambda input, vec: _op("matmul", input, vec), **COPIES,
}

# Tensor methods PyTorch has for these (x.fliplr(), x.tensor_split(3), x.H, ...)
_METHODS = ("tensor_split", "hsplit", "vsplit", "dsplit", "select_scatter", "slice_scatter",
            "diagonal_scatter", "logaddexp", "logaddexp2", "fmax", "fmin", "isposinf",
            "isneginf", "isreal", "angle", "conj", "logcumsumexp", "msort", "aminmax", "ravel",
            "diagflat", "vdot", "cov", "corrcoef", "is_nonzero", "is_same_size", "is_signed",
            "frexp", "ger", "mv", "narrow_copy")
for _name in _METHODS:
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, FUNCTIONS[_name])
Tensor.fliplr = lambda self: self.flip(1)
Tensor.flipud = lambda self: self.flip(0)
Tensor.adjoint = lambda self: conj(self.transpose(-2, -1))
Tensor.H = property(lambda self: conj(self.t()), doc="The conjugate transpose of a matrix.")
Tensor.mH = property(Tensor.adjoint, doc="The conjugate transpose of the last two dimensions.")
Tensor.is_conj = lambda self: False     # conjugation is never lazy here
Tensor.is_neg = lambda self: False
Tensor.resolve_conj = Tensor.resolve_neg = lambda self: self
Tensor.cfloat = lambda self: self.type("complex64")
Tensor.cdouble = lambda self: self.type("complex128")
Tensor.allclose = lambda self, other, rtol=1e-05, atol=1e-08, equal_nan=False: bool(
    np.allclose(self.numpy(), other.numpy(), rtol, atol, equal_nan))
FUNCTIONS["fliplr"], FUNCTIONS["flipud"] = Tensor.fliplr, Tensor.flipud
FUNCTIONS["adjoint"] = Tensor.adjoint


# ---- running extremes and more Tensor methods ----------------------------------------------
_ValuesIndices = collections.namedtuple("ValuesIndices", ["values", "indices"])


def _running(input, dim, better):
    """Values and indices of the running extreme along ``dim``; the values are gathered at the
    indices, so the gradient goes to the element that won (the last of equal ones)."""
    d = dim % max(input.ndim, 1)
    a = np.moveaxis(input.detach().numpy().reshape(input.shape or (1,)), d, -1)
    idx = np.zeros(a.shape, np.int64)
    best = a[..., 0].copy()
    for i in range(1, a.shape[-1]):
        take = better(a[..., i], best) | (a[..., i] == best) | np.isnan(a[..., i])
        best = np.where(take, a[..., i], best)
        idx[..., i] = np.where(take, i, idx[..., i - 1])
    idx = creation.tensor(np.moveaxis(idx, -1, d).reshape(input.shape))
    if input.ndim == 0:
        return _ValuesIndices(input * 1, idx)
    return _ValuesIndices(input.gather(d, idx), idx)


def cummax(input, dim):
    """``(values, indices)`` of the running maximum along ``dim``."""
    return _running(input, dim, np.greater)


def cummin(input, dim):
    """``(values, indices)`` of the running minimum along ``dim``."""
    return _running(input, dim, np.less)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices with the last dimension of ``input`` on their ``offset`` diagonal (in the
    dimensions ``dim1``, ``dim2`` of the result)."""
    from ..nn import functional as F
    n = input.shape[-1]
    out = input.unsqueeze(-1) * creation.eye(n, dtype=input.dtype)
    if offset > 0:
        out = F.pad(out, [offset, 0, 0, offset])
    elif offset < 0:
        out = F.pad(out, [0, -offset, -offset, 0])
    nd = out.ndim
    if (dim1 % nd, dim2 % nd) != (nd - 2, nd - 1):
        out = out.movedim((nd - 2, nd - 1), (dim1 % nd, dim2 % nd))
    return out


def sum_to_size(input, *size):
    """``input`` summed down to ``size`` (which it must broadcast from)."""
    size = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else size
    lead = input.ndim - len(size)
    out = input.sum(tuple(range(lead))) if lead > 0 else input
    axes = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return out.sum(axes, keepdim=True) if axes else out


def logdet(input):
    """``log(det(input))`` (NaN for a negative determinant, as PyTorch)."""
    return _op("det", input).log()


def dim_order(self):
    """The dimensions from the outermost to the innermost in memory (by decreasing stride)."""
    st = self.stride()
    return tuple(sorted(range(self.ndim), key=lambda i: -st[i]))


def _legacy_new(self, *args, **kw):
    """PyTorch's legacy ``x.new(...)``: ``Tensor(...)`` with ``x``'s dtype."""
    if not args:
        return creation.empty(0, dtype=self.dtype)
    if all(isinstance(a, int) for a in args) or isinstance(args[0], Size):
        return creation.empty(*args, dtype=self.dtype)
    return creation.tensor(args[0], dtype=self.dtype)


def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples, 1 with the probability in ``input`` (or ``p``); a new tensor."""
    out = creation.zeros(*input.shape, dtype=input.dtype)
    return out.bernoulli_(input if p is None else p, generator=generator)


Tensor.bernoulli = bernoulli
Tensor.cummax = cummax
Tensor.cummin = cummin
Tensor.diag_embed = diag_embed
Tensor.sum_to_size = sum_to_size
Tensor.logdet = logdet
Tensor.dim_order = dim_order
Tensor.new = _legacy_new
Tensor.new_empty_strided = lambda self, size, stride, **kw: self.new_empty(*size, **kw)
Tensor.get_device = lambda self: -1 if self._place.kind == "cpu" else self._place.index
Tensor.is_cpu = property(lambda self: self._place.kind == "cpu")
for _flag in ("is_nested", "is_quantized", "is_sparse", "is_sparse_csr"):
    setattr(Tensor, _flag, property(lambda self: False, doc="False: mutograd tensors are "
                                                            "dense, strided and unquantized."))
Tensor.is_distributed = Tensor.is_pinned = Tensor.is_shared = lambda self, *a: False
Tensor.pin_memory = lambda self, device=None: self    # host memory is what NumPy has
Tensor.share_memory_ = lambda self: self
Tensor.to_dense = lambda self, dtype=None, **kw: self if dtype is None else self.type(dtype)
Tensor.hardshrink = lambda self, lambd=0.5: __import__(
    "mutograd.nn.functional", fromlist=["hardshrink"]).hardshrink(self, lambd)
Tensor.prelu = lambda self, weight: __import__(
    "mutograd.nn.functional", fromlist=["prelu"]).prelu(self, weight)
FUNCTIONS.update({"cummax": cummax, "cummin": cummin, "diag_embed": diag_embed,
                  "logdet": logdet})
