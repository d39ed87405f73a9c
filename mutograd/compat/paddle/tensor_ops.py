"""Paddle's functions that are compositions of mutograd ops (so their gradients come from the
ops): ``gather_nd``, ``scatter_nd_add``, ``index_sample``, ``slice``, ``strided_slice``,
``crop``, ``stanh``, ``multiplex``, ``reduce_as``, ... Those Paddle also binds as Tensor methods
are methods of ``paddle.Tensor`` too (tensor.py).

    >>> import mutograd.compat.paddle as paddle
    >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
    >>> paddle.gather_nd(x, paddle.to_tensor([[0, 1], [1, 0]])).tolist()
    [2.0, 3.0]
"""
import builtins
import contextlib
import math

import mutograd as _mg

from ..sampling import sample as _sample


def _index_tuple(index):
    k = index.shape[-1]
    return tuple(index[..., i] for i in range(k))


def gather_nd(x, index, name=None):
    """``out[i] = x[index[i]]``: the last axis of ``index`` indexes the first axes of ``x``."""
    return x[_index_tuple(index)]


def scatter_nd_add(x, index, updates, name=None):
    """A copy of ``x`` with ``updates`` added at ``index`` (repeated indices accumulate)."""
    return _mg.index_put(x, _index_tuple(index), updates, True)


def scatter_nd(index, updates, shape, name=None):
    """``updates`` added into zeros of ``shape`` at ``index``."""
    return scatter_nd_add(_mg.zeros(list(shape), dtype=updates.dtype), index, updates)


def index_sample(x, index, name=None):
    """``out[i, j] = x[i, index[i, j]]``."""
    return _mg.take_along_axis(x, index, 1)


def unstack(x, axis=0, num=None, name=None):
    """The slices of ``x`` along ``axis``, as a list."""
    return list(_mg.unbind(x, axis))


def reverse(x, axis, name=None):
    """``x`` reversed along ``axis`` (an int or a list)."""
    return _mg.flip(x, [axis] if isinstance(axis, int) else list(axis))


def slice(input, axes, starts, ends):
    """``input[starts[i]:ends[i]]`` along each of ``axes`` (a view)."""
    return strided_slice(input, axes, starts, ends, [1] * len(axes))


