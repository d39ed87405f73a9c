"""Declaring an op once: ``defop`` turns a forward and its gradient into every public form.

    defop("mul", lambda xp, x, y, out=None: xp.multiply(x, y, out=out),
          grad=(lambda g, y: g * y, lambda g, x: g * x))

gives ``mutograd.mul``, ``mutograd.mul_``, ``Tensor.mul``, ``Tensor.mul_`` and a backward node
class ``MulBackward``. The forward's parameters say what the op takes: after ``xp``, the leading
parameters without a default are its inputs (tensors or scalars), ``out`` is where an in-place or
pre-allocated result goes, and the rest are attributes (``axis``, ``alpha``, ...). A gradient's
parameter names are the save contract: ``out`` is the result, input names are inputs, ``x_shape``
is only metadata, attributes and ``xp`` are passed in; ``into`` is where the result may be
written (Note [Reusing the incoming gradient]). What is saved follows from those names, per
call, for the inputs that need a gradient (STYLE.md, "One declaration per op").

Note [Reusing the incoming gradient]
    A gradient formula that takes a parameter ``into`` gets the incoming gradient array ``g``
    there when the backward engine owns it (no one else refers to it: not a leaf's ``.grad``, not
    retained, not another node's input) and the node has a single input edge, else None. It may
    then write its result into ``g`` (``xp.multiply(g, out > 0, out=into)``) instead of
    allocating: the ReLU, exp, tanh and sigmoid backward of a training step reuse one buffer.

Note [In-place saving]
    For ``op_(x, ...)`` the written tensor ``x`` is both input and output. A gradient that uses
    ``out`` saves ``x`` after the write, with the bumped version (no copy). A gradient that uses the
    overwritten input ``x`` needs its old value: a copy is taken before the write, and only when
    that gradient will be needed; the copy is a counted storage. Other inputs are saved by
    reference and version-checked.

Note [Float results of integer inputs]
    An op declared ``result="float"`` (exp, log, sqrt, div, sigmoid, softmax, ...) whose tensor
    inputs are all integer or bool computes in the default float dtype (float32 unless
    ``set_default_dtype`` changed it), as PyTorch and Paddle do; NumPy alone would pick the
    smallest float that holds the input (float16 for bool and int8, float64 for int64), and
    ``reciprocal`` would stay integer. Inputs with a float among them keep NumPy's promotion
    (docs/ops.md). The forward is wrapped once, at declaration; the ufunc fast path is taken only
    for a float first input, where the two agree.

Note [Values kept from the forward]
    A gradient may need a value the forward computes anyway, and recomputing it can cost more
    than the op (GELU's erf, layer norm's mean and variance). A forward that takes ``keep`` gets a
    dict there when a backward node will be recorded (None otherwise) and stores such arrays in
    it under names its gradient takes as parameters, declared with ``defop(..., keeps=(...))``.
    They are private to the node: saved as copies are (counted, freed after backward, never
    version-checked, since no one else can write them), and taken before an in-place form
    overwrites its input. GELU keeps its slope instead of its input, so its backward is one
    multiplication and ``gelu_`` needs no copy of the value it overwrites.
"""
import inspect
import math
import sys

import numpy as np

from .. import dtypes, memory, parallel
from ..autograd.engine import RegionGrad
from ..autograd.explain import leaf_error
from ..autograd.grad_mode import _state
from ..autograd.node import Node, save, save_copy
from ..autograd.saved import before_write, save_output
from ..autograd.sites import Flags as _flags
from ..autograd.view_write import check_layout, internal_overlap, rebase
from ..errors import (DTypeError, IndexRangeError, InplaceError, MutogradError,
                      OverlapError, ShapeError)
from ..autograd.node import VersionCounter as _VersionCounter
from ..memory import Storage as _Storage
from ..memory import _cache
from ..places import CPU as _CPU
from ..tensor import Tensor, _alias, _wrap

_EMPTY = inspect.Parameter.empty
_ndarray = np.ndarray
_new = object.__new__
_F64 = np.dtype("float64")
_SCALARS = (int, float, bool, complex)
_KW_ALIASES = {"dim": "axis", "keepdims": "keepdim", "keep_dim": "keepdim",
               "start_dim": "start_axis", "end_dim": "stop_axis",
               "dims": "axis", "dim1": "axis1", "dim2": "axis2"}   # flip/roll, diagonal
_INPUT_ALIASES = ("input", "other")

OPS = {}


class OpNode(Node):
    """Backward node of a declared op; one subclass per op, named ``<Op>Backward``."""

    __slots__ = ("attrs", "dtypes", "layouts", "shapes", "xp")
    op = None

    def apply(self, g, into=None):
        op = self.op
        grads = []
        if into is not None and not (op.takes_into and
                                     sum(e is not None for e in self.next) == 1):
            into = None   # Note [Reusing the incoming gradient]: only the one formula may
        for i, edge in enumerate(self.next):
            if edge is None:
                grads.append(None)
                continue
            fn, params, all_attrs = op.grad_fns[i]
            args = [into if p == "into" else self.arg(p) for p in params]
            if all_attrs:   # a gradient taking **attrs gets every attribute
                gi = fn(g, *args, **self.attrs)
            else:
                gi = fn(g, *args)
            if type(gi) is not RegionGrad:
                gi = fit(self.xp, gi, self.shapes[i], self.dtypes[i])
                if args and _held(gi, args, into):   # Note [Gradient ownership]: never a
                    # value the node holds
                    gi = gi.copy()
            grads.append(gi)
        return grads

    def arg(self, name):
        kind = self.op.sources[name]
        if kind == "saved":
            return self.unpack(name)
        if kind == "attr":
            return self.attrs[name]
        if kind == "xp":
            return self.xp
        if kind == "shape":
            return self.shapes[self.op.index[name[:-6]]]
        if kind == "transposed":
            return self.layouts[self.op.index[name[:-11]]]
        return self.dtypes[self.op.index[name[:-6]]]


def _in_default_float(fwd, n):
    """``fwd`` with integer and bool inputs cast to the default float dtype when none of its
    ``n`` inputs is a float (Note [Float results of integer inputs])."""
    def run(xp, *args, **kw):
        arrays = args[:n]
        if not any(getattr(a, "dtype", None) is not None and a.dtype.kind not in "biu"
                   for a in arrays) and any(hasattr(a, "dtype") for a in arrays):
            f = dtypes.default_float.np
            args = tuple(a.astype(f) if hasattr(a, "dtype") else a for a in arrays) + args[n:]
        return fwd(xp, *args, **kw)
    run.__wrapped__ = fwd
    return run


def _held(a, values, into=None):
    """Whether array ``a`` is one of ``values`` (other than ``into``) or looks into one."""
    b = a.base
    for v in values:
        if v is not into and (v is a or (b is not None and v is b)):
            return True
    return False


