"""The op runner: every declared op, out of place or in place, runs through :func:`run`.

``run(op, inputs, attrs, target=None)`` gathers the inputs' arrays, reconciles places, applies
the in-place rules when it writes ``target`` (autograd/inplace.py), runs the forward (the ufunc
fast path, a forward that keeps values for its gradient, or the plain forward; into a buffer of
the cache or a dead temporary when that is safe), wraps the result (a new tensor, a view of the
first input, or ``target`` itself with its version bumped) and records the backward node. The
operators (:func:`binary`) and small in-place writes (:func:`small_write`) take shorter roads
that end in ``run`` for anything they do not handle (Note [The operator path]). Ops over a list
of tensors and storage swaps have paths of their own (``op.runner``).
"""
import numbers
import weakref

import numpy as np

from .. import memory, parallel
from ..errors import (DTypeError, GatherIndexError, IndexRangeError, MutogradError, ShapeError)
from ..dtypes import SCALAR_TYPE_NAMES
from ..memory import Storage as _Storage
from ..memory import _cache
from ..places import CPU as _CPU
from ..tensor import Tensor, _alias, _fresh, _wrap, result_class
from . import temporaries
from .grad_mode import _state
from .inplace import check_leaf, check_no_grad, prepare_write
from .promotion import _promote
from .node import VersionCounter as _VersionCounter
from .node import accumulator, edge_of, save, save_copy
from .saved import before_write, save_output
from .view_write import rebase

_ndarray = np.ndarray
_new = object.__new__
_F64 = np.dtype("float64")
_SCALARS = (int, float, bool, complex)
_getrc = temporaries._getrc


def run(op, inputs, attrs, target=None, dead=None):
    """Run ``op`` on ``inputs`` with attributes ``attrs``; record its backward node when an input
    requires grad and grad mode is on.

    ``target``: the tensor an in-place form writes (its first input), returned itself
    (``y is x``). ``dead``: the first input, when its entry point found it a dead temporary
    (Note [Dead temporaries] in autograd/temporaries.py); its buffer may then hold the result.
    """
    if op.runner:   # an op kind with a path of its own: variadic ops, storage swaps
        return op.runner(op, inputs, attrs, target)
    rg = False
    arrays = []
    x0 = target
    mixed = False
    # Note [Type promotion] in autograd/promotion.py: a 0-d tensor or a Python number (weak), or
    # tensors of different dtypes (``dt`` is the first one's), call for PyTorch's result type
    weak = False
    dt = None
    cls = Tensor   # the result's type: Note [Tensor types of the dialects] in tensor.py
    for t in inputs:
        if isinstance(t, Tensor):
            if cls is Tensor:
                cls = t._result_class
            if t._base is not None:
                _refresh(t)
                if t._base._rg:   # Note [Views without history]
                    rg = True
            if t._rg:
                rg = True
            if x0 is None:
                x0 = t
            elif t._place is not x0._place:
                mixed = True
            a = t._data
            if not a.ndim:
                weak = True
            if dt is None:
                dt = a.dtype
            elif a.dtype is not dt:
                weak = True
            arrays.append(a)
        elif type(t) is float:
            weak = True
            arrays.append(t)
        elif type(t) is int:   # NumPy keeps it weak, as PyTorch does
            arrays.append(t)
        else:
            weak = True
            arrays.append(_as_array(np, t))
    if target is not None and op.kind == "view":
        return _restride(op, target, attrs)
    if op.same_dtype and cls._same_dtype_operands:
        _check_same_dtype(op, arrays)
    zero_weak = True
    if weak and op.meets and cls._operand_rule is not None:   # before anything is written
        zero_weak = cls._operand_rule(op, arrays, target is not None)
    if mixed:
        x0, inputs = _one_place(op, inputs, arrays, target)
    xp = x0._place.xp if x0 is not None else np
    if xp is not np:   # array-likes given with device tensors go to the device
        for i, a in enumerate(arrays):
            if type(a) is np.ndarray and not isinstance(inputs[i], Tensor):
                arrays[i] = xp.asarray(a)
    enabled = _state.enabled
    buf = raw = None
    if target is not None:
        record, copies = prepare_write(op, target, inputs, arrays, rg, enabled)
        if target._counter.guards:   # Note [Mutation of saved tensors] in autograd/saved.py
            before_write(target, attrs[op.region] if op.region else None, op.iname)
        args = arrays
        buf = target._data
    else:
        record = rg and op.differentiable and enabled
        copies = None
        # Note [Type promotion]; the node keeps the inputs' dtypes
        args = _promote(arrays, op.operands, zero_weak) if weak and op.promotes else arrays
        if op.pool and xp is np and inputs[0] is x0 and x0._data.nbytes >= _cache.min_bytes:
            buf, raw = _pooled_buffer(op, inputs, args, dead, rg)
    out, kept = _forward(op, xp, args, attrs, buf, record, x0)
    if (op.elementwise and op.layout is None and buf is None and target is None
            and type(out) is _ndarray and out.ndim > 1):   # Note [Result layouts]: the
        out = first_layout(arrays[0], arrays, out)   # operands' layouts before a promotion
    if target is not None:
        target._counter.bump(op.iname)
        result = target
    elif raw is not None or buf is not None:
        result = _pooled_result(out, buf, raw, x0, dead)
    elif op.kind == "view":
        result = _view_result(op, x0, out, attrs)
    else:
        result = _wrap(out, x0)
    if cls is not Tensor and type(result) is not cls and result is not target:
        result.__class__ = cls   # a main tensor first, a dialect's tensor after it
    if record:
        if kept:
            copies = dict(copies or {}, **kept)
        node = _record(op, inputs, arrays, result, attrs, xp, copies)
        if target is not None:
            rebase(target, node)
        else:
            result.grad_fn = node
            result._rg = True
    return result