def strided_slice(x, axes, starts, ends, strides, name=None):
    """``x[starts[i]:ends[i]:strides[i]]`` along each of ``axes`` (a view)."""
    key = [builtins.slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        key[a] = builtins.slice(int(s), int(e), int(st))
    return x[tuple(key)]


def crop(x, shape=None, offsets=None, name=None):
    """The ``shape`` region of ``x`` starting at ``offsets`` (-1 in ``shape``: to the end)."""
    shape = list(x.shape) if shape is None else [int(s) for s in shape]
    offsets = [0] * x.ndim if offsets is None else [int(o) for o in offsets]
    key = tuple(builtins.slice(o, x.shape[i] if s == -1 else o + s)
                for i, (o, s) in enumerate(zip(offsets, shape)))
    return x[key]


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """``scale_b * tanh(scale_a * x)``."""
    return (x * scale_a).tanh() * scale_b


def multiplex(inputs, index, name=None):
    """Row ``i`` of ``inputs[index[i]]`` for each row ``i``."""
    stacked = _mg.stack(list(inputs), 0)
    rows = _mg.arange(stacked.shape[1])
    return stacked[(index.reshape([-1]), rows)]


def reduce_as(x, target, name=None):
    """``x`` summed over the axes that broadcasting ``target`` to it would add or expand."""
    lead = x.ndim - target.ndim
    out = x.sum(axis=list(range(lead))) if lead else x
    axes = [i for i, (a, b) in enumerate(zip(out.shape, target.shape)) if b == 1 and a != 1]
    return out.sum(axis=axes, keepdim=True) if axes else out


def matrix_transpose(x, name=None):
    """``x`` with its last two axes swapped (a view)."""
    return x.mT


def equal_all(x, y, name=None):
    """Whether ``x`` and ``y`` have the same shape and elements, as a bool 0-d tensor."""
    same = list(x.shape) == list(y.shape) and bool((x == y).all())
    return _mg.tensor(same)


def broadcast_shape(x_shape, y_shape):
    """The broadcast of two shapes, as a list."""
    return broadcast_shapes(x_shape, y_shape)


def broadcast_shapes(*shapes):
    """The broadcast of several shapes, as a list."""
    out = []
    for dims in zip(*[[1] * (max(map(len, shapes)) - len(s)) + list(s) for s in shapes]):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise ValueError(f"shapes {[list(s) for s in shapes]} do not broadcast")
        out.append(big.pop() if big else 1)
    return out


def rank(input):
    """The number of dimensions, as an int32 0-d tensor."""
    return _mg.tensor(input.ndim, dtype="int32")


def is_empty(x, name=None):
    """Whether ``x`` has no elements, as a bool 0-d tensor."""
    return _mg.tensor(x.numel() == 0)


def is_floating_point(x):
    return x.dtype.name.startswith(("float", "bfloat"))


def is_integer(x):
    return x._data.dtype.kind in "iu"


def is_complex(x):
    return x._data.dtype.kind == "c"


def tolist(x):
    """The elements as (nested) Python lists."""
    return x.tolist()


# Tensor methods Paddle has with these names (paddle.Tensor has those the main Tensor lacks)
METHODS = {"add_n": lambda x, name=None: x.clone(),
           "broadcast_shape": broadcast_shape, "broadcast_shapes": broadcast_shapes,
           "multiplex": multiplex, "scatter_nd": scatter_nd,
           "grad_": property(lambda self: self.grad, doc="Paddle's alias of ``grad``."),
           "gather_nd": gather_nd, "scatter_nd_add": scatter_nd_add,
           "index_sample": index_sample, "unstack": unstack, "reverse": reverse,
           "slice": slice, "strided_slice": strided_slice, "stanh": stanh,
           "reduce_as": reduce_as, "matrix_transpose": matrix_transpose, "equal_all": equal_all,
           "rank": rank, "is_empty": is_empty, "is_integer": is_integer,
           "is_complex": is_complex, "is_floating_point": is_floating_point}

pi, e, inf, nan = math.pi, math.e, math.inf, math.nan
newaxis = None


def install(namespace):
    """Put the functions of :data:`COMPOSED` in ``namespace`` (the paddle module's globals),
    where Paddle's signatures (``axis=``, ``name=``) replace the main namespace's functions of
    the same name."""
    for name in COMPOSED:
        namespace[name] = globals()[name]


# ---- array-manipulation conveniences composed of mutograd ops -------------------------------

def _atleast(x, n):
    while x.ndim < n:
        x = x.unsqueeze(0) if n != 3 or x.ndim != 2 else x.unsqueeze(-1)
    return x


def hstack(x, name=None):
    """Concatenate along axis 1 (axis 0 for 1-D tensors)."""
    return _mg.cat(list(x), 0 if x[0].ndim == 1 else 1)


def vstack(x, name=None):
    """Concatenate along axis 0, 1-D tensors as rows."""
    return _mg.cat([_atleast(t, 2) for t in x], 0)


row_stack = vstack


def dstack(x, name=None):
    """Concatenate along axis 2 (1-D and 2-D tensors raised to 3-D first)."""
    return _mg.cat([_atleast(t.unsqueeze(-1) if t.ndim == 1 else t, 3) for t in x], 2)


def column_stack(x, name=None):
    """1-D tensors as columns, then concatenated along axis 1."""
    return _mg.cat([t.unsqueeze(1) if t.ndim == 1 else t for t in x], 1)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Views: ``num_or_indices`` near-equal pieces (the first ones one longer), or pieces cut
    at the listed indices."""
    n = x.shape[axis]
    if isinstance(num_or_indices, int):
        k = num_or_indices
        sizes = [n // k + (1 if i < n % k else 0) for i in builtins.range(k)]
        cuts = [builtins.sum(sizes[:i]) for i in builtins.range(1, k)]
    else:
        cuts = [int(i) for i in num_or_indices]
    bounds = [0] + [builtins.min(builtins.max(c if c >= 0 else c + n, 0), n) for c in cuts] + [n]
    key = [builtins.slice(None)] * x.ndim
    out = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        key[axis % x.ndim] = builtins.slice(a, builtins.max(a, b))
        out.append(x[tuple(key)])
    return out


def hsplit(x, num_or_indices, name=None):
    return tensor_split(x, num_or_indices, 0 if x.ndim == 1 else 1)


def vsplit(x, num_or_indices, name=None):
    return tensor_split(x, num_or_indices, 0)


def dsplit(x, num_or_indices, name=None):
    return tensor_split(x, num_or_indices, 2)


def ravel(x, name=None):
    """``x`` flattened to 1-D."""
    return x.reshape([-1])


def msort(x, name=None):
    """``x`` sorted along axis 0."""
    r = _mg.sort(x, axis=0)
    return r[0] if isinstance(r, tuple) else r      # the main namespace's sort gives indices too


def view_as(x, other, name=None):
    """``x`` reshaped to ``other``'s shape (a view)."""
    return x.reshape(list(other.shape))


def type_as(x, other, name=None):
    """``x`` cast to ``other``'s dtype."""
    return x.astype(other.dtype)


def fmax(x, y, name=None):
    """The larger of ``x`` and ``y``, ignoring NaN where only one is NaN."""
    return _mg.where(x.isnan(), y, _mg.where(y.isnan(), x, _mg.maximum(x, y)))


def fmin(x, y, name=None):
    """The smaller of ``x`` and ``y``, ignoring NaN where only one is NaN."""
    return _mg.where(x.isnan(), y, _mg.where(y.isnan(), x, _mg.minimum(x, y)))


def logaddexp(x, y, name=None):
    """``log(exp(x) + exp(y))`` without overflow."""
    m = _mg.maximum(x, y)
    return m + ((x - m).exp() + (y - m).exp()).log()


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``log(cumsum(exp(x)))`` along ``axis`` (flattened when None) without overflow."""
    if axis is None:
        x, axis = x.reshape([-1]), 0
    if dtype is not None:
        x = x.astype(dtype)
    m = x.amax(axis=axis, keepdim=True).detach()
    return (x - m).exp().cumsum(axis).log() + m


def isposinf(x, name=None):
    return x.isinf() & (x > 0)


def isneginf(x, name=None):
    return x.isinf() & (x < 0)


def isreal(x, name=None):
    """True everywhere for a real dtype; where the imaginary part is 0 for a complex one."""
    if x._data.dtype.kind == "c":
        return _mg.tensor(x._data.imag == 0)
    return _mg.ones(list(x.shape), dtype="bool")


def _cumextreme(x, axis, dtype, better):
    """Running max (min) values and the index where each was reached, along ``axis``."""
    a = x.numpy()
    axis %= a.ndim
    moved = _np().moveaxis(a, axis, -1)
    idx = _np().zeros(moved.shape, dtype=_np().int64)
    best = moved[..., 0].copy()
    for i in builtins.range(1, moved.shape[-1]):
        take = better(moved[..., i], best) | (moved[..., i] == best)
        best = _np().where(take, moved[..., i], best)
        idx[..., i] = _np().where(take, i, idx[..., i - 1])
    idx = _mg.tensor(_np().moveaxis(idx, -1, axis).astype(dtype))
    return _mg.take_along_axis(x, idx.astype("int64"), axis), idx


def _np():
    import numpy
    return numpy


def cummax(x, axis=None, dtype="int64", name=None):
    """``(values, indices)``: the running maximum along ``axis`` and where it was reached."""
    if axis is None:
        x, axis = x.reshape([-1]), 0
    return _cumextreme(x, axis, dtype, _np().greater)


def cummin(x, axis=None, dtype="int64", name=None):
    """``(values, indices)``: the running minimum along ``axis`` and where it was reached."""
    if axis is None:
        x, axis = x.reshape([-1]), 0
    return _cumextreme(x, axis, dtype, _np().less)


def diagflat(x, offset=0, name=None):
    """A matrix with the flattened ``x`` on diagonal ``offset``."""
    from .nn.functional import diag_embed
    return diag_embed(x.reshape([-1]), offset)


def block_diag(inputs, name=None):
    """The matrices of ``inputs`` along the diagonal of one matrix, zeros elsewhere."""
    from .nn.functional import pad
    mats = [t.reshape([1, -1]) if t.ndim < 2 else t for t in inputs]
    rows, cols = builtins.sum(m.shape[0] for m in mats), builtins.sum(m.shape[1] for m in mats)
    out, r, c = [], 0, 0
    for m in mats:
        out.append(pad(m, [r, rows - r - m.shape[0], c, cols - c - m.shape[1]]))
        r, c = r + m.shape[0], c + m.shape[1]
    return builtins.sum(out[1:], out[0])


def cartesian_prod(x, name=None):
    """Every combination of one element from each 1-D tensor of ``x``: [n1 * n2 * ..., k]."""
    grids = _mg.meshgrid(*x, indexing="ij")
    return _mg.stack([g.reshape([-1]) for g in grids], 1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The ``r``-element combinations of the 1-D ``x``, as rows."""
    import itertools
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = list(pick(builtins.range(x.shape[0]), r))
    if not idx:
        return _mg.zeros([0, r], dtype=x.dtype)
    return x[_mg.tensor(idx, dtype="int64")]


def mv(x, vec, name=None):
    """Matrix times vector."""
    return _mg.matmul(x, vec)


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of ``y`` along ``axis`` by the trapezoidal rule (spacing ``x`` or ``dx``)."""
    return cumulative_trapezoid(y, x, dx, axis).select(axis, -1) if y.shape[axis] > 1 else \
        _mg.zeros(list(y.shape[:axis % y.ndim]) + list(y.shape[axis % y.ndim + 1:]),
                  dtype=y.dtype)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoidal integral of ``y`` along ``axis`` (one element shorter)."""
    axis %= y.ndim
    n = y.shape[axis]
    lo = y.narrow(axis, 0, n - 1)
    hi = y.narrow(axis, 1, n - 1)
    if x is not None:
        d = x.narrow(-1 if x.ndim == 1 else axis, 1, n - 1) - x.narrow(
            -1 if x.ndim == 1 else axis, 0, n - 1)
        if x.ndim == 1 and y.ndim > 1:
            d = d.reshape([-1] + [1] * (y.ndim - axis - 1))
    else:
        d = 1.0 if dx is None else dx
    return ((lo + hi) * d / 2).cumsum(axis)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of the 1-D ``x``: columns ``x^(n-1) ... x^0`` (or increasing)."""
    n = x.shape[0] if n is None else n
    powers = [x ** k for k in builtins.range(n)]
    if not increasing:
        powers.reverse()
    return _mg.stack(powers, 1) if powers else _mg.zeros([x.shape[0], 0], dtype=x.dtype)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``base ** linspace(start, stop, num)``."""
    return (base ** _mg.linspace(start, stop, num, dtype="float64")).astype(
        dtype or _mg.get_default_dtype())


def _window(name, fn):
    def window(window_length, periodic=True, *args, dtype=None, layout=None, device=None,
               pin_memory=False, requires_grad=False):
        n = window_length + 1 if periodic else window_length
        w = fn(n, *args)
        dtype = dtype or _mg.get_default_dtype()
        return _mg.tensor((w[:-1] if periodic else w).astype(str(getattr(dtype, "name",
                                                                         dtype))))
    window.__name__ = name
    window.__doc__ = f"The {name.split('_')[0]} window of ``window_length`` (``periodic``: " \
                     f"for spectral analysis)."
    return window


hann_window = _window("hann_window", lambda n: _np().hanning(n))
hamming_window = _window("hamming_window", lambda n: _np().hamming(n))
blackman_window = _window("blackman_window", lambda n: _np().blackman(n))
bartlett_window = _window("bartlett_window", lambda n: _np().bartlett(n))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """The Kaiser window of ``window_length`` and shape ``beta``."""
    return _window("kaiser_window", lambda n: _np().kaiser(n, beta))(window_length, periodic,
                                                                     dtype=dtype)


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """``x`` (flattened when ``axis`` is None) with runs of equal elements collapsed."""
    if axis is not None:
        raise ValueError("unique_consecutive: only axis=None is supported")
    a = x.numpy().reshape(-1)
    np = _np()
    starts = np.concatenate([[True], a[1:] != a[:-1]]) if a.size else np.zeros(0, bool)
    out = [_mg.tensor(a[starts])]
    if return_inverse:
        out.append(_mg.tensor((np.cumsum(starts) - 1).astype(dtype)))
    if return_counts:
        edges = np.flatnonzero(np.concatenate([starts, [True]]))
        out.append(_mg.tensor(np.diff(edges).astype(dtype)))
    return out[0] if len(out) == 1 else tuple(out)


def mode(x, axis=-1, keepdim=False, name=None):
    """``(values, indices)``: the most frequent value along ``axis`` (the smallest on a tie) and
    the index of its last occurrence."""
    np = _np()
    a = np.moveaxis(x.numpy(), axis, -1)
    flat = a.reshape(-1, a.shape[-1])
    idx = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        vals, counts = np.unique(row, return_counts=True)
        v = vals[np.argmax(counts)]
        idx[r] = np.flatnonzero(row == v)[-1]
    idx = _mg.tensor(idx.reshape(a.shape[:-1])).unsqueeze(axis % x.ndim)
    values = _mg.take_along_axis(x, idx, axis)
    if not keepdim:
        values, idx = values.squeeze(axis), idx.squeeze(axis)
    return values, idx


def poisson(x, name=None):
    """Samples from Poisson(``x``), in the dtype of ``x``."""
    return _sample("poisson", x)


def binomial(count, prob, name=None):
    """Samples from Binomial(``count``, ``prob``) as int64."""
    return _sample("binomial", count, prob, dtype="int64")


def standard_gamma(x, name=None):
    """Samples from Gamma(``x``, 1), in the dtype of ``x``."""
    return _sample("standard_gamma", x)


def log_normal(mean=1.0, std=2.0, shape=None, dtype=None, name=None):
    """``exp`` of samples from N(``mean``, ``std``^2)."""
    shape = [1] if shape is None else list(shape)
    return (_mg.randn(shape, dtype=dtype) * std + mean).exp()


def histogram(input, bins=100, min=0, max=0, weight=None, density=False, name=None):
    """Counts of ``input`` in ``bins`` equal bins over [min, max] (the data's range when both
    are 0)."""
    np = _np()
    a = input.numpy().reshape(-1)
    lo, hi = (float(a.min()), float(a.max())) if min == 0 and max == 0 else (min, max)
    w = None if weight is None else weight.numpy().reshape(-1)
    counts, _ = np.histogram(a, bins, (lo, hi), weights=w, density=density)
    kind = "float32" if density or w is not None else "int64"
    return _mg.tensor(counts.astype(kind))


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):
    """The ``bins + 1`` edges :func:`histogram` uses."""
    a = input.numpy().reshape(-1)
    lo, hi = (float(a.min()), float(a.max())) if min == 0 and max == 0 else (min, max)
    return _mg.tensor(_np().linspace(lo, hi, bins + 1).astype(input._data.dtype))


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, n] row and column indices of the lower triangle (diagonal ``offset``)."""
    return _mg.tensor(_np().stack(_np().tril_indices(row, offset, col)).astype(dtype))


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The [2, n] row and column indices of the upper triangle (diagonal ``offset``)."""
    return _mg.tensor(_np().stack(_np().triu_indices(row, offset, row if col is None
                                                       else col)).astype(dtype))