def _zeros_like(g, xp):
    return xp.zeros_like(g)


def unbroadcast(xp, g, shape):
    """Sum ``g`` down to ``shape`` (the gradient of broadcasting)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and g.shape[i + lead] != 1)
    if lead and len(axes) == lead and g.size and g.dtype.char in "fd" and g.flags.c_contiguous:
        # a bias's gradient: the sum over the leading axes as one BLAS vector-matrix product,
        # for as many rows as keep its float32 rounding near NumPy's pairwise sum's
        rows = math.prod(g.shape[:lead])
        if rows <= 1 << 16:
            return (xp.ones(rows, g.dtype) @ g.reshape(rows, -1)).reshape(shape)
    g = g.sum(axis=axes, keepdims=True) if axes else g
    return g.reshape(shape)


def fit(xp, g, shape, dtype):
    """A gradient as an array of the input's shape and dtype."""
    if type(g) is not xp.ndarray:
        g = xp.asarray(g)
    if g.shape != shape:
        if g.ndim < len(shape):   # a value written with its leading size-1 axes dropped (NumPy)
            g = g.reshape((1,) * (len(shape) - g.ndim) + g.shape)
        g = unbroadcast(xp, g, shape) if g.size != 1 or len(shape) else g.reshape(shape)
        if g.shape != shape:
            g = xp.broadcast_to(g, shape)
    if g.dtype != dtype:
        g = g.astype(dtype)
    return g


class OpDef:
    """One op's declaration. See the module docstring for how it is read."""

    pool = False   # set by defop: results may come from the buffer cache
    ufunc = None   # set by ops/fastpath.py: the NumPy ufunc equal to fwd with default attrs
    region = None  # the attribute holding the index of the part of x the in-place form writes
    copy_out = False  # set by defop: a later write into the saved output copies it first

    def __init__(self, name, fwd, grad, kind, inplace, varargs, result, fill, node_name,
                 keeps=()):
        self.name = name
        self.keeps = tuple(keeps)   # Note [Values kept from the forward]
        self.iname = name + "_"   # the in-place form's name, for messages and the write log
        self.fwd = fwd
        self.kind = kind
        self.has_inplace = inplace
        self.varargs = varargs
        self.result = result
        self.fill = fill
        params = list(inspect.signature(fwd).parameters.values())[1:]
        self.inputs, self.attrs = [], []
        self.takes_out = False
        for p in params:
            if p.name == "out":
                self.takes_out = True
            elif p.name == "keep":
                if not self.keeps:
                    raise TypeError(f"{name}: a forward taking keep= needs defop(keeps=...)")
            elif (p.kind == p.POSITIONAL_OR_KEYWORD and p.default is _EMPTY
                  and not self.attrs and not self.takes_out):
                self.inputs.append(p.name)
            elif p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                self.attrs.append((p.name, p.default))
        self.n_in = len(self.inputs)
        # Note [0-d tensors and Python floats in promotion]: which ops it applies to
        self.promotes = kind == "elementwise" and result not in ("bool", "same") and self.n_in > 1
        self.float_result = result == "float"
        if self.float_result:   # Note [Float results of integer inputs]
            self.fwd = fwd = _in_default_float(fwd, self.n_in)
        self.index = {n: i for i, n in enumerate(self.inputs)}
        self.attr_names = [a for a, _ in self.attrs]
        self.defaults = {a: d for a, d in self.attrs if d is not _EMPTY}
        self.required = [a for a, d in self.attrs if d is _EMPTY]
        if grad is not None and not isinstance(grad, (tuple, list)):
            grad = (grad,)
        self.differentiable = grad is not None
        self.grad_fns = []
        self.sources = {}
        for fn in grad or ():
            if fn is None:
                self.grad_fns.append(None)
                continue
            ps = list(inspect.signature(fn).parameters.values())[1:]
            names = [p.name for p in ps if p.kind != p.VAR_KEYWORD]
            self.grad_fns.append((fn, names, len(names) < len(ps)))
            for p in names:
                self.sources[p] = self._source(p)
        self.grad_fns += [None] * (self.n_in - len(self.grad_fns))
        if not self.differentiable and self.n_in:
            self.grad_fns[0] = (_zeros_like, ["xp"], False)   # used only by the in-place form
            self.sources["xp"] = "xp"
        self.uses = [set() if gf is None else {p for p in gf[1] if self.sources[p] == "saved"}
                     for gf in self.grad_fns]
        self.takes_into = "into" in self.sources
        self.wants_layout = "transposed" in self.sources.values()
        # whether some gradient may need the value an in-place form overwrites
        self.saves_x = bool(self.inputs) and any(self.inputs[0] in u for u in self.uses)
        self.plans = {}
        self.node_cls = type(node_name or _camel(name) + "Backward", (OpNode,),
                             {"__slots__": (), "op": self})

    def _source(self, p):
        if p == "out" or p in self.index or p in self.keeps:
            return "saved"
        if p == "into":
            return "into"
        if p == "xp":
            return "xp"
        if p.endswith("_shape") and p[:-6] in self.index:
            return "shape"
        if p.endswith("_dtype") and p[:-6] in self.index:
            return "dtype"
        if p.endswith("_transposed") and p[:-11] in self.index:
            return "transposed"   # the input is laid out as a transposed (F-order) matrix
        if p in self.attr_names:
            return "attr"
        raise TypeError(f"gradient of {self.name!r} takes an unknown parameter {p!r}")

    def plan(self, mask):
        """Names to save when the inputs in ``mask`` need a gradient (cached per mask)."""
        names = self.plans.get(mask)
        if names is None:
            names = set()
            for i, uses in enumerate(self.uses):
                if mask >> i & 1:
                    names |= uses
            names = self.plans[mask] = tuple(sorted(names))
        return names

    def bind(self, args, kw):
        """Inputs and attributes from a call's arguments (the slow path: attrs or keywords)."""
        n = self.n_in
        inputs = list(args[:n])
        extra = args[n:]
        attrs = dict(self.defaults)
        if extra:
            if self.varargs:
                attrs[self.varargs] = (tuple(extra[0]) if len(extra) == 1
                                       and isinstance(extra[0], (list, tuple)) else tuple(extra))
            else:
                if len(extra) > len(self.attrs):
                    raise TypeError(f"{self.name}() takes at most {n + len(self.attrs)} "
                                    f"arguments ({len(args)} given)")
                attrs.update(zip(self.attr_names, extra))
        for k, v in kw.items():
            if k not in attrs and k not in self.required:   # an op's own name wins
                k = _KW_ALIASES.get(k, k)
            if k in self.index:
                _put_input(self, inputs, self.index[k], v)
            elif k in _INPUT_ALIASES and _INPUT_ALIASES.index(k) < n:
                _put_input(self, inputs, _INPUT_ALIASES.index(k), v)
            elif k in attrs or k in self.required:
                attrs[k] = v
            elif k == "name":
                continue
            else:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{k}'")
        if len(inputs) < n or any(i is _MISSING for i in inputs):
            raise TypeError(f"{self.name}() missing required argument(s): "
                            f"{', '.join(self.inputs[len(args):])}")
        for a in self.required:
            if a not in attrs:
                raise TypeError(f"{self.name}() missing required argument '{a}'")
        return inputs, attrs