def first_layout(a, operands, out):
    """Element-wise result ``out`` (a NumPy array) laid out as its first operand ``a`` when
    ``a`` has the result's shape and its layout disagrees with another operand's (NumPy falls
    back to C order), or two of its strides tie or one is 0 (NumPy orders those dimensions
    otherwise): PyTorch's rule (Note [Result layouts] in ops/registry.py). Costs a copy in
    those cases only."""
    if type(a) is not _ndarray or out.shape != a.shape or a.flags.c_contiguous:
        return out
    st = a.strides
    for b in operands:
        if b is not a and type(b) is _ndarray and b.ndim > 1 and b.strides != st:
            break
    else:   # one layout: NumPy's order "K" is PyTorch's unless two strides tie or one is 0
        if 0 not in st and len(set(st)) == len(st):
            return out
    laid = memory.empty_preserving(np, a, out.dtype)   # a's order of strides
    if laid.strides == out.strides:
        return out
    laid[...] = out
    return laid


def _check_same_dtype(op, arrays):
    """The operands of a matrix product or convolution share a dtype, in a dialect that does not
    promote them (PyTorch's rule; NumPy would promote a float32 weight to a float64 input)."""
    dtypes = [a.dtype for a in arrays if isinstance(a, _ndarray) or hasattr(a, "dtype")]
    if any(d != dtypes[0] for d in dtypes):
        names = " and ".join(SCALAR_TYPE_NAMES.get(d.name, d.name) for d in dtypes)
        what = "mat1 and mat2" if op.kind == "matmul" else "input and weight"
        raise DTypeError(f"{op.name}(): {what} must have the same dtype, but got {names}; "
                         f"convert one with .to(dtype) (PyTorch does not promote here)")


def write(op, inputs, attrs):
    """Run ``op`` writing into its first input, which must be a tensor; returns that tensor."""
    x = inputs[0]
    if not isinstance(x, Tensor):
        raise TypeError(f"{op.name}_() writes into its first argument, which must be a Tensor, "
                        f"not {type(x).__name__}")
    return run(op, inputs, attrs, x)


