"""The rest of PyTorch's top-level functions: function forms of Tensor methods, window
functions, ``logspace``, ``rsub``, the ``torch.*`` spellings of ``nn.functional`` ops (with
ATen's integer ``reduction``), random draws, global switches (determinism, warnings, the
default tensor type), memory formats and layouts.

    >>> import mutograd.compat.torch as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""
import collections

import numpy as np

import mutograd as _mg

from ...nn import functional as _F
from ...nn import functional as _losses
from ...errors import IntegerDivisionError
from ...tensor import Tensor as _Tensor
from ..sampling import sample as _sample


# ---- function forms of Tensor methods --------------------------------------------------------
def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``; ``rounding_mode='trunc'`` rounds towards zero and ``'floor'`` down
    (both keep an integer dtype, and have a zero gradient, as in PyTorch). ``out=`` is taken by
    the namespace (Note [Writing into out=] in mutograd/autograd/out_arguments.py)."""
    if rounding_mode is None:
        return _mg.div(input, other)
    if rounding_mode == "floor":
        return _mg.floor_divide(input, other)
    if rounding_mode != "trunc":
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{rounding_mode}'")
    kinds = [getattr(a, "dtype", None) for a in (input, other)]
    if all(k is None or not (k.is_floating_point or k.is_complex) for k in kinds):
        if not bool((_mg.as_tensor(other) != 0).all()):
            raise IntegerDivisionError("ZeroDivisionError: integer division or modulo by zero "
                                       "in div()")
        r = _mg.trunc(_mg.div(input, other))
        return r.astype(input.dtype if isinstance(input, _Tensor) else other.dtype)
    return _mg.trunc(_mg.div(input, other))


divide = true_divide = div


def detach(input):
    return input.detach()


def is_complex(input):
    return input.is_complex()


def is_conj(input):
    return False


def is_neg(input):
    return False


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def is_inference(input):
    return input.is_inference()


def split_with_sizes(input, split_sizes, dim=0):
    return input.split_with_sizes(split_sizes, dim)


unsafe_split_with_sizes = split_with_sizes


def unsafe_split(input, split_size, dim=0):
    return input.unsafe_split(split_size, dim)


def unsafe_chunk(input, chunks, dim=0):
    return input.unsafe_chunk(chunks, dim)


def rsub(input, other, alpha=1):
    """``other - alpha * input``."""
    return other - (input * alpha if alpha != 1 else input)


def chain_matmul(*matrices):
    """The product of the matrices in order (``torch.linalg.multi_dot``)."""
    out = matrices[0]
    for m in matrices[1:]:
        out = out @ m
    return out


def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None,
             requires_grad=False, out=None):
    """``steps`` values ``base ** x`` for x evenly spaced from ``start`` to ``end``."""
    vals = np.power(float(base), np.linspace(float(start), float(end), steps))
    return _mg.tensor(vals, dtype=dtype or _mg.get_default_dtype(), device=device,
                      requires_grad=requires_grad)


# ---- window functions ----------------------------------------------------------------------
def _window(name, fn):
    def window(window_length, periodic=True, *args, dtype=None, layout=None, device=None,
               requires_grad=False, **kw):
        if window_length == 0:
            vals = np.zeros(0)
        elif window_length == 1:
            vals = np.ones(1)
        else:
            n = window_length + 1 if periodic else window_length
            vals = fn(n, *args, **kw)[:window_length]
        return _mg.tensor(vals, dtype=dtype or _mg.get_default_dtype(), device=device,
                          requires_grad=requires_grad)
    window.__name__ = name
    window.__doc__ = f"The {name[:-7]} window of ``window_length`` (periodic by default)."
    return window


def _general_hamming(n, alpha=0.54, beta=0.46):
    return alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))


def _kaiser(n, beta=12.0):
    return np.kaiser(n, beta)


hann_window = _window("hann_window", lambda n: _general_hamming(n, 0.5, 0.5))
hamming_window = _window("hamming_window", _general_hamming)
bartlett_window = _window("bartlett_window", np.bartlett)
blackman_window = _window("blackman_window", np.blackman)
kaiser_window = _window("kaiser_window", _kaiser)


# ---- torch.* spellings of nn.functional ops ------------------------------------------------
_REDUCTION = {0: "none", 1: "mean", 2: "sum"}