_MISSING = object()


def _put_input(op, inputs, i, v):
    while len(inputs) <= i:
        inputs.append(_MISSING)
    inputs[i] = v


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _as_array(xp, v):
    if isinstance(v, Tensor):
        return v._data
    if v is None or type(v) in _SCALARS or isinstance(v, (np.generic, slice, str)):
        return v
    return xp.asarray(v)


def _refresh(t):
    """Bring a view's grad_fn up to date after a write to its base (see tensor.py)."""
    if t._base is not None and t._view_version != t._counter.value:
        t._refresh_view()


# --------------------------------------------------------------------------------------------
# Calling an op


def call(op, inputs, attrs, dead=None):
    """Run ``op`` out of place and record its backward node when an input requires grad.

    ``dead``: the first input when its entry point found it a dead temporary (Note [Dead
    temporaries]); its buffer may then hold the result."""
    rg = False
    arrays = []
    x0 = None
    mixed = False
    kept = None
    weak = False   # a 0-d tensor or a Python float: Note [0-d tensors and Python floats ...]
    for t in inputs:
        if isinstance(t, Tensor):
            if t._base is not None:
                _refresh(t)
                if t._base._rg:   # Note [Views without history]
                    rg = True
            if t._rg:
                rg = True
            if x0 is None:
                x0 = t
                p0 = t._place
            elif t._place is not p0:
                mixed = True
            a = t._data
            if not a.ndim:
                weak = True
            arrays.append(a)
        elif type(t) is float:
            weak = True
            arrays.append(t)
        elif type(t) is int:
            arrays.append(t)
        else:
            weak = True
            arrays.append(_as_array(np, t))
    if mixed:
        x0, inputs = _one_place(op, inputs, arrays, None)
    xp = x0._place.xp if x0 is not None else np
    if xp is not np:   # array-likes given with device tensors go to the device
        for i, a in enumerate(arrays):
            if type(a) is np.ndarray and not isinstance(inputs[i], Tensor):
                arrays[i] = xp.asarray(a)
    args = _promote(arrays) if weak and op.promotes else arrays
    if op.pool and xp is np and inputs[0] is x0 and x0._data.nbytes >= _cache.min_bytes:
        return _call_pooled(op, inputs, args, attrs, rg, dead)
    try:
        if op.ufunc is not None and attrs is op.defaults and xp is np and not (
                op.float_result and getattr(args[0], "dtype", _F64).kind in "biu"):
            # Note [Ufunc fast path] in ops/fastpath.py; a large first input on all cores
            out = (op.ufunc(*args) if x0 is None or x0._data.nbytes < parallel.MIN_BYTES
                   else parallel.ufunc(op.ufunc, *args))
        elif op.keeps:
            out, kept = _keeping(op, xp, args, attrs, None, rg, x0)
        else:
            out = op.fwd(xp, *args, **attrs)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, args, e) from None
    except MemoryError as e:
        raise _out_of_memory(op, args, x0) from e
    if op.kind == "view":
        result = _view_result(op, x0, out, attrs)
    else:
        result = _wrap(out, x0)
    if rg and op.differentiable and _state.enabled:
        result.grad_fn = _record(op, inputs, arrays, result, attrs, xp, kept)
        result._rg = True
    return result


def _out_of_memory(op, arrays, x0):
    """The MemoryError of an op whose result did not fit, naming the result by its shape and
    dtype where the inputs decide them (element-wise ops: memory.out_of_memory), else the op
    and its inputs' shapes."""
    place = x0._place if x0 is not None else "cpu"
    shapes = [a.shape for a in arrays if getattr(a, "ndim", None) is not None]
    if op.kind == "elementwise" and shapes:
        try:
            dtype = np.result_type(*[a for a in arrays if getattr(a, "dtype", None) is not None])
            return memory.out_of_memory(np.broadcast_shapes(*shapes), dtype, place)
        except (ValueError, TypeError):
            pass
    return MemoryError(f"{op.name}: not enough memory for its result (inputs of shapes "
                       f"{[list(s) for s in shapes]}); live tensors hold "
                       f"{memory._fmt(memory.allocated())}")


def binary(op):
    """``Tensor.__add__`` and the other binary operators of ``op``: Note [The operator path].

    Note [The operator path]
        ``a + b`` on two small CPU tensors is the most frequent call of a training loop's
        bookkeeping, and the generic ``call`` pays for what such a call never needs (views to
        refresh, places to reconcile, 0-d promotion, the buffer cache). The operator takes a
        shorter road when every one of those is known absent: both operands plain (not views)
        NumPy tensors on the CPU with dimensions (a 0-d operand promotes differently), or a
        tensor and a Python int (or a float with a float tensor: NumPy keeps the tensor's
        dtype, as ``_promote`` would), inputs smaller than the buffer cache's threshold and
        than ``memory._SMALL`` (``_cache.small_bytes``: large arrays always go through
        ``call``, where the buffer cache and dead temporaries are, and where large arrays meet
        their forward), the op has a ufunc (Note [Ufunc fast path]) and, for a float result, a
        float first input. Anything else, and any error, goes through ``call``, which gives the
        same result or raises the usual error.
    """
    d = op.defaults

    def operator(self, other):
        a = self._data
        if (type(a) is _ndarray and self._base is None and a.ndim
                and a.nbytes < _cache.small_bytes and op.ufunc is not None
                and self._place is _CPU):
            t = type(other)
            if t is Tensor or isinstance(other, Tensor):
                b = other._data
                ok = (type(b) is _ndarray and other._base is None and b.ndim
                      and b.nbytes < _cache.small_bytes and other._place is _CPU)
            else:
                b = other
                ok = t is int or (t is float and a.dtype.kind in "fc")
            if ok and not (op.float_result and a.dtype.kind in "biu"):
                try:
                    out = op.ufunc(a, b)   # Note [Ufunc fast path] in ops/fastpath.py
                except (ValueError, TypeError):
                    return call(op, (self, other), d)   # raises our error
                r = _new(Tensor)
                r._data = out
                r._counter = _VersionCounter()
                r._rg = False
                r.grad_fn = None
                r._base = None
                r._storage = _Storage(out.nbytes)
                if (self._rg or (t is not int and t is not float and other._rg)) and \
                        op.differentiable and _state.enabled:
                    r.grad_fn = _record_binary(op, self, other, a, b, r)
                    r._rg = True
                return r
        if _getrc(self) == _DEAD_OP - 1 and op.pool and _unshared(self, _DEAD_OP, 1):
            return call(op, (self, other), d, self)   # Note [Dead temporaries]
        return call(op, (self, other), d)
    return operator