@contextlib.contextmanager
def device_guard(device=None):
    """New tensors go to ``device`` inside the block."""
    if device is None:
        yield
        return
    before = _mg.get_device()
    _mg.set_device(device)
    try:
        yield
    finally:
        _mg.set_device(before)


def is_compiled_with_ipu():
    return False


def get_cudnn_version():
    """None: mutograd does not use cuDNN."""
    return None


COMPOSED = ["hstack", "vstack", "row_stack", "dstack", "column_stack", "tensor_split", "hsplit",
            "vsplit", "dsplit", "ravel", "msort", "view_as", "type_as", "fmax", "fmin",
            "logaddexp", "logcumsumexp", "isposinf", "isneginf", "isreal", "cummax", "cummin",
            "diagflat", "block_diag", "cartesian_prod", "combinations", "mv",
            "trapezoid", "cumulative_trapezoid", "vander", "logspace", "hann_window",
            "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
            "unique_consecutive", "mode", "poisson", "binomial", "standard_gamma", "log_normal",
            "histogram", "histogram_bin_edges", "tril_indices", "triu_indices", "device_guard",
            "is_compiled_with_ipu", "get_cudnn_version"]
# of those, the ones Paddle also binds as Tensor methods
COMPOSED_METHODS = ["tensor_split", "hsplit", "vsplit", "dsplit", "ravel", "msort", "view_as",
                    "type_as", "fmax", "fmin", "logaddexp", "logcumsumexp", "isposinf",
                    "isneginf", "isreal", "cummax", "cummin", "diagflat", "combinations", "mv",
                    "trapezoid", "cumulative_trapezoid", "vander", "unique_consecutive", "mode",
                    "histogram", "histogram_bin_edges", "block_diag"]