def _restride(op, x, attrs):
    """``x`` given the geometry of view op ``op`` applied to it, in place (``t_``, ``reshape_``).

    Note [Metadata in place]
        No value changes, but the version counter is bumped as for every write (design.md rule
        9, as PyTorch and Paddle do): a node that saved the tensor refuses to run after its
        geometry changed. What changes is the shape the tensor's gradient has, so when the
        tensor is part of a graph its ``grad_fn`` is rebased onto the view op's node
        (``TBackward``, ``ReshapeBackward``, ...) whose edge is the old ``grad_fn``; this is
        done even under ``no_grad()``, because the existing history must keep matching the
        tensor's shape. A view's ``_view_chain`` grows by the op. A base keeps a log of the
        steps that undo the change (``_geom_log``, from the declaration's ``undo``), so that
        views made *before* the change still replay from the base's current geometry (see
        ``Tensor._view_chain``). The leaf rule applies as for every in-place op (PyTorch and
        Paddle refuse ``t_()``/``reshape_()`` on a leaf that requires grad), and a reshape that
        would need a copy is refused: an in-place reshape keeps the storage. ``retain_grad()``
        stays with the old node, as in PyTorch: ``.grad`` keeps the shape the tensor had when
        it was retained.
    """
    if _state.enabled:
        check_leaf(x, op.iname)
    xp = x._place.xp
    old = x._data
    try:
        arr = op.fwd(xp, old, **attrs)
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, [old], e) from None
    if arr.size and not xp.may_share_memory(arr, old):
        raise ShapeError(
            f"{op.iname}(): the shape {list(arr.shape)} is not compatible with the tensor's "
            f"strides {list(x.stride())} (shape {list(old.shape)}); an in-place reshape keeps "
            f"the storage. Use reshape() (which copies) or call contiguous() first.")
    if x._counter.guards:   # no saved value changes (Note [Mutation of saved tensors])
        before_write(x, None, op.iname, data=False)
    node = None
    if x._rg and x.grad_fn is not None:
        node = _record(op, [x], [old], x, attrs, xp, None)
    x._data = arr
    if node is not None:
        x.grad_fn = node
    if x._base is not None:
        x._view_chain = x._view_chain + ((op, attrs),)
    else:
        x.__dict__.setdefault("_geom_log", []).append(op.undo(old, attrs))
    x._counter.bump(op.iname)
    if node is not None and x._base is not None:
        x._view_version = x._counter.value   # its history is the node above (hooks stay on)
    return x


def swap_storage(op, inputs, attrs, x):
    """``run`` for a storage swap (``kind="storage"``: ``set_``, ``resize_``, ``cast_``): ``x``
    gets the array the declaration's forward returns, which may look into another buffer.

    Note [Storage-changing writes]
        The forward, ``fwd(xp, x, ..., **attrs)``, takes the tensors themselves and returns the
        array ``x`` becomes and the tensor whose storage that array looks into: ``x`` itself (a
        new shape or dtype over the same buffer), another tensor (``set_``: ``x`` then shares
        its storage and version counter, so a write through either is seen by autograd,
        design.md rule 7, and ``x`` leaves the graph, as ``source.detach()`` would be), or
        None for a new buffer (``cast_``, a growing ``resize_``): ``x`` then gets a fresh
        counter that continues from its old version, and views made before keep the old buffer.
        No node that saved the old buffer can see a wrong value: it is left as it was, so the
        saved-tensor guard is told the write changes no saved data. The version goes up in
        every case (design.md rule 9). An op without a gradient (``set_``, ``resize_``) refuses
        a tensor that requires grad while grad mode is on, instead of giving a fake gradient;
        one with a gradient (``cast_``: a cast back) records its node when it moves the values
        to a new buffer of a float dtype, and a result of another dtype leaves the graph.
    """
    enabled = _state.enabled
    if enabled:
        if not op.differentiable:
            check_no_grad(x, op.iname)
        check_leaf(x, op.iname)
    old = x._data
    arr, owner = op.fwd(x._place.xp, *inputs, **attrs)
    if owner is None:
        give_buffer(x, arr, op.iname)
    else:
        if x._counter.guards:   # no saved value changes (Note [Mutation of saved tensors])
            before_write(x, None, op.iname, data=False)
        x._counter.bump(op.iname)   # x's old aliases see x change
        x._data = arr
        if owner is not x:
            x._storage = owner._storage
            x._counter = owner._counter
            x._base = None
            if x.grad_fn is not None:   # the old history ends here
                x.grad_fn, x._rg = None, False
        return x
    if enabled and x._rg and op.differentiable:
        if arr.dtype.kind in "fc":   # the node's input edge is x's history before the swap
            x.grad_fn = _record(op, [x], [old], x, attrs, x._place.xp)
        else:
            x.grad_fn, x._rg = None, False
    return x