def _promote(arrays):
    """Note [0-d tensors and Python floats in promotion]
    NumPy's promotion (NEP 50) treats a 0-d array like any other array and gives float64 for an
    integer array times a Python float. PyTorch and Paddle let neither decide a result's size:
    ``float32 tensor * float64 0-d tensor`` is float32 and ``int tensor * 2.5`` is the default
    float dtype. So a 0-d float operand takes the float dtype of the tensors with dimensions,
    and integer tensors meeting a Python float become the default float dtype, before the
    forward runs. Returns ``arrays`` itself when nothing changes (the common case)."""
    zero = ints = scalar = False
    for a in arrays:
        if type(a) is float:
            scalar = True
        elif getattr(a, "ndim", None) is not None:
            kind = a.dtype.kind
            if not a.ndim:
                zero = zero or kind == "f"
            elif kind in "iu":
                ints = True
    if zero:   # the float dtype the operands with dimensions give, if any
        nd = [a.dtype for a in arrays
              if getattr(a, "ndim", None) and a.dtype.kind == "f"]
        if not nd:
            return arrays
        target = np.result_type(*nd)
    elif ints and scalar:
        if any(getattr(a, "ndim", None) and a.dtype.kind in "fc" for a in arrays):
            return arrays
        target = dtypes.default_float.np
    else:
        return arrays
    return [a.astype(target) if getattr(a, "dtype", None) is not None and a.dtype != target and
            (a.ndim == 0 and a.dtype.kind == "f" or a.ndim and a.dtype.kind in "iu") else a
            for a in arrays]


def _one_place(op, inputs, arrays, target):
    """The input whose place an op mixing places runs on, after moving 0-d CPU tensors there
    (allowed, as Python scalars are); any other mix is a PlaceError naming both places, raised
    before anything is written. ``target`` is the tensor an in-place op writes."""
    from ..places import CPU, check_same
    x0 = target
    if x0 is None:
        x0 = next((t for t in inputs if isinstance(t, Tensor)
                   and not (t._place is CPU and t._data.ndim == 0)), None)
        if x0 is None:
            return next(t for t in inputs if isinstance(t, Tensor)), inputs
    place = x0._place
    for t in inputs:
        if isinstance(t, Tensor) and t._place is not place and not (
                t._place is CPU and t._data.ndim == 0):
            raise check_same(getattr(op, "name", "op"), place, t._place)
    from ..transfer import to_place
    inputs = list(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t._place is not place:
            # a differentiable move, so the 0-d tensor's gradient comes back to the CPU
            inputs[i] = to_place(t, place)
            arrays[i] = inputs[i]._data
    return x0, inputs


def _call_pooled(op, inputs, arrays, attrs, rg, dead=None):
    """``call`` for a large element-wise result: compute it into a buffer from the cache.

    Note [The buffer cache] in memory.py. Taken only when the result's shape and dtype are
    known without computing it: a float first input, every other input either an array of the
    same dtype or a Python scalar (which does not change a float dtype), shapes that broadcast.
    Anything else runs the plain path, which also raises the errors.
    """
    xa = arrays[0]
    dtype = xa.dtype
    shape = xa.shape
    # C-contiguous inputs only: NumPy lays a result out like its inputs (a permuted input gives
    # a permuted result, as in PyTorch), and a buffer from the cache is C-ordered
    if type(xa) is not np.ndarray or dtype.kind != "f" or not xa.flags.c_contiguous:
        return _call_plain(op, inputs, arrays, attrs, rg)
    for a in arrays[1:]:
        if type(a) is np.ndarray:
            if a.dtype != dtype or not a.flags.c_contiguous:
                return _call_plain(op, inputs, arrays, attrs, rg)
            if a.shape != shape:
                try:
                    shape = np.broadcast_shapes(shape, a.shape)
                except ValueError:
                    return _call_plain(op, inputs, arrays, attrs, rg)
        elif type(a) not in (int, float, bool):
            return _call_plain(op, inputs, arrays, attrs, rg)
    if dead is not None and shape == xa.shape and _reusable(op, dead, inputs, xa, rg):
        buf, raw = xa, None           # Note [Dead temporaries]
    else:
        buf, raw = memory.take(shape, dtype)
    kept = None
    try:
        if op.keeps:
            out, kept = _keeping(op, np, arrays, attrs, buf, rg, inputs[0])
        else:
            out = op.fwd(np, *arrays, out=buf, **attrs)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, arrays, e) from None
    if raw is None and out is buf:    # the dead temporary's buffer: the result takes over its
        result = _new(Tensor)         # counted storage (and cache buffer); nothing allocated
        result._data = out
        result._counter = _VersionCounter()
        result._rg = False
        result.grad_fn = None
        result._base = None
        result._storage = dead._storage
    else:
        result = _wrap(out, inputs[0])
        if out is not buf:            # a forward that returned another array: keep the buffer
            if raw is not None:
                memory._give_back(raw)
        elif raw is not None:
            result._storage.buf = raw     # back to the cache when the result's storage dies
    if rg and op.differentiable and _state.enabled:
        result.grad_fn = _record(op, inputs, arrays, result, attrs, np, kept)
        result._rg = True
    return result


# --------------------------------------------------------------------------------------------
# Dead temporaries