def _aten(fn, pos):
    """``fn`` with ATen's integer ``reduction`` (0 none, 1 mean, 2 sum) at position ``pos``."""
    def wrapped(*args, **kw):
        args = list(args)
        if len(args) > pos:    # ATen puts reduction where the functional has size_average
            r = args.pop(pos)
            kw["reduction"] = _REDUCTION[r] if isinstance(r, int) else r
            if len(args) > pos:
                raise TypeError(f"{fn.__name__}() takes at most {pos + 1} positional arguments")
        if isinstance(kw.get("reduction"), int):
            kw["reduction"] = _REDUCTION[kw["reduction"]]
        return fn(*args, **kw)
    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


bilinear, channel_shuffle = _F.bilinear, _F.channel_shuffle
pixel_shuffle, pixel_unshuffle = _F.pixel_shuffle, _F.pixel_unshuffle
pairwise_distance, pdist = _losses.pairwise_distance, _losses.pdist
cosine_similarity, conv1d, conv2d = _F.cosine_similarity, _F.conv1d, _F.conv2d
conv_transpose2d, max_pool2d, hardshrink = _F.conv_transpose2d, _F.max_pool2d, _F.hardshrink
prelu, rms_norm, group_norm = _F.prelu, _F.rms_norm, _F.group_norm


def dropout(input, p, train):
    return _F.dropout(input, p, train)


def feature_alpha_dropout(input, p, train):
    from ...nn.functional.dropouts import feature_alpha_dropout as f
    return f(input, p, train)


def alpha_dropout(input, p, train):
    from ...nn.functional.dropouts import alpha_dropout as f
    return f(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
               cudnn_enable=True):
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


cosine_embedding_loss = _aten(_losses.cosine_embedding_loss, 4)
hinge_embedding_loss = _aten(_losses.hinge_embedding_loss, 3)
margin_ranking_loss = _aten(_losses.margin_ranking_loss, 4)
triplet_margin_loss = _aten(_losses.triplet_margin_loss, 7)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _losses.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                    reduction=_REDUCTION.get(reduction, reduction))


def kl_div(input, target, reduction=1, *, log_target=False):
    return _F.kl_div(input, target, _REDUCTION.get(reduction, reduction), log_target)


# ---- random draws --------------------------------------------------------------------------
from ...ops.sampling import bernoulli  # noqa: E402, F401 (also Tensor.bernoulli)


def poisson(input, generator=None):
    """Samples of Poisson distributions with the rates in ``input``."""
    return _sample("poisson", input, generator=generator)


def binomial(count, prob, generator=None):
    """Samples of binomial distributions (``count`` trials, probability ``prob``)."""
    return _sample("binomial", count.detach().astype(_mg.int64), prob, dtype=count._data.dtype,
                   generator=generator)


def get_rng_state():
    """The state of ``default_generator`` (pass it to :func:`set_rng_state`)."""
    return _mg.random.default_generator.get_state()


def set_rng_state(new_state):
    _mg.random.default_generator.set_state(new_state)