def give_buffer(x, arr, what):
    """Give ``x`` the new buffer ``arr`` (Note [Storage-changing writes])."""
    v = x._counter.value
    x._data = arr
    x._storage = memory.Storage(arr.nbytes, str(x._place))
    x._counter = _VersionCounter()
    x._counter.value = v
    x._counter.bump(what)


def _forward(op, xp, args, attrs, out, record, owner):
    """Run op's forward (into ``out`` when given): its ufunc when the attributes are the defaults
    on NumPy (Note [Ufunc fast path] in ops/registry.py; a large first input on all cores), a
    forward that keeps values when a node will be recorded, else the declared forward. Returns
    the result and the saved records of kept values (or None). A backend's complaint becomes
    our error naming the op, raised before anything is written."""
    try:
        if op.ufunc is not None and attrs is op.defaults and xp is np and not (
                op.float_result and getattr(args[0], "dtype", _F64).kind in "biu"):
            large = owner is not None and owner._data.nbytes >= parallel.MIN_BYTES
            if out is None:
                return (parallel.ufunc(op.ufunc, *args) if large else op.ufunc(*args)), None
            if large:
                return parallel.ufunc(op.ufunc, *args, out=out), None
            return op.ufunc(*args, out=out), None
        if op.keeps:
            return _keeping(op, xp, args, attrs, out, record, owner)
        if out is None:
            return op.fwd(xp, *args, **attrs), None
        return op.fwd(xp, *args, out=out, **attrs), None
    except (ValueError, TypeError, IndexError) as e:
        raise bad_input(op, args, e) from None
    except AttributeError as e:   # NumPy's object path for a None operand (arctan2 of None)
        if any(a is None for a in args):
            raise bad_input(op, args, TypeError(str(e))) from None
        raise
    except MemoryError as e:
        raise _out_of_memory(op, args, owner) from e


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
    # None: the forward found the value not needed this time (the gradient does without it)
    return r, {k: None if a is None else save_copy(a, memory.Storage(a.nbytes, place))
               for k, a in keep.items()}


def _pooled_buffer(op, inputs, arrays, dead, rg):
    """The buffer a large element-wise result is computed into, and the cache's raw buffer
    behind it (None when the buffer is ``dead``'s own); ``(None, None)`` to let the forward
    allocate.

    Note [The buffer cache] in memory.py. Taken only when the result's shape and dtype are
    known without computing it: a float first input, every other input either an array of the
    same dtype or a Python scalar (which does not change a float dtype), shapes that broadcast.
    """
    xa = arrays[0]
    dtype = xa.dtype
    shape = xa.shape
    # C-contiguous inputs only: NumPy lays a result out like its inputs (a permuted input gives
    # a permuted result, as in PyTorch), and a buffer from the cache is C-ordered
    if type(xa) is not np.ndarray or dtype.kind != "f" or not xa.flags.c_contiguous:
        return None, None
    for a in arrays[1:]:
        if type(a) is np.ndarray:
            if a.dtype != dtype or not a.flags.c_contiguous:
                return None, None
            if a.shape != shape:
                try:
                    shape = np.broadcast_shapes(shape, a.shape)
                except ValueError:
                    return None, None   # the forward raises the error
        elif type(a) not in (int, float, bool) and a is not None:   # None: clamp's open bound
            return None, None
    if dead is not None and shape == xa.shape and temporaries.reusable(op, dead, inputs, xa, rg):
        return xa, None            # Note [Dead temporaries]
    return memory.take(shape, dtype)