"""Note [Dead temporaries]
    In ``((x*2+1).exp()).tanh()`` the results of ``x*2``, ``+1`` and ``exp`` are temporaries that
    nothing but the expression can see: the next op may write its result into the temporary's
    buffer instead of allocating one (NumPy does this for its own arrays; here it makes the
    chain allocate one buffer instead of four, and cost the in-place chain plus one pass that
    writes a second buffer). A silent wrong result is the danger, so every condition below
    must hold, or the op allocates:

    - Nothing else refers to the tensor: its reference count is exactly what the entry point
      sees for a value on the interpreter's stack. The operators (``binary``) and the generated
      functions and methods (``_make_function``: ``t.exp()``, ``mg.exp(t)``) are the only entry
      points; each count is measured at import on probes called the same way (``_calibrate``),
      and the reuse switches itself off when a name bound to the value would not add exactly one
      (an interpreter whose stack borrows references, or another Python implementation). Any
      other route (a wrapper, a list, a function that keeps it) adds references: no reuse.
    - Nothing else refers to its memory: the tensor's array owns its buffer, or is the whole of
      a raw buffer from the cache held by the tensor's own storage (or lent to the array by
      ``memory.empty``, as a matrix product's result is), and no other array (a view,
      an array from ``numpy()``, a saved value of a backward node, a value the pack hook of
      ``saved_tensors_hooks`` kept) refers to either: their reference counts are the baseline.
      A tensor view, ``detach()`` or ``.data`` alias refers to the tensor or to the array.
    - Autograd does not need its values: no node saved it (saved records hold the array), the
      op about to run does not save its input (its plan for the inputs that need a gradient),
      it is not a leaf requiring grad, and its node has no hook and retains no gradient (a
      user's ``retain_grad()`` or ``register_hook`` on it); its version counter is not watched
      nor guarded (``allow_mutation_on_saved_tensors``).
    - It is a plain CPU tensor (not a subclass, not a view) with nothing in its ``__dict__``
      (a name, hooks, a gradient, a place), C-contiguous and writable, and the result has its
      shape and dtype (no broadcasting growth, no promotion).
    - No diagnostic keeps it: the memory timeline (``memtrace``) attributes each buffer to the op
      that allocated it and anomaly mode keeps forward stacks, so both turn the reuse off.
    - The op is element-wise with an in-place form (``op.pool``): its forward already supports
      ``out`` being its first input, as ``op_`` does.

    Only results of at least the buffer cache's threshold are reused (smaller ones cost little to
    allocate; the check is not free). ``memory.set_reuse(False)`` (or the environment variable
    ``MUTOGRAD_REUSE_TEMPORARIES=0``) turns it off; the tests compare against that.

    Known limit: a C extension that calls an operator while holding only a borrowed reference
    to a tensor that a container keeps (NumPy's arithmetic on an object array of tensors) looks
    like the interpreter's stack to the operator's count; the method and function entry points
    (called with a fresh argument tuple) are not affected. Such code should turn the reuse off.
"""

_getrc = sys.getrefcount


def _calibrate():
    """The reference counts a temporary shows at the operator and function entry points (plus
    one for ``_unshared``'s own parameter), or -1 each where a name would not add one."""
    class Probe:
        def __add__(self, other):
            return _getrc(self)

        def method(*args, **kw):
            return _getrc(args[0])

    def fn(*args, **kw):
        return _getrc(args[0])

    def named():
        p = Probe()
        return p + 1, p.method(), fn(p)

    temp = (Probe() + 1, Probe().method(), fn(Probe()))
    ok = (sys.implementation.name == "cpython" and temp[1] == temp[2]
          and named() == tuple(c + 1 for c in temp))
    return (temp[0] + 1, temp[1] + 1) if ok else (-1, -1)


_DEAD_OP, _DEAD_ARGS = _calibrate()


def _unshared(t, refs, held=0):
    """Whether tensor ``t`` and its memory are referred to by nothing but the expression being
    evaluated (Note [Dead temporaries]): ``refs`` is the count the entry point expects, ``held``
    the references it holds to ``t``'s array itself."""
    if _getrc(t) != refs or type(t) is not Tensor or t._base is not None or t.__dict__:
        return False
    arr = t._data
    if type(arr) is not _ndarray:
        return False
    base = arr.base
    if _getrc(arr) != 3 + held:    # t._data, arr and the argument
        return False
    # the raw buffer: held by the array, by the storage or the return record of memory.empty,
    # by ``base`` and by the argument
    return base is None or ((base is t._storage.buf or memory.fresh(arr))
                            and _getrc(base) == 4)


def _reusable(op, t, inputs, xa, rg):
    """The remaining conditions of Note [Dead temporaries] for writing ``op``'s result into the
    buffer of its first input ``t``, whose references the entry point checked."""
    if (inputs[0] is not t or xa is not t._data or not _cache.reuse
            or memory._recorder is not None or _flags.anomaly):
        return False
    fn = t.grad_fn
    if fn is None:
        if t._rg:
            return False   # a leaf that requires grad
    elif fn.pre_hooks is not None or fn.retained is not None:
        return False
    c = t._counter
    if c.watched or c.guards is not None:
        return False
    if not (xa.flags.c_contiguous and xa.flags.writeable):
        return False
    if rg and op.differentiable and _state.enabled:
        mask = 0
        for i, u in enumerate(inputs):
            if isinstance(u, Tensor) and u._rg and op.grad_fns[i] is not None:
                mask |= 1 << i
        if op.inputs[0] in op.plan(mask):
            return False   # the node about to be recorded saves the input
    return True


def _call_plain(op, inputs, arrays, attrs, rg):
    x0 = inputs[0]
    kept = None
    try:
        if op.keeps:
            out, kept = _keeping(op, x0._place.xp, arrays, attrs, None, rg, x0)
        else:
            out = op.fwd(x0._place.xp, *arrays, **attrs)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, arrays, e) from None
    except MemoryError as e:
        raise _out_of_memory(op, arrays, x0) from e
    result = _wrap(out, x0)
    if rg and op.differentiable and _state.enabled:
        result.grad_fn = _record(op, inputs, arrays, result, attrs, x0._place.xp, kept)
        result._rg = True
    return result


def _keeping(op, xp, arrays, attrs, out, rg, owner):
    """Run a forward that takes ``keep`` (Note [Values kept from the forward]): returns its
    result and the saved records of what it kept (counted on ``owner``'s place), or None when no
    node will be recorded."""
    keep = {} if rg and op.differentiable and _state.enabled else None
    if out is None:
        r = op.fwd(xp, *arrays, keep=keep, **attrs)
    else:
        r = op.fwd(xp, *arrays, out=out, keep=keep, **attrs)
    if keep is None:
        return r, None
    place = str(owner._place)
    return r, {k: save_copy(a, memory.Storage(a.nbytes, place)) for k, a in keep.items()}


def bad_input(op, arrays, e):
    """Our error class for a backend's complaint about shapes or dtypes (else ``e`` itself)."""
    if isinstance(e, MutogradError):
        return e
    if isinstance(e, IndexError):   # a backend's axis or index out of range
        return IndexRangeError(f"{op.name}(): {e}")
    shapes = ", ".join(str(list(getattr(a, "shape", ()))) for a in arrays
                       if hasattr(a, "shape"))
    if isinstance(e, ValueError):
        if "could not be broadcast" in str(e):
            return ShapeError(f"{op.name}(): the shapes {shapes} do not broadcast")
        return ShapeError(f"{op.name}(): {e} (input shapes {shapes})")
    msg = str(e)
    if "not supported for the input types" in msg or "Cannot cast" in msg:
        kinds = ", ".join(str(a.dtype) for a in arrays if hasattr(a, "dtype"))
        return DTypeError(f"{op.name}(): {msg} (input dtypes {kinds})")
    return e