# ---- global switches -----------------------------------------------------------------------
_switches = {"deterministic": False, "warn_only": False, "warn_always": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Accepted: every mutograd op is deterministic already."""
    _switches["deterministic"], _switches["warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _switches["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _switches["warn_only"]


def set_deterministic_debug_mode(debug_mode):
    mode = {"default": 0, "warn": 1, "error": 2}.get(debug_mode, debug_mode)
    use_deterministic_algorithms(mode > 0, warn_only=mode == 1)


def get_deterministic_debug_mode():
    if not _switches["deterministic"]:
        return 0
    return 1 if _switches["warn_only"] else 2


def set_warn_always(b):
    _switches["warn_always"] = bool(b)


def is_warn_always_enabled():
    return _switches["warn_always"]


def set_flush_denormal(mode):
    """False: flushing denormals is not supported (NumPy keeps them), as PyTorch answers on a
    CPU without the feature."""
    return False


def set_default_tensor_type(t):
    """Make the dtype of a legacy tensor type (``torch.DoubleTensor``) the default."""
    name = t if isinstance(t, str) else t.__name__
    name = name.rsplit(".", 1)[-1]
    dtype = {"FloatTensor": "float32", "DoubleTensor": "float64",
             "HalfTensor": "float16"}.get(name)
    if dtype is None:
        raise TypeError(f"only floating-point types are supported as the default type, got "
                        f"{name}")
    _mg.set_default_dtype(dtype)


# ---- memory formats and layouts ------------------------------------------------------------
class memory_format:   # noqa: N801 - PyTorch's name
    """A memory layout request (``x.contiguous(memory_format=...)``); tensors here are always
    laid out by their strides, so it is accepted and named only."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = memory_format("legacy_contiguous_format")


class layout:   # noqa: N801 - PyTorch's name
    """A tensor layout: ``torch.strided`` (dense tensors), ``torch.sparse_coo`` and
    ``torch.sparse_csr`` (mutograd.sparse; the other sparse layouts are refused)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


strided = layout("strided")


# ---- more top-level names ------------------------------------------------------------------
class OutOfMemoryError(RuntimeError):
    """Raised when an allocation fails (PyTorch's ``torch.OutOfMemoryError``)."""


class AcceleratorError(RuntimeError):
    """An error reported by an accelerator."""


class FatalError(RuntimeError):
    """An unrecoverable internal error."""


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor of ``size`` (laid out contiguously: ``stride`` is a hint)."""
    return _mg.empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first)."""
    inv = np.argsort(physical_layout)
    t = _mg.empty(*[size[i] for i in physical_layout], dtype=dtype, device=device)
    t = t.permute(*inv.tolist())
    return t.requires_grad_() if requires_grad else t


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A tensor of ``obj`` sharing its memory when it can (``copy=True`` always copies)."""
    if isinstance(obj, _Tensor):
        t = obj.clone() if copy else obj
        t = t if dtype is None else t.to(dtype)
    elif isinstance(obj, np.ndarray) and not copy and dtype is None:
        t = _mg.from_numpy(obj)
    else:
        t = _mg.tensor(obj, dtype=dtype, device=device)
    return t.requires_grad_() if requires_grad else t


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor over the bytes of ``buffer`` (shared, not copied)."""
    arr = np.frombuffer(buffer, dtype=_mg.dtypes.to_numpy(dtype), count=count, offset=offset)
    t = _mg.from_numpy(arr)
    return t.requires_grad_() if requires_grad else t


def get_device_module(device=None):
    """The module of a device kind: ``torch.cuda`` for 'cuda' (the default), ``torch.cpu`` is
    not separate here, so 'cpu' also gives ``torch.cuda`` answers about GPUs."""
    from . import cuda
    name = str(device) if device is not None else "cuda"
    if name.split(":")[0] not in ("cuda", "cpu"):
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered")
    return cuda


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Values with each run of equal consecutive elements kept once (flattened when ``dim`` is
    None); optionally the run index of every element and the run lengths."""
    a = input.detach().numpy()
    if dim is None:
        a = a.reshape(-1)
        d = 0
    else:
        d = dim % a.ndim
    moved = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
    change = np.ones(moved.shape[0], bool)
    change[1:] = (moved[1:] != moved[:-1]).any(axis=1)
    starts = np.nonzero(change)[0]
    values = np.take(a, starts, axis=d)
    out = [_mg.tensor(values)]
    if return_inverse:
        out.append(_mg.tensor(np.cumsum(change) - 1).reshape(
            *(input.shape if dim is None else [input.shape[d]])))
    if return_counts:
        out.append(_mg.tensor(np.diff(np.append(starts, moved.shape[0]))))
    return out[0] if len(out) == 1 else tuple(out)


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)`` of the values of ``input`` (NumPy's histogram, in its dtype)."""
    b = bins.detach().numpy() if isinstance(bins, _Tensor) else bins
    w = None if weight is None else weight.detach().numpy()
    h, edges = np.histogram(input.detach().numpy(), b, range=range, weights=w,
                            density=density)
    dt = input.dtype.np
    return _Hist(_mg.tensor(h.astype(dt)), _mg.tensor(edges.astype(dt)))


_Hist = collections.namedtuple("histogram", ["hist", "bin_edges"])


def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """The Frobenius norm over ``dim``."""
    return (input * input).sum(dim, keepdim=keepdim).sqrt()


def matrix_rank(input, tol=None, symmetric=False):
    from .linalg import matrix_rank as mr
    return mr(input, atol=tol)



NAMES = [n for n in list(globals()) if not n.startswith("_") and n != "np"]