def _pooled_result(out, buf, raw, x0, dead):
    """The tensor holding a result computed into ``buf`` (see ``_pooled_buffer``)."""
    if raw is None and out is buf:    # the dead temporary's buffer: the result takes over its
        # counted storage (and cache buffer); nothing allocated
        return _fresh(out, dead._storage, _VersionCounter(), dead._result_class)
    result = _wrap(out, x0)
    if out is not buf:            # a forward that returned another array: keep the buffer
        if raw is not None:
            memory._give_back(raw)
    elif raw is not None:
        result._storage.buf = raw     # back to the cache when the result's storage dies
    return result


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


def bad_input(op, arrays, e):
    """Our error class for a backend's complaint about shapes or dtypes (else ``e`` itself)."""
    if isinstance(e, MutogradError):
        return e
    if isinstance(e, IndexError):   # a backend's axis or index out of range
        error = GatherIndexError if op.name == "gather" or op.name.startswith("scatter") else \
            IndexRangeError   # (a RuntimeError there, as PyTorch's)
        return error(f"{op.name}(): {e}")
    if isinstance(e, TypeError) and any(a is None for a in arrays):   # None for a tensor
        i = next(i for i, a in enumerate(arrays) if a is None)
        return TypeError(f"{op.name}(): argument {i + 1} must be a Tensor or a number, not "
                         f"None")
    shapes = ", ".join(str(list(getattr(a, "shape", ()))) for a in arrays
                       if hasattr(a, "shape"))
    if isinstance(e, ValueError):
        if "could not be broadcast" in str(e):
            return ShapeError(f"{op.name}(): the shapes {shapes} do not broadcast")
        if "mismatch in its core dimension" in str(e) and op.kind == "matmul":
            dims = " and ".join("x".join(map(str, a.shape)) for a in arrays
                                if hasattr(a, "shape"))
            return ShapeError(f"{op.name}(): mat1 and mat2 shapes cannot be multiplied ({dims}): "
                              f"the last dimension of the first must equal the second's "
                              f"first (matrix) dimension")
        return ShapeError(f"{op.name}(): {e} (input shapes {shapes})")
    msg = str(e)
    if "not supported for the input types" in msg or "Cannot cast" in msg:
        kinds = ", ".join(str(a.dtype) for a in arrays if hasattr(a, "dtype"))
        return DTypeError(f"{op.name}(): {msg} (input dtypes {kinds})")
    return e


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
    if not _state.enabled or "_nograd_view" in x.__dict__:
        v.__dict__["_nograd_view"] = True   # Note [Views without history] in tensor.py
        if v._base._rg:   # Note [Leaves made after they were saved] in autograd/node.py
            counter = x._counter
            if counter.nograd_views is None:
                counter.nograd_views = weakref.WeakSet()
            counter.nograd_views.add(v)
    v._view_chain = (x._view_chain if x._base is not None else ()) + ((op, attrs),)
    v._view_version = x._counter.value
    v._base_arr = v._base._data   # the base's layout now (Note [Views and their history])
    return v


def _record(op, inputs, arrays, result, attrs, xp, copies=None):
    """Attach op's backward node to ``result``; ``copies``: input index -> saved copy taken
    before an in-place write (Note [In-place saving]), and name -> saved value kept by the
    forward (Note [Values kept from the forward])."""
    if (len(inputs) == 2 and copies is None and not op.keeps and not op.wants_layout
            and not op.variadic and isinstance(inputs[0], Tensor)):
        y = inputs[1]
        if isinstance(y, Tensor) or type(y) is int or type(y) is float:   # two operands
            return _record_binary(op, inputs[0], y, arrays[0], arrays[1], result, None, attrs,
                                  xp)
    if op.variadic:   # one gradient function for all inputs; saves every input or none
        edges = [edge_of(t) if isinstance(t, Tensor) and t._rg else None for t in inputs]
        saved = None
        if op.saves_inputs:
            saved = {i: save(t) if isinstance(t, Tensor) else a
                     for i, (t, a) in enumerate(zip(inputs, arrays))}
    else:
        mask = 0
        edges = []
        grad_fns = op.grad_fns
        for i, t in enumerate(inputs):
            if isinstance(t, Tensor) and t._rg and grad_fns[i] is not None:
                edges.append(t.grad_fn or accumulator(t))
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