def _view_result(op, x, out, attrs):
    if op.result == "maybe_view" and out.size and not x._place.xp.may_share_memory(out, x._data):
        return _wrap(out, x)   # (an empty result is a view, as every reshape of it can be)
    v = _alias(x, out)
    if x._base is not None:
        # a view of a view that is itself a leaf requiring grad (requires_grad_() on a view):
        # writing it writes that leaf (check_leaf)
        lv = x if x._rg and x.grad_fn is None else x.__dict__.get("_leaf_view")
        if lv is not None:
            v.__dict__["_leaf_view"] = lv
    v._base = x._base if x._base is not None else x
    v._view_chain = (x._view_chain if x._base is not None else ()) + ((op, attrs),)
    v._view_version = x._counter.value
    v._base_arr = v._base._data   # the base's layout now (Note [Views and their history])
    return v


def _record(op, inputs, arrays, result, attrs, xp, copies=None):
    """Attach op's backward node to ``result``; ``copies``: input index -> saved copy taken
    before an in-place write (Note [In-place saving]), and name -> saved value kept by the
    forward (Note [Values kept from the forward])."""
    mask = 0
    edges = []
    grad_fns = op.grad_fns
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t._rg and grad_fns[i] is not None:
            edges.append(t.grad_fn or t)
            mask |= 1 << i
        else:
            edges.append(None)
    names = op.plans.get(mask)
    if names is None:
        names = op.plan(mask)
    saved = {} if names else None   # a node that saves nothing keeps no dict
    for name in names:
        if name == "out":   # Note [Outputs copied on write] in autograd/saved.py
            saved[name] = save_output(result) if op.copy_out else save(result)
        elif op.keeps and name in op.keeps:
            saved[name] = copies[name]
        elif copies is not None and op.index[name] in copies:
            saved[name] = copies[op.index[name]]
        else:
            t = inputs[op.index[name]]
            saved[name] = save(t) if isinstance(t, Tensor) else arrays[op.index[name]]
    node = op.node_cls(tuple(edges), saved)
    node.attrs = attrs
    node.xp = xp
    node.shapes, node.dtypes = _meta(arrays)
    if op.wants_layout:   # a gradient computes in its input's layout (matmul with W.t())
        node.layouts = tuple([type(a) is np.ndarray and a.ndim >= 2 and not a.flags.c_contiguous
                              and a.flags.f_contiguous for a in arrays])
    return node


def _record_binary(op, x, y, a, b, result):
    """``_record`` for the operator path (Note [The operator path]): a tensor ``x`` and a tensor
    or Python scalar ``y``, with arrays (or the scalar) ``a`` and ``b``, nothing copied."""
    if op.wants_layout or op.keeps:
        return _record(op, (x, y), (a, b), result, op.defaults, np)
    fx, fy = op.grad_fns[0], op.grad_fns[1]
    ex = (x.grad_fn or x) if x._rg and fx is not None else None
    tensor_y = type(y) is not int and type(y) is not float
    ey = (y.grad_fn or y) if tensor_y and y._rg and fy is not None else None
    mask = (ex is not None) | (ey is not None) << 1
    names = op.plans.get(mask)
    if names is None:
        names = op.plan(mask)
    saved = None
    if names:
        saved = {}
        index = op.index
        for name in names:
            if name == "out":
                saved[name] = save(result)
            elif index[name] == 0:
                saved[name] = save(x)
            else:
                saved[name] = save(y) if tensor_y else b
    node = op.node_cls((ex, ey), saved)
    node.attrs = op.defaults
    node.xp = np
    if tensor_y:
        node.shapes = (a.shape, b.shape)
        node.dtypes = (a.dtype, b.dtype)
    else:
        node.shapes = (a.shape, None)
        node.dtypes = (a.dtype, None)
    return node


def _meta(arrays):
    """The inputs' shapes and dtypes (None for scalars), cheaply for one or two arrays."""
    if not arrays:
        return (), ()
    a = arrays[0]
    if len(arrays) == 1 and type(a) is np.ndarray:
        return (a.shape,), (a.dtype,)
    if len(arrays) == 2 and type(a) is np.ndarray and type(arrays[1]) is np.ndarray:
        b = arrays[1]
        return (a.shape, b.shape), (a.dtype, b.dtype)
    shapes = []
    dtypes = []
    for a in arrays:   # a plain loop: comprehensions cost a frame each on the per-op path
        shapes.append(getattr(a, "shape", None))
        dtypes.append(getattr(a, "dtype", None))
    return tuple(shapes), tuple(dtypes)


def call_inplace(op, inputs, attrs):
    """Run ``op`` writing into its first input, which is returned (``y is x``)."""
    x = inputs[0]
    if not isinstance(x, Tensor):
        raise TypeError(f"{op.name}_() writes into its first argument, which must be a Tensor, "
                        f"not {type(x).__name__}")
    rg = False
    arrays = []
    mixed = False
    px = x._place
    for t in inputs:
        if isinstance(t, Tensor):
            if t._base is not None:
                _refresh(t)
                rg = rg or t._base._rg   # Note [Views without history]
            rg = rg or t._rg
            if t._place is not px:
                mixed = True
            arrays.append(t._data)
        else:
            arrays.append(_as_array(x._place.xp, t))
    if mixed:
        _, inputs = _one_place(op, inputs, arrays, x)
    enabled = _state.enabled
    if enabled:
        if x.grad_fn is None or x._base is not None:   # a non-view non-leaf passes rule 4
            check_leaf(x, op.iname)
        if x._base is not None and not x._rg and x._base._rg:
            # a view taken under no_grad() of a base that requires grad: the write changes the
            # base, so it must enter the base's history (Note [Writing through a view])
            x._refresh_view()
            rg = True
    check_writable(op, x, arrays)
    xp = x._place.xp
    copies = None
    overlap = _read_first(x._data, arrays, xp)
    # A write without a gradient formula into a tensor that requires grad gets a zero gradient.
    record = rg and enabled and (op.differentiable or x._rg)
    if record and (op.saves_x or overlap or x._base is not None):
        mask = 0
        for i, t in enumerate(inputs):
            if isinstance(t, Tensor) and t._rg and op.grad_fns[i] is not None:
                mask |= 1 << i
        plan = op.plan(mask)
        if x._base is not None:
            check_layout(x)   # before the write: nothing changes if it is refused
        for i in [0] + overlap:   # Note [In-place saving], Note [Inputs that overlap the output]
            if op.inputs[i] in plan:
                arr = x._data.copy() if i == 0 else arrays[i]
                copies = copies or {}
                copies[i] = save_copy(arr, memory.Storage(arr.nbytes, str(x._place)),
                                      inputs[i].__dict__.get("name"))
    if x._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
        before_write(x, attrs[op.region] if op.region else None, op.iname)
    try:
        if op.ufunc is not None and attrs is op.defaults and xp is np:
            if x._data.nbytes < parallel.MIN_BYTES:   # Note [Ufunc fast path] in fastpath.py
                op.ufunc(*arrays, out=x._data)
            else:   # on all cores (Note [Splitting a ufunc into blocks] in parallel.py)
                parallel.ufunc(op.ufunc, *arrays, out=x._data)
        elif op.keeps:
            _, kept = _keeping(op, xp, arrays, attrs, x._data, record, x)
            if kept:
                copies = dict(copies or {}, **kept)
        else:
            op.fwd(xp, *arrays, out=x._data, **attrs)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, arrays, e) from None
    x._counter.bump(op.iname)
    if record:
        rebase(x, _record(op, inputs, arrays, x, attrs, xp, copies))
    return x