def _record_binary(op, x, y, a, b, result, old_x=None, attrs=None, xp=None):
    """The node of an op on two operands, a tensor ``x`` and a tensor or Python scalar ``y``
    with arrays (or the scalar) ``a`` and ``b``, nothing copied: what ``_record`` makes for
    them, written out (a loop over the inputs costs a recorded ``a * b`` a fifth more). The
    operator path calls it directly (Note [The operator path]). ``old_x``: for a write into
    ``x`` (:func:`small_write`), the history ``x`` had before it; the copy of its old values is
    taken here when the gradient needs them (Note [In-place saving]). ``attrs`` and ``xp``
    default to the op's defaults and the CPU's namespace (not numpy itself: inside vmap it is
    the batching one, func/layers.py, whose gradient formulas take batched gradients)."""
    if old_x is None and xp is None and (op.wants_layout or op.keeps):
        return _record(op, (x, y), (a, b), result, op.defaults, _CPU.xp)
    fx, fy = op.grad_fns[0], op.grad_fns[1]
    if old_x is not None:
        ex = old_x if fx is not None else None
    else:
        ex = (x.grad_fn or accumulator(x)) if x._rg and fx is not None else None
    tensor_y = type(y) is not int and type(y) is not float
    ey = (y.grad_fn or accumulator(y)) if tensor_y and y._rg and fy is not None else None
    mask = (ex is not None) | (ey is not None) << 1
    names = op.plans.get(mask)
    if names is None:
        names = op.plan(mask)
    saved = None
    if names:
        saved = {}
        index = op.index
        for name in names:
            if name == "out":   # Note [Outputs copied on write] in autograd/saved.py
                saved[name] = save_output(result) if op.copy_out else save(result)
            elif index[name] == 0:
                if old_x is None:
                    saved[name] = save(x)
                else:   # the values before the write (Note [In-place saving])
                    saved[name] = save_copy(a.copy(), _Storage(a.nbytes, "cpu"),
                                            x.__dict__.get("name"))
            else:
                saved[name] = save(y) if tensor_y else b
    # _record's tail written out: this is the per-op cost of a recorded a * b
    node = op.node_cls((ex, ey), saved)
    node.attrs = op.defaults if attrs is None else attrs
    node.xp = _CPU.xp if xp is None else xp
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


def run_variadic(op, inputs, attrs, target=None):
    """``run`` for an op over a list of tensors (cat, stack, einsum): one place for all."""
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
    cls = result_class(inputs)   # Note [Tensor types of the dialects] in tensor.py
    if type(result) is not cls:
        result.__class__ = cls
    if rg and op.differentiable and _state.enabled:
        result.grad_fn = _record(op, inputs, arrays, result, attrs, xp)
        result._rg = True
    return result


def binary(op):
    """``Tensor.__add__`` and the other binary operators of ``op``: Note [The operator path].

    Note [The operator path]
        ``a + b`` on two small CPU tensors is the most frequent call of a training loop's
        bookkeeping, and the generic ``call`` pays for what such a call never needs (views to
        refresh, places to reconcile, 0-d promotion, the buffer cache). The operator takes a
        shorter road when every one of those is known absent: both operands plain (not views)
        NumPy tensors of one dtype on the CPU with dimensions (a 0-d operand and mixed dtypes
        promote differently: Note [Type promotion] in autograd/promotion.py), or a
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
            cls = type(self)   # Note [Tensor types of the dialects] in tensor.py
            if cls is not Tensor:
                cls = self._result_class
            if t is Tensor or isinstance(other, Tensor):
                b = other._data
                ok = (type(b) is _ndarray and other._base is None and b.ndim
                      and b.dtype is a.dtype and b.nbytes < _cache.small_bytes
                      and other._place is _CPU)
                if cls is Tensor and t is not Tensor:
                    cls = other._result_class
            else:
                b = other
                ok = t is int or (t is float and a.dtype.kind in "fc")
            if ok and not (op.float_result and a.dtype.kind in "biu"):
                try:
                    out = op.ufunc(a, b)   # Note [Ufunc fast path] in ops/registry.py
                except (ValueError, TypeError):
                    return run(op, (self, other), d)   # raises our error
                if a.ndim > 1 and not a.flags.c_contiguous:
                    out = first_layout(a, (b,), out)   # Note [Result layouts]
                # tensor._fresh written out: the call would cost ~5% of a small op
                r = _new(cls)
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
        if foreign_operand(other):
            return NotImplemented   # Python then tries the other operand, or raises its TypeError
        if (_getrc(self) == temporaries.DEAD_OP - 1 and op.pool
                and temporaries.unshared(self, temporaries.DEAD_OP, 1)):
            return run(op, (self, other), d, None, self)   # Note [Dead temporaries]
        return run(op, (self, other), d)
    return operator


def foreign_operand(other):
    """Whether ``other`` is no operand of a tensor operator (None, a string, a dict, an object
    with no array interface): the operator returns NotImplemented, as PyTorch's do, so that
    ``None * t`` is Python's own TypeError and ``t == None`` is False."""
    return not isinstance(other, (Tensor, numbers.Number, np.ndarray, np.generic, list, tuple)) \
        and (other is None or isinstance(other, (str, bytes, dict, set, frozenset))
             or not any(hasattr(other, a) for a in (
                 "__array__", "__array_interface__", "__cuda_array_interface__", "__dlpack__")))


def small_write(op, x, y):
    """``x.op_(y)`` for a small CPU tensor ``x`` (not a view) and a tensor of its shape and
    dtype that owns its memory (or a Python scalar that keeps ``x``'s dtype), when nothing
    guards or refreshes (Note [The operator path]): the ufunc writes ``x`` directly. When ``x``
    has a history (a non-leaf) and grad mode is on, the write's node is recorded and becomes
    that history, as ``run`` does (design.md rules 5 and 6). Returns whether it wrote; else
    ``run`` writes, or raises the usual error (a leaf that requires grad, a view, aliasing)."""
    a = x._data
    if not (type(a) is _ndarray and x._base is None and a.nbytes < _cache.small_bytes
            and op.ufunc is not None and x._place is _CPU and x._counter.guards is None
            and a.flags.c_contiguous and a.flags.writeable):
        return False
    record = x._rg
    if record and (x.grad_fn is None or not _state.enabled or op.keeps or op.wants_layout
                   or not op.differentiable):
        return False   # a leaf (rule 4), a write without a gradient, or a forward that keeps
    t = type(y)
    if t is int or (t is float and a.dtype.kind in "fc"):
        b = y
    elif isinstance(y, Tensor):
        b = y._data
        if not (type(b) is _ndarray and y._base is None and b.shape == a.shape
                and b.dtype == a.dtype and y._place is _CPU and a.base is None
                and b.base is None and b is not a):   # two allocations of their own: no overlap
            return False
        record = record or (y._rg and _state.enabled)
    else:
        return False
    if record:
        old = x.grad_fn
        if old is None or "out" in op.plan(3):
            return False   # a constant written with a tensor that requires grad, or a node
            # that saves the result: run() records them
        node = _record_binary(op, x, y, a, b, x, old)   # before the write: x's old values
    try:
        op.ufunc(a, b, out=a)   # Note [Ufunc fast path] in ops/registry.py
    except (ValueError, TypeError):
        return False   # nothing written: ``run`` raises the usual error
    x._counter.bump(op.iname)
    if record:
        rebase(x, node)
    return True


def write_out(op, inputs, attrs, out):
    """``op(..., out=t)``: Note [Writing into out=] in autograd/out_arguments.py."""
    from .out_arguments import write_results
    return write_results(op.name, lambda: run(op, inputs, attrs), inputs, out)