def _read_first(xa, arrays, xp):
    """Note [Inputs that overlap the output]: copy the inputs that share memory with ``xa``.

    ``x[1:].add_(x[:-1])`` must read ``x[:-1]`` before the write, as NumPy does; and a saved input
    that the write overwrites would give its gradient formula the new values. So each such input
    is replaced by a copy taken before the write (kept for backward only when it is saved).
    Returns the indices of the copied inputs.
    """
    found = []
    own = xa.base is None
    for i in range(1, len(arrays)):
        a = arrays[i]
        if own and a is not xa and type(a) is xp.ndarray and a.base is None:
            continue   # two arrays that own their memory: separate allocations (the cheap case)
        if type(a) is xp.ndarray and a.size and xp.may_share_memory(a, xa):
            arrays[i] = a.copy()
            found.append(i)
    return found


def check_leaf(x, what):
    """DESIGN.md rule 4: no in-place write to a leaf that requires grad (or its view)."""
    base = x._base
    if base is None:
        if x._rg and x.grad_fn is None:
            raise leaf_error(x, what)
    elif base._rg and base.grad_fn is None:
        raise leaf_error(x, what)
    else:
        lv = x.__dict__.get("_leaf_view")
        if (lv is not None and lv._rg and lv.grad_fn is None) or (x._rg and x.grad_fn is None):
            raise leaf_error(x, what, lv if lv is not None else x)


def check_writable(op, x, arrays):
    """DESIGN.md rule 10: refuse a write that cannot be done safely, before any data changes."""
    xa = x._data
    shape = xa.shape
    if len(arrays) == 2 and op.result is None and op.kind == "elementwise":
        y = arrays[1]   # the common case, decided early: an input just like x, no aliasing
        if (type(y) is np.ndarray and y.shape == shape and y.dtype == xa.dtype
                and xa.flags.c_contiguous):   # contiguous: no element shares a location
            return
    simple = False
    if op.kind == "elementwise":
        dt = xa.dtype
        simple = True   # every input has x's dtype or is a scalar that keeps it
        for a in arrays[1:]:
            s = a.shape if type(a) is np.ndarray else getattr(a, "shape", None)
            if s is None:
                if not (type(a) is int or (type(a) is float and dt.kind in "fc")):
                    simple = False
                continue
            if a.dtype != dt:
                simple = False
            if s != shape:
                try:
                    b = np.broadcast_shapes(shape, s)
                except ValueError:
                    raise ShapeError(f"{op.name}_(): the shapes {list(shape)} and {list(s)} do "
                                     f"not broadcast") from None
                if b != shape:
                    raise ShapeError(
                        f"{op.name}_(): output with shape {list(shape)} doesn't match the "
                        f"broadcast shape {list(b)}; an in-place op cannot change the shape of "
                        f"the tensor it writes")
    if op.result != "same" and op.kind != "index" and (
            op.kind != "elementwise" or not simple or op.result == "bool"
            or (op.result == "float" and xa.dtype.kind not in "fc")):
        rt = result_dtype(op, xa, arrays)
        if rt != xa.dtype and not np.can_cast(rt, xa.dtype, "same_kind"):
            raise DTypeError(f"{op.name}_(): result type {rt} can't be cast to the desired "
                             f"output type {xa.dtype} of the tensor written in place")
    if not op.fill and internal_overlap(xa):
        raise OverlapError(
            f"{op.name}_(): unsupported operation: more than one element of the written-to "
            f"tensor refers to a single memory location (an expanded tensor or overlapping "
            f"as_strided windows, shape {list(shape)}, strides {list(xa.strides)}). Please "
            f"clone() the tensor before performing the operation.")


def result_dtype(op, xa, arrays):
    """The dtype an element-wise op's result would have, without computing it."""
    if op.result == "bool":
        return np.dtype(bool)
    same = True
    for a in arrays[1:]:
        d = getattr(a, "dtype", None)
        if d is None:
            if a is None or isinstance(a, (slice, str)):
                continue
            same = same and (isinstance(a, (bool, int)) or xa.dtype.kind in "fc") and not (
                isinstance(a, complex) and xa.dtype.kind != "c")
        elif d != xa.dtype:
            same = False
    # dtypes, not arrays: the same promotion (NumPy 2), and no backend array reaches NumPy
    rt = xa.dtype if same else np.result_type(*[getattr(a, "dtype", a) for a in arrays
                                                if a is not None
                                                and not isinstance(a, (slice, str))])
    if op.result == "float" and rt.kind not in "fc":
        rt = np.dtype(dtypes.default_float.np)   # Note [Float results of integer inputs]
    return rt




# --------------------------------------------------------------------------------------------
# Ops over a variable number of inputs (cat, stack, einsum)


class VarNode(Node):
    """Backward node of a variadic op: one gradient function returns every input's gradient."""

    __slots__ = ("attrs", "dtypes", "shapes", "xp")
    op = None

    def apply(self, g, into=None):
        op = self.op
        if op.saves_inputs:
            xs = [self.unpack(i) for i in range(len(self.next))]
        else:
            xs = self.shapes
        grads = op.grad(g, xs, xp=self.xp, **self.attrs)
        res = []
        for e, gi, s, d in zip(self.next, grads, self.shapes, self.dtypes):
            if e is None or gi is None:
                res.append(None)
                continue
            gi = fit(self.xp, gi, s, d)
            res.append(gi.copy() if op.saves_inputs and _held(gi, xs) else gi)
        return res


class VarOp:
    def __init__(self, name, fwd, grad, saves_inputs):
        self.name = name
        self.fwd = fwd
        self.grad = grad
        self.saves_inputs = saves_inputs
        self.node_cls = type(_camel(name) + "Backward", (VarNode,), {"__slots__": (), "op": self})


def defvar(name, fwd, grad, saves_inputs=False):
    """Declare an op over a list of tensors: ``fwd(xp, arrays, **attrs)``, and
    ``grad(g, xs, xp, **attrs)`` returning one gradient per input, where ``xs`` is the saved
    input arrays (``saves_inputs``) or their shapes."""
    op = VarOp(name, fwd, grad, saves_inputs)
    OPS[name] = op
    return op


def call_var(op, inputs, attrs):
    """Run a variadic op over ``inputs`` (tensors or array-likes)."""
    x0 = next((t for t in inputs if isinstance(t, Tensor)), None)
    xp = x0._place.xp if x0 is not None else np
    rg = False
    arrays = []
    for t in inputs:
        if isinstance(t, Tensor):
            if t._base is not None:
                _refresh(t)
                rg = rg or t._base._rg   # Note [Views without history]
            rg = rg or t._rg
            if t._place is not x0._place:
                from ..places import check_same
                raise check_same(op.name, x0._place, t._place)
            arrays.append(t._data)
        else:
            arrays.append(xp.asarray(t))
    try:
        result = _wrap(op.fwd(xp, arrays, **attrs), x0)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, arrays, e) from None
    if rg and _state.enabled:
        edges = tuple((t.grad_fn or t) if isinstance(t, Tensor) and t._rg else None
                      for t in inputs)
        saved = None
        if op.saves_inputs:
            saved = {i: save(t) if isinstance(t, Tensor) else a
                     for i, (t, a) in enumerate(zip(inputs, arrays))}
        node = op.node_cls(edges, saved)
        node.attrs = attrs
        node.xp = xp
        node.shapes = tuple(a.shape for a in arrays)
        node.dtypes = tuple(a.dtype for a in arrays)
        result.grad_fn = node
        result._rg = True
    return result


# --------------------------------------------------------------------------------------------
# Public forms


def defop(name, fwd, grad=None, kind="elementwise", inplace=True, varargs=None, result=None,
          fill=False, method=True, node_name=None, aliases=(), keeps=(), copy_out=False,
          doc=None, example=None, ufunc=None):
    """Declare an op; returns the OpDef. See the module docstring.

    ``doc``: the one-line summary ``help()`` shows; ``example``: a runnable expression using
    ``mg`` (a default one is made from the op's kind when omitted); ``ufunc``: the NumPy ufunc
    equal to the forward with default attributes (Note [Ufunc fast path])."""
    op = OpDef(name, fwd, grad, kind, inplace, varargs, result, fill, node_name, keeps)
    op.doc = doc
    op.example = example
    if ufunc is not None:
        op.ufunc = ufunc
    op.copy_out = copy_out   # Note [Outputs copied on write] in autograd/saved.py
    OPS[name] = op
    op.function = _make_function(op, call)
    op.function.__name__ = op.function.__qualname__ = name
    op.inplace_function = None
    if inplace and op.takes_out:
        op.inplace_function = _make_function(op, call_inplace)
        op.inplace_function.__name__ = op.inplace_function.__qualname__ = name + "_"
    op.method = method
    op.aliases = aliases
    # Large results of element-wise ops may come from the buffer cache (Note [The buffer
    # cache]); an op whose forward treats ``out`` as holding ``x`` already must set False.
    op.pool = (kind == "elementwise" and op.takes_out and inplace and not fill
               and result in (None, "float"))
    return op


def _small_write(op, x, y):
    """``x.op_(y)`` for a small CPU tensor ``x`` and a tensor of its shape and dtype (or a Python
    scalar that keeps it), when nothing records, guards or refreshes (Note [The operator path]):
    the ufunc writes ``x`` directly. Returns whether it did; else ``call_inplace`` runs."""
    a = x._data
    if not (type(x) is Tensor and type(a) is _ndarray and x._base is None and not x._rg
            and a.nbytes < _cache.small_bytes and op.ufunc is not None and x._place is _CPU
            and x._counter.guards is None and a.flags.c_contiguous and a.flags.writeable):
        return False
    t = type(y)
    if t is Tensor:
        b = y._data
        if not (type(b) is _ndarray and y._base is None and not y._rg and b.shape == a.shape
                and b.dtype == a.dtype and y._place is _CPU):
            return False
    elif not (t is int or (t is float and a.dtype.kind in "fc")):
        return False
    else:
        b = y
    try:
        op.ufunc(a, b, out=a)   # Note [Ufunc fast path] in ops/fastpath.py
    except (ValueError, TypeError):
        return False   # nothing written: call_inplace raises the usual error
    x._counter.bump(op.iname)
    return True


def _make_function(op, runner):
    n = op.n_in
    defaults = op.defaults
    takes_out = op.takes_out and runner is call
    small = runner is call_inplace and n == 2 and op.kind == "elementwise"
    out_of_place = runner is call

    def fn(*args, **kw):
        if len(args) == n and not kw:
            if small and type(args[0]) is Tensor and not args[0]._rg and _small_write(
                    op, args[0], args[1]):
                return args[0]
            if (out_of_place and _getrc(args[0]) == _DEAD_ARGS - 1 and op.pool
                    and _unshared(args[0], _DEAD_ARGS)):
                return call(op, args, defaults, args[0])   # Note [Dead temporaries]
            return runner(op, args, defaults)
        out = kw.pop("out", None) if takes_out else None
        inputs, attrs = op.bind(args, kw)
        if out is not None:
            return write_out(op, inputs, attrs, out)
        return runner(op, inputs, attrs)
    fn.__doc__ = f"``{op.name}`` (declared in mutograd.ops; see docs/ops.md)."
    return fn


def write_out(op, inputs, attrs, out):
    """``op(..., out=t)``: compute, then write into ``t`` (a write: it bumps t's version)."""
    if _state.enabled and any(isinstance(t, Tensor) and t._rg for t in inputs):
        raise InplaceError(f"{op.name}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires grad")
    result = call(op, inputs, attrs)
    if result._place is not out._place:
        from ..places import check_same
        raise check_same(op.name, result._place, out._place)
    if tuple(out.shape) != tuple(result.shape):
        raise ShapeError(f"{op.name}(): out= has shape {list(out.shape)} but the result has "
                         f"shape {list(result.shape)}")
    rt, ot = result._data.dtype, out._data.dtype
    if rt != ot and not np.can_cast(rt, ot, "same_kind"):
        raise DTypeError(f"{op.name}(): result type {rt} can't be cast to the desired output "
                         f"type {ot} of out=")
    check_leaf(out, op.name + "(out=)")
    if out._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
        before_write(out, None, op.name + "(out=)")
    out._data[...] = result._data
    out._counter.bump(op.name + "(out=)")
    return out
